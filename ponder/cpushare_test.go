package ponder

import (
	"context"
	"math/rand"
	"sync"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// checkShareLocked reports what breaks the CPUShare's invariant: more
// threads handed out than the total (or than one each to the searches for
// a move, when they alone are more), a lease given more than it wants, or
// a search for a move given none.
func (s *CPUShare) checkShareLocked() (inUse int, ok bool) {
	ok = true
	thinking := 0
	for _, l := range s.leases {
		inUse += l.granted
		if l.granted > l.want || l.granted < 0 || l.thinking && l.granted < 1 {
			ok = false
		}
		if l.thinking {
			thinking++
		}
	}
	return inUse, ok && inUse <= max(s.total, thinking)
}

// Searches that start, get a ponder hit and end on many goroutines at once,
// while the total changes, are never handed more threads than the total.
func TestCPUShareNeverOverTotal(t *testing.T) {
	s := NewCPUShare(3)
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
				l := s.acquire(new(search.Signals), 1+rng.Intn(3), rng.Intn(2) == 0)
				check("acquire")
				if rng.Intn(2) == 0 {
					s.think(l)
					check("think")
				}
				s.release(l)
				check("release")
				s.release(l) // twice: nothing
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 300 {
			s.SetTotal(1 + i%4)
			check("set total")
		}
	}()
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d checks found more threads handed out than the total (first after %s)", len(bad), bad[0])
	}
	if n := s.InUse(); n != 0 {
		t.Fatalf("%d threads in use after every lease was released", n)
	}
}

// Searches for a move are served before ponder searches, and take their
// threads; leases of one kind share equally, the earlier the odd thread.
func TestCPUShareThinkFirst(t *testing.T) {
	s := NewCPUShare(2)
	p1 := s.acquire(new(search.Signals), 2, false)
	if p1.granted != 2 {
		t.Fatalf("lone ponder search got %d threads, want 2", p1.granted)
	}
	p2 := s.acquire(new(search.Signals), 2, false)
	if p1.granted != 1 || p2.granted != 1 {
		t.Fatalf("two ponder searches got %d and %d, want 1 and 1", p1.granted, p2.granted)
	}
	th := s.acquire(new(search.Signals), 2, true)
	if th.granted != 2 || p1.granted != 0 || p2.granted != 0 {
		t.Fatalf("think %d, ponder %d and %d; want 2, 0, 0", th.granted, p1.granted, p2.granted)
	}
	s.release(th)
	if p1.granted != 1 || p2.granted != 1 {
		t.Fatalf("after the think: ponder %d and %d, want 1 and 1", p1.granted, p2.granted)
	}
	s.think(p2) // a ponder hit
	if p2.granted != 2 || p1.granted != 0 {
		t.Fatalf("after a hit: hit %d, other ponder %d; want 2, 0", p2.granted, p1.granted)
	}
	s.release(p1)
	s.release(p2)

	// More games to move than threads: none waits, each gets one thread
	// (over the total), and a ponder search gets none meanwhile.
	p3 := s.acquire(new(search.Signals), 2, false)
	t1 := s.acquire(new(search.Signals), 2, true)
	t2 := s.acquire(new(search.Signals), 2, true)
	t3 := s.acquire(new(search.Signals), 2, true)
	if t1.granted != 1 || t2.granted != 1 || t3.granted != 1 || p3.granted != 0 {
		t.Fatalf("three thinks and a ponder on two threads got %d %d %d and %d, want 1 1 1 and 0", t1.granted, t2.granted, t3.granted, p3.granted)
	}
	s.release(t1)
	s.release(t2)
	if t3.granted != 2 || p3.granted != 0 {
		t.Fatalf("the last think got %d threads once the others ended, the ponder %d; want 2 and 0", t3.granted, p3.granted)
	}
	s.release(t3)
	if p3.granted != 2 {
		t.Fatalf("the ponder search got %d threads back, want 2", p3.granted)
	}
	var nilShare *CPUShare
	if l := nilShare.acquire(new(search.Signals), 4, true); l != nil {
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
