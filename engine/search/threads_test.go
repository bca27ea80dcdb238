package search

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A search whose Signals let it run on one thread leaves the engine's
// other threads idle: the helper pauses before its first iteration and
// counts no node, and the search still completes its depth.
func TestSetThreadsKeepsHelpersIdle(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 3})
	sig := new(Signals)
	sig.SetThreads(1)
	res := awaitResult(t, searchAsync(context.Background(), e, p, Limits{Depth: 6}, sig), "one of three threads")
	if res.Depth != 6 || !isLegal(p, res.BestMove) {
		t.Fatalf("depth %d move %v, want depth 6 and a legal move", res.Depth, res.BestMove)
	}
	for _, th := range e.threads[1:] {
		if n := th.pubNodes.Load(); n != 0 {
			t.Errorf("helper %d searched %d nodes, want 0 (paused)", th.id, n)
		}
	}
	if main := e.threads[0].pubNodes.Load(); main == 0 {
		t.Error("the main thread counted no node")
	}
}

// SetThreads(0) pauses a running search once it has completed depth 1 (so
// that a stop still finds a searched move); SetThreads(1) lets it go on.
func TestSetThreadsPausesAndResumes(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 1})
	sig := new(Signals)
	sig.SetThreads(0)
	depths := make(chan int, 256)
	done := make(chan Result, 1)
	go func() {
		done <- e.Search(context.Background(), p, Limits{Infinite: true}, sig, func(inf Info) {
			if inf.Bound == BoundExact {
				select {
				case depths <- inf.Depth:
				default:
				}
			}
		})
	}()
	select {
	case d := <-depths:
		if d != 1 {
			t.Fatalf("first completed depth %d, want 1", d)
		}
	case <-time.After(hangLimit):
		t.Fatal("the paused search did not complete depth 1")
	}
	// Paused: no deeper iteration may complete however long we look. (A
	// short look: a broken pause shows on any machine within it.)
	time.Sleep(50 * time.Millisecond)
	select {
	case d := <-depths:
		t.Fatalf("a paused search completed depth %d", d)
	default:
	}
	sig.SetThreads(1)
	for {
		select {
		case d := <-depths:
			if d >= 3 {
				sig.Stop()
				res := awaitResult(t, done, "resumed search")
				if res.Depth < 3 || !isLegal(p, res.BestMove) {
					t.Fatalf("depth %d move %v after resuming", res.Depth, res.BestMove)
				}
				return
			}
		case <-time.After(hangLimit):
			t.Fatal("the search did not resume after SetThreads(1)")
		}
	}
}

// A search paused entirely ends when it is stopped, with the move of its
// completed depth 1.
func TestSetThreadsPausedSearchStops(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 2})
	sig := new(Signals)
	sig.SetThreads(0)
	done := searchAsync(context.Background(), e, p, Limits{Ponder: true}, sig)
	time.Sleep(20 * time.Millisecond)
	sig.Stop()
	res := awaitResult(t, done, "stopped while paused")
	if !isLegal(p, res.BestMove) {
		t.Fatalf("best move %v is not legal", res.BestMove)
	}
}

// awaitPaused waits until each of ths is inside pause (hangLimit: a thread
// that never pauses shows on any machine).
func awaitPaused(t *testing.T, what string, ths ...*thread) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for _, th := range ths {
		for !th.paused.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: thread %d did not pause within %v", what, th.id, hangLimit)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// awaitNodesAbove waits until th has published more than n nodes.
func awaitNodesAbove(t *testing.T, what string, th *thread, n uint64) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for th.pubNodes.Load() <= n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: thread %d searched no node past %d within %v", what, th.id, n, hangLimit)
		}
		time.Sleep(time.Millisecond)
	}
}

// Threads that lose their share pause and sleep: while nothing changes
// they neither search nor look again whether they may go on (no polling),
// the threads still granted go on, and when the share comes back every
// paused thread resumes (no lost wake-up), several times over.
func TestPausedThreadsSleepAndResume(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 3, HashMB: 8})
	sig := new(Signals)
	done := searchAsync(context.Background(), e, p, Limits{Infinite: true}, sig)
	main, helpers := e.threads[0], e.threads[1:]
	for round := range 3 {
		for _, th := range e.threads {
			awaitNodesAbove(t, fmt.Sprintf("round %d, all threads", round), th, th.pubNodes.Load())
		}
		sig.SetThreads(1)
		awaitPaused(t, fmt.Sprintf("round %d, SetThreads(1)", round), helpers...)
		nodes := make([]uint64, len(helpers))
		looks := make([]uint64, len(helpers))
		for i, th := range helpers {
			nodes[i], looks[i] = th.pubNodes.Load(), th.looks.Load()
		}
		awaitNodesAbove(t, fmt.Sprintf("round %d, the main thread alone", round), main, main.pubNodes.Load())
		// Asleep: a polling thread would look again within a millisecond
		// or so; a sleeping one not at all, however long we wait. (A short
		// wait: polling shows on any machine within it.)
		time.Sleep(50 * time.Millisecond)
		for i, th := range helpers {
			if n, l := th.pubNodes.Load(), th.looks.Load(); n != nodes[i] || l != looks[i] || !th.paused.Load() {
				t.Fatalf("round %d: paused helper %d went from %d nodes and %d looks to %d and %d (paused: %v), want no change",
					round, th.id, nodes[i], looks[i], n, l, th.paused.Load())
			}
		}
		sig.SetThreads(3)
		for i, th := range helpers {
			awaitNodesAbove(t, fmt.Sprintf("round %d, SetThreads(3)", round), th, nodes[i])
		}
	}
	sig.Stop()
	if res := awaitResult(t, done, "stopped after the rounds"); !isLegal(p, res.BestMove) {
		t.Fatalf("best move %v is not legal", res.BestMove)
	}
}

// A search paused entirely (its main thread too) ends promptly when it is
// stopped, by its Signals or by its context: the stop wakes the sleeping
// threads. The bound is generous (seconds; a stop used to be noticed
// within a millisecond of polling): what it catches is a lost wake-up,
// which leaves the search asleep for good.
func TestPausedSearchStopsPromptly(t *testing.T) {
	const prompt = 5 * time.Second
	p := mustFEN(t, kiwipete)
	for _, how := range []string{"signals", "context"} {
		t.Run(how, func(t *testing.T) {
			e := New(Options{Threads: 2, HashMB: 8})
			sig := new(Signals)
			sig.SetThreads(0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := searchAsync(ctx, e, p, Limits{Infinite: true}, sig)
			awaitPaused(t, "SetThreads(0)", e.threads...)
			start := time.Now()
			if how == "signals" {
				sig.Stop()
			} else {
				cancel()
			}
			select {
			case res := <-done:
				if !isLegal(p, res.BestMove) {
					t.Fatalf("best move %v is not legal", res.BestMove)
				}
			case <-time.After(prompt):
				t.Fatalf("the paused search did not end within %v of the stop (a lost wake-up)", prompt)
			}
			t.Logf("ended %v after the stop", time.Since(start).Round(time.Microsecond))
		})
	}
}

// A search whose main thread is paused still ends at its limits with
// nothing else to wake it: at its hard time limit (movetime, and a ponder
// search's once hit), and at its node limit.
func TestPausedMainThreadKeepsLimits(t *testing.T) {
	p := mustFEN(t, kiwipete)
	for _, tc := range []struct {
		name string
		lim  Limits
	}{
		{"movetime", Limits{MoveTime: 200 * time.Millisecond}},
		{"ponder hit", Limits{Ponder: true, MoveTime: 200 * time.Millisecond}},
		// (With Nodes 1 the main thread stops at its own first check after
		// depth 1: this shows only that the search ends; the helper's wake
		// of a paused main thread is TestPausedMainThreadWokenByHelperNodes.)
		{"nodes", Limits{Nodes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{Threads: 2, HashMB: 8})
			sig := new(Signals)
			sig.SetThreads(0)
			start := time.Now()
			done := searchAsync(context.Background(), e, p, tc.lim, sig)
			if tc.lim.Ponder {
				awaitPaused(t, "pondering", e.threads...)
				start = time.Now()
				sig.PonderHit()
			}
			res := awaitResult(t, done, "paused main thread")
			if !isLegal(p, res.BestMove) || res.Depth < 1 {
				t.Fatalf("result %+v, want depth 1 at least and a legal move", res)
			}
			if tc.lim.MoveTime > 0 {
				// It ended by its deadline, not before (the pause keeps it
				// from completing anything that would end it earlier), nor
				// long after (a generous bound: a main thread that slept
				// through its deadline waits for something else).
				took := time.Since(start)
				if took < tc.lim.MoveTime {
					t.Fatalf("ended after %v, before its movetime %v", took, tc.lim.MoveTime)
				}
				if late := tc.lim.MoveTime + 2*time.Second; took >= late {
					t.Fatalf("ended after %v, not before %v: the paused main thread missed its deadline", took, late)
				}
			}
		})
	}
}

// A paused main thread is woken by a helper that pauses with nodes that
// reach the node limit (white box: the main thread sleeps in pause after
// depth 1 under Nodes N with nothing else to wake it; a helper that has
// searched N nodes pauses too). The main thread counts the nodes, stops
// the search (control.halt) and returns stopped, and the helper, woken by
// the halt, returns stopped as well.
func TestPausedMainThreadWokenByHelperNodes(t *testing.T) {
	const limit = 1000
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 2, HashMB: 1})
	sig := new(Signals)
	sig.SetThreads(0)
	ctl := newControl(e, p, Limits{Nodes: limit}, sig, time.Now())
	main, helper := e.threads[0], e.threads[1]
	main.prepare(p, ctl)
	helper.prepare(p, ctl)
	main.completedDepth = 1 // it pauses only after depth 1
	mainDone, helperDone := make(chan struct{}), make(chan struct{})
	go func() { main.pause(0); close(mainDone) }()
	awaitPaused(t, "main thread under the node limit", main)
	helper.nodes = limit
	go func() { helper.pause(0); close(helperDone) }()
	for _, w := range []struct {
		name string
		done chan struct{}
	}{{"main thread", mainDone}, {"helper", helperDone}} {
		select {
		case <-w.done:
		case <-time.After(hangLimit):
			t.Fatalf("the %s did not return within %v: the helper's nodes did not wake the main thread", w.name, hangLimit)
		}
	}
	if !main.stopped || !helper.stopped || !ctl.stop.Load() {
		t.Errorf("stopped: main %v, helper %v, control %v; want all", main.stopped, helper.stopped, ctl.stop.Load())
	}
	if n := e.nodesPub.Load(); n != limit {
		t.Errorf("nodes published %d, want the helper's %d", n, limit)
	}
}

// A timed main thread paused at an iteration boundary (after an iteration
// that checked the soft limit) ends at its soft deadline, not at its hard
// limit: it wakes for the soft deadline and starts no new iteration once
// past it. Here the clock gives a hard limit five times the soft one, and
// the softScale at most 3: the search must end before the hard limit.
func TestPausedMainThreadKeepsSoftLimit(t *testing.T) {
	p := mustFEN(t, kiwipete)
	clock := Clock{Remaining: 20 * time.Second}
	soft, hard := Budget(clock, 0)
	if 3*soft >= hard {
		t.Fatalf("budget soft %v hard %v: the test wants the scaled soft limit well before the hard one", soft, hard)
	}
	e := New(Options{Threads: 2, HashMB: 8})
	sig := new(Signals)
	lim := Limits{WTime: clock.Remaining, BTime: clock.Remaining}
	done := make(chan Result, 1)
	start := time.Now()
	go func() {
		done <- e.Search(context.Background(), p, lim, sig, func(info Info) {
			if info.Depth == 4 {
				sig.SetThreads(0) // the main thread pauses before depth 5
			}
		})
	}()
	res := awaitResult(t, done, "paused timed main thread")
	took := time.Since(start)
	if !isLegal(p, res.BestMove) || res.Depth < 4 {
		t.Fatalf("result %+v, want depth 4 at least and a legal move", res)
	}
	if took >= hard {
		t.Fatalf("ended after %v, at its hard limit %v: the paused main thread missed its soft limit (%v scaled at most 3x)", took, hard, soft)
	}
	t.Logf("soft %v, hard %v, ended after %v at depth %d", soft, hard, took, res.Depth)
}

// Info.Paused is the time the search slept paused with no thread: none
// at depth 1 (the main thread completes it first), at least the time the
// test kept it paused for the depths after, and never more than Time. NPS
// counts the nodes over the time it searched, Time less Paused.
func TestInfoPausedTime(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 1})
	sig := new(Signals)
	sig.SetThreads(0)
	infos := make(chan Info, 256)
	done := make(chan Result, 1)
	go func() {
		done <- e.Search(context.Background(), p, Limits{Infinite: true}, sig, func(inf Info) {
			if inf.Bound == BoundExact && inf.MultiPV == 1 {
				select {
				case infos <- inf:
				default:
				}
			}
		})
	}()
	first := awaitInfo(t, infos, "depth 1")
	if first.Depth != 1 || first.Paused != 0 {
		t.Fatalf("first info: depth %d paused %v, want depth 1 and no pause", first.Depth, first.Paused)
	}
	awaitPaused(t, "SetThreads(0) after depth 1", e.threads[0])
	const kept = 100 * time.Millisecond
	time.Sleep(kept)
	sig.SetThreads(1)
	second := awaitInfo(t, infos, "depth 2")
	sig.Stop()
	awaitResult(t, done, "resumed search")
	if second.Paused < kept || second.Paused > second.Time {
		t.Fatalf("depth %d: paused %v of %v, want at least the %v it was kept paused, and no more than its time",
			second.Depth, second.Paused, second.Time, kept)
	}
	if want := uint64(float64(second.Nodes) / (second.Time - second.Paused).Seconds()); second.NPS != want {
		t.Fatalf("nps %d, want %d: %d nodes over the %v searched", second.NPS, want, second.Nodes, second.Time-second.Paused)
	}
}

// awaitInfo takes the next info of infos (hangLimit: a search that never
// reports shows on any machine).
func awaitInfo(t *testing.T, infos <-chan Info, what string) Info {
	t.Helper()
	select {
	case inf := <-infos:
		return inf
	case <-time.After(hangLimit):
		t.Fatalf("%s: no info within %v", what, hangLimit)
	}
	return Info{}
}
