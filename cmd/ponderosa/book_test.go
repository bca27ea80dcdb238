package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/engine/book"
)

const bookSample = "../../engine/book/testdata/gnuchess-sample.bin"

func TestBookShow(t *testing.T) {
	code, out, errOut := runWith(t, nil, "book", "show", "-book", bookSample)
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"key      463b96181691fc9c", "13 moves", "e4       e2e4     12135   39.4%", "d4       d2d4     11257   36.6%"} {
		if !strings.Contains(out, want) {
			t.Errorf("start position: no %q in\n%s", want, out)
		}
	}
	// The same position by FEN, then moves in SAN and UCI mixed: castling
	// is shown as O-O / e1g1.
	code, out, _ = runWith(t, nil, "book", "show", "-book", bookSample,
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "KQkq", "-", "0", "1", "moves", "e2e4", "e5", "Nf3", "b8c6", "Bb5", "a6", "Ba4", "Nf6")
	if code != 0 || !strings.Contains(out, "O-O      e1g1") {
		t.Errorf("Ruy Lopez: code %d\n%s", code, out)
	}
	// Out of book: no moves, still success.
	code, out, _ = runWith(t, nil, "book", "show", "-book", bookSample, "a3", "h6", "a4", "h5")
	if code != 0 || !strings.Contains(out, ": 0 moves") {
		t.Errorf("out of book: code %d\n%s", code, out)
	}
	if code, _, errOut := runWith(t, nil, "book", "show", "-book", bookSample, "e5"); code != exitUsage || !strings.Contains(errOut, `move "e5"`) {
		t.Errorf("illegal move: code %d, %s", code, errOut)
	}
	if code, _, _ := runWith(t, nil, "book", "show"); code != exitUsage {
		t.Errorf("no -book: code %d", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(bad, make([]byte, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runWith(t, nil, "book", "show", "-book", bad); code != 1 || !strings.Contains(errOut, bad) {
		t.Errorf("truncated book: code %d, %s", code, errOut)
	}
	if code, _, _ := runWith(t, nil, "book", "frob"); code != exitUsage {
		t.Errorf("unknown subcommand: code %d", code)
	}
}

func TestBookMake(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "games.pgn")
	games := `[Result "1-0"]
1. e4 e5 2. Nf3 Nc6 1-0

[Result "1/2-1/2"]
1. e4 c5 {Sicilian} 2. Nf3 1/2-1/2

[Result "0-1"]
1. d4 d5 0-1

[Result "1-0"]
1. e4 Ke6 1-0
`
	if err := os.WriteFile(pgn, []byte(games), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	code, stdout, stderr := runWith(t, nil, "book", "make", "-o", out, "-max-ply", "2", pgn)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "4 games read, 3 counted") || !strings.Contains(stderr, "skipped") {
		t.Errorf("summary:\n%s\n%s", stdout, stderr)
	}
	b, err := book.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	// e4: a win and a draw → 3; d4 lost → left out.
	code, stdout, _ = runWith(t, nil, "book", "show", "-book", out)
	if code != 0 || !strings.Contains(stdout, "e4       e2e4         3  100.0%") || strings.Contains(stdout, "d2d4") {
		t.Errorf("made book, start:\n%s", stdout)
	}
	// max-ply 2: nothing after 1. e4 e5.
	code, stdout, _ = runWith(t, nil, "book", "show", "-book", out, "e4", "e5")
	if code != 0 || !strings.Contains(stdout, ": 0 moves") {
		t.Errorf("made book after 1. e4 e5:\n%s", stdout)
	}
	if b.Len() != 3 { // e4 (3), c5 (1) and d5 (2); e5 and d4 never scored, Nf3 is ply 3
		t.Errorf("%d entries, want 3", b.Len())
	}
	if code, _, stderr := runWith(t, nil, "book", "make", "-o", filepath.Join(dir, "none.bin"), "-min-games", "5", pgn); code != 1 || !strings.Contains(stderr, "no book written") {
		t.Errorf("nothing kept: code %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.bin")); err == nil {
		t.Error("an empty book was written")
	}
	if code, _, _ := runWith(t, nil, "book", "make", pgn); code != exitUsage {
		t.Errorf("no -o: code %d", code)
	}
	if code, _, _ := runWith(t, nil, "book", "make", "-o", out, "-min-score", "2", pgn); code != exitUsage {
		t.Errorf("-min-score 2: code %d", code)
	}
	if code, _, stderr := runWith(t, nil, "book", "make", "-o", out, filepath.Join(dir, "missing.pgn")); code != 1 || !strings.Contains(stderr, "missing.pgn") {
		t.Errorf("missing PGN: code %d, %s", code, stderr)
	}
}

// A game whose comment is never closed is reported as bad and skipped, and
// the games after it are counted.
func TestBookMakeUnclosedComment(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "games.pgn")
	games := `[Result "1-0"]

1. e4 {never closed e5 1-0

[Result "0-1"]

1. d4 d5 0-1

[Result "0-1"]

1. d4 Nf6 0-1
`
	if err := os.WriteFile(pgn, []byte(games), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	code, stdout, stderr := runWith(t, nil, "book", "make", "-o", out, pgn)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "3 games read, 2 counted, 0 without a result or of another variant, 1 bad") ||
		!strings.Contains(stderr, "game at line 1: a { comment opened at line 3 is cut off by the tag section at line 5") {
		t.Errorf("summary:\n%s\n%s", stdout, stderr)
	}
	code, stdout, _ = runWith(t, nil, "book", "show", "-book", out, "d4")
	if code != 0 || !strings.Contains(stdout, "Nf6      g8f6         2") || !strings.Contains(stdout, "d5       d7d5         2") {
		t.Errorf("the games after the broken one:\n%s", stdout)
	}
}

// engine.book reaches the built-in player: a standard game plays the
// book's move at once, without a search or a score; a Chess960 game, for
// which no book is given, searches.
func TestPlayerFactoryBook(t *testing.T) {
	abs, err := filepath.Abs(bookSample)
	if err != nil {
		t.Fatal(err)
	}
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n  book:\n    files: {standard: ["+abs+"]}\n    selection: best_move\n")
	f, err := playerFactory(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	think := func(gi client.GameInfo) client.Choice { t.Helper(); return thinkFirst(t, f, gi) }
	if c := think(client.GameInfo{ID: "std", White: true, Variant: "standard"}); c.Move != "e2e4" || c.HasScore || c.Depth != 0 || c.Nodes != 0 {
		t.Errorf("standard game: %+v, want the book's best move e2e4 without a search", c)
	}
	c := think(client.GameInfo{ID: "960", White: true, Variant: "chess960", Chess960: true,
		InitialFEN: "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"})
	if !c.HasScore || c.Nodes == 0 {
		t.Errorf("chess960 game without a chess960 book: %+v, want a search", c)
	}
	cfg.Engine.Book.Files = map[string][]string{"standard": {filepath.Join(t.TempDir(), "gone.bin")}}
	if _, err := playerFactory(cfg, discardLogger(), nil); err == nil || !strings.Contains(err.Error(), "gone.bin") {
		t.Errorf("missing book: %v", err)
	}
}

// check-config names a book it cannot read.
func TestCheckConfigBadBook(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(bad, make([]byte, 17), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runWith(t, nil, "check-config", "-config", writeConfig(t, "engine:\n  book:\n    files: {standard: ["+bad+"]}\n"))
	if code == 0 || !strings.Contains(stderr, "engine.book.files.standard[0]") || !strings.Contains(stderr, bad) {
		t.Errorf("code %d, stderr %s", code, stderr)
	}
}
