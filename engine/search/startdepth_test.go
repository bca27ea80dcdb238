package search

import (
	"context"
	"slices"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Limits.StartDepth: depth 1 is always searched, then the iterations go on
// at StartDepth (at most the depth limit); 0 searches every depth.
func TestStartDepthSkipsShallowIterations(t *testing.T) {
	for _, c := range []struct {
		lim  Limits
		want []int
	}{
		{Limits{Depth: 6}, []int{1, 2, 3, 4, 5, 6}},
		{Limits{Depth: 6, StartDepth: 2}, []int{1, 2, 3, 4, 5, 6}}, // nothing to skip
		{Limits{Depth: 6, StartDepth: 5}, []int{1, 5, 6}},
		{Limits{Depth: 4, StartDepth: 9}, []int{1, 4}},
	} {
		p, err := board.ParseFEN(kiwipete)
		if err != nil {
			t.Fatal(err)
		}
		e := New(Options{HashMB: 4})
		var depths []int
		res := e.Search(context.Background(), p, c.lim, nil, func(i Info) {
			if i.Bound == BoundExact && i.MultiPV <= 1 {
				depths = append(depths, i.Depth)
			}
		})
		if !slices.Equal(depths, c.want) || res.Depth != c.want[len(c.want)-1] || res.BestMove == board.NoMove {
			t.Errorf("%+v: iterations %v, result depth %d move %v; want iterations %v", c.lim, depths, res.Depth, res.BestMove, c.want)
		}
	}
}

// A jumped iteration stopped early: the moves searched at its depth come
// before those holding only a depth-1 score, whatever the scores.
func TestSearchedFirstAfterAStoppedJump(t *testing.T) {
	rms := []rootMove{
		{move: 1, score: 90, depth: 1},
		{move: 2, score: 15, depth: 12},
		{move: 3, score: 40, depth: 1},
		{move: 4, score: -Infinity, depth: 12},
	}
	sortRoot(rms)
	searchedFirst(rms, 12)
	var got []board.Move
	for _, rm := range rms {
		got = append(got, rm.move)
	}
	if want := []board.Move{2, 4, 1, 3}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	var th thread
	th.ctl = &control{lim: Limits{StartDepth: 12, Depth: 20}, maxDepth: 20}
	for d, want := range map[int]bool{1: false, 2: false, 11: false, 12: true, 13: false} {
		if th.jumpedTo(d) != want {
			t.Errorf("StartDepth 12: jumpedTo(%d) = %v, want %v", d, !want, want)
		}
	}
	th.ctl = &control{lim: Limits{Depth: 20}, maxDepth: 20}
	if th.jumpedTo(2) || th.jumpedTo(4) {
		t.Error("no StartDepth: an iteration counts as jumped to")
	}
}

// A real search jumped to StartDepth and stopped partway through that
// iteration plays a move searched at the jumped depth (through the
// aspiration windows around the depth-1 score), not one holding only its
// depth-1 score.
func TestStoppedJumpPlaysAJumpedMove(t *testing.T) {
	const jump = 8
	// A quiet middlegame whose depth-1 scores of the other moves lie above
	// the jumped depth's score of the moves searched first.
	p, err := board.ParseFEN("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
	if err != nil {
		t.Fatal(err)
	}
	whole := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{StartDepth: jump, Depth: jump}, nil, nil)
	for _, frac := range []uint64{2, 4, 8} {
		res := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{StartDepth: jump, Depth: jump, Nodes: whole.Nodes / frac}, nil, nil)
		byDepth := map[int]int{}
		var played RootMove
		for _, rm := range res.RootMoves {
			byDepth[rm.Depth]++
			if rm.Move == res.BestMove {
				played = rm
			}
		}
		if byDepth[jump] == 0 || byDepth[1] == 0 {
			t.Logf("nodes %d of %d: root moves by depth %v; not stopped partway", whole.Nodes/frac, whole.Nodes, byDepth)
			continue
		}
		if played.Depth != jump {
			t.Errorf("nodes %d of %d: played %v searched to depth %d, want the jumped depth %d (root moves by depth %v)",
				whole.Nodes/frac, whole.Nodes, res.BestMove, played.Depth, jump, byDepth)
		}
		return
	}
	t.Fatal("no node limit stopped the jumped iteration partway")
}
