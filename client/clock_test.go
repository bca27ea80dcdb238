package client

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

func TestMoveBudget(t *testing.T) {
	ms := time.Millisecond
	s := ClockSettings{MoveOverhead: 100 * ms, MovesToGo: 30, FirstMoveTime: 2 * time.Second, MinThink: 10 * ms}
	for _, tc := range []struct {
		name         string
		in           clockInput
		budget, hard time.Duration
	}{
		{"3+0 at start", clockInput{Our: 180 * time.Second, Running: true}, 6 * time.Second, 180*time.Second - 100*ms},
		{"3+2 with latency", clockInput{Our: 180 * time.Second, OurInc: 2 * time.Second, Running: true, Latency: 50 * ms},
			6*time.Second + 1500*ms, 180*time.Second - 150*ms},
		{"low clock big increment: half of what is left", clockInput{Our: 2 * time.Second, OurInc: 2 * time.Second, Running: true},
			950 * ms, 1900 * ms},
		{"almost flagged", clockInput{Our: 50 * ms, Running: true}, 0, 0},
		{"just above the reserve", clockInput{Our: 115 * ms, Running: true}, 10 * ms, 15 * ms},
		{"first move, no expiration", clockInput{Our: 60 * time.Second}, 2 * time.Second, 60*time.Second - 100*ms},
		{"first move under expiration", clockInput{Our: 60 * time.Second, Expiration: &lichess.Expiration{IdleMillis: 1000, MillisToMove: 30000}},
			2 * time.Second, 29*time.Second - 100*ms},
		{"first move, expiration nearly over", clockInput{Expiration: &lichess.Expiration{IdleMillis: 28500, MillisToMove: 30000}, Latency: 400 * ms},
			1000 * ms, 1000 * ms},
		{"first move, expiration passed", clockInput{Expiration: &lichess.Expiration{IdleMillis: 31000, MillisToMove: 30000}}, 0, 0},
	} {
		b, h := moveBudget(s, tc.in)
		if b != tc.budget || h != tc.hard {
			t.Errorf("%s: budget %v hard %v, want %v %v", tc.name, b, h, tc.budget, tc.hard)
		}
	}
}

// For any clock, the budget fits in the hard limit, and the hard limit
// leaves the overhead and latency for the move to arrive.
func TestMoveBudgetInvariants(t *testing.T) {
	s := ClockSettings{}
	for our := time.Duration(0); our < 10*time.Minute; our = our*3/2 + 7*time.Millisecond {
		for _, inc := range []time.Duration{0, time.Second, 30 * time.Second} {
			for _, lat := range []time.Duration{0, 30 * time.Millisecond, time.Second} {
				b, h := moveBudget(s, clockInput{Our: our, OurInc: inc, Running: true, Latency: lat})
				if b < 0 || h < 0 || b > h {
					t.Fatalf("our %v inc %v lat %v: budget %v hard %v", our, inc, lat, b, h)
				}
				if limit := our - 100*time.Millisecond - lat; h > max(limit, 0) {
					t.Fatalf("our %v lat %v: hard %v exceeds %v", our, lat, h, limit)
				}
			}
		}
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
