package client

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// The worker computes one thing, the hard deadline of a move. (The budget
// within it is ponder's: see ponder's TestPlanMove.)
func TestMoveDeadline(t *testing.T) {
	ms := time.Millisecond
	s := ClockSettings{MoveOverhead: 100 * ms, FirstMoveTime: 2 * time.Second}
	for _, tc := range []struct {
		name string
		in   clockInput
		hard time.Duration
	}{
		{"3+0 at start", clockInput{Our: 180 * time.Second, Running: true}, 180*time.Second - 100*ms},
		{"3+2 with latency", clockInput{Our: 180 * time.Second, Running: true, Latency: 50 * ms}, 180*time.Second - 150*ms},
		{"low clock", clockInput{Our: 2 * time.Second, Running: true}, 1900 * ms},
		{"almost flagged", clockInput{Our: 50 * ms, Running: true}, 0},
		{"just above the reserve", clockInput{Our: 115 * ms, Running: true}, 15 * ms},
		{"first move, no expiration", clockInput{Our: 60 * time.Second}, 60*time.Second - 100*ms},
		{"first move, no expiration, no clock", clockInput{}, 4 * time.Second},
		{"first move under expiration", clockInput{Our: 60 * time.Second, Expiration: &lichess.Expiration{IdleMillis: 1000, MillisToMove: 30000}},
			29*time.Second - 100*ms},
		{"first move, expiration nearly over", clockInput{Expiration: &lichess.Expiration{IdleMillis: 28500, MillisToMove: 30000}, Latency: 400 * ms},
			1000 * ms},
		{"first move, expiration passed", clockInput{Expiration: &lichess.Expiration{IdleMillis: 31000, MillisToMove: 30000}}, 0},
	} {
		if h := moveDeadline(s, tc.in); h != tc.hard {
			t.Errorf("%s: hard %v, want %v", tc.name, h, tc.hard)
		}
	}
}

// For any clock, the hard limit leaves the overhead and latency for the move
// to arrive, and is never negative.
func TestMoveDeadlineInvariants(t *testing.T) {
	s := ClockSettings{}
	for our := time.Duration(0); our < 10*time.Minute; our = our*3/2 + 7*time.Millisecond {
		for _, lat := range []time.Duration{0, 30 * time.Millisecond, time.Second} {
			h := moveDeadline(s, clockInput{Our: our, Running: true, Latency: lat})
			if h < 0 {
				t.Fatalf("our %v lat %v: hard %v", our, lat, h)
			}
			if limit := our - 100*time.Millisecond - lat; h > max(limit, 0) {
				t.Fatalf("our %v lat %v: hard %v exceeds %v", our, lat, h, limit)
			}
		}
	}
}

// The clock situation handed to the player: the clocks as received, the
// deadline from when the state was received, a fixed time for the first
// move before the clocks run (capped by the deadline), and our clock as
// the player sees it (reduced to the time left until the deadline).
func TestMoveClock(t *testing.T) {
	ms := time.Millisecond
	s := ClockSettings{MoveOverhead: 100 * ms}
	at := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	st := lichess.GameState{WTime: 60000, BTime: 45000, WInc: 1000, BInc: 2000}

	c := moveClock(s, st, false, true, at, 50*ms)
	want := MoveClock{WTime: time.Minute, BTime: 45 * time.Second, WInc: time.Second, BInc: 2 * time.Second,
		White: false, Running: true, Deadline: at.Add(45*time.Second - 150*ms)}
	if c != want {
		t.Fatalf("running clocks:\n got %+v\nwant %+v", c, want)
	}
	w, b := c.Clocks(at.Add(10 * time.Second))
	if w != time.Minute || b != 35*time.Second-150*ms {
		t.Errorf("clocks 10s later: %v %v, want 1m0s and ours %v", w, b, 35*time.Second-150*ms)
	}
	if l := c.Left(at.Add(time.Minute)); l != 0 {
		t.Errorf("left after the deadline: %v", l)
	}

	first := st
	first.Expiration = &lichess.Expiration{IdleMillis: 1000, MillisToMove: 30000}
	c = moveClock(s, first, true, false, at, 0)
	if c.Running || c.MoveTime != 2*time.Second || c.Deadline != at.Add(29*time.Second-100*ms) {
		t.Errorf("first move: %+v, want a 2s move time and the expiration's deadline", c)
	}
	if w, _ := c.Clocks(at); w != 29*time.Second-100*ms {
		t.Errorf("first move: our clock %v, want the time left until the deadline", w)
	}
	first.Expiration = &lichess.Expiration{IdleMillis: 29000, MillisToMove: 30000}
	if c = moveClock(s, first, true, false, at, 0); c.MoveTime != 900*ms || c.Deadline != at.Add(900*ms) {
		t.Errorf("first move late in the expiration: %+v, want the move time capped at 900ms", c)
	}
	if c = moveClock(ClockSettings{FirstMoveTime: 300 * ms}, first, true, false, at, 0); c.MoveTime != 300*ms {
		t.Errorf("first move time 300ms: got %v", c.MoveTime)
	}

	if w, b := (MoveClock{WTime: time.Second, BTime: 2 * time.Second, White: true}).Clocks(at); w != time.Second || b != 2*time.Second {
		t.Errorf("no deadline: clocks %v %v, want them as received", w, b)
	}
}

func TestLatencyEWMA(t *testing.T) {
	var l latencyEWMA
	if l.Value() != 0 {
		t.Fatal("empty EWMA not zero")
	}
	l.Observe(100 * time.Millisecond)
	if l.Value() != 100*time.Millisecond {
		t.Fatalf("first sample: %v", l.Value())
	}
	l.Observe(200 * time.Millisecond)
	if l.Value() != 120*time.Millisecond {
		t.Fatalf("after 200ms: %v, want 120ms", l.Value())
	}
	for i := 0; i < 100; i++ {
		l.Observe(50 * time.Millisecond)
	}
	if v := l.Value(); v < 50*time.Millisecond || v > 51*time.Millisecond {
		t.Fatalf("converged to %v, want ~50ms", v)
	}
}
