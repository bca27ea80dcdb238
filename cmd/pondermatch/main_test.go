package main

import (
	"math"
	"testing"
	"time"
)

func TestParseTC(t *testing.T) {
	tests := []struct {
		in        string
		base, inc time.Duration
		ok        bool
	}{
		{"10+0.1", 10 * time.Second, 100 * time.Millisecond, true},
		{"5", 5 * time.Second, 0, true},
		{"0+1", 0, 0, false},
		{"x+1", 0, 0, false},
		{"5+-1", 0, 0, false},
	}
	for _, tc := range tests {
		b, i, err := parseTC(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (b != tc.base || i != tc.inc)) {
			t.Errorf("parseTC(%q) = %v, %v, %v", tc.in, b, i, err)
		}
	}
}

func TestEloOf(t *testing.T) {
	if e, _ := eloOf(10, 0, 10); e != 0 {
		t.Errorf("even score: %v", e)
	}
	// 75% is +190.8 Elo.
	if e, m := eloOf(30, 0, 10); math.Abs(e-190.8) > 1 || m <= 0 {
		t.Errorf("75%%: %v ± %v", e, m)
	}
}

func TestOppClockWait(t *testing.T) {
	// Never over the remaining time (at most half of what is left above
	// the reserve), at least the minimum while the clock allows it.
	remainings := []time.Duration{0, time.Millisecond, oppReserve, oppReserve + 150*time.Millisecond,
		oppReserve + 200*time.Millisecond, 2 * time.Second, 5 * time.Second, 60 * time.Second, 180 * time.Second}
	incs := []time.Duration{0, time.Second}
	us := []float64{0, 0.25, 0.5, 0.999}
	for _, r := range remainings {
		for _, inc := range incs {
			for _, u := range us {
				w := oppClockWait(r, inc, u)
				if w < 0 || w > max(0, (r-oppReserve)/2) {
					t.Errorf("oppClockWait(%v, %v, %v) = %v: over half the remaining time above the reserve", r, inc, u, w)
				}
				if r-oppReserve >= 2*oppMinWait && w < oppMinWait {
					t.Errorf("oppClockWait(%v, %v, %v) = %v: under the minimum %v", r, inc, u, w, oppMinWait)
				}
			}
		}
	}
	// 60 s, no increment: 2 s a move, from 1 s (u = 0) to 3 s (u → 1).
	if w := oppClockWait(60*time.Second, 0, 0.5); w != 2*time.Second {
		t.Errorf("oppClockWait(60s, 0, 0.5) = %v, want 2s", w)
	}
	if w := oppClockWait(60*time.Second, 0, 0); w != time.Second {
		t.Errorf("oppClockWait(60s, 0, 0) = %v, want 1s", w)
	}
	// A clock that keeps being spent this way never goes under the reserve.
	clock := 60 * time.Second
	for i := range 500 {
		clock -= oppClockWait(clock, 0, float64(i%10)/10)
		if clock < oppReserve {
			t.Fatalf("the clock went under the reserve after %d moves: %v", i+1, clock)
		}
	}
}

func TestParseOppModel(t *testing.T) {
	if m, err := parseOppModel("fast"); err != nil || m != oppFast {
		t.Errorf("fast: %v, %v", m, err)
	}
	if m, err := parseOppModel("clock"); err != nil || m != oppClock {
		t.Errorf("clock: %v, %v", m, err)
	}
	if _, err := parseOppModel("slow"); err == nil {
		t.Error("slow: no error")
	}
}
