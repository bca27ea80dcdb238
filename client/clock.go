package client

import (
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// ClockSettings shape the time budget of each move.
type ClockSettings struct {
	// MoveOverhead is subtracted from the clock for every move: the time
	// between the worker receiving a state and Lichess receiving the move
	// that is not network round trip (processing, scheduling). Default 100 ms.
	MoveOverhead time.Duration
	// MovesToGo is how many more moves the budget plans for. Default 30.
	MovesToGo int
	// FirstMoveTime is the budget of our first move, made before the clocks
	// run (under the first-move expiration). Default 2 s.
	FirstMoveTime time.Duration
	// MinThink is the smallest budget given to a Player. Default 10 ms.
	MinThink time.Duration
}

func (s ClockSettings) withDefaults() ClockSettings {
	if s.MoveOverhead <= 0 {
		s.MoveOverhead = 100 * time.Millisecond
	}
	if s.MovesToGo <= 0 {
		s.MovesToGo = 30
	}
	if s.FirstMoveTime <= 0 {
		s.FirstMoveTime = 2 * time.Second
	}
	if s.MinThink <= 0 {
		s.MinThink = 10 * time.Millisecond
	}
	return s
}

// clockInput is what the worker knows when it is our move.
type clockInput struct {
	Our, OurInc time.Duration       // our clock and increment
	Running     bool                // clocks run (both sides have moved)
	Expiration  *lichess.Expiration // first-move deadline, if any
	Latency     time.Duration       // measured move round trip
}

// moveBudget returns the time to aim for and the hard limit, both measured
// from when the state was received. hard is the point after which the move
// could not reach Lichess in time; budget never exceeds it.
func moveBudget(s ClockSettings, in clockInput) (budget, hard time.Duration) {
	s = s.withDefaults()
	reserve := s.MoveOverhead + in.Latency
	if !in.Running {
		budget = s.FirstMoveTime
		if in.Expiration != nil && in.Expiration.MillisToMove > 0 {
			left := time.Duration(in.Expiration.MillisToMove-in.Expiration.IdleMillis)*time.Millisecond - reserve
			hard = max(left, 0)
		} else {
			// No expiration known: the clock is what we have.
			hard = max(in.Our-reserve, 0)
			if in.Our <= 0 {
				hard = 2 * s.FirstMoveTime
			}
		}
		return min(budget, hard), hard
	}
	hard = max(in.Our-reserve, 0)
	budget = in.Our/time.Duration(s.MovesToGo) + in.OurInc*3/4
	// Never plan to spend more than half of what is left.
	budget = min(budget, hard/2)
	budget = max(budget, min(s.MinThink, hard))
	return budget, hard
}

// latencyEWMA tracks the move POST round trip as an exponentially weighted
// moving average (weight 1/5 for each new sample).
type latencyEWMA struct {
	mu sync.Mutex
	v  time.Duration
	n  int
}

func (l *latencyEWMA) Observe(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		l.v = d
	} else {
		l.v += (d - l.v) / 5
	}
	l.n++
}

func (l *latencyEWMA) Value() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}
