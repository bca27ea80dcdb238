package uci

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

const sampleBookPath = "../engine/book/testdata/gnuchess-sample.bin"

// bookMoves returns the UCI moves of the sample book after the moves.
func bookMoves(t *testing.T, moves ...string) map[string]bool {
	t.Helper()
	b, err := book.Open(sampleBookPath)
	if err != nil {
		t.Fatal(err)
	}
	pos := testsupport.MustFEN(t, board.StartFEN, moves...)
	out := map[string]bool{}
	for _, m := range b.Moves(pos) {
		out[pos.MoveToUCI(m.Move)] = true
	}
	return out
}

// searched reports whether lines hold an info line of a search (a depth).
func searched(lines []string) bool {
	for _, l := range lines {
		if in, ok := ParseInfo(l); ok && in.Depth > 0 {
			return true
		}
	}
	return false
}

// With OwnBook and BookFile, "go" in a book position answers a book move at
// once, without a search (the stats line says source=book); out of the
// book, and with OwnBook off, it searches.
func TestEngineOwnBook(t *testing.T) {
	c, b := startEngine(t)
	// A fixed seed: the sample holds the book's main lines only, and some
	// random lines leave it within 4 plies (then the engine searches).
	b.seedSource = func() int64 { return 1 }
	c.send("setoption name BookFile value "+sampleBookPath, "setoption name OwnBook value true", "isready")
	if lines := c.untilLine("readyok"); len(lines) != 1 {
		t.Fatalf("setoption: %q", lines)
	}
	line := []string{}
	for ply := range 4 {
		c.send("position startpos moves "+strings.Join(line, " "), "go wtime 60000 btime 60000")
		lines := c.untilPrefix("bestmove")
		best, _ := bestmove(t, lastLine(lines))
		if !bookMoves(t, line...)[best] {
			t.Fatalf("ply %d: %s is not a book move after %v", ply, best, line)
		}
		if searched(lines) || !strings.Contains(strings.Join(lines, "\n"), "source=book") {
			t.Errorf("ply %d: not a book answer:\n%s", ply, strings.Join(lines, "\n"))
		}
		line = append(line, best)
	}
	// Out of the book.
	c.send("position startpos moves a2a3 h7h6 h2h3 a7a6", "go depth 2")
	if lines := c.untilPrefix("bestmove"); !searched(lines) {
		t.Errorf("out of book: no search:\n%s", strings.Join(lines, "\n"))
	}
	// OwnBook off: the start position is searched.
	c.send("setoption name OwnBook value false", "position startpos", "go depth 2")
	if lines := c.untilPrefix("bestmove"); !searched(lines) {
		t.Errorf("OwnBook off: no search:\n%s", strings.Join(lines, "\n"))
	}
}

// A BookFile that cannot be read is reported (naming the file) and the
// engine plays on without a book.
func TestEngineBadBookFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(bad, []byte("not a book"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := startEngine(t)
	c.send("setoption name OwnBook value true", "setoption name BookFile value "+bad, "isready")
	lines := c.untilLine("readyok")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: setoption BookFile") || !strings.Contains(lines[0], bad) {
		t.Errorf("bad book gave %q", lines)
	}
	c.send("position startpos", "go depth 2")
	if lines := c.untilPrefix("bestmove"); !searched(lines) {
		t.Errorf("no book: no search:\n%s", strings.Join(lines, "\n"))
	}
	// The good book then works.
	c.send("setoption name BookFile value "+sampleBookPath, "position startpos", "go depth 2")
	lines = c.untilPrefix("bestmove")
	if best, _ := bestmove(t, lastLine(lines)); searched(lines) || !bookMoves(t)[best] {
		t.Errorf("good book after a bad one:\n%s", strings.Join(lines, "\n"))
	}
}

// Each game made anew (here by setting Move Overhead) takes a fresh seed,
// so it does not replay the book line of the game it replaces; a fixed
// seed source replays it, move for move.
func TestEngineBookSeedPerReset(t *testing.T) {
	b := NewEngineBackend()
	t.Cleanup(b.Close)
	next := int64(0)
	b.seedSource = func() int64 { next++; return next }
	for _, o := range [][2]string{{OptBookFile, sampleBookPath}, {OptOwnBook, "true"}} {
		if err := b.SetOption(o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	lim := GoParams{GoLimits: GoLimits{WTime: time.Minute, BTime: time.Minute}}
	firstMoves := func(n int) map[string]int {
		t.Helper()
		seen := map[string]int{}
		for i := range n {
			if err := b.SetOption(OptMoveOverhead, strconv.Itoa(50+i)); err != nil {
				t.Fatal(err)
			}
			if err := b.SetPosition(board.StartFEN, nil); err != nil {
				t.Fatal(err)
			}
			best, _ := b.Go(context.Background(), lim, nil)
			if !bookMoves(t)[best] {
				t.Fatalf("%s is not a book move", best)
			}
			seen[best]++
		}
		return seen
	}
	before := next
	if seen := firstMoves(12); len(seen) < 2 {
		t.Errorf("12 games made anew all opened with the same book move: %v", seen)
	}
	if next-before != 12 {
		t.Errorf("%d seeds taken for 12 games made anew", next-before)
	}
	b.seedSource = func() int64 { return 7 }
	if seen := firstMoves(6); len(seen) != 1 {
		t.Errorf("a fixed seed gave different first moves: %v", seen)
	}
}

// A book move's bestmove has no ponder move, even when the tree knows a
// reply to it (here from a search through each book move).
func TestEngineBookMoveNoPonder(t *testing.T) {
	c, _ := startEngine(t)
	c.send("setoption name BookFile value "+sampleBookPath, "setoption name OwnBook value true")
	for m := range bookMoves(t) {
		c.send("position startpos", "go depth 3 searchmoves "+m)
		lines := c.untilPrefix("bestmove")
		if best, ponder := bestmove(t, lastLine(lines)); !searched(lines) || best != m || ponder == "" {
			t.Fatalf("search through %s:\n%s", m, strings.Join(lines, "\n"))
		}
	}
	c.send("position startpos", "go wtime 60000 btime 60000")
	lines := c.untilPrefix("bestmove")
	best, ponder := bestmove(t, lastLine(lines))
	if searched(lines) || !bookMoves(t)[best] {
		t.Fatalf("not a book move:\n%s", strings.Join(lines, "\n"))
	}
	if ponder != "" {
		t.Errorf("book move %s with ponder move %s", best, ponder)
	}
}

// bookWeights returns the UCI moves of the sample book after the moves,
// with their weights.
func bookWeights(t *testing.T, moves ...string) map[string]int {
	t.Helper()
	b, err := book.Open(sampleBookPath)
	if err != nil {
		t.Fatal(err)
	}
	pos := testsupport.MustFEN(t, board.StartFEN, moves...)
	out := map[string]int{}
	for _, m := range b.Moves(pos) {
		out[pos.MoveToUCI(m.Move)] = m.Weight
	}
	return out
}

// BookSelection, BookMinWeight and BookDepth choose the book's move as the
// daemon's engine.book selection, min_weight and max_depth do: best_move
// always plays the heaviest move, whatever the seed; a minimum weight
// above every move's leaves the position to the search, and one that
// leaves a single move plays it whatever the selection; the book is asked
// up to BookDepth plies and the search plays after.
func TestEngineBookSelectionOptions(t *testing.T) {
	weights := bookWeights(t)
	if len(weights) < 2 {
		t.Fatalf("the sample book has %d moves at the start", len(weights))
	}
	heaviest, top, second := "", 0, 0
	for m, w := range weights {
		switch {
		case w > top:
			heaviest, second, top = m, top, w
		case w > second:
			second = w
		}
	}
	if top == second {
		t.Fatalf("no single heaviest move at the start: %v", weights)
	}
	b := NewEngineBackend()
	t.Cleanup(b.Close)
	next := int64(0)
	b.seedSource = func() int64 { next++; return next }
	set := func(name, value string) {
		t.Helper()
		if err := b.SetOption(name, value); err != nil {
			t.Fatalf("setoption %s %s: %v", name, value, err)
		}
	}
	set(OptBookFile, sampleBookPath)
	set(OptOwnBook, "true")
	lim := GoParams{GoLimits: GoLimits{WTime: time.Minute, BTime: time.Minute}}
	play := func(moves ...string) (string, bool) {
		t.Helper()
		if err := b.SetPosition(board.StartFEN, moves); err != nil {
			t.Fatal(err)
		}
		var infos []Info
		best, _ := b.Go(context.Background(), GoParams{GoLimits: GoLimits{Depth: 2}}, func(in Info) { infos = append(infos, in) })
		searchedHere := false
		for _, in := range infos {
			searchedHere = searchedHere || in.Depth > 0
		}
		return best, searchedHere
	}

	// The default, weighted_random, plays more than one move over fresh
	// seeds; best_move plays the heaviest every time.
	seen := map[string]bool{}
	for i := range 12 {
		set(OptMoveOverhead, strconv.Itoa(50+i)) // a game made anew, a fresh seed
		if err := b.SetPosition(board.StartFEN, nil); err != nil {
			t.Fatal(err)
		}
		best, _ := b.Go(context.Background(), lim, nil)
		seen[best] = true
	}
	if len(seen) < 2 {
		t.Errorf("weighted_random over 12 seeds played only %v", seen)
	}
	set(OptBookSelection, "Best_Move") // combo values are case-insensitive
	for i := range 6 {
		set(OptMoveOverhead, strconv.Itoa(80+i))
		if best, searchedHere := play(); best != heaviest || searchedHere {
			t.Fatalf("best_move played %s (searched %v), want the heaviest %s of %v", best, searchedHere, heaviest, weights)
		}
	}

	// A minimum weight above the second move's leaves the heaviest alone,
	// even for uniform_random; above every move's, the search plays.
	set(OptBookSelection, "uniform_random")
	set(OptBookMinWeight, strconv.Itoa(second+1))
	for range 6 {
		if best, searchedHere := play(); best != heaviest || searchedHere {
			t.Fatalf("min weight %d: played %s (searched %v), want %s", second+1, best, searchedHere, heaviest)
		}
	}
	set(OptBookMinWeight, strconv.Itoa(top+1))
	if _, searchedHere := play(); !searchedHere {
		t.Errorf("min weight %d, above every move's: no search", top+1)
	}
	set(OptBookMinWeight, "0")

	// BookDepth 1: the first ply from the book, the second searched
	// (although the book knows the position).
	set(OptBookDepth, "1")
	first, searchedHere := play()
	if searchedHere || weights[first] == 0 {
		t.Fatalf("depth 1, ply 1: %s (searched %v), want a book move", first, searchedHere)
	}
	if len(bookWeights(t, first)) == 0 {
		t.Fatalf("the sample book has no reply to %s", first)
	}
	if _, searchedHere := play(first); !searchedHere {
		t.Errorf("depth 1, ply 2: the book answered")
	}
	set(OptBookDepth, "0")
	if reply, searchedHere := play(first); searchedHere || bookWeights(t, first)[reply] == 0 {
		t.Errorf("depth 0 (no limit), ply 2: %s (searched %v), want a book move", reply, searchedHere)
	}

	// Values out of range are refused.
	for _, o := range [][2]string{{OptBookSelection, "random"}, {OptBookMinWeight, "-1"}, {OptBookDepth, "100000"}} {
		if err := b.SetOption(o[0], o[1]); err == nil {
			t.Errorf("setoption %s %s: no error", o[0], o[1])
		}
	}
}
