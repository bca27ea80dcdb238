package ponder

import (
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// Budget is the time plan for one move, all measured on our own clock (from
// the moment it is our turn).
type Budget struct {
	// Base is what the move would get without pondering: the clock
	// allocation alone.
	Base time.Duration
	// Target is the total effort wanted for this position, pondered time
	// included: Base + PonderShare × pondered (capped by Hard + pondered).
	Target time.Duration
	// Soft is the time still to spend on our clock: Target − pondered, at
	// least MinThink. No new iteration starts after it.
	Soft time.Duration
	// Hard is never exceeded: the search is stopped at it.
	Hard time.Duration
	// Timed is false when no clock or movetime applies (depth, nodes,
	// infinite): then only those limits end the search.
	Timed bool
}

// Budget rule constants.
const (
	// PonderShare is the part of the time pondered on this position that
	// is added to its target: a ponder hit after p of pondering leaves
	// Base − (1−PonderShare)·p to think on our clock, so it turns into a
	// faster reply (and the whole effort, Base + PonderShare·p, into a
	// deeper result).
	PonderShare = 0.5
	// MinThink is the least a converted search gets on our clock.
	MinThink = 5 * time.Millisecond
)

// PlanMove derives the budget of a move from the limits, the move overhead
// and the time already spent pondering this very position (0 when it was
// not pondered). It is a pure function: the table tests pin it down.
//
//	Base   = search.Budget's soft target
//	Target = Base + PonderShare·pondered
//	Soft   = max(Target − pondered, MinThink), ≤ Hard
//	Hard   = search.Budget's hard limit; never raised by pondering
//
// A fixed move time (UCI "go movetime") is used whole: Base, Target, Soft
// and Hard are all the move time; no overhead is taken off it (the front
// end that measured the lag takes it off) and pondering does not shorten
// it.
func PlanMove(lim ThinkLimits, white bool, overhead, pondered time.Duration) Budget {
	if lim.Infinite {
		return Budget{}
	}
	if mt := lim.MoveTime; mt > 0 {
		return Budget{Base: mt, Target: mt, Soft: mt, Hard: mt, Timed: true}
	}
	// The clock allocation is engine/search's (search.Budget), the same
	// pace for both front ends; the tree only adds the pondering rule.
	c := search.Clock{Remaining: lim.WTime, Increment: lim.WInc, MovesToGo: lim.MovesToGo}
	if !white {
		c.Remaining, c.Increment = lim.BTime, lim.BInc
	}
	if c.Remaining <= 0 {
		return Budget{}
	}
	base, hard := search.Budget(c, overhead)
	pondered = max(pondered, 0)
	target := base + time.Duration(PonderShare*float64(pondered))
	target = min(target, hard+pondered)
	soft := max(target-pondered, MinThink)
	soft = min(soft, hard)
	return Budget{Base: base, Target: target, Soft: soft, Hard: hard, Timed: true}
}

// depthClock remembers when each depth of recent searches completed, to
// estimate how deep a time budget reaches.
//
// The times are searched time: from the search's start less what it spent
// paused with no thread (search.Info.Paused). The budgets reachable is
// asked about (Budget.Base) are wall time, which for a search for a move
// under a contended CPUShare includes its wait for a thread (at most
// thinkWait: thinkWaitShare of Soft). There the estimate is optimistic by
// at most that share; it is accepted, not corrected: the wait is 0
// whenever a thread is free, and how long a search will wait is not known
// when it starts.
type depthClock struct {
	times []time.Duration // times[d] = searched time from search start to completing depth d (0: unknown)
}

// record notes that depth d completed after elapsed. A new search (d == 1)
// starts a new timeline.
func (h *depthClock) record(d int, elapsed time.Duration) {
	if d <= 0 {
		return
	}
	if d == 1 {
		h.times = h.times[:0]
	}
	for len(h.times) <= d {
		h.times = append(h.times, 0)
	}
	h.times[d] = elapsed
}

// reachable estimates the depth a fresh search completes within budget:
// the deepest recorded depth that completed in time, extended by the
// effective branching factor of the last two depths (clamped to 1.5..6)
// when the budget goes beyond the recorded ones. With no history it returns
// fallback.
func (h *depthClock) reachable(budget time.Duration, fallback int) int {
	last := len(h.times) - 1
	for last > 0 && h.times[last] == 0 {
		last--
	}
	if last < 1 {
		return fallback
	}
	d := 0
	for i := 1; i <= last; i++ {
		if h.times[i] > 0 && h.times[i] <= budget {
			d = i
		}
	}
	if d < last {
		return d
	}
	t := h.times[last]
	ebf := 2.0
	if last >= 2 && h.times[last-1] > 0 {
		ebf = float64(h.times[last]) / float64(h.times[last-1])
	}
	ebf = min(max(ebf, 1.5), 6)
	for d < 120 {
		next := time.Duration(float64(max(t, time.Microsecond)) * ebf)
		if next > budget {
			break
		}
		t = next
		d++
	}
	return d
}
