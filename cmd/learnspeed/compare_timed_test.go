package main

import (
	"math"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// TestAddIteration: only a line deeper than the last iteration is one; a
// depth more than one below it before it is a jump (the memory's known
// result), the first iteration never is.
func TestAddIteration(t *testing.T) {
	var its []iteration
	its = addIteration(its, iteration{Depth: 1, Time: ms(1)})
	its = addIteration(its, iteration{Depth: 14, Time: ms(2)})
	its = addIteration(its, iteration{Depth: 14, Time: ms(9)}) // the decision's line
	its = addIteration(its, iteration{Depth: 3, Time: ms(10)})
	its = addIteration(its, iteration{Depth: 15, Time: ms(300)})
	if len(its) != 3 {
		t.Fatalf("%d iterations %+v, want 3 (depths 1, 14, 15)", len(its), its)
	}
	for i, want := range []struct {
		depth int
		jump  bool
	}{{1, false}, {14, true}, {15, false}} {
		if its[i].Depth != want.depth || its[i].Jump != want.jump {
			t.Errorf("iteration %d: depth %d jump %v, want %d %v", i, its[i].Depth, its[i].Jump, want.depth, want.jump)
		}
	}
	if its[1].Time != ms(2) {
		t.Errorf("depth 14 at %v, want the first line's 2ms", its[1].Time)
	}
	if its := addIteration(nil, iteration{Depth: 6}); its[0].Jump {
		t.Error("a first iteration of depth 6 is a jump")
	}
	if it, ok := reach(its, 13); !ok || it.Depth != 14 || !it.Jump {
		t.Errorf("reach 13: %+v %v, want depth 14's jump", it, ok)
	}
	if _, ok := reach(its, 16); ok {
		t.Error("reach 16: reached")
	}
}

// TestCompareTimed: game k is timed to game 1's completed depth in each
// shared position: by the memory's jump (ply 0, and ply 2 where game 1's
// own depth was the memory's too), by searching (ply 6, where game k then
// played another move), or not at all (ply 4: its whole search counts, a
// lower bound); game k's ply-8 position is not game 1's.
func TestCompareTimed(t *testing.T) {
	g1 := gameRecord{Moves: []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "d2d3", "g8f6"}, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 12, Time: ms(400), Wall: ms(410), Nodes: 4000,
			Iters: []iteration{{Depth: 1, Time: ms(1)}, {Depth: 11, Time: ms(200)}, {Depth: 12, Time: ms(400), Wall: ms(410), Nodes: 4000}}},
		{Ply: 2, FEN: "B", Move: "g1f3", Depth: 10, Time: ms(2), Wall: ms(5), Nodes: 50,
			Iters: []iteration{{Depth: 1, Time: ms(1)}, {Depth: 10, Time: ms(2), Wall: ms(5), Nodes: 50, Jump: true}}},
		{Ply: 4, FEN: "C", Move: "f1b5", Depth: 14, Time: ms(1000), Wall: ms(1000), Nodes: 9000,
			Iters: []iteration{{Depth: 13, Time: ms(600)}, {Depth: 14, Time: ms(1000), Wall: ms(1000), Nodes: 9000}}},
		{Ply: 6, FEN: "D", Move: "d2d3", Depth: 12, Time: ms(800), Wall: ms(800), Nodes: 3000,
			Iters: []iteration{{Depth: 12, Time: ms(800), Wall: ms(800), Nodes: 3000}}},
	}}
	gk := gameRecord{Moves: []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "h2h3", "g8f6"}, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 15,
			Iters: []iteration{{Depth: 1, Time: ms(1)}, {Depth: 14, Time: ms(2), Wall: ms(4), Nodes: 40, Jump: true}, {Depth: 15, Time: ms(300)}}},
		{Ply: 2, FEN: "B", Move: "g1f3", Depth: 11,
			Iters: []iteration{{Depth: 1, Time: ms(1)}, {Depth: 11, Time: ms(3), Wall: ms(6), Nodes: 60, Jump: true}}},
		{Ply: 4, FEN: "C", Move: "f1b5", Depth: 13, EndTime: ms(870), EndWall: ms(950), EndNodes: 7000,
			Iters: []iteration{{Depth: 1}, {Depth: 8, Time: ms(5), Jump: true}, {Depth: 13, Time: ms(500), Nodes: 5000}}},
		{Ply: 6, FEN: "D", Move: "h2h3", Depth: 13,
			Iters: []iteration{{Depth: 11, Time: ms(100)}, {Depth: 12, Time: ms(200), Wall: ms(210), Nodes: 1500}, {Depth: 13, Time: ms(900)}}},
		{Ply: 8, FEN: "E", Move: "b1c3", Depth: 12},
	}}
	c := compareTimed(g1, gk, whiteOurs)
	if c.DivergedPly != 6 || !c.DivergedOurs || c.Move1 != "d2d3" || c.MoveK != "h2h3" {
		t.Errorf("diverged at ply %d (ours %v): %s / %s; want 6, ours, d2d3 / h2h3", c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK)
	}
	if len(c.Pairs) != 4 || c.Unmatched != 1 || c.NotReached != 1 || c.AnsweredK != 2 || c.Answered1 != 1 {
		t.Fatalf("pairs %d, unmatched %d, not reached %d, answered %d (game 1: %d); want 4, 1, 1, 2, 1",
			len(c.Pairs), c.Unmatched, c.NotReached, c.AnsweredK, c.Answered1)
	}
	a, b, cc, d := c.Pairs[0], c.Pairs[1], c.Pairs[2], c.Pairs[3]
	if !a.Reached || !a.KnownK || a.Known1 || a.Depth != 12 || a.TimeK != ms(2) || a.WallK != ms(4) || a.NodesK != 40 || a.JumpK != 14 {
		t.Errorf("ply 0: %+v; want reached by the memory's depth 14 at 2ms", a)
	}
	if !b.Known1 || !b.KnownK || b.TimeK != ms(3) {
		t.Errorf("ply 2: %+v; want the memory's in both games", b)
	}
	if cc.Reached || cc.KnownK || cc.TimeK != ms(870) || cc.WallK != ms(950) || cc.NodesK != 7000 || cc.DepthK != 13 || cc.JumpK != 8 {
		t.Errorf("ply 4: %+v; want not reached, the whole search's 870ms, 950ms wall, 7000 nodes", cc)
	}
	if !d.Reached || d.KnownK || d.TimeK != ms(200) || d.NodesK != 1500 || d.Move1 != "d2d3" || d.MoveK != "h2h3" {
		t.Errorf("ply 6: %+v; want reached by searching at 200ms", d)
	}
	// Ratios 0.005, 1.5, 0.87 (at least), 0.25: median 0.56; with the
	// not-reached one infinite, (0.25 + 1.5) / 2.
	if !near(c.MedianRatio, 0.56) || !near(c.MedianUpper, 0.875) {
		t.Errorf("median %v, upper %v; want 0.56, 0.875", c.MedianRatio, c.MedianUpper)
	}
	if c.Time1Sum != ms(2202) || c.TimeKSum != ms(1075) || !near(c.TotalRatio, 1075.0/2202) {
		t.Errorf("total %v (%v over %v), want 1075ms over 2202ms", c.TotalRatio, c.TimeKSum, c.Time1Sum)
	}
	if !near(c.NodesRatio, 8600.0/16050) || !near(c.WallRatio, (4+6+950+210)/(410+5+1000+800.0)) {
		t.Errorf("nodes %v, wall %v", c.NodesRatio, c.WallRatio)
	}
	// The total's lower bound is under 0.5, the median's over it.
	if total, med := c.Verdicts(0.5); total != "not known" || med != "no" {
		t.Errorf("verdicts at 0.5: total %s, median %s; want not known, no", total, med)
	}
	want := "game 2/1 median ≥0.56 total ≥0.49 (nodes ≥0.54) over 4 positions, 2 answered by the memory, 1 not reached"
	if got := c.Figures(2, 1); got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
	if c := compareTimed(g1, g1, whiteOurs); c.DivergedPly != -1 || c.NotReached != 0 || !near(c.TotalRatio, 1) || !near(c.MedianUpper, 1) ||
		strings.Contains(c.Figures(2, 1), "≥") {
		t.Errorf("a game against itself: %+v", c)
	}
}

// TestTimedVerdicts: a figure above want is "no"; at most want, "yes"
// only where the positions not reached cannot change it.
func TestTimedVerdicts(t *testing.T) {
	for _, tc := range []struct {
		c          timedComparison
		total, med string
	}{
		{timedComparison{TotalRatio: 0.4, MedianRatio: 0.3, MedianUpper: 0.3}, "yes", "yes"},
		{timedComparison{TotalRatio: 0.4, MedianRatio: 0.3, MedianUpper: 0.45, NotReached: 1}, "not known", "yes"},
		{timedComparison{TotalRatio: 0.4, MedianRatio: 0.3, MedianUpper: math.Inf(1), NotReached: 2}, "not known", "not known"},
		{timedComparison{TotalRatio: 0.6, MedianRatio: 0.6, MedianUpper: 0.6}, "no", "no"},
		{timedComparison{TotalRatio: 0.7, MedianRatio: 0.55, MedianUpper: math.Inf(1), NotReached: 1}, "no", "no"},
	} {
		if total, med := tc.c.Verdicts(0.5); total != tc.total || med != tc.med {
			t.Errorf("%+v: total %s, median %s; want %s, %s", tc.c, total, med, tc.total, tc.med)
		}
	}
}

// TestSearchRecordsIterations: a timed search's iterations are the first
// exact line of each new depth (not an aspiration bound, not the
// decision's last line), the jump after depth 1 marked; the whole search's
// time and nodes are the last line's.
func TestSearchRecordsIterations(t *testing.T) {
	e := scripted(t, `info depth 1 seldepth 1 score cp 20 nodes 30 nps 30000 time 1 pv e2e4
info depth 14 seldepth 14 score cp 25 nodes 35 nps 1 time 2 pv e2e4
info depth 15 seldepth 20 score cp 40 lowerbound nodes 900 nps 1 time 400 pv e2e4
info depth 15 seldepth 20 score cp 24 nodes 1000 nps 1 time 500 pv e2e4 e7e5
info depth 15 score cp 24 nodes 1000 time 520 pv d2d4
info string treestats ply=6 source=search
bestmove d2d4 ponder d7d5
`)
	s, err := e.search(t.Context(), uci.StartFEN, nil, "go movetime 1000", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []iteration{{Depth: 1, Time: ms(1), Nodes: 30}, {Depth: 14, Time: ms(2), Nodes: 35, Jump: true}, {Depth: 15, Time: ms(500), Nodes: 1000}}
	if len(s.iters) != len(want) {
		t.Fatalf("iterations %+v, want %+v", s.iters, want)
	}
	for i, w := range want {
		g := s.iters[i]
		if g.Depth != w.Depth || g.Time != w.Time || g.Nodes != w.Nodes || g.Jump != w.Jump || g.Wall < 0 {
			t.Errorf("iteration %d: %+v, want %+v", i, g, w)
		}
	}
	if s.best != "d2d4" || s.endTime != ms(520) || s.endNodes != 1000 || s.endWall < s.iters[2].Wall {
		t.Errorf("best %s, end %v, %d nodes, wall %v; want d2d4, 520ms, 1000, after the last iteration's", s.best, s.endTime, s.endNodes, s.endWall)
	}
}
