package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// whiteOurs: the opening position has white to move and we are white.
func whiteOurs(ply int) bool { return ply%2 == 0 }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestCompareSameLine: the same moves in both games; every position is a
// pair, the ratios are those of the times (median of 0.5, 0.25, 0.1 is
// 0.25; total 300/1000), the wall and node totals likewise.
func TestCompareSameLine(t *testing.T) {
	moves := []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"}
	g1 := gameRecord{Moves: moves, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 12, Time: ms(200), Wall: ms(210), Nodes: 2000},
		{Ply: 2, FEN: "B", Move: "g1f3", Depth: 12, Time: ms(400), Wall: ms(410), Nodes: 4000},
		{Ply: 4, FEN: "C", Move: "f1b5", Depth: 12, Time: ms(400), Wall: ms(380), Nodes: 4000},
	}}
	gk := gameRecord{Moves: moves, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 12, Time: ms(100), Wall: ms(110), Nodes: 1000},
		{Ply: 2, FEN: "B", Move: "g1f3", Depth: 12, Time: ms(100), Wall: ms(90), Nodes: 500},
		{Ply: 4, FEN: "C", Move: "f1b5", Depth: 12, Time: ms(40), Wall: ms(50), Nodes: 500},
	}}
	c := compare(g1, gk, 12, whiteOurs)
	if len(c.Pairs) != 3 || c.Shallow != 0 || c.Unmatched != 0 {
		t.Fatalf("pairs %d, shallow %d, unmatched %d; want 3, 0, 0", len(c.Pairs), c.Shallow, c.Unmatched)
	}
	if c.DivergedPly != -1 {
		t.Errorf("diverged at ply %d, want -1 (same moves)", c.DivergedPly)
	}
	if p := c.Pairs[1]; p.Ply != 2 || p.FEN != "B" || p.Time1 != ms(400) || p.TimeK != ms(100) || p.Nodes1 != 4000 || p.NodesK != 500 {
		t.Errorf("second pair %+v", p)
	}
	if !near(c.MedianRatio, 0.25) {
		t.Errorf("median ratio %v, want 0.25", c.MedianRatio)
	}
	if !near(c.TotalRatio, 0.24) || c.Time1Sum != ms(1000) || c.TimeKSum != ms(240) {
		t.Errorf("total ratio %v (%v over %v), want 0.24 (240ms over 1s)", c.TotalRatio, c.TimeKSum, c.Time1Sum)
	}
	if !near(c.WallRatio, 250.0/1000) || !near(c.NodesRatio, 2000.0/10000) {
		t.Errorf("wall ratio %v, nodes ratio %v; want 0.25, 0.2", c.WallRatio, c.NodesRatio)
	}
}

// TestCompareDivergence: game k plays another move of ours at ply 2; the
// positions after it are not met in game 1 except one at the same ply
// (a transposition), and a position met at another ply is no pair.
func TestCompareDivergence(t *testing.T) {
	g1 := gameRecord{Moves: []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"}, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 10, Time: ms(100)},
		{Ply: 2, FEN: "B", Move: "g1f3", Depth: 10, Time: ms(300)},
		{Ply: 4, FEN: "C", Move: "f1c4", Depth: 10, Time: ms(500)},
		{Ply: 6, FEN: "T", Move: "d2d3", Depth: 10, Time: ms(800)},
	}}
	gk := gameRecord{Moves: []string{"e2e4", "e7e5", "f1c4", "b8c6", "g1f3", "g8f6"}, Ours: []ourMove{
		{Ply: 0, FEN: "A", Move: "e2e4", Depth: 10, Time: ms(50)},
		{Ply: 2, FEN: "B", Move: "f1c4", Depth: 10, Time: ms(30)},
		{Ply: 4, FEN: "D", Move: "g1f3", Depth: 10, Time: ms(100)},
		{Ply: 6, FEN: "T", Move: "d2d3", Depth: 10, Time: ms(200)}, // transposed into game 1's ply 6
		{Ply: 8, FEN: "C", Move: "h2h3", Depth: 10, Time: ms(1)},   // game 1's ply-4 position, at ply 8
	}}
	c := compare(g1, gk, 10, whiteOurs)
	if c.DivergedPly != 2 || !c.DivergedOurs || c.Move1 != "g1f3" || c.MoveK != "f1c4" {
		t.Errorf("diverged at ply %d (ours %v): %s / %s; want ply 2, ours, g1f3 / f1c4", c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK)
	}
	if len(c.Pairs) != 3 || c.Unmatched != 2 {
		t.Fatalf("pairs %d, unmatched %d; want 3 (plies 0, 2, 6), 2", len(c.Pairs), c.Unmatched)
	}
	for i, ply := range []int{0, 2, 6} {
		if c.Pairs[i].Ply != ply {
			t.Errorf("pair %d at ply %d, want %d", i, c.Pairs[i].Ply, ply)
		}
	}
	if c.Pairs[1].Move1 != "g1f3" || c.Pairs[1].MoveK != "f1c4" {
		t.Errorf("the diverging pair's moves %s / %s", c.Pairs[1].Move1, c.Pairs[1].MoveK)
	}
	// Ratios 0.5, 0.1, 0.25: median 0.25; total 280 / 1200.
	if !near(c.MedianRatio, 0.25) || !near(c.TotalRatio, 280.0/1200) {
		t.Errorf("median %v, total %v; want 0.25, %v", c.MedianRatio, c.TotalRatio, 280.0/1200)
	}
}

// TestCompareOpponentDiverged: a different move at an odd ply (white to
// move at ply 0, we are white) is the opponent's.
func TestCompareOpponentDiverged(t *testing.T) {
	g1 := gameRecord{Moves: []string{"e2e4", "e7e5", "g1f3"}}
	gk := gameRecord{Moves: []string{"e2e4", "c7c5", "g1f3"}}
	c := compare(g1, gk, 10, whiteOurs)
	if c.DivergedPly != 1 || c.DivergedOurs || c.Move1 != "e7e5" || c.MoveK != "c7c5" {
		t.Errorf("diverged at ply %d (ours %v): %s / %s; want ply 1, the opponent's, e7e5 / c7c5", c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK)
	}
	// A game that stopped earlier (a prefix of the other) did not diverge.
	if c := compare(g1, gameRecord{Moves: g1.Moves[:2]}, 10, whiteOurs); c.DivergedPly != -1 {
		t.Errorf("a prefix diverged at ply %d, want -1", c.DivergedPly)
	}
}

// TestCompareShallowAndZero: a search short of the depth in either game is
// no pair (counted in Shallow); a pair whose game-1 time is 0 is in the
// totals but not in the median.
func TestCompareShallowAndZero(t *testing.T) {
	moves := []string{"a", "b", "c", "d", "e", "f"}
	g1 := gameRecord{Moves: moves, Ours: []ourMove{
		{Ply: 0, FEN: "A", Depth: 14, Time: 0, Nodes: 10},
		{Ply: 2, FEN: "B", Depth: 9, Time: ms(100)}, // a mate found early
		{Ply: 4, FEN: "C", Depth: 14, Time: ms(1000), Nodes: 90},
	}}
	gk := gameRecord{Moves: moves, Ours: []ourMove{
		{Ply: 0, FEN: "A", Depth: 14, Time: ms(10), Nodes: 10},
		{Ply: 2, FEN: "B", Depth: 14, Time: ms(100)},
		{Ply: 4, FEN: "C", Depth: 14, Time: ms(600), Nodes: 30},
	}}
	c := compare(g1, gk, 14, whiteOurs)
	if len(c.Pairs) != 2 || c.Shallow != 1 || c.Unmatched != 0 {
		t.Fatalf("pairs %d, shallow %d, unmatched %d; want 2, 1, 0", len(c.Pairs), c.Shallow, c.Unmatched)
	}
	if !near(c.MedianRatio, 0.6) {
		t.Errorf("median %v, want 0.6 (the zero-time pair left out)", c.MedianRatio)
	}
	if !near(c.TotalRatio, 0.61) || !near(c.NodesRatio, 0.4) {
		t.Errorf("total %v, nodes %v; want 0.61, 0.4", c.TotalRatio, c.NodesRatio)
	}
	if c := compare(g1, gameRecord{}, 14, whiteOurs); len(c.Pairs) != 0 || c.MedianRatio != 0 || c.TotalRatio != 0 {
		t.Errorf("no game k: pairs %d, median %v, total %v; want none, 0, 0", len(c.Pairs), c.MedianRatio, c.TotalRatio)
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	if m := median(xs); !near(m, 2.5) {
		t.Errorf("median %v, want 2.5", m)
	}
	if xs[0] != 3 || xs[3] != 10 {
		t.Errorf("median sorted its argument: %v", xs)
	}
	if m := median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("median %v, want 3", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("median of none %v, want 0", m)
	}
}

func TestLostScore(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"cp -500", true}, {"cp -499", false}, {"cp 600", false}, {"mate -3", true}, {"mate 2", false}, {"", false},
	} {
		if got := lostScore(c.s); got != c.want {
			t.Errorf("lostScore(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	if uci.LearnLossCP != 500 {
		t.Fatalf("uci.LearnLossCP is %d: the cases above assume 500", uci.LearnLossCP)
	}
}

func TestPositionCommand(t *testing.T) {
	if got := positionCommand(uci.StartFEN, []string{"e2e4", "e7e5"}); got != "position startpos moves e2e4 e7e5" {
		t.Errorf("got %q", got)
	}
	const fen = "8/8/8/8/8/8/k7/K7 w - - 0 1"
	if got := positionCommand(fen, nil); got != "position fen "+fen {
		t.Errorf("got %q", got)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// scripted is an engine whose output is script.
func scripted(t *testing.T, script string) *uciEngine {
	t.Helper()
	return newEngine(t.Context(), "scripted", discard{}, strings.NewReader(script), func() error { return nil })
}

// TestSearchTimesTheIteration: the figures are those of the first exact
// line of the depth asked for, not of an aspiration bound before it nor of
// the decision's line after it; short of the depth, the last exact line's;
// an "info string error" is an error.
func TestSearchTimesTheIteration(t *testing.T) {
	e := scripted(t, `info depth 1 seldepth 1 score cp 20 nodes 30 nps 30000 time 1 pv e2e4
info depth 13 seldepth 20 score cp 40 lowerbound nodes 900 nps 1 time 400 pv e2e4
info depth 13 seldepth 20 score cp 24 nodes 1000 nps 1 time 500 pv e2e4 e7e5
info depth 13 score cp 24 nodes 1000 time 520 pv d2d4
info string treestats ply=6 source=search
bestmove d2d4 ponder d7d5
`)
	s, err := e.search(t.Context(), uci.StartFEN, nil, "go depth 13", 13)
	if err != nil {
		t.Fatal(err)
	}
	if s.best != "d2d4" || s.depth != 13 || s.time != ms(500) || s.nodes != 1000 || s.score != "cp 24" {
		t.Errorf("got %+v; want d2d4 at depth 13, 500ms, 1000 nodes, cp 24", s)
	}

	e = scripted(t, `info depth 1 score cp 20 nodes 30 time 1 pv e2e4
info depth 5 score mate 3 nodes 700 time 9 pv e2e4
bestmove e2e4
`)
	if s, err = e.search(t.Context(), uci.StartFEN, nil, "go depth 13", 13); err != nil {
		t.Fatal(err)
	}
	if s.depth != 5 || s.time != ms(9) || s.score != "mate 3" {
		t.Errorf("short of the depth: got %+v; want depth 5, 9ms, mate 3", s)
	}

	e = scripted(t, "info string error: position: illegal move\nbestmove e2e4\n")
	if _, err := e.search(t.Context(), uci.StartFEN, nil, "go depth 13", 13); err == nil || !strings.Contains(err.Error(), "illegal move") {
		t.Errorf("an error line: %v, want the error", err)
	}
	e = scripted(t, "info depth 1 score cp 1 time 1 pv e2e4\n")
	if _, err := e.search(t.Context(), uci.StartFEN, nil, "go depth 13", 13); err == nil {
		t.Error("output ended without bestmove: no error")
	}
}
