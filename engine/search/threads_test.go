package search

import (
	"context"
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
