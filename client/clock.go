package client

import (
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// ClockSettings shape the hard deadline of each move. How much of the time
// up to the deadline a move uses is the Player's choice (the built-in
// engine's budget is package ponder's PlanMove).
type ClockSettings struct {
	// MoveOverhead is subtracted from the clock for every move: the time
	// between the worker receiving a state and Lichess receiving the move
	// that is not network round trip (processing, scheduling). Default 100 ms.
	MoveOverhead time.Duration
	// FirstMoveTime is the fixed time of our first move, made before the
	// clocks run (under the first-move expiration), capped by the deadline.
	// Default 2 s.
	FirstMoveTime time.Duration
}

func (s ClockSettings) withDefaults() ClockSettings {
	if s.MoveOverhead <= 0 {
		s.MoveOverhead = 100 * time.Millisecond
	}
	if s.FirstMoveTime <= 0 {
		s.FirstMoveTime = 2 * time.Second
	}
	return s
}

// MoveClock is the clock situation of one of our moves, as the worker hands
// it to Player.Think: the clocks as Lichess sent them with the position,
// and the one thing the worker decides, the hard deadline. The Player
// decides how much of the time up to the deadline to use.
type MoveClock struct {
	WTime, BTime time.Duration // both clocks, as received with the position
	WInc, BInc   time.Duration // both increments, as received
	White        bool          // we play white
	// Running is false before both sides have made their first move: the
	// clocks do not run yet, the first-move expiration applies.
	Running bool
	// MoveTime, when > 0, is a fixed time for this move that the Player
	// uses instead of planning from the clocks: our first move before the
	// clocks run gets ClockSettings.FirstMoveTime, capped by the deadline.
	MoveTime time.Duration
	// Deadline is the last moment the move can be posted and still reach
	// Lichess in time: our clock less the measured latency of a move post
	// and the move overhead (before the clocks run, the first-move
	// expiration likewise), counted from when the position was received.
	// Think must return by then: the worker stops waiting at it and plays a
	// fallback move. Zero: no deadline (tests).
	Deadline time.Time
}

// Left is the time left at now until the deadline (never negative).
func (c MoveClock) Left(now time.Time) time.Duration {
	return max(c.Deadline.Sub(now), 0)
}

// Clocks returns both clocks at now with ours reduced to the time left until
// the deadline, which takes the latency and the move overhead off it: our
// clock as far as this move is concerned. The opponent's clock is as
// received. Without a deadline both are as received.
func (c MoveClock) Clocks(now time.Time) (wtime, btime time.Duration) {
	wtime, btime = c.WTime, c.BTime
	if c.Deadline.IsZero() {
		return wtime, btime
	}
	if c.White {
		wtime = min(wtime, c.Left(now))
	} else {
		btime = min(btime, c.Left(now))
	}
	return wtime, btime
}

// clockInput is what the worker knows when it is our move.
type clockInput struct {
	Our        time.Duration       // our clock
	Running    bool                // clocks run (both sides have moved)
	Expiration *lichess.Expiration // first-move deadline, if any
	Latency    time.Duration       // measured move round trip
}

// moveDeadline returns the hard limit of a move, measured from when the
// state was received: the point after which the move could not reach
// Lichess in time (our clock, or before the clocks run the first-move
// expiration, less the move overhead and the measured latency).
func moveDeadline(s ClockSettings, in clockInput) time.Duration {
	s = s.withDefaults()
	reserve := s.MoveOverhead + in.Latency
	if !in.Running {
		if in.Expiration != nil && in.Expiration.MillisToMove > 0 {
			left := time.Duration(in.Expiration.MillisToMove-in.Expiration.IdleMillis)*time.Millisecond - reserve
			return max(left, 0)
		}
		if in.Our <= 0 {
			// Neither an expiration nor a clock known: twice the first
			// move's time.
			return 2 * s.FirstMoveTime
		}
	}
	return max(in.Our-reserve, 0)
}

// moveClock builds the clock situation of our move in state st, received
// at receivedAt, with the measured latency of a move post.
func moveClock(s ClockSettings, st lichess.GameState, white, running bool, receivedAt time.Time, latency time.Duration) MoveClock {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	c := MoveClock{WTime: ms(st.WTime), BTime: ms(st.BTime), WInc: ms(st.WInc), BInc: ms(st.BInc),
		White: white, Running: running}
	our := c.BTime
	if white {
		our = c.WTime
	}
	hard := moveDeadline(s, clockInput{Our: our, Running: running, Expiration: st.Expiration, Latency: latency})
	c.Deadline = receivedAt.Add(hard)
	if !running {
		c.MoveTime = min(s.withDefaults().FirstMoveTime, hard)
	}
	return c
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
