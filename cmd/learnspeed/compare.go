package main

import (
	"slices"
	"time"
)

// ourMove is one of our searches in a game: the position before it, the
// move it chose, and the figures of its last iteration (of depth D or
// more when it got there).
type ourMove struct {
	Ply   int           // plies from the opening's position (the line's moves included)
	FEN   string        // the position searched
	Key   uint64        // its Zobrist key (what the memory is looked up by)
	Move  string        // the move played
	Depth int           // the depth of its last iteration
	Time  time.Duration // the search's own time at that iteration (its info line's "time")
	Wall  time.Duration // from "go" written to that info line read
	Nodes int64         // its nodes at that iteration
	Score string        // its score ("cp 31", "mate -3")
	// Iters are the search's completed iterations, shallowest first (the
	// timed mode compares them); EndTime, EndWall and EndNodes are the whole
	// search's: the last info line's time and nodes, and the wall time
	// from "go" to "bestmove".
	Iters            []iteration
	EndTime, EndWall time.Duration
	EndNodes         int64
}

// iteration is one completed iteration of a search: the first info line
// of its depth with an exact score and a PV, deeper than every one
// before it.
type iteration struct {
	Depth int
	Time  time.Duration // the search's own time (the line's "time")
	Wall  time.Duration // from "go" written to the line read
	Nodes int64
	// Jump: the iteration before it was more than one depth shallower.
	// The search skips depths only to take the memory's known result
	// (search.Limits.Known) right after depth 1: this line is that
	// result, not a depth searched.
	Jump bool
}

// addIteration appends the completed iteration it to its when it is
// deeper than the last one (a later line of the same or a shallower
// depth, such as the final line of a decision, is not an iteration).
func addIteration(its []iteration, it iteration) []iteration {
	last := 0
	if n := len(its); n > 0 {
		last = its[n-1].Depth
	}
	if it.Depth <= last {
		return its
	}
	it.Jump = len(its) > 0 && it.Depth > last+1
	return append(its, it)
}

// reach is the first of its of depth or more (ok false: none).
func reach(its []iteration, depth int) (it iteration, ok bool) {
	for _, x := range its {
		if x.Depth >= depth {
			return x, true
		}
	}
	return iteration{}, false
}

// gameRecord is one game: every move from the opening's position (the
// line first) and our searches.
type gameRecord struct {
	Moves []string
	Ours  []ourMove
	End   string // why the game stopped
}

// pair is a position our side searched in both games at the same ply.
type pair struct {
	Ply            int
	FEN            string
	Move1, MoveK   string
	Time1, TimeK   time.Duration
	Wall1, WallK   time.Duration
	Nodes1, NodesK int64
}

// comparison is game k against game 1 (see compare).
type comparison struct {
	// Pairs are the positions both games searched at the same ply to the
	// depth (in the order of game 1).
	Pairs []pair
	// Shallow counts the positions met in both games at the same ply
	// whose search stopped short of the depth in either (a mate found,
	// say): not in Pairs.
	Shallow int
	// Unmatched counts game k's searches of a position game 1 did not
	// search at that ply (the games diverged).
	Unmatched int
	// DivergedPly is the first ply at which the games' moves differ (-1:
	// none, the shorter game's moves are the other's first ones);
	// DivergedOurs tells whether that move was ours; Move1 and MoveK are
	// the moves there ("" where a game had already stopped).
	DivergedPly  int
	DivergedOurs bool
	Move1, MoveK string
	// MedianRatio is the median over Pairs of TimeK/Time1 (pairs with
	// Time1 = 0 left out; 0 when none is left); TotalRatio the sum of
	// TimeK over the sum of Time1; WallRatio and NodesRatio the same
	// totals for the wall times and the nodes. Time1Sum and TimeKSum are
	// those sums.
	MedianRatio, TotalRatio float64
	WallRatio, NodesRatio   float64
	Time1Sum, TimeKSum      time.Duration
}

// compare matches the positions our side searched in game k with those
// of game 1: the same position (FEN) at the same ply, each searched to
// depth or more in both. ours tells whether a ply is ours (for where the
// games diverged).
func compare(g1, gk gameRecord, depth int, ours func(ply int) bool) comparison {
	c := comparison{}
	c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK = diverged(g1.Moves, gk.Moves, ours)
	type at struct {
		ply int
		fen string
	}
	byPos := make(map[at]ourMove, len(g1.Ours))
	for _, m := range g1.Ours {
		byPos[at{m.Ply, m.FEN}] = m
	}
	inK := make(map[at]ourMove, len(gk.Ours))
	for _, m := range gk.Ours {
		if _, ok := byPos[at{m.Ply, m.FEN}]; ok {
			inK[at{m.Ply, m.FEN}] = m
		} else {
			c.Unmatched++
		}
	}
	var ratios []float64
	var w1, wk time.Duration
	var n1, nk int64
	for _, m1 := range g1.Ours {
		mk, ok := inK[at{m1.Ply, m1.FEN}]
		if !ok {
			continue
		}
		if m1.Depth < depth || mk.Depth < depth {
			c.Shallow++
			continue
		}
		c.Pairs = append(c.Pairs, pair{Ply: m1.Ply, FEN: m1.FEN, Move1: m1.Move, MoveK: mk.Move,
			Time1: m1.Time, TimeK: mk.Time, Wall1: m1.Wall, WallK: mk.Wall, Nodes1: m1.Nodes, NodesK: mk.Nodes})
		if m1.Time > 0 {
			ratios = append(ratios, float64(mk.Time)/float64(m1.Time))
		}
		c.Time1Sum += m1.Time
		c.TimeKSum += mk.Time
		w1 += m1.Wall
		wk += mk.Wall
		n1 += m1.Nodes
		nk += mk.Nodes
	}
	c.MedianRatio = median(ratios)
	c.TotalRatio = ratio(float64(c.TimeKSum), float64(c.Time1Sum))
	c.WallRatio = ratio(float64(wk), float64(w1))
	c.NodesRatio = ratio(float64(nk), float64(n1))
	return c
}

// diverged is the first ply at which the moves of two games differ (-1:
// none, the shorter game's moves are the other's first ones), whether
// that move was ours, and the two moves there.
func diverged(moves1, movesK []string, ours func(ply int) bool) (ply int, isOurs bool, m1, mk string) {
	for i := 0; i < max(len(moves1), len(movesK)); i++ {
		var a, b string
		if i < len(moves1) {
			a = moves1[i]
		}
		if i < len(movesK) {
			b = movesK[i]
		}
		if a != b {
			if a != "" && b != "" {
				return i, ours(i), a, b
			}
			break
		}
	}
	return -1, false, "", ""
}

// median is the median of xs (the mean of the middle two for an even
// count; 0 for none). xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
