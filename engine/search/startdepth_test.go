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
