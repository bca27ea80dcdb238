package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/book"
)

const sampleBook = "../engine/book/testdata/gnuchess-sample.bin"

// copyBook puts the sample book into dir under name.
func copyBook(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(sampleBook)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// engine.book: files per variant (relative to the config file), the
// selection, min_weight and max_depth reach engine/book; Open reads them.
func TestBookSettings(t *testing.T) {
	dir := t.TempDir()
	a := copyBook(t, dir, "books/a.bin")
	b := copyBook(t, dir, "b.bin")
	p := filepath.Join(dir, "bot.yaml")
	src := "engine:\n  book:\n    files:\n      standard: [books/a.bin, " + b + "]\n      chess960: [b.bin]\n" +
		"    selection: best_move\n    min_weight: 3\n    max_depth: 20\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Engine.Book.Files["standard"]; len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("standard books %v, want [%s %s]", got, a, b)
	}
	if got := c.Engine.Book.Files["chess960"]; len(got) != 1 || got[0] != b {
		t.Errorf("chess960 books %v", got)
	}
	if o := c.Engine.Book.Options(); o != (book.Options{Method: book.BestMove, MinWeight: 3, MaxDepth: 20}) {
		t.Errorf("options %+v", o)
	}
	books, err := c.Engine.Book.Open()
	if err != nil || len(books["standard"]) != 2 || len(books["chess960"]) != 1 || books["standard"][0].Name() != a {
		t.Errorf("Open: %v, %v", books, err)
	}
	if s := c.Summary(); !strings.Contains(s, "book:        chess960: "+b+"; standard: "+a+", "+b+" (best_move, min weight 3, up to ply 20)") {
		t.Errorf("summary:\n%s", s)
	}
	if s := Default().Summary(); !strings.Contains(s, "book:        none") {
		t.Errorf("default summary:\n%s", s)
	}
	if o := Default().Engine.Book.Options(); o.Method != book.WeightedRandom {
		t.Errorf("default selection %v", o.Method)
	}
}

// A missing, truncated or corrupt book is a problem of the config, naming
// the key and the file; so are a bad selection, variant or number.
func TestBookSettingsErrors(t *testing.T) {
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.bin")
	data, err := os.ReadFile(sampleBook)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truncated, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.bin")
	tests := []struct{ src, want string }{
		{"files: {standard: [" + truncated + "]}", "engine.book.files.standard[0]: book " + truncated + ": not a valid Polyglot book: size"},
		{"files: {standard: [" + sampleBook + ", " + missing + "]}", "engine.book.files.standard[1]: opening book: open " + missing},
		{"files: {atomic: [" + sampleBook + "]}", `engine.book.files.atomic: "atomic" is not one of standard, chess960`},
		{"files: {standard: [\"\"]}", "engine.book.files.standard[0]: empty"},
		{"selection: weighted", `engine.book.selection: "weighted" is not one of weighted_random, uniform_random, best_move`},
		{"min_weight: -1", "engine.book.min_weight: must be between 0 and 65535"},
		{"max_depth: -2", "engine.book.max_depth: must be between 0 and 10000"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte("engine:\n  book:\n    "+tc.src+"\n"), "bot.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
	c := Default()
	c.Engine.Type = EngineExternal
	c.Engine.Book.Files = map[string][]string{"standard": {sampleBook}}
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "engine.book is used by the built-in engine only") {
		t.Errorf("warnings %q", w)
	}
	c.Engine.Book.Files = map[string][]string{"standard": {missing}}
	if _, err := c.Engine.Book.Open(); err == nil || !strings.Contains(err.Error(), "engine.book.files.standard[0]") || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open of a missing book: %v", err)
	}
}
