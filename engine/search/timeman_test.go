package search

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestAllocate(t *testing.T) {
	ms := time.Millisecond
	s := time.Second
	tests := []struct {
		name     string
		c        Clock
		overhead time.Duration
		minSoft  time.Duration // soft at least
		maxSoft  time.Duration // soft at most
	}{
		{"blitz 3+2", Clock{Remaining: 180 * s, Increment: 2 * s}, 50 * ms, 6 * s, 9 * s},
		{"bullet 1+0", Clock{Remaining: 60 * s}, 50 * ms, 1500 * ms, 2500 * ms},
		{"classical 40/90", Clock{Remaining: 90 * 60 * s, MovesToGo: 40}, 100 * ms, 120 * s, 140 * s},
		{"last move before control", Clock{Remaining: 10 * s, MovesToGo: 1}, 100 * ms, 5 * s, 9 * s},
		{"two moves to go", Clock{Remaining: 10 * s, MovesToGo: 2}, 100 * ms, 3 * s, 6 * s},
		{"low on time, big increment", Clock{Remaining: 1 * s, Increment: 2 * s}, 50 * ms, 100 * ms, 800 * ms},
		{"scramble", Clock{Remaining: 200 * ms}, 50 * ms, ms, 10 * ms},
		{"overhead larger than clock", Clock{Remaining: 30 * ms}, 100 * ms, 50 * time.Microsecond, 3 * ms},
		{"huge movestogo capped", Clock{Remaining: 100 * s, MovesToGo: 500}, 0, 1900 * ms, 2100 * ms},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := allocate(tc.c, tc.overhead)
			if b.soft < tc.minSoft || b.soft > tc.maxSoft {
				t.Errorf("soft = %v, want in [%v, %v]", b.soft, tc.minSoft, tc.maxSoft)
			}
			if b.soft > b.hard {
				t.Errorf("soft %v > hard %v", b.soft, b.hard)
			}
			if b.hard <= 0 {
				t.Errorf("hard = %v, must be positive", b.hard)
			}
			if avail := tc.c.Remaining - tc.overhead; avail > 0 && b.hard > avail {
				t.Errorf("hard %v exceeds remaining-overhead %v", b.hard, avail)
			}
			if b.hard > tc.c.Remaining && tc.c.Remaining > minThink {
				t.Errorf("hard %v exceeds the clock %v", b.hard, tc.c.Remaining)
			}
			if tc.c.MovesToGo != 1 && tc.c.Remaining > s && b.hard > tc.c.Remaining*4/5 {
				t.Errorf("hard %v leaves no reserve of %v", b.hard, tc.c.Remaining)
			}
			if tc.c.MovesToGo == 0 && b.hard > tc.c.Remaining/4 {
				t.Errorf("sudden death: hard %v is over a quarter of the clock %v", b.hard, tc.c.Remaining)
			}
		})
	}
}

func TestAllocateMonotone(t *testing.T) {
	// More time on the clock never means less time for the move.
	prev := timeBudget{}
	for r := 100 * time.Millisecond; r < 20*time.Minute; r = r * 3 / 2 {
		b := allocate(Clock{Remaining: r, Increment: time.Second}, 30*time.Millisecond)
		if b.soft < prev.soft || b.hard < prev.hard {
			t.Fatalf("remaining %v: budget %+v smaller than %+v", r, b, prev)
		}
		prev = b
	}
}

// A fixed move time is used whole: the move overhead is not taken off, and
// no stability scaling brings the soft limit before it.
func TestMovetimeBudget(t *testing.T) {
	tests := []struct{ mt, ov, want time.Duration }{
		{time.Second, 50 * time.Millisecond, time.Second},
		{time.Second, 100 * time.Millisecond, time.Second},
		{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond},
		{100 * time.Millisecond, 80 * time.Millisecond, 100 * time.Millisecond},
		{0, 0, minThink},
	}
	p := board.NewPosition()
	for _, tc := range tests {
		b := movetimeBudget(tc.mt)
		if b.hard != tc.want || b.soft != tc.want || !b.fixed {
			t.Errorf("movetime %v: %+v, want soft = hard = %v, fixed", tc.mt, b, tc.want)
		}
		for _, scale := range []float64{0.4, softScale(8, 0, 0), 1, 3} {
			if got := b.scaledSoft(scale); got != tc.want {
				t.Errorf("movetime %v: scaledSoft(%.2f) = %v, want %v (no early stop)", tc.mt, scale, got, tc.want)
			}
		}
		// The engine's MoveOverhead does not reach a fixed move time.
		if tc.mt <= 0 {
			continue
		}
		e := New(Options{MoveOverhead: tc.ov})
		c := newControl(e, p, Limits{MoveTime: tc.mt, WTime: time.Minute, BTime: time.Minute}, nil, time.Now())
		if !c.timed || c.budget != b {
			t.Errorf("movetime %v, overhead %v: search budget %+v, want %+v", tc.mt, tc.ov, c.budget, b)
		}
	}
}

func TestSoftScale(t *testing.T) {
	tests := []struct {
		name       string
		stable     int
		changes    float64
		drop       int
		minF, maxF float64
	}{
		{"just changed", 0, 1, 0, 1.6, 1.9},
		{"very stable", 10, 0, 0, 0.6, 0.75},
		{"stable, score collapsing", 10, 0, 200, 1.3, 1.5},
		{"score rising stays short", 10, 0, -100, 0.6, 0.75},
		{"chaos capped", 0, 10, 1000, 3, 3},
	}
	for _, tc := range tests {
		f := softScale(tc.stable, tc.changes, tc.drop)
		if f < tc.minF || f > tc.maxF {
			t.Errorf("%s: softScale = %.3f, want in [%.2f, %.2f]", tc.name, f, tc.minF, tc.maxF)
		}
	}
	if softScale(5, 0, 0) >= softScale(1, 0, 0) {
		t.Error("more stability must shorten the search")
	}
	if softScale(3, 0, 50) <= softScale(3, 0, 0) {
		t.Error("a score drop must lengthen the search")
	}
	b := timeBudget{soft: time.Second, hard: 2 * time.Second}
	if got := b.scaledSoft(3); got != 2*time.Second {
		t.Errorf("scaledSoft beyond hard: %v", got)
	}
	if got := b.scaledSoft(0.5); got != 500*time.Millisecond {
		t.Errorf("scaledSoft(0.5) = %v", got)
	}
}

func TestBudgetMatchesAllocate(t *testing.T) {
	c := Clock{Remaining: time.Minute, Increment: time.Second}
	soft, hard := Budget(c, 20*time.Millisecond)
	b := allocate(c, 20*time.Millisecond)
	if soft != b.soft || hard != b.hard || soft <= 0 || hard < soft {
		t.Fatalf("Budget = %v, %v; allocate = %+v", soft, hard, b)
	}
}

func TestControlPonderClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	hit := start.Add(10 * time.Second)
	now := start.Add(13 * time.Second)
	for _, fromStart := range []bool{false, true} {
		c := &control{sig: new(Signals), start: start, timed: true, budget: timeBudget{soft: time.Second, hard: 5 * time.Second},
			lim: Limits{Ponder: true, PonderTimeFromStart: fromStart}}
		if got := c.elapsed(now); got != 13*time.Second {
			t.Errorf("before ponderhit: elapsed %v, want 13s", got)
		}
		if !c.pondering() {
			t.Error("a ponder search without a hit is not pondering")
		}
		if c.timeUp() || c.softUp(1) {
			t.Error("time ran out while pondering")
		}
		c.sig.hit.Store(hit.UnixNano())
		if c.pondering() {
			t.Error("a hit ponder search is still pondering")
		}
		want := 3 * time.Second // measured from the ponderhit
		if fromStart {
			want = 13 * time.Second
		}
		if got := c.elapsed(now); got != want {
			t.Errorf("fromStart=%v: elapsed %v, want %v", fromStart, got, want)
		}
	}
	// A search that started long ago is over its hard limit once not pondering.
	c := &control{sig: new(Signals), start: time.Now().Add(-time.Hour), timed: true, budget: timeBudget{soft: time.Second, hard: time.Second}}
	if !c.timeUp() || !c.softUp(1) {
		t.Error("an hour-old search is not over its limits")
	}
	c.timed = false
	if c.timeUp() {
		t.Error("untimed search reports time up")
	}
}

// A simulated sudden-death game in which every move spends the most the
// time manager allows (the soft target stretched to the largest scale,
// capped by the hard limit) plus some lag: the clock must settle well
// above zero, so a stall of the machine late in the game does not flag.
// The rule before the reserve let 10+0.1 sink to about 0.15 s.
func TestAllocateClockSettles(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		base, inc, overhead, lag, floor time.Duration
		moves                           int
	}{
		{10 * time.Second, 100 * ms, 100 * ms, 20 * ms, 500 * ms, 150},
		{8 * time.Second, 80 * ms, 100 * ms, 20 * ms, 400 * ms, 150},
		{60 * time.Second, 0, 100 * ms, 20 * ms, 100 * ms, 60},
		{180 * time.Second, 2 * time.Second, 100 * ms, 50 * ms, 5 * time.Second, 150},
	} {
		clock := tc.base
		lowest := clock
		for move := 1; move <= tc.moves; move++ {
			b := allocate(Clock{Remaining: clock, Increment: tc.inc}, tc.overhead)
			used := b.scaledSoft(3) + tc.lag
			if used >= clock {
				t.Fatalf("%v+%v: move %d spends %v with %v on the clock", tc.base, tc.inc, move, used, clock)
			}
			clock += tc.inc - used
			if move > 20 {
				lowest = min(lowest, clock)
			}
		}
		if lowest <= tc.floor {
			t.Errorf("%v+%v: clock fell to %v after move 20, want at least %v", tc.base, tc.inc, lowest, tc.floor)
		}
		t.Logf("%v+%v: lowest clock after move 20: %v", tc.base, tc.inc, lowest)
	}
}

// A control built as a literal (as the tests above build them, without
// newControl's done channel) can be halted: the stop flag is raised, twice
// is no panic.
func TestControlLiteralHalt(t *testing.T) {
	c := &control{sig: new(Signals)}
	c.halt()
	c.halt()
	if !c.stopped() {
		t.Error("a halted control is not stopped")
	}
}
