package book

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// fullBook returns the path of the whole gnuchess book: $PONDEROSA_GNUCHESS_BOOK,
// else shared/data/books/gnuchess-book.bin in a directory above this package
// (the shared data next to the checkout). The test is skipped when there is
// none.
func fullBook(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PONDEROSA_GNUCHESS_BOOK"); p != "" {
		return p
	}
	dir := ".."
	for range 6 {
		p := filepath.Join(dir, "shared", "data", "books", "gnuchess-book.bin")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Join(dir, "..")
	}
	t.Skip("the full gnuchess book is not here (set PONDEROSA_GNUCHESS_BOOK)")
	return ""
}

// samplePath is the part of the gnuchess book committed for the tests (see
// testdata/README.md).
const samplePath = "testdata/gnuchess-sample.bin"

// sampleLines are the opening lines whose positions the sample keeps, in
// addition to the tree of the first sampleWidth book moves (by weight) of
// every position up to sampleDepth plies.
var sampleLines = []string{
	"e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1h1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8h8",
	"e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
	"d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7 e2e3 e8h8",
	"d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6 g1f3 e8h8",
	"e2e4 e7e6 d2d4 d7d5 b1c3 g8f6 c1g5 f8e7 e4e5",
	"e2e4 c7c6 d2d4 d7d5 e4e5 c8f5",
}

const (
	sampleDepth = 4
	sampleWidth = 3
)

func splitMoves(s string) []string { return strings.Fields(s) }

// play returns the start position after the UCI moves in s.
func play(t testing.TB, s string) *board.Position {
	t.Helper()
	p := board.NewPosition()
	for _, u := range splitMoves(s) {
		m, err := p.ParseUCIMove(u)
		if err != nil {
			t.Fatalf("moves %q: %v", s, err)
		}
		p.MakeMove(m)
	}
	return p
}

// samplePositions returns the positions the sample is cut for, found in b
// (the full book when cutting, the sample when checking it).
func samplePositions(t testing.TB, b *Book) []*board.Position {
	t.Helper()
	var out []*board.Position
	seen := map[uint64]bool{}
	add := func(p *board.Position) {
		if k := Key(p); !seen[k] {
			seen[k] = true
			out = append(out, p.Clone())
		}
	}
	var walk func(p *board.Position, depth int)
	walk = func(p *board.Position, depth int) {
		add(p)
		if depth == sampleDepth {
			return
		}
		moves := b.Moves(p)
		slices.SortStableFunc(moves, func(a, c Move) int { return c.Weight - a.Weight })
		for _, m := range moves[:min(len(moves), sampleWidth)] {
			p.MakeMove(m.Move)
			walk(p, depth+1)
			p.UnmakeMove()
		}
	}
	walk(board.NewPosition(), 0)
	for _, line := range sampleLines {
		p := board.NewPosition()
		add(p)
		for _, u := range splitMoves(line) {
			m, err := p.ParseUCIMove(u)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			p.MakeMove(m)
			add(p)
		}
	}
	return out
}

// TestCutSample rewrites testdata/gnuchess-sample.bin from the full book. It
// runs only with PONDEROSA_CUT_BOOK_SAMPLE=1 (and the full book present).
func TestCutSample(t *testing.T) {
	if os.Getenv("PONDEROSA_CUT_BOOK_SAMPLE") != "1" {
		t.Skip("set PONDEROSA_CUT_BOOK_SAMPLE=1 to rewrite " + samplePath)
	}
	full, err := Open(fullBook(t))
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for _, p := range samplePositions(t, full) {
		entries = append(entries, full.Entries(Key(p))...)
	}
	slices.SortStableFunc(entries, func(a, b Entry) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	var buf bytes.Buffer
	if err := Write(&buf, entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.FromSlash(samplePath), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d entries", len(entries))
}
