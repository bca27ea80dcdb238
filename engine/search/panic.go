package search

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// ThreadPanic is what Search panics with, on the goroutine that called it,
// when one of its helper threads (lazy SMP) panicked. The helper's panic is
// recovered on its own goroutine (it would otherwise end the process), the
// search is stopped and every thread waited for, and the panic goes on from
// Search, so the caller's recover handles a helper's panic like one of the
// main thread (which runs on the caller's goroutine). Stack is the helper's
// stack at the panic. After a panic, call Reset before searching again.
type ThreadPanic struct {
	Thread int    // the helper's index (1 .. Threads-1)
	Value  any    // what it panicked with
	Stack  []byte // its stack, from runtime/debug.Stack
}

func (p *ThreadPanic) Error() string {
	return fmt.Sprintf("search: thread %d panicked: %v", p.Thread, p.Value)
}

// Unwrap returns the panic value when it is an error.
func (p *ThreadPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// PanicStack returns the stack to log for a panic value recovered around
// Search: the helper thread's own stack for a *ThreadPanic, else stack (the
// recovering goroutine's, taken in the deferred function).
func PanicStack(v any, stack []byte) []byte {
	var tp *ThreadPanic
	if err, ok := v.(error); ok && errors.As(err, &tp) {
		return tp.Stack
	}
	return stack
}

// Reset drops the transposition table and every thread's state (history
// tables, stacks, evaluator caches) and makes fresh ones of the same sizes:
// what a caller does after a search panicked, so that nothing the broken
// search left behind is used again. It waits for a running search.
func (e *Engine) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tt.Resize(e.opts.HashMB)
	for i := range e.threads {
		e.threads[i] = newThread(e, i)
	}
}

// helperGroup runs the helper threads of one search and keeps the first
// panic among them.
type helperGroup struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *ThreadPanic
}

// start runs t on its own goroutine. A panic there is recovered, kept, and
// stops the search (ctl), so that the main thread returns.
func (h *helperGroup) start(t *thread, ctl *control) {
	h.wg.Add(1)
	t.e.liveHelpers.Add(1)
	go func() {
		defer h.wg.Done()
		defer t.e.liveHelpers.Add(-1) // before Done: none counted once waited for
		defer func() {
			if v := recover(); v != nil {
				h.mu.Lock()
				if h.first == nil {
					h.first = &ThreadPanic{Thread: t.id, Value: v, Stack: debug.Stack()}
				}
				h.mu.Unlock()
				ctl.halt()
			}
		}()
		t.iterate()
	}()
}

// wait waits for the helpers and re-raises the first helper panic on the
// calling goroutine.
func (h *helperGroup) wait() {
	h.wg.Wait()
	if h.first != nil {
		panic(h.first)
	}
}

// join stops the search and waits for the helpers without re-raising: it
// is deferred by Search, so that a panic of the main thread leaves no helper
// running (and an Engine that a recovering caller can Reset).
func (h *helperGroup) join(ctl *control) {
	ctl.halt()
	h.wg.Wait()
}
