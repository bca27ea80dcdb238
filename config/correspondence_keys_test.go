package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The correspondence keys: defaults, values read, what validation refuses,
// and the summary line when correspondence is accepted.
func TestCorrespondenceKeys(t *testing.T) {
	d := Default().Correspondence
	if d.MoveTime != time.Minute || d.CheckinPeriod != 10*time.Minute || d.DisconnectTime != 150*time.Second || d.Ponder || d.Concurrency != 5 {
		t.Errorf("defaults %+v", d)
	}
	c, err := Parse([]byte("correspondence:\n  move_time: 30s\n  checkin_period: 5m\n  disconnect_time: 1m\n  ponder: true\n  concurrency: 20\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cr := c.Correspondence; cr.MoveTime != 30*time.Second || cr.CheckinPeriod != 5*time.Minute || cr.DisconnectTime != time.Minute || !cr.Ponder || cr.Concurrency != 20 {
		t.Errorf("parsed %+v", cr)
	}
	for _, tt := range []struct{ src, want string }{
		{"correspondence:\n  move_time: 0s\n", "correspondence.move_time: must be between 1s and 1h0m0s, got 0s"},
		{"correspondence:\n  move_time: 60\n", "correspondence.move_time: 60 has no unit"},
		{"correspondence:\n  checkin_period: 1s\n", "correspondence.checkin_period: must be between 10s and 6h0m0s, got 1s"},
		{"correspondence:\n  disconnect_time: -1s\n", "correspondence.disconnect_time: must be between 1s and 24h0m0s, got -1s"},
		{"correspondence:\n  concurrency: 0\n", "correspondence.concurrency: must be between 1 and 1000, got 0"},
		{"correspondence:\n  concurency: 2\n", "concurency"},
	} {
		probs := problemsOf(t, tt.src)
		if !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
	c, err = Parse([]byte("challenge:\n  speeds: [blitz, correspondence]\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Parse([]byte("correspondence:\n  checkin_period: 6h\n"), "config.yaml"); err != nil || c.Correspondence.CheckinPeriod != MaxCheckinPeriod {
		t.Errorf("checkin_period 6h, the cap: %v", err)
	}
	if s := c.Summary(); !strings.Contains(s, "up to 5 game(s) apart from the real-time ones; 1m0s a move") {
		t.Errorf("summary lacks the correspondence line:\n%s", s)
	}
	if s := Default().Summary(); strings.Contains(s, "apart from the real-time ones") {
		t.Errorf("summary speaks of correspondence, which the defaults do not accept:\n%s", s)
	}
}

// TestCheckinPeriodAboveTheCapIsClamped: a checkin_period above the cap
// (which came after configs with more had run) is taken at the cap with a
// warning, not refused: an upgrade must not stop a running bot. The cap:
// a check-in must come several times within the shortest correspondence
// clock (1 day a move).
func TestCheckinPeriodAboveTheCapIsClamped(t *testing.T) {
	for _, src := range []string{"correspondence:\n  checkin_period: 24h\n", "correspondence:\n  checkin_period: 6h1s\n"} {
		c, err := Parse([]byte(src), "config.yaml")
		if err != nil {
			t.Fatalf("%q: %v, want it taken at the cap", src, err)
		}
		if got := c.Correspondence.CheckinPeriod; got != MaxCheckinPeriod {
			t.Errorf("%q: checkin_period %v, want the cap %v", src, got, MaxCheckinPeriod)
		}
		cl := c.Clamped()
		if len(cl) != 1 || !strings.Contains(cl[0], "config.yaml:2: correspondence.checkin_period") ||
			!strings.Contains(cl[0], "taken as 6h0m0s") || !strings.Contains(cl[0], "the shortest correspondence clock, 1 day a move") {
			t.Errorf("%q: clamped %q", src, cl)
		}
		if w := c.Warnings(); !slices.Contains(w, cl[0]) {
			t.Errorf("%q: warnings %q lack the clamp", src, w)
		}
	}
	if c, err := Parse([]byte("correspondence:\n  checkin_period: 6h\n"), "config.yaml"); err != nil || len(c.Clamped()) != 0 {
		t.Errorf("checkin_period 6h, the cap itself: %v, clamped %q", err, c.Clamped())
	}
}
