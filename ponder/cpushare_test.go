package ponder

import (
	"context"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// checkShareLocked reports what breaks the CPUShare's invariant: more
// threads handed out than the total, beyond one for each overdue search
// for a move that got none of the total's; a lease given more than it
// wants; an overdue search for a move given none; a search for a move
// waiting while a thread is free or held by a ponder search, or while one
// that became a search for a move after it holds one of the total's; a
// lease's held out of step with its granted.
func (s *CPUShare) checkShareLocked() (inUse int, ok bool) {
	ok = true
	over, ponderHeld := 0, 0
	waiting := false
	for _, l := range s.leases {
		inUse += l.granted
		if l.granted > l.want || l.granted < 0 || int(l.held.Load()) != l.granted {
			ok = false
		}
		if l.over {
			over++
			if !l.thinking || !l.overdue || l.granted != 1 {
				ok = false
			}
		}
		switch {
		case !l.thinking:
			ponderHeld += l.granted
		case l.granted == 0:
			waiting = true
			if l.overdue {
				ok = false
			}
		case waiting && !l.over:
			ok = false // not first come, first served
		}
	}
	if waiting && (ponderHeld > 0 || inUse-over != s.total) {
		ok = false
	}
	return inUse, ok && inUse-over <= s.total
}

// fakeClock is a shareClock whose time moves only by advance, which calls
// the functions that fall due on the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// newFakeShare is a share of total threads on a fake clock.
func newFakeShare(total int) (*CPUShare, *fakeClock) {
	s := NewCPUShare(total)
	c := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.clock = c
	return s, c
}

// Searches that start, get a ponder hit, end and search on (acquireAfter)
// on many goroutines at once, while the total changes and waiting searches
// reach their bounds, are
// never handed more threads than the total, save one for each overdue
// search for a move that got none of the total's.
func TestCPUShareNeverOverTotal(t *testing.T) {
	s, clock := newFakeShare(3)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	check := func(what string) {
		s.mu.Lock()
		_, ok := s.checkShareLocked()
		s.mu.Unlock()
		if !ok {
			mu.Lock()
			bad = append(bad, what)
			mu.Unlock()
		}
	}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for range 300 {
				l := s.acquire(new(search.Signals), 1+rng.Intn(3), rng.Intn(2) == 0, time.Duration(rng.Intn(3))*time.Millisecond)
				check("acquire")
				if rng.Intn(2) == 0 {
					s.think(l, time.Duration(rng.Intn(3))*time.Millisecond)
					check("think")
				}
				s.release(l)
				check("release")
				s.release(l) // twice: nothing
				if rng.Intn(3) == 0 {
					// a search on after l (acquireAfter): l's place, no wait
					n := s.acquireAfter(new(search.Signals), 1+rng.Intn(3), true, time.Millisecond, l)
					check("search on")
					s.release(n)
					check("release of a search on")
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 300 {
			s.SetTotal(1 + i%4)
			check("set total")
			clock.advance(time.Millisecond) // bounds fall due
			check("bound")
		}
	}()
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d checks found the share broken: more threads handed out than the total and the overdue, or a wrong wait (first after %s)", len(bad), bad[0])
	}
	if n := s.InUse(); n != 0 {
		t.Fatalf("%d threads in use after every lease was released", n)
	}
}

// Searches for a move are served before ponder searches, and take their
// threads; leases of one kind share equally, the earlier the odd thread.
func TestCPUShareThinkFirst(t *testing.T) {
	s, _ := newFakeShare(2)
	p1 := s.acquire(new(search.Signals), 2, false, 0)
	if p1.granted != 2 {
		t.Fatalf("lone ponder search got %d threads, want 2", p1.granted)
	}
	p2 := s.acquire(new(search.Signals), 2, false, 0)
	if p1.granted != 1 || p2.granted != 1 {
		t.Fatalf("two ponder searches got %d and %d, want 1 and 1", p1.granted, p2.granted)
	}
	th := s.acquire(new(search.Signals), 2, true, time.Second)
	if th.granted != 2 || p1.granted != 0 || p2.granted != 0 {
		t.Fatalf("think %d, ponder %d and %d; want 2, 0, 0", th.granted, p1.granted, p2.granted)
	}
	s.release(th)
	if p1.granted != 1 || p2.granted != 1 {
		t.Fatalf("after the think: ponder %d and %d, want 1 and 1", p1.granted, p2.granted)
	}
	s.think(p2, time.Second) // a ponder hit
	if p2.granted != 2 || p1.granted != 0 {
		t.Fatalf("after a hit: hit %d, other ponder %d; want 2, 0", p2.granted, p1.granted)
	}
	s.release(p1)
	s.release(p2)

	// More games to move than threads: the first two get one thread each,
	// the third waits with none (within its bound), and a ponder search
	// gets none meanwhile.
	p3 := s.acquire(new(search.Signals), 2, false, 0)
	t1 := s.acquire(new(search.Signals), 2, true, time.Second)
	t2 := s.acquire(new(search.Signals), 2, true, time.Second)
	t3 := s.acquire(new(search.Signals), 2, true, time.Second)
	if t1.granted != 1 || t2.granted != 1 || t3.granted != 0 || p3.granted != 0 {
		t.Fatalf("three thinks and a ponder on two threads got %d %d %d and %d, want 1 1 0 and 0", t1.granted, t2.granted, t3.granted, p3.granted)
	}
	s.release(t1)
	if t2.granted != 1 || t3.granted != 1 || p3.granted != 0 {
		t.Fatalf("after the first think ended: %d %d and the ponder %d, want 1 1 and 0", t2.granted, t3.granted, p3.granted)
	}
	s.release(t2)
	if t3.granted != 2 || p3.granted != 0 {
		t.Fatalf("the last think got %d threads once the others ended, the ponder %d; want 2 and 0", t3.granted, p3.granted)
	}
	s.release(t3)
	if p3.granted != 2 {
		t.Fatalf("the ponder search got %d threads back, want 2", p3.granted)
	}
	var nilShare *CPUShare
	if l := nilShare.acquire(new(search.Signals), 4, true, time.Second); l != nil {
		t.Fatal("a nil share gave a lease")
	}
}

// leaseOf is the lease of g's running search (nil when none runs).
func leaseOf(g *Game) *lease {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.run == nil {
		return nil
	}
	return g.run.lease
}

// granted reads a lease's threads under its share's lock.
func granted(s *CPUShare, l *lease) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return l.granted
}

// A Think gets its threads while another game's ponder search holds the
// whole share: the ponder search gives them up (it is not restarted) and
// gets them back when the Think is over.
func TestThinkTakesThreadsFromPonder(t *testing.T) {
	share := NewCPUShare(2)
	a := newTestGame(t, Options{Ponder: true, Threads: 2, CPU: share})
	b := newTestGame(t, Options{Ponder: true, Threads: 2, CPU: share})
	a.StartPonder(context.Background())
	waitPonderDepth(t, a, 2)
	la := leaseOf(a)
	if la == nil || granted(share, la) != 2 {
		t.Fatal("the lone ponder search does not hold both threads")
	}
	searches := a.Searches()
	var mu sync.Mutex
	var seen, wrong int
	_, err := b.Think(context.Background(), ThinkLimits{Depth: 6}, func(search.Info) {
		share.mu.Lock()
		inUse, ok := share.checkShareLocked()
		lb := share.leases[len(share.leases)-1]
		good := ok && inUse <= 2 && la.granted == 0 && lb.thinking && lb.granted == 2
		share.mu.Unlock()
		mu.Lock()
		seen++
		if !good {
			wrong++
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("think: %v", err)
	}
	if seen == 0 || wrong > 0 {
		t.Fatalf("%d of %d iterations of the Think saw the ponder search keep threads (or the share over its total)", wrong, seen)
	}
	if !a.Pondering() || a.Searches() != searches {
		t.Fatal("the ponder search was stopped or restarted instead of giving its threads up")
	}
	if n := granted(share, la); n != 2 {
		t.Fatalf("the ponder search has %d threads after the Think, want 2 back", n)
	}
	a.StopPonder()
	if n := share.InUse(); n != 0 {
		t.Fatalf("%d threads in use after every search ended", n)
	}
}

// checkShare fails t when s's invariant is broken (see checkShareLocked).
func checkShare(t *testing.T, s *CPUShare, when string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.checkShareLocked(); !ok {
		t.Fatalf("%s: the share is broken", when)
	}
}

// A third search for a move on two threads, both held by searches for a
// move, waits with none (and its search is told so), ahead of the ponder
// searches; it gets a thread the moment one of them ends, without any time
// passing, and its wait is counted.
func TestCPUShareThirdThinkWaits(t *testing.T) {
	s, clock := newFakeShare(2)
	p := s.acquire(new(search.Signals), 1, false, 0)
	t1 := s.acquire(new(search.Signals), 1, true, time.Second)
	t2 := s.acquire(new(search.Signals), 1, true, time.Second)
	t3 := s.acquire(new(search.Signals), 1, true, time.Second)
	checkShare(t, s, "three thinks")
	if granted(s, t3) != 0 || t3.held.Load() != 0 || s.InUse() != 2 {
		t.Fatalf("the third think holds %d (told %d) with %d in use; want 0, 0 and 2", granted(s, t3), t3.held.Load(), s.InUse())
	}
	if granted(s, p) != 0 {
		t.Fatalf("a ponder search holds %d threads while a think waits", granted(s, p))
	}
	clock.advance(300 * time.Millisecond) // within the bound
	checkShare(t, s, "within the bound")
	if granted(s, t3) != 0 {
		t.Fatalf("the third think got %d threads before its bound with none free", granted(s, t3))
	}
	if w := s.Waits(); w.Waited != 0 || w.Searches != 0 {
		t.Fatalf("waits counted before the waiting search ended: %+v", w)
	}
	s.release(t2)
	checkShare(t, s, "a think ended")
	if granted(s, t3) != 1 || t3.held.Load() != 1 || granted(s, p) != 0 {
		t.Fatalf("after a think ended the waiting one holds %d (told %d), the ponder %d; want 1, 1, 0",
			granted(s, t3), t3.held.Load(), granted(s, p))
	}
	clock.advance(time.Second) // past the bound: nothing changes, it has a thread
	if granted(s, t3) != 1 || s.InUse() != 2 {
		t.Fatalf("past its bound the think holds %d with %d in use, want 1 and 2", granted(s, t3), s.InUse())
	}
	s.release(t3)
	s.release(t1)
	w := s.Waits()
	if w.Searches != 3 || w.Waited != 1 || w.Total != 300*time.Millisecond || w.Max != 300*time.Millisecond || w.Overdue != 0 {
		t.Fatalf("waits %+v, want three searches for a move, one that waited 300ms, none over the total", w)
	}
	if granted(s, p) != 1 {
		t.Fatalf("the ponder search got %d threads back, want 1", granted(s, p))
	}
	s.release(p)
}

// A search for a move that waits its whole bound is given one thread over
// the total, and only then; it goes back within the total the moment a
// thread frees. Searches for a move are served first come, first served:
// a ponder hit waits behind the searches for a move that came before it.
func TestCPUShareOverdueThinkGoesOver(t *testing.T) {
	s, clock := newFakeShare(2)
	t1 := s.acquire(new(search.Signals), 2, true, time.Second)
	t2 := s.acquire(new(search.Signals), 2, true, time.Second)
	t3 := s.acquire(new(search.Signals), 2, true, 100*time.Millisecond)
	p := s.acquire(new(search.Signals), 2, false, 0)
	clock.advance(99 * time.Millisecond)
	checkShare(t, s, "before the bound")
	if granted(s, t3) != 0 || s.InUse() != 2 {
		t.Fatalf("before its bound the third think holds %d with %d in use, want 0 and 2", granted(s, t3), s.InUse())
	}
	clock.advance(time.Millisecond)
	checkShare(t, s, "at the bound")
	if granted(s, t3) != 1 || t3.held.Load() != 1 || s.InUse() != 3 || granted(s, p) != 0 {
		t.Fatalf("at its bound the third think holds %d (told %d) with %d in use, the ponder %d; want 1, 1, 3 and 0",
			granted(s, t3), t3.held.Load(), s.InUse(), granted(s, p))
	}
	// A ponder hit now: it comes after t3, and waits.
	s.think(p, 50*time.Millisecond)
	checkShare(t, s, "a ponder hit")
	if granted(s, p) != 0 || s.InUse() != 3 {
		t.Fatalf("the ponder hit holds %d with %d in use, want 0 and 3", granted(s, p), s.InUse())
	}
	s.release(t1)
	checkShare(t, s, "a think ended")
	if granted(s, t3) != 1 || t3.over || granted(s, p) != 0 || s.InUse() != 2 {
		t.Fatalf("after a think ended: the overdue one holds %d (over %v), the hit %d, %d in use; want 1 within the total, 0, 2",
			granted(s, t3), t3.over, granted(s, p), s.InUse())
	}
	s.release(t2)
	checkShare(t, s, "another think ended")
	if granted(s, t3) != 1 || granted(s, p) != 1 || s.InUse() != 2 {
		t.Fatalf("after two thinks ended: %d and the hit %d with %d in use, want 1, 1 and 2", granted(s, t3), granted(s, p), s.InUse())
	}
	s.release(t3)
	s.release(p)
	w := s.Waits()
	if w.Searches != 4 || w.Waited != 2 || w.Overdue != 1 || w.Max != 100*time.Millisecond || w.Total != 100*time.Millisecond {
		t.Fatalf("waits %+v, want 4 searches, 2 that waited (100ms, overdue; 0ms), 1 over the total", w)
	}
	if n := s.InUse(); n != 0 {
		t.Fatalf("%d threads in use after every lease was released", n)
	}

	// Without a bound a search for a move never waits (as it did before).
	t4 := s.acquire(new(search.Signals), 1, true, time.Second)
	t5 := s.acquire(new(search.Signals), 1, true, time.Second)
	t6 := s.acquire(new(search.Signals), 1, true, 0)
	checkShare(t, s, "a think without a bound")
	if granted(s, t6) != 1 || s.InUse() != 3 {
		t.Fatalf("a think without a bound holds %d with %d in use, want 1 and 3", granted(s, t6), s.InUse())
	}
	// A smaller total makes a running think wait; past its bound it goes over.
	s.release(t6)
	s.SetTotal(1)
	checkShare(t, s, "a smaller total")
	if granted(s, t4) != 1 || granted(s, t5) != 0 {
		t.Fatalf("on one thread the thinks hold %d and %d, want 1 and 0", granted(s, t4), granted(s, t5))
	}
	clock.advance(time.Second)
	checkShare(t, s, "past the bounds")
	if granted(s, t5) != 1 || s.InUse() != 2 {
		t.Fatalf("past its bound the think holds %d with %d in use, want 1 and 2", granted(s, t5), s.InUse())
	}
	s.release(t4)
	s.release(t5)
	// Every search for a move that got a thread over the total counts, also
	// one that never waited (t6, without a bound).
	if w := s.Waits(); w.Searches != 7 || w.Waited != 3 || w.Overdue != 3 {
		t.Fatalf("waits %+v, want 7 searches, 3 that waited, 3 over the total (t3, t5 at their bounds, t6 at once)", w)
	}
}

// The bound of a search for a move's wait is a quarter of its soft time, a
// second without a time budget.
func TestThinkWait(t *testing.T) {
	if got := thinkWait(Budget{Soft: 2 * time.Second, Hard: 5 * time.Second, Timed: true}); got != 500*time.Millisecond {
		t.Fatalf("soft 2s waits %v, want 500ms", got)
	}
	if got := thinkWait(Budget{}); got != time.Second {
		t.Fatalf("an untimed search waits %v, want 1s", got)
	}
}

// The bound of a timed search for a move's wait falls before its soft
// time, for every budget: a waiting search reports no iteration, so
// nothing but the bound (or the hard limit) lifts it, and a bound at or
// past Soft would leave it waiting to its hard limit (review N3). Budgets
// of every clock, increment, moves to go, overhead and pondered time that
// PlanMove makes, fixed move times, and what a search on after a capped
// hit or a tablebase search gets (down to MinThink).
func TestThinkWaitBelowSoft(t *testing.T) {
	check := func(what string, b Budget) {
		t.Helper()
		if !b.Timed {
			return
		}
		if w := thinkWait(b); w < 0 || (w > 0 && w >= b.Soft) {
			t.Fatalf("%s: budget %+v waits up to %v, not before its soft time", what, b, w)
		}
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	n := 0
	for _, remaining := range []int{1, 5, 20, 50, 100, 300, 1000, 3000, 10_000, 60_000, 180_000, 600_000, 3_600_000} {
		for _, inc := range []int{0, 10, 100, 1000, 2000, 30_000} {
			for _, mtg := range []int{0, 1, 2, 10, 40} {
				for _, overhead := range []int{0, 20, 100, 1000} {
					for _, pondered := range []int{0, 1, 50, 1000, 10_000, 120_000} {
						for _, white := range []bool{true, false} {
							lim := ThinkLimits{WTime: ms(remaining), BTime: ms(remaining), WInc: ms(inc), BInc: ms(inc), MovesToGo: mtg}
							b := PlanMove(lim, white, ms(overhead), ms(pondered))
							check("clock", b)
							left := b
							left.Soft, left.Hard = max(b.Soft-b.Soft/2, MinThink), max(b.Hard-b.Soft/2, MinThink)
							check("search on", left)
							tb := b
							tb.Soft, tb.Hard = max(b.Soft/2, MinThink), max(b.Hard/2, MinThink)
							check("tablebase", tb)
							n++
						}
					}
				}
			}
		}
	}
	for _, mt := range []time.Duration{1, time.Millisecond, MinThink, 50 * time.Millisecond, time.Second, time.Minute} {
		check("movetime", PlanMove(ThinkLimits{MoveTime: mt}, true, 20*time.Millisecond, 0))
	}
	check("the least", Budget{Soft: MinThink, Hard: MinThink, Timed: true})
	if n == 0 {
		t.Fatal("no budget checked")
	}
}

// A Think whose search finds every thread held by another game's search
// for a move waits with none: it completes depth 1 and pauses
// (SearchThreads says 0), goes on the moment the thread frees, and its
// wait is counted. A timed one that waits to its hard limit still plays a
// move of depth 1 at least, in its time.
func TestThinkWaitsForAThread(t *testing.T) {
	share, _ := newFakeShare(1) // no bound falls due: time does not move
	g := newTestGame(t, Options{Threads: 1, CPU: share})
	other := share.acquire(new(search.Signals), 1, true, time.Second)

	depth1 := make(chan int, 1)
	var mu sync.Mutex
	freed, early := false, false
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := g.Think(context.Background(), ThinkLimits{Depth: 3}, func(inf search.Info) {
			mu.Lock()
			defer mu.Unlock()
			if inf.Depth == 1 && inf.MultiPV == 1 {
				select {
				case depth1 <- g.SearchThreads():
				default:
				}
			}
			if inf.Depth >= 2 && !freed {
				early = true
			}
		})
		done <- result{d, err}
	}()
	if n := <-depth1; n != 0 {
		t.Fatalf("the waiting search ran depth 1 with %d threads, want 0", n)
	}
	mu.Lock()
	freed = true
	mu.Unlock()
	share.release(other)
	res := <-done
	if res.err != nil {
		t.Fatalf("think: %v", res.err)
	}
	if early {
		t.Fatal("the search went past depth 1 while it had no thread")
	}
	if res.d.Depth != 3 || res.d.Move == board.NoMove {
		t.Fatalf("the search that got its thread back ended at depth %d with %v, want depth 3 and a move", res.d.Depth, res.d.Move)
	}
	if w := share.Waits(); w.Searches != 2 || w.Waited != 1 || w.Overdue != 0 {
		t.Fatalf("waits %+v, want two searches (the other game's, the Think), one that waited, none over the total", w)
	}
	if n := g.SearchThreads(); n != 0 {
		t.Fatalf("SearchThreads is %d with no search running", n)
	}

	// Timed, and the thread never frees (nor does the bound fall due): the
	// hard limit ends the wait with the depth-1 move.
	other = share.acquire(new(search.Signals), 1, true, time.Second)
	d := think(t, g, ThinkLimits{MoveTime: 50 * time.Millisecond})
	share.release(other)
	if d.Source != FromSearch || d.Depth < 1 || d.Move == board.NoMove || d.Time > 2*time.Second {
		t.Fatalf("a timed think that never got a thread: %v from %v at depth %d after %v, want a searched move of depth 1 or more within its 50ms (2s allowed)", d.Move, d.Source, d.Depth, d.Time)
	}
	if w := share.Waits(); w.Searches != 4 || w.Waited != 2 {
		t.Fatalf("waits %+v, want four searches, the two Thinks waited", w)
	}
}

// The time a Think waited for a thread is not search time: the depth
// clock (which decides a ponder hit's immediate stop, a move from the
// tree and the memory's jump) records each depth's time less the time the
// search was paused, and the wait is a part of the time the search
// reports as paused.
func TestThinkWaitIsNotSearchTime(t *testing.T) {
	share, _ := newFakeShare(1) // no bound falls due: time does not move
	g := newTestGame(t, Options{Threads: 1, CPU: share})
	other := share.acquire(new(search.Signals), 1, true, time.Second)
	depth1 := make(chan struct{}, 1)
	var mu sync.Mutex
	infos := map[int]search.Info{}
	done := make(chan error, 1)
	go func() {
		_, err := g.Think(context.Background(), ThinkLimits{Depth: 3}, func(inf search.Info) {
			if inf.MultiPV != 1 || inf.Bound != search.BoundExact {
				return
			}
			mu.Lock()
			infos[inf.Depth] = inf
			mu.Unlock()
			if inf.Depth == 1 {
				depth1 <- struct{}{}
			}
		})
		done <- err
	}()
	<-depth1
	const kept = 200 * time.Millisecond // the search pauses right after depth 1
	time.Sleep(kept)
	share.release(other)
	if err := <-done; err != nil {
		t.Fatalf("think: %v", err)
	}
	g.mu.Lock()
	times := append([]time.Duration(nil), g.depths.times...)
	g.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	for d := 2; d <= 3; d++ {
		inf, ok := infos[d]
		if !ok || d >= len(times) {
			t.Fatalf("depth %d: no info or no recorded time (%v)", d, times)
		}
		if inf.Paused <= 0 || inf.Time < kept {
			t.Fatalf("depth %d: %v in all, %v paused; want over %v in all, some paused (the wait)", d, inf.Time, inf.Paused, kept)
		}
		if times[d] != inf.Time-inf.Paused {
			t.Fatalf("depth %d recorded %v, want %v: its %v less the %v it waited", d, times[d], inf.Time-inf.Paused, inf.Time, inf.Paused)
		}
	}
}

// A search for a move that goes on from a converted ponder search stopped
// at its cap (acquireAfter) takes that search's place among the searches
// for a move: it gets back the thread that a later search took when the
// first one ended, and that one waits again. It never waits itself: with
// no thread within the total it is given one over it at once, and no wait
// is counted for it.
func TestCPUShareSearchOnKeepsItsPlace(t *testing.T) {
	s, _ := newFakeShare(2)
	t1 := s.acquire(new(search.Signals), 1, true, time.Second)
	p := s.acquire(new(search.Signals), 1, false, 0)
	s.think(p, time.Second) // a ponder hit: the second search for a move
	c := s.acquire(new(search.Signals), 1, true, time.Second)
	checkShare(t, s, "a hit and a later think")
	if granted(s, p) != 1 || granted(s, c) != 0 {
		t.Fatalf("the hit holds %d and the later think %d, want 1 and 0", granted(s, p), granted(s, c))
	}
	s.release(p) // stopped at its cap with budget left
	if granted(s, c) != 1 {
		t.Fatalf("the later think holds %d once the hit ended, want 1", granted(s, c))
	}
	n := s.acquireAfter(new(search.Signals), 1, true, time.Second, p)
	checkShare(t, s, "the search on")
	if granted(s, n) != 1 || n.over || granted(s, c) != 0 || s.InUse() != 2 {
		t.Fatalf("the search on holds %d (over %v), the later think %d, %d in use; want 1 within the total, 0, 2",
			granted(s, n), n.over, granted(s, c), s.InUse())
	}
	s.release(n)
	s.release(c)
	s.release(t1)

	// On one thread held by an earlier search for a move, the search on
	// does not wait a second time: it goes over at once.
	s.SetTotal(1)
	x := s.acquire(new(search.Signals), 1, true, time.Second)
	p2 := s.acquire(new(search.Signals), 1, false, 0)
	s.think(p2, time.Second)
	if granted(s, p2) != 0 {
		t.Fatalf("the hit behind a think on one thread holds %d, want 0", granted(s, p2))
	}
	s.release(p2)
	n2 := s.acquireAfter(new(search.Signals), 1, true, time.Second, p2)
	checkShare(t, s, "a search on behind a think")
	if granted(s, n2) != 1 || !n2.over || granted(s, x) != 1 {
		t.Fatalf("the search on holds %d (over %v), the think %d; want 1 over the total, 1", granted(s, n2), n2.over, granted(s, x))
	}
	s.release(n2)
	s.release(x)
	if w := s.Waits(); w.Searches != 7 || w.Waited != 2 || w.Overdue != 1 {
		t.Fatalf("waits %+v, want 7 searches, 2 that waited (the later think, the hit; the searches on never wait), 1 over the total (a search on)", w)
	}
}

// A Think whose ponder search stopped at its cap below the depth asked
// searches on in a new search, which does not queue for a thread a second
// time: the converted search waited behind another game's search for a
// move; the search on is given a thread (over the total) at once, and only
// the first wait is counted.
func TestSearchOnAfterCappedHitDoesNotWaitAgain(t *testing.T) {
	share, _ := newFakeShare(1) // no bound falls due: time does not move
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 3, Threads: 1, CPU: share})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 3)
	play(t, g, d.PonderUCI)
	other := share.acquire(new(search.Signals), 1, true, time.Second) // another game must move
	threads := make(chan int, 1)
	searches := g.Searches()
	done := make(chan error, 1)
	go func() {
		_, err := g.Think(context.Background(), ThinkLimits{Depth: 6}, func(inf search.Info) {
			if inf.Depth == 1 && inf.MultiPV == 1 {
				select {
				case threads <- g.SearchThreads():
				default:
				}
			}
		})
		done <- err
	}()
	var n int
	select {
	case n = <-threads:
	case err := <-done:
		t.Fatalf("the think ended before its search on reported depth 1: %v", err)
	}
	share.release(other) // lets a search on that waits go on: the test ends either way
	if err := <-done; err != nil {
		t.Fatalf("think: %v", err)
	}
	if g.Searches() != searches+1 {
		t.Fatalf("%d searches for the move, want 1 (a search on)", g.Searches()-searches)
	}
	if n != 1 {
		t.Fatalf("the search on held %d threads at depth 1, want 1 (over the total, no second wait)", n)
	}
	if w := share.Waits(); w.Waited != 1 || w.Overdue != 1 {
		t.Fatalf("waits %+v, want the hit's one wait, and the search on over the total", w)
	}
}

// A ponder hit answered at once from the ponder search (deep enough) is no
// search for the move: it neither queues for a thread nor counts as a
// search or a wait, even when another game's search for a move holds
// every thread.
func TestImmediatePonderHitIsNoSearchForAMove(t *testing.T) {
	share, _ := newFakeShare(1)
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 3, Threads: 1, CPU: share})
	d := think(t, g, ThinkLimits{Depth: 3})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 3)
	play(t, g, d.PonderUCI)
	other := share.acquire(new(search.Signals), 1, true, time.Second)
	before := share.Waits()
	d2 := think(t, g, ThinkLimits{Depth: 3})
	share.release(other)
	if d2.Source != FromPonderAtOnce {
		t.Fatalf("the hit answered from %v, want %v", d2.Source, FromPonderAtOnce)
	}
	if w := share.Waits(); w.Searches != before.Searches+1 || w.Waited != 0 {
		t.Fatalf("waits %+v after %+v, want only the other game's search counted, no wait", w, before)
	}
}
