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
