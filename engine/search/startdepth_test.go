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
