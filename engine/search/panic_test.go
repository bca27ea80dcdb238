package search

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// searchRecovering runs e.Search on the calling goroutine and returns what
// it panicked with (nil when it returned).
func searchRecovering(ctx context.Context, e *Engine, p *board.Position, lim Limits, report func(Info)) (v any) {
	defer func() { v = recover() }()
	e.Search(ctx, p, lim, nil, report)
	return nil
}

// A helper thread that panics does not end the process: the search stops,
// every thread is waited for, and the panic goes on from Search on the
// caller's goroutine as a *ThreadPanic carrying the helper's stack. After
// Reset the Engine searches again.
func TestHelperPanicReachesCaller(t *testing.T) {
	e := New(Options{Threads: 3, HashMB: 1})
	e.threads[1].history = nil // helper 1 panics (nil dereference) at its first quiet move
	p := mustFEN(t, kiwipete)
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	before := runtime.NumGoroutine()
	// Infinite: only the helper's panic (or the hang limit) ends it.
	v := searchRecovering(ctx, e, p, Limits{Infinite: true}, nil)
	if ctx.Err() != nil {
		t.Fatalf("the search ran until the hang limit: the helper's panic did not stop it")
	}
	tp, ok := v.(*ThreadPanic)
	if !ok {
		t.Fatalf("Search panicked with %T %v, want *ThreadPanic", v, v)
	}
	if tp.Thread != 1 {
		t.Errorf("ThreadPanic.Thread = %d, want 1", tp.Thread)
	}
	if _, isErr := tp.Value.(runtime.Error); !isErr {
		t.Errorf("ThreadPanic.Value = %T %v, want the runtime error", tp.Value, tp.Value)
	}
	if !strings.Contains(string(tp.Stack), "iterate") {
		t.Errorf("ThreadPanic.Stack is not the helper's stack:\n%s", tp.Stack)
	}
	if got := PanicStack(tp, []byte("caller")); string(got) != string(tp.Stack) {
		t.Errorf("PanicStack(*ThreadPanic) is not the helper's stack")
	}
	if got := string(PanicStack("other", []byte("caller"))); got != "caller" {
		t.Errorf("PanicStack(other) = %q, want the caller's stack", got)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after the panic, %d before: a helper is still running", after, before)
	}

	e.Reset()
	res := e.Search(context.Background(), p, Limits{Depth: 4}, nil, nil)
	if !p.IsLegal(res.BestMove) {
		t.Fatalf("after Reset the search answered %v, not a legal move", res.BestMove)
	}
}

// A panic of the main thread (here in the report callback, on the caller's
// goroutine) goes on from Search unchanged, and leaves no helper running.
func TestMainThreadPanicStopsHelpers(t *testing.T) {
	e := New(Options{Threads: 3, HashMB: 1})
	p := mustFEN(t, kiwipete)
	before := runtime.NumGoroutine()
	v := searchRecovering(context.Background(), e, p, Limits{Depth: MaxPly - 1}, func(Info) { panic("boom") })
	if v != "boom" {
		t.Fatalf("Search panicked with %v, want boom", v)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after the panic, %d before: the helpers were left running", after, before)
	}
	res := e.Search(context.Background(), p, Limits{Depth: 3}, nil, nil)
	if !p.IsLegal(res.BestMove) {
		t.Fatalf("the next search answered %v, not a legal move", res.BestMove)
	}
}
