package search

import (
	"context"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// hangLimit bounds how long these tests wait for a search that must return
// on its own. It is no speed requirement: a lost stop or hit makes the
// search wait forever, so any bound this far above a depth-1 search tells
// the two apart on any machine.
const hangLimit = 30 * time.Second

// searchAsync runs a search on its own goroutine.
func searchAsync(ctx context.Context, e *Engine, p *board.Position, lim Limits, sig *Signals) <-chan Result {
	done := make(chan Result, 1)
	go func() { done <- e.Search(ctx, p, lim, sig, nil) }()
	return done
}

func awaitResult(t *testing.T, done <-chan Result, what string) Result {
	t.Helper()
	select {
	case res := <-done:
		return res
	case <-time.After(hangLimit):
		t.Fatalf("%s: the search did not return within %v (stop or hit lost)", what, hangLimit)
	}
	return Result{}
}

// A stop given before the search starts ends it at once, even a search
// that would otherwise never return on its own (infinite, or ponder with
// no hit); it still answers with a legal move.
func TestStopBeforeStart(t *testing.T) {
	p := mustFEN(t, kiwipete)
	for _, tc := range []struct {
		name string
		lim  Limits
	}{
		{"infinite", Limits{Infinite: true}},
		{"ponder", Limits{Ponder: true, WTime: time.Minute, BTime: time.Minute}},
	} {
		t.Run(tc.name+"/signals", func(t *testing.T) {
			e := New(Options{Threads: 2})
			sig := new(Signals)
			sig.Stop()
			res := awaitResult(t, searchAsync(context.Background(), e, p, tc.lim, sig), "stopped before start")
			if !isLegal(p, res.BestMove) {
				t.Fatalf("best move %v is not legal", res.BestMove)
			}
		})
		t.Run(tc.name+"/context", func(t *testing.T) {
			e := New(Options{Threads: 2})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res := awaitResult(t, searchAsync(ctx, e, p, tc.lim, nil), "cancelled before start")
			if !isLegal(p, res.BestMove) {
				t.Fatalf("best move %v is not legal", res.BestMove)
			}
		})
	}
}

// A stop aimed at search N, however late it comes (here: over and over
// while search N+1 runs), never stops search N+1, which reaches its depth.
func TestStopNeverReachesNextSearch(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 2, HashMB: 8})
	sig1 := new(Signals)
	ctx1, cancel1 := context.WithCancel(context.Background())
	first := searchAsync(ctx1, e, p, Limits{Infinite: true}, sig1)
	for e.Nodes() < 5000 {
		time.Sleep(time.Millisecond)
	}
	sig1.Stop()
	awaitResult(t, first, "search N")

	stopping := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			sig1.Stop()
			cancel1()
			select {
			case <-stopping:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	const depth = 9
	res := awaitResult(t, searchAsync(context.Background(), e, p, Limits{Depth: depth}, new(Signals)), "search N+1")
	close(stopping)
	<-stopped
	// The result may come from a helper thread that had finished fewer
	// iterations (lazy SMP's vote), so the main thread's depth is what
	// shows whether the search ran to its limit.
	if got := e.threads[0].completedDepth; got != depth || !isLegal(p, res.BestMove) {
		t.Fatalf("search N+1: main thread stopped at depth %d, want %d (result %+v): a stop of search N reached it", got, depth, res)
	}
}

// A ponder-hit given before the ponder search starts is honoured: the
// search runs under its limits (here a depth) and returns by itself.
func TestPonderHitBeforeStart(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{})
	sig := new(Signals)
	sig.PonderHit()
	res := awaitResult(t, searchAsync(context.Background(), e, p, Limits{Ponder: true, Depth: 4}, sig), "hit before start")
	if res.Depth != 4 || !isLegal(p, res.BestMove) {
		t.Fatalf("result %+v", res)
	}
	// And a hit search on the clock stops by itself too.
	sig = new(Signals)
	sig.PonderHit()
	res = awaitResult(t, searchAsync(context.Background(), e, p, Limits{Ponder: true, MoveTime: 20 * time.Millisecond}, sig), "timed hit before start")
	if !isLegal(p, res.BestMove) {
		t.Fatalf("illegal %v", res.BestMove)
	}
}

// Stopped tells whether Stop was called.
func TestSignalsStopped(t *testing.T) {
	sig := new(Signals)
	if sig.Stopped() {
		t.Fatal("new Signals report a stop")
	}
	sig.PonderHit()
	if sig.Stopped() {
		t.Fatal("PonderHit reported as a stop")
	}
	sig.Stop()
	if !sig.Stopped() {
		t.Fatal("Stop not reported")
	}
}

// The first PonderHit sets the search's clock; later ones do not move it.
func TestPonderHitFirstCounts(t *testing.T) {
	sig := new(Signals)
	sig.PonderHit()
	first := sig.hit.Load()
	time.Sleep(2 * time.Millisecond)
	sig.PonderHit()
	if got := sig.hit.Load(); got != first || first == 0 {
		t.Fatalf("hit time %d after a second PonderHit, want the first %d", got, first)
	}
}

// closed reports whether ch is closed (it never carries a value).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Each change of Signals (SetThreads, Stop, the first PonderHit) closes the
// channel a waiter took from changes, and the next changes is a fresh open
// one; a second PonderHit is no change; waking twice, or with no waiter,
// does not panic.
func TestSignalsChanges(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Signals)
	}{
		{"SetThreads", func(s *Signals) { s.SetThreads(1) }},
		{"Stop", func(s *Signals) { s.Stop() }},
		{"first PonderHit", func(s *Signals) { s.PonderHit() }},
	} {
		s := new(Signals)
		ch := s.changes()
		if closed(ch) {
			t.Fatalf("%s: changes is closed before any change", c.name)
		}
		if again := s.changes(); again != ch {
			t.Errorf("%s: two waiters before a change got different channels", c.name)
		}
		c.change(s)
		if !closed(ch) {
			t.Errorf("%s: the waiter's channel is still open after the change", c.name)
		}
		next := s.changes()
		if next == ch || closed(next) {
			t.Errorf("%s: changes after the change is not a fresh open channel", c.name)
		}
	}

	s := new(Signals)
	s.PonderHit()
	ch := s.changes()
	s.PonderHit()
	if closed(ch) {
		t.Error("a second PonderHit woke the waiter")
	}

	s = new(Signals)
	s.wake() // no waiter
	ch = s.changes()
	s.wake()
	s.wake() // twice: the channel was dropped, not closed again
	if !closed(ch) {
		t.Error("wake left the waiter's channel open")
	}
	if closed(s.changes()) {
		t.Error("changes after wake is closed")
	}
}
