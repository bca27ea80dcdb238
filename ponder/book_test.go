package ponder

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
)

func sampleBook(t *testing.T) *book.Book {
	t.Helper()
	b, err := book.Open("../engine/book/testdata/gnuchess-sample.bin")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inBook reports whether m is one of b's moves in the position after moves.
func inBook(t *testing.T, b *book.Book, moves []string, m string) bool {
	t.Helper()
	p := board.NewPosition()
	for _, s := range moves {
		mv, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(mv)
	}
	for _, bm := range b.Moves(p) {
		if p.MoveToUCI(bm.Move) == m {
			return true
		}
	}
	return false
}

// Along a game in the book, each of our moves is a book move played without
// a search and logged with source=book; the tree follows the game; out of
// the book the game searches again.
func TestBookMovesWithoutSearch(t *testing.T) {
	b := sampleBook(t)
	var logBuf bytes.Buffer
	g := newTestGame(t, Options{Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove},
		Logger: zerolog.New(&logBuf)})
	lim := ThinkLimits{WTime: time.Minute, BTime: time.Minute}
	var moves []string
	// Both sides from the book, as in a self-play game (best_move keeps the
	// game inside the sample, which holds the book's main lines).
	for ply := range 6 {
		d := think(t, g, lim)
		if d.Source != FromBook || d.Depth != 0 || d.Nodes != 0 {
			t.Fatalf("ply %d: decision %+v, want a book move", ply, d)
		}
		if !inBook(t, b, moves, d.UCI) {
			t.Fatalf("ply %d: %s is not a book move after %v", ply, d.UCI, moves)
		}
		play(t, g, d.UCI)
		moves = append(moves, d.UCI)
	}
	if g.Searches() != 0 {
		t.Errorf("%d searches for book moves", g.Searches())
	}
	st := g.Stats()
	if st.Moves != 6 || st.AtOnce != 6 {
		t.Errorf("stats: %d moves, %d at once", st.Moves, st.AtOnce)
	}
	for i, ms := range st.PerMove {
		if ms.Ply != i || ms.Move != moves[i] || ms.Source != FromBook {
			t.Errorf("move %d stats %+v", i, ms)
		}
	}
	if n := strings.Count(logBuf.String(), `"source":"book"`); n != 6 {
		t.Errorf("%d move stats logged with source=book, want 6:\n%s", n, logBuf.String())
	}
	// The tree follows the game: the last Think re-rooted it at the position
	// before our 6th move, and playing that move walked down to a child
	// holding the current position.
	g.mu.Lock()
	rootPly, n, root, key := g.rootPly, g.tree.pool[g.cur], g.tree.root, g.pos.Key()
	g.mu.Unlock()
	if rootPly != 5 || n.parent != root || n.key != key || n.move.String() != moves[5] {
		t.Errorf("tree: root at ply %d, current node %+v (root %d), want ply 5 and the child for %s", rootPly, n, root, moves[5])
	}
	// Out of the book: a search.
	if err := g.SetPosition(board.StartFEN, false, []string{"a2a3", "h7h6", "h2h3", "a7a6"}); err != nil {
		t.Fatal(err)
	}
	if d := think(t, g, ThinkLimits{Depth: 3}); d.Source != FromSearch || g.Searches() != 1 {
		t.Errorf("out of book: %+v, %d searches", d, g.Searches())
	}
}

// max_depth counts the plies before a position sent as a FEN too, from its
// fullmove number and side to move: the position after 1.e4 c5 sent as a
// FEN is ply 2, in the book under max_depth 3 and past it under 2; the
// one after 1.e4 is ply 1, past max_depth 1.
func TestBookDepthFromFEN(t *testing.T) {
	b := sampleBook(t)
	for _, c := range []struct {
		fen      string
		maxDepth int
		want     Source
	}{
		{"rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2", 3, FromBook},
		{"rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2", 2, FromSearch},
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 2, FromBook},
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 1, FromSearch},
	} {
		g := newTestGame(t, Options{Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove, MaxDepth: c.maxDepth}})
		if err := g.SetPosition(c.fen, false, nil); err != nil {
			t.Fatal(err)
		}
		if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != c.want {
			t.Errorf("%s, max_depth %d: %+v, want source %v", c.fen, c.maxDepth, d, c.want)
		}
	}
}

// max_depth counts plies from the game's start; an analysis ("go" with
// MultiPV, search moves or mate) never takes a book move; "go ponder"
// neither; SetBooks turns the books off and on.
func TestBookLimits(t *testing.T) {
	b := sampleBook(t)
	g := newTestGame(t, Options{Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove, MaxDepth: 2}})
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromBook || d.UCI != "e2e4" {
		t.Fatalf("best_move at the start: %+v", d)
	}
	for _, lim := range []ThinkLimits{{Depth: 1, MultiPV: 2}, {Depth: 1, SearchMoves: []string{"d2d4"}}, {Depth: 3, Mate: 1}} {
		if d := think(t, g, lim); d.Source != FromSearch {
			t.Errorf("analysis %+v answered from the book: %+v", lim, d)
		}
	}
	play(t, g, "e2e4")
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromBook {
		t.Errorf("ply 2 (max_depth 2): %+v", d)
	}
	play(t, g, "c7c5")
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromSearch {
		t.Errorf("ply 3 (past max_depth 2): %+v", d)
	}
	// Without books, the start position is searched; with them again, not.
	if err := g.SetPosition(board.StartFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	g.SetBooks(nil, book.Options{})
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromSearch {
		t.Errorf("books off: %+v", d)
	}
	g.SetBooks([]*book.Book{b}, book.Options{Method: book.BestMove})
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromBook {
		t.Errorf("books on again: %+v", d)
	}
	// "go ponder" searches (it must wait for ponderhit or stop).
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Decision)
	go func() {
		d, _ := g.Think(ctx, ThinkLimits{Ponder: true, Depth: 2}, nil)
		done <- d
	}()
	select {
	case d := <-done:
		t.Errorf("go ponder returned before stop: %+v", d)
	case <-time.After(50 * time.Millisecond):
	}
	g.Stop()
	cancel()
	if d := <-done; d.Source == FromBook {
		t.Errorf("go ponder answered from the book: %+v", d)
	}
}

// A background ponder search running when the opponent's move comes is
// stopped for a book move.
func TestBookMoveStopsPondering(t *testing.T) {
	b := sampleBook(t)
	g := newTestGame(t, Options{Ponder: true, Strategy: PonderOpponent, PonderDepth: 4,
		Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove}})
	lim := ThinkLimits{WTime: time.Minute, BTime: time.Minute}
	d := think(t, g, lim)
	if d.Source != FromBook {
		t.Fatalf("first move %+v", d)
	}
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 1)
	play(t, g, "c7c5")
	d = think(t, g, lim)
	if d.Source != FromBook || !inBook(t, b, []string{"e2e4", "c7c5"}, d.UCI) {
		t.Errorf("after pondering: %+v", d)
	}
	if g.Pondering() {
		t.Error("still pondering after the book move")
	}
}

// The book move is chosen after the ponder search has stopped: stopping it
// lets go of the Game's lock, and a position set meanwhile is the one the
// book move is for (before, a move chosen for the old position was played
// in the new one).
func TestBookMoveChosenAfterPonderStops(t *testing.T) {
	b := sampleBook(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var enterOnce, releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	g := newTestGame(t, Options{Ponder: true, Strategy: PonderOpponent, PonderDepth: 30,
		Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove},
		afterIteration: func(it iteration) {
			if it.pondering {
				enterOnce.Do(func() { close(entered) })
				<-release
			}
		}})
	g.StartPonder(context.Background())
	<-entered // the ponder search is held in its first iteration
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := g.Think(context.Background(), ThinkLimits{WTime: time.Minute, BTime: time.Minute}, nil)
		done <- result{d, err}
	}()
	// Think asks the held ponder search to stop and waits for it without
	// the lock: then the position changes.
	for changed := false; !changed; {
		g.mu.Lock()
		if g.run != nil && g.run.stopAsked {
			if err := g.setPosition(board.StartFEN, false, []string{"e2e4"}); err != nil {
				t.Error(err)
			}
			changed = true
		}
		g.mu.Unlock()
		if !changed {
			time.Sleep(time.Millisecond)
		}
	}
	releaseOnce.Do(func() { close(release) })
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.d.Source != FromBook || !inBook(t, b, []string{"e2e4"}, r.d.UCI) {
		t.Errorf("after e2e4 was set during the stop: %+v, want a book move for Black", r.d)
	}
}

// A book move comes with no ponder move, even when the tree knows a reply
// to it (a GUI pondering on that reply would get a searched move on
// ponderhit, in a position the book may know).
func TestBookMoveHasNoPonderMove(t *testing.T) {
	b := sampleBook(t)
	g := newTestGame(t, Options{Books: []*book.Book{b}, BookOptions: book.Options{Method: book.BestMove}})
	// A search through e2e4 (search moves: the books are not asked) leaves
	// its reply in the tree.
	if d := think(t, g, ThinkLimits{Depth: 4, SearchMoves: []string{"e2e4"}}); d.Source != FromSearch || d.UCI != "e2e4" || d.Ponder == board.NoMove {
		t.Fatalf("search through e2e4: %+v", d)
	}
	g.mu.Lock()
	e4, _ := g.pos.ParseUCIMove("e2e4")
	c := g.tree.findChild(g.cur, e4)
	known := c != nilNode && g.tree.pool[c].best != board.NoMove
	g.mu.Unlock()
	if !known {
		t.Fatal("the tree holds no reply to e2e4")
	}
	d := think(t, g, ThinkLimits{WTime: time.Minute, BTime: time.Minute})
	if d.Source != FromBook || d.UCI != "e2e4" {
		t.Fatalf("book move: %+v", d)
	}
	if d.Ponder != board.NoMove || d.PonderUCI != "" {
		t.Errorf("book move with ponder move %v %q", d.Ponder, d.PonderUCI)
	}
}
