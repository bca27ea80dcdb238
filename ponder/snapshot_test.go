package ponder

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSnapshotAfterThinkAndMove(t *testing.T) {
	g := newTestGame(t, Options{})
	play(t, g, "e2e4")
	v0, ch := g.Watch()
	d := think(t, g, ThinkLimits{Depth: 5})
	select {
	case <-ch:
	default:
		t.Fatal("Watch channel not closed after a search")
	}
	s := g.Snapshot()
	if s.Version <= v0 {
		t.Fatalf("version %d not above %d", s.Version, v0)
	}
	if len(s.Moves) != 1 || s.Moves[0] != "e2e4" || s.WhiteToMove {
		t.Fatalf("moves %v white to move %v", s.Moves, s.WhiteToMove)
	}
	if s.FEN != "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" {
		t.Fatalf("fen %q", s.FEN)
	}
	if s.Search.Depth != 5 || len(s.Search.PV) == 0 || s.Search.PV[0] != d.UCI || s.Search.Active {
		t.Fatalf("search view %+v, decision %s", s.Search, d.UCI)
	}
	if len(s.RootMoves) < 2 {
		t.Fatalf("root moves %+v", s.RootMoves)
	}
	found := false
	for _, rm := range s.RootMoves {
		if rm.Ref == "" || rm.Move == "" {
			t.Fatalf("root move without ref or move: %+v", rm)
		}
		if rm.Move == d.UCI {
			found = true
			if rm.Depth < 4 || rm.Nodes == 0 || rm.Visits == 0 || rm.Bound == "none" {
				t.Fatalf("best root move not filled: %+v", rm)
			}
		}
	}
	if !found {
		t.Fatalf("decision %s not among root moves %+v", d.UCI, s.RootMoves)
	}
	if !s.HasLast || s.LastMove.Move != d.UCI || s.LastMove.White || len(s.Evals) != 1 {
		t.Fatalf("last move %+v evals %+v", s.LastMove, s.Evals)
	}
	// Black's score from White's view is negated.
	if s.Evals[0].Score != -d.Score || s.Evals[0].Move != d.UCI || !s.Evals[0].HasScore {
		t.Fatalf("eval %+v, decision score %d", s.Evals[0], d.Score)
	}
	// The snapshot shares nothing with the game.
	s.Moves[0] = "xxxx"
	if g.Snapshot().Moves[0] != "e2e4" {
		t.Fatal("snapshot shares its moves with the game")
	}
	// Our move and the reply re-root the tree: the snapshot says what was kept.
	play(t, g, d.UCI)
	play(t, g, "g1f3")
	think(t, g, ThinkLimits{Depth: 4})
	s2 := g.Snapshot()
	if s2.Generation == s.Generation || len(s2.Moves) != 3 || !s2.HasLast || s2.LastMove.TreeNodesBefore == 0 {
		t.Fatalf("after the reply: generation %d→%d moves %v last %+v", s.Generation, s2.Generation, s2.Moves, s2.LastMove)
	}
}

func TestExpandChildrenAndStaleRefs(t *testing.T) {
	g := newTestGame(t, Options{})
	d := think(t, g, ThinkLimits{Depth: 6})
	s := g.Snapshot()
	var ref string
	for _, rm := range s.RootMoves {
		if rm.Move == d.UCI {
			ref = rm.Ref
			if rm.Children == 0 {
				t.Fatalf("best move has no children: %+v", rm)
			}
		}
	}
	kids, err := g.Expand(ref)
	if err != nil {
		t.Fatalf("expand %s: %v", ref, err)
	}
	if len(kids) == 0 || kids[0].Move == "" || kids[0].Ref == "" {
		t.Fatalf("children %+v", kids)
	}
	// the expected reply (the PV's second move) is a child
	hasReply := false
	for _, k := range kids {
		if len(d.PV) > 1 && k.Move == d.PV[1] {
			hasReply = true
		}
	}
	if !hasReply {
		t.Fatalf("PV reply %v not among children %+v", d.PV, kids)
	}
	// grandchildren through a child's ref
	if _, err := g.Expand(kids[0].Ref); err != nil {
		t.Fatalf("expand child: %v", err)
	}
	root, err := g.Expand("")
	if err != nil || len(root) != len(s.RootMoves) {
		t.Fatalf("expand current: %d nodes, %v (snapshot %d)", len(root), err, len(s.RootMoves))
	}
	for _, bad := range []string{"x", "1.2", "1.a.3", "1.99999999999.1"} {
		if _, err := g.Expand(bad); !errors.Is(err, ErrBadRef) {
			t.Fatalf("expand %q: %v, want ErrBadRef", bad, err)
		}
	}
	// After the move and a reply, the old generation's refs are stale.
	play(t, g, d.UCI)
	play(t, g, d.PV[1])
	think(t, g, ThinkLimits{Depth: 3})
	if _, err := g.Expand(ref); !errors.Is(err, ErrStaleRef) {
		t.Fatalf("old ref %s: %v, want ErrStaleRef", ref, err)
	}
	// a new game's tree starts a new generation too
	if err := g.SetPosition("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Expand(kids[0].Ref); !errors.Is(err, ErrStaleRef) {
		t.Fatalf("ref across SetPosition: %v, want ErrStaleRef", err)
	}
}

func TestWatchSeesPonderIterations(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 6})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	v, ch := g.Watch()
	g.StartPonder(context.Background())
	<-ch // a ponder iteration (or its end) is published without anyone asking
	s := g.Snapshot()
	if s.Version <= v {
		t.Fatalf("version %d not above %d", s.Version, v)
	}
	waitPonderDepth(t, g, 3)
	s = g.Snapshot()
	if !s.Pondering || s.Search.Depth < 3 || !s.Search.Pondering {
		t.Fatalf("pondering snapshot %+v", s.Search)
	}
	if s.PonderOn == "" {
		t.Fatalf("no predicted move while pondering: %+v", s)
	}
}

// BenchmarkExpand reports the time of an expand of the best root move of a
// tree filled by a depth-9 search (the budget: 50 ms).
func BenchmarkExpand(b *testing.B) {
	g := NewGame(Options{HashMB: 16})
	defer g.Close()
	if _, err := g.Think(context.Background(), ThinkLimits{Depth: 9}, nil); err != nil {
		b.Fatal(err)
	}
	s := g.Snapshot()
	ref := s.RootMoves[0].Ref
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Expand(ref); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshot reports the cost of one snapshot (per iteration for a
// viewer).
func BenchmarkSnapshot(b *testing.B) {
	g := NewGame(Options{HashMB: 16})
	defer g.Close()
	if _, err := g.Think(context.Background(), ThinkLimits{Depth: 9}, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = g.Snapshot()
	}
}

// A move chosen without a search has no score for the graph.
func TestSnapshotForcedMoveHasNoScore(t *testing.T) {
	g := newTestGame(t, Options{})
	if err := g.SetPosition("k7/8/8/8/8/8/1q6/K7 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	d := think(t, g, ThinkLimits{WTime: time.Minute, BTime: time.Minute})
	if d.Source != FromForced || d.UCI != "a1b2" {
		t.Fatalf("decision %s from %s, want the forced a1b2", d.UCI, d.Source)
	}
	s := g.Snapshot()
	if len(s.Evals) != 1 || s.Evals[0].HasScore || !s.LastMove.White {
		t.Fatalf("evals %+v", s.Evals)
	}
}
