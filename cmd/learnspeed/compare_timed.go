package main

import (
	"fmt"
	"math"
	"time"
)

// timedPair is a position our side searched in both games at the same
// ply, in the timed mode: game 1's completed depth there, when each game
// reached it, and how.
type timedPair struct {
	Ply          int
	FEN          string
	Move1, MoveK string
	// Depth is the depth game 1's search completed (its last iteration);
	// Time1, Wall1 and Nodes1 are that iteration's figures, Known1 whether
	// it was the memory's known result (a jump after depth 1).
	Depth        int
	Time1, Wall1 time.Duration
	Nodes1       int64
	Known1       bool
	// Reached: game k completed an iteration of Depth or more, and
	// TimeK, WallK and NodesK are those of the first such; KnownK whether
	// it was the memory's known result. Not reached, they are game k's
	// whole search's (EndTime, EndWall, EndNodes): less than its time to
	// Depth, which is not known.
	Reached      bool
	TimeK, WallK time.Duration
	NodesK       int64
	KnownK       bool
	// DepthK is the depth game k's search completed; JumpK the depth of
	// a jump in it (the memory's known result, 0 when none).
	DepthK, JumpK int
}

// timedComparison is game k against game 1 in the timed mode (see
// compareTimed).
type timedComparison struct {
	// Pairs are the positions both games searched at the same ply, in
	// the order of game 1.
	Pairs []timedPair
	// Unmatched counts game k's searches of a position game 1 did not
	// search at that ply; DivergedPly, DivergedOurs, Move1 and MoveK are
	// where the games' moves first differ (as in comparison).
	Unmatched    int
	DivergedPly  int
	DivergedOurs bool
	Move1, MoveK string
	// NotReached counts the pairs where game k did not reach game 1's
	// depth; AnsweredK those where the memory's known result did (a jump
	// after depth 1 to that depth or more), Answered1 those where game 1's
	// depth was itself the memory's known result.
	NotReached, AnsweredK, Answered1 int
	// MedianRatio is the median over Pairs of TimeK/Time1 (pairs with
	// Time1 = 0 left out), a not-reached pair counted at its whole
	// search's time, and MedianUpper the same with every not-reached pair
	// counted as infinitely slow (so the true median lies between them;
	// +Inf when that is the middle). TotalRatio, WallRatio and NodesRatio
	// are the sums of game k's figures over game 1's, not-reached pairs at
	// their whole search's: with NotReached > 0 they are lower bounds.
	MedianRatio, MedianUpper float64
	TotalRatio               float64
	WallRatio, NodesRatio    float64
	Time1Sum, TimeKSum       time.Duration
}

// compareTimed matches the positions our side searched in game k with
// those of game 1 (the same FEN at the same ply) and finds, for each,
// when game k reached the depth game 1 completed there. ours tells
// whether a ply is ours (for where the games diverged).
func compareTimed(g1, gk gameRecord, ours func(ply int) bool) timedComparison {
	c := timedComparison{}
	c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK = diverged(g1.Moves, gk.Moves, ours)
	type at struct {
		ply int
		fen string
	}
	inK := make(map[at]ourMove, len(gk.Ours))
	in1 := make(map[at]bool, len(g1.Ours))
	for _, m := range g1.Ours {
		in1[at{m.Ply, m.FEN}] = true
	}
	for _, m := range gk.Ours {
		if in1[at{m.Ply, m.FEN}] {
			inK[at{m.Ply, m.FEN}] = m
		} else {
			c.Unmatched++
		}
	}
	var lower, upper []float64
	var w1, wk time.Duration
	var n1, nk int64
	for _, m1 := range g1.Ours {
		mk, ok := inK[at{m1.Ply, m1.FEN}]
		if !ok || m1.Depth < 1 {
			continue
		}
		p := timedPair{Ply: m1.Ply, FEN: m1.FEN, Move1: m1.Move, MoveK: mk.Move, Depth: m1.Depth,
			Time1: m1.Time, Wall1: m1.Wall, Nodes1: m1.Nodes, DepthK: mk.Depth}
		if it, ok := reach(m1.Iters, m1.Depth); ok {
			p.Known1 = it.Jump
		}
		for _, it := range mk.Iters {
			if it.Jump {
				p.JumpK = it.Depth
			}
		}
		if it, ok := reach(mk.Iters, m1.Depth); ok {
			p.Reached, p.TimeK, p.WallK, p.NodesK, p.KnownK = true, it.Time, it.Wall, it.Nodes, it.Jump
		} else {
			p.TimeK, p.WallK, p.NodesK = mk.EndTime, mk.EndWall, mk.EndNodes
			c.NotReached++
		}
		if p.KnownK {
			c.AnsweredK++
		}
		if p.Known1 {
			c.Answered1++
		}
		c.Pairs = append(c.Pairs, p)
		if p.Time1 > 0 {
			r := float64(p.TimeK) / float64(p.Time1)
			lower = append(lower, r)
			if !p.Reached {
				r = math.Inf(1)
			}
			upper = append(upper, r)
		}
		c.Time1Sum += p.Time1
		c.TimeKSum += p.TimeK
		w1 += p.Wall1
		wk += p.WallK
		n1 += p.Nodes1
		nk += p.NodesK
	}
	c.MedianRatio = median(lower)
	c.MedianUpper = median(upper)
	c.TotalRatio = ratio(float64(c.TimeKSum), float64(c.Time1Sum))
	c.WallRatio = ratio(float64(wk), float64(w1))
	c.NodesRatio = ratio(float64(nk), float64(n1))
	return c
}

// Verdicts reads the comparison against want (the ratio the issue asks
// game k to reach at most): "yes", "no", or "not known" where positions
// not reached leave the figure open on the wrong side of want. The
// median is known to be at most want when it is so with the positions
// not reached counted as infinitely slow; the total only when every
// position was reached.
func (c timedComparison) Verdicts(want float64) (total, med string) {
	total = "no"
	if c.TotalRatio <= want {
		total = "yes"
		if c.NotReached > 0 {
			total = "not known"
		}
	}
	switch {
	case c.MedianUpper <= want:
		med = "yes"
	case c.MedianRatio > want:
		med = "no"
	default:
		med = "not known"
	}
	return total, med
}

// atLeast formats a ratio, with "≥" before it when it is a lower bound.
func atLeast(r float64, lower bool) string {
	if lower {
		return fmt.Sprintf("≥%.2f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// Figures is the comparison in the SUMMARY line's form.
func (c timedComparison) Figures(k, base int) string {
	lb := c.NotReached > 0
	return fmt.Sprintf("game %d/%d median %s total %s (nodes %s) over %d positions, %d answered by the memory, %d not reached",
		k, base, atLeast(c.MedianRatio, lb), atLeast(c.TotalRatio, lb), atLeast(c.NodesRatio, lb), len(c.Pairs), c.AnsweredK, c.NotReached)
}
