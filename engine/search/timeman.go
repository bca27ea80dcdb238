package search

import "time"

// Clock is the clock state for the side to move in a timed game.
type Clock struct {
	Remaining time.Duration // time left on our clock
	Increment time.Duration // our increment per move
	MovesToGo int           // moves to the next time control; 0 = sudden death / increment
}

// timeBudget is what the time manager derives for one move.
type timeBudget struct {
	soft  time.Duration // aim to finish an iteration before this (scaled by stability)
	hard  time.Duration // never search longer than this
	fixed bool          // a fixed move time: search until hard, no earlier stop
}

const (
	defaultMovesToGo = 35 // assumed moves left in sudden death
	maxMovesToGo     = 50
	hardFactor       = 5 // hard limit = soft * hardFactor, capped by the clock
	minThink         = time.Millisecond
)

// allocate derives soft and hard limits for one move from the clock. It is
// a pure function of its inputs.
//
// A reserve of min(remaining/4, overhead + 2·increment) is never planned
// for: without it the increment part of the target, stretched by an
// unstable best move, outspends the increment move after move, the clock
// sinks to a few tenths of a second and any stall of the machine flags.
// In sudden death one move may take at most 5/movestogo of what is left
// (a seventh with the default 35), so the clock settles near
// 7·(increment − lag) + reserve instead of near zero.
func allocate(c Clock, overhead time.Duration) timeBudget {
	if overhead < 0 {
		overhead = 0
	}
	inc := max(c.Increment, 0)
	reserve := min(c.Remaining/4, overhead+2*inc)
	avail := c.Remaining - overhead - reserve
	// When overhead and reserve eat (nearly) all the time, use a sliver.
	avail = max(avail, c.Remaining/10, minThink)
	mtg := c.MovesToGo
	if mtg <= 0 {
		mtg = defaultMovesToGo
	}
	mtg = min(mtg, maxMovesToGo)
	soft := avail/time.Duration(mtg) + inc*3/4
	// Most of the clock we may ever spend on one move: up to 90% right
	// before the time control (the clock is refilled), two thirds with
	// two or three moves to go, 5/movestogo when many moves remain.
	var maxUse time.Duration
	switch {
	case mtg == 1:
		maxUse = avail * 9 / 10
	case mtg <= 3:
		maxUse = avail * 2 / 3
	case mtg > 7:
		maxUse = avail * 5 / time.Duration(mtg)
	default:
		maxUse = avail * 4 / 5
	}
	hard := max(min(soft*hardFactor, maxUse), minThink)
	soft = min(soft, hard)
	return timeBudget{soft: soft, hard: hard}
}

// movetimeBudget is the budget for a fixed time per move (UCI "go
// movetime"): all of it. The move overhead is not taken off (it is for the
// lag of a clock we play against, and a fixed move time has no clock), and
// the search neither stops early on a stable best move nor on a forced one:
// whoever asks for a fixed time wants exactly that much thinking (as other
// engines give it).
func movetimeBudget(mt time.Duration) timeBudget {
	h := max(mt, minThink)
	return timeBudget{soft: h, hard: h, fixed: true}
}

// softScale is the factor applied to the soft limit after an iteration:
// stable is the number of consecutive iterations the best move has not
// changed, changes a decaying count of recent best-move changes, and drop
// how many centipawns the score fell compared with the previous iterations
// (negative when it rose). It is a pure function.
func softScale(stable int, changes float64, drop int) float64 {
	if stable > 8 {
		stable = 8
	}
	f := 1.25 - 0.07*float64(stable) // 1.25 (just changed) .. 0.69 (stable)
	f *= 1 + 0.4*changes
	if drop > 0 {
		d := float64(drop)
		if d > 150 {
			d = 150
		}
		f *= 1 + d/150
	}
	if f < 0.4 {
		f = 0.4
	}
	if f > 3 {
		f = 3
	}
	return f
}

// scaledSoft applies softScale to the budget, never beyond the hard limit;
// a fixed budget has no soft limit before the hard one.
func (b timeBudget) scaledSoft(scale float64) time.Duration {
	if b.fixed {
		return b.hard
	}
	s := time.Duration(float64(b.soft) * scale)
	if s > b.hard {
		s = b.hard
	}
	return s
}

// Budget returns the soft target and the hard limit the search uses for one
// move under clock c (MoveOverhead already subtracted). Callers that manage
// time themselves (the per-game tree) can use it with Limits{Infinite: true}
// and a stop (their context, or their Signals).
func Budget(c Clock, overhead time.Duration) (soft, hard time.Duration) {
	b := allocate(c, overhead)
	return b.soft, b.hard
}
