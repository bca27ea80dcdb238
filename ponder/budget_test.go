package ponder

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

const ms = time.Millisecond

func TestPlanMove(t *testing.T) {
	clock := ThinkLimits{WTime: 60 * time.Second, BTime: 30 * time.Second, WInc: time.Second, BInc: time.Second}
	// The base allocation is engine/search's; the tree adds the ponder rule.
	wBase, wHard := search.Budget(search.Clock{Remaining: 60 * time.Second, Increment: time.Second}, 100*ms)
	bBase, bHard := search.Budget(search.Clock{Remaining: 30 * time.Second, Increment: time.Second}, 100*ms)
	sBase, sHard := search.Budget(search.Clock{Remaining: time.Second}, 100*ms)
	if wBase < 2*time.Second || wBase >= wHard || sBase >= sHard {
		t.Fatalf("unexpected base allocation: %v/%v, %v/%v", wBase, wHard, sBase, sHard)
	}
	tests := []struct {
		name     string
		lim      ThinkLimits
		white    bool
		pondered time.Duration
		want     Budget
	}{
		{"no ponder", clock, true, 0, Budget{Base: wBase, Target: wBase, Soft: wBase, Hard: wHard, Timed: true}},
		// pondered p: Target = Base + p/2, Soft = Target - p = Base - p/2.
		{"ponder 1s", clock, true, time.Second,
			Budget{Base: wBase, Target: wBase + 500*ms, Soft: wBase - 500*ms, Hard: wHard, Timed: true}},
		{"ponder 4s", clock, true, 4 * time.Second,
			Budget{Base: wBase, Target: wBase + 2*time.Second, Soft: wBase - 2*time.Second, Hard: wHard, Timed: true}},
		// Pondered twice the base or more: only MinThink is left to spend.
		{"ponder long", clock, true, 2*wBase + time.Second,
			Budget{Base: wBase, Target: 2*wBase + 500*ms, Soft: MinThink, Hard: wHard, Timed: true}},
		{"black clock", clock, false, 0, Budget{Base: bBase, Target: bBase, Soft: bBase, Hard: bHard, Timed: true}},
		// Short clock: the hard limit is never raised by pondering.
		{"short clock", ThinkLimits{WTime: time.Second}, true, 5 * time.Second,
			Budget{Base: sBase, Target: sBase + 2500*ms, Soft: MinThink, Hard: sHard, Timed: true}},
		// A fixed move time is used whole: no overhead off, no pondering rule.
		{"movetime ignores pondering", ThinkLimits{MoveTime: time.Second}, true, 3 * time.Second,
			Budget{Base: time.Second, Target: time.Second, Soft: time.Second, Hard: time.Second, Timed: true}},
		{"movetime 100ms", ThinkLimits{MoveTime: 100 * ms}, false, 0,
			Budget{Base: 100 * ms, Target: 100 * ms, Soft: 100 * ms, Hard: 100 * ms, Timed: true}},
		{"movetime below overhead", ThinkLimits{MoveTime: 30 * ms, WTime: time.Second}, true, 0,
			Budget{Base: 30 * ms, Target: 30 * ms, Soft: 30 * ms, Hard: 30 * ms, Timed: true}},
		{"infinite", ThinkLimits{Infinite: true, WTime: time.Second}, true, 0, Budget{}},
		{"depth only", ThinkLimits{Depth: 5}, true, time.Second, Budget{}},
	}
	for _, tc := range tests {
		got := PlanMove(tc.lim, tc.white, 100*ms, tc.pondered)
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
		if got.Timed && (got.Soft > got.Hard || got.Soft < MinThink) {
			t.Errorf("%s: soft %v outside [MinThink, hard %v]", tc.name, got.Soft, got.Hard)
		}
	}
}

// Pondering never lengthens our clock time, and each extra second pondered
// shortens it by (1-PonderShare) seconds until MinThink.
func TestPlanMovePonderedMonotone(t *testing.T) {
	lim := ThinkLimits{BTime: 5 * time.Minute, BInc: 3 * time.Second}
	prev := PlanMove(lim, false, 0, 0)
	for p := 100 * ms; p < 60*time.Second; p += 100 * ms {
		b := PlanMove(lim, false, 0, p)
		if b.Soft > prev.Soft {
			t.Fatalf("pondered %v: soft %v grew from %v", p, b.Soft, prev.Soft)
		}
		if b.Hard != prev.Hard || b.Base != prev.Base {
			t.Fatalf("pondered %v changed base/hard", p)
		}
		if want := max(b.Base-time.Duration(float64(p)*(1-PonderShare)), MinThink); b.Soft != want {
			t.Fatalf("pondered %v: soft %v, want %v", p, b.Soft, want)
		}
		prev = b
	}
}

func TestDepthClockReachable(t *testing.T) {
	var h depthClock
	if got := h.reachable(time.Second, -1); got != -1 {
		t.Errorf("no history: %d, want fallback", got)
	}
	// depth d completes at 10ms * 2^(d-1): 10, 20, 40, 80, 160 ms.
	for d := 1; d <= 5; d++ {
		h.record(d, 10*ms<<(d-1))
	}
	tests := []struct {
		budget time.Duration
		want   int
	}{
		{5 * ms, 0},
		{10 * ms, 1},
		{79 * ms, 3},
		{160 * ms, 5},
		{319 * ms, 5}, // next depth would take 320ms (branching factor 2)
		{320 * ms, 6},
		{1280 * ms, 8},
	}
	for _, tc := range tests {
		if got := h.reachable(tc.budget, -1); got != tc.want {
			t.Errorf("reachable(%v) = %d, want %d", tc.budget, got, tc.want)
		}
	}
	// A new search starts a new timeline.
	h.record(1, 50*ms)
	if got := h.reachable(49*ms, -1); got != 0 {
		t.Errorf("after restart: %d, want 0", got)
	}
}

// checkSoft's stability rule stops a stable clock search before Soft, but
// never a fixed move time before the move time.
func TestCheckSoftKeepsFixedMoveTime(t *testing.T) {
	g := &Game{}
	// 8s spent of a 10s budget, best move stable for many iterations: the
	// stability rule (0.75 of Soft) says stop; a fixed move time does not.
	for _, tc := range []struct {
		lim  ThinkLimits
		stop bool
	}{
		{ThinkLimits{WTime: 10 * time.Minute, MovesToGo: 1}, true},
		{ThinkLimits{MoveTime: 10 * time.Second}, false},
	} {
		r := &run{converted: true, lim: tc.lim, stable: 10, hitAt: time.Now().Add(-8 * time.Second),
			sig: new(search.Signals)}
		r.budget = PlanMove(tc.lim, true, 0, 0)
		if tc.stop {
			// the clock case needs a soft target near 10s for the comparison
			r.budget.Soft, r.budget.Hard = 10*time.Second, 20*time.Second
		}
		g.checkSoft(r, search.Info{Depth: 20})
		if cancelled := r.sig.Stopped(); r.stopAsked != tc.stop || cancelled != tc.stop {
			t.Errorf("%+v: stopAsked %v cancelled %v, want %v", tc.lim, r.stopAsked, cancelled, tc.stop)
		}
	}
}

// A ponder hit whose search is already deeper than the budget reaches
// stops at once in a clock game, but a fixed move time is used whole.
func TestConvertKeepsFixedMoveTime(t *testing.T) {
	g := NewGame(Options{HashMB: 1})
	defer g.Close()
	for d := 1; d <= 5; d++ {
		g.depths.record(d, ms<<(d-1)) // 1, 2, 4, 8, 16 ms
	}
	for _, tc := range []struct {
		lim       ThinkLimits
		immediate bool
	}{
		{ThinkLimits{WTime: 10 * time.Second, MovesToGo: 1}, true},
		{ThinkLimits{MoveTime: 10 * time.Second}, false},
	} {
		r := &run{ponder: true, depth: 60, start: time.Now(), sig: new(search.Signals)}
		g.mu.Lock()
		g.convert(r, tc.lim)
		if r.timer != nil {
			r.timer.Stop()
		}
		g.mu.Unlock()
		if r.immediate != tc.immediate || r.stopAsked != tc.immediate {
			t.Errorf("%+v: immediate %v stopAsked %v, want %v", tc.lim, r.immediate, r.stopAsked, tc.immediate)
		}
		if tc.lim.MoveTime > 0 && r.budget.Hard != tc.lim.MoveTime {
			t.Errorf("movetime hard %v, want %v", r.budget.Hard, tc.lim.MoveTime)
		}
	}
}
