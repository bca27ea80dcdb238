package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const syzygyTestdata = "../engine/syzygy/testdata"

// copyTables copies the named testdata tables into dir.
func copyTables(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(syzygyTestdata, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// engine.syzygy: directories relative to the config file, the fifty-move
// rule (default true), Open gives the tables, the summary names them.
func TestSyzygySettings(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "tb", "a")
	copyTables(t, a, "KRvK.rtbw", "KRvK.rtbz")
	abs, err := filepath.Abs(syzygyTestdata)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "bot.yaml")
	src := "engine:\n  syzygy:\n    paths: [tb/a, " + abs + "]\n    fifty_move_rule: false\n    probe_depth: 3\n    probe_limit: 4\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Engine.Syzygy.Paths; len(got) != 2 || got[0] != a || got[1] != abs {
		t.Errorf("paths %v", got)
	}
	if sz := c.Engine.Syzygy; sz.FiftyMoveRule || sz.ProbeDepth != 3 || sz.ProbeLimit != 4 {
		t.Errorf("settings read as %+v", sz)
	}
	if sz := Default().Engine.Syzygy; !sz.FiftyMoveRule || sz.ProbeDepth != 1 || sz.ProbeLimit != 7 {
		t.Errorf("defaults %+v", sz)
	}
	tb, err := c.Engine.Syzygy.Open()
	if err != nil || tb == nil || tb.MaxPieces() != 4 {
		t.Fatalf("Open: %v %v", tb, err)
	}
	tb.Close()
	if s := c.Summary(); !strings.Contains(s, "tablebases:  syzygy in "+a+", "+abs+" (fifty-move rule ignored)") {
		t.Errorf("summary:\n%s", s)
	}
	if s := Default().Summary(); !strings.Contains(s, "tablebases:  none") {
		t.Errorf("default summary:\n%s", s)
	}
	if tb, err := Default().Engine.Syzygy.Open(); tb != nil || err != nil {
		t.Errorf("no paths: %v %v", tb, err)
	}
}

// A missing directory or a corrupt table is a problem of the config,
// naming the key and the directory or file.
func TestSyzygySettingsErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	bad := filepath.Join(dir, "bad")
	copyTables(t, bad, "KRvK.rtbw")
	data, err := os.ReadFile(filepath.Join(bad, "KRvK.rtbw"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "KRvK.rtbw"), data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ src, want string }{
		{"paths: [" + missing + "]", "engine.syzygy.paths: opening syzygy directory: open " + missing},
		{"paths: [" + bad + "]", "engine.syzygy.paths: syzygy table " + filepath.Join(bad, "KRvK.rtbw") + ": corrupt table: truncated"},
		{"paths: [\"\"]", "engine.syzygy.paths[0]: empty"},
		{"probe_depth: 0", "engine.syzygy.probe_depth: must be between 1 and 100"},
		{"probe_limit: 8", "engine.syzygy.probe_limit: must be between 0 and 7"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte("engine:\n  syzygy:\n    "+tc.src+"\n"), "bot.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
	c := Default()
	c.Engine.Type = EngineExternal
	c.Engine.Syzygy.Paths = []string{syzygyTestdata}
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "engine.syzygy is used by the built-in engine only") {
		t.Errorf("warnings %q", w)
	}
	c.Engine.Syzygy.Paths = []string{bad}
	if _, err := c.Engine.Syzygy.Open(); err == nil || !strings.Contains(err.Error(), "engine.syzygy.paths") || !strings.Contains(err.Error(), bad) {
		t.Errorf("Open of a bad table: %v", err)
	}
}
