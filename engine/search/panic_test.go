package search

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
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
	if n := e.liveHelpers.Load(); n != 0 {
		t.Errorf("%d helper threads still running after the panic", n)
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
	during := -1
	v := searchRecovering(context.Background(), e, p, Limits{Depth: MaxPly - 1}, func(Info) {
		during = int(e.liveHelpers.Load())
		panic("boom")
	})
	if v != "boom" {
		t.Fatalf("Search panicked with %v, want boom", v)
	}
	if during != 2 {
		t.Fatalf("%d helper threads seen running during the search, want 2 (the count is broken)", during)
	}
	if n := e.liveHelpers.Load(); n != 0 {
		t.Errorf("%d helper threads still running after the panic: they were left running", n)
	}
	res := e.Search(context.Background(), p, Limits{Depth: 3}, nil, nil)
	if !p.IsLegal(res.BestMove) {
		t.Fatalf("the next search answered %v, not a legal move", res.BestMove)
	}
}

// A helper thread's panic in one of two engines playing at the same time
// (each a game against itself, as a front end drives it) stops only that
// engine's search: its caller recovers the *ThreadPanic, Resets the
// engine and plays a fallback move (the first legal one), and both games
// are played to their end with legal moves.
func TestHelperPanicOneGameOfTwo(t *testing.T) {
	const fen = "8/8/8/4k3/8/8/8/KQR5 w - - 0 1"
	const breakAt = 2 // the broken engine's helper panics in the search of this ply
	type result struct {
		ended  string
		plies  int
		panics []any
		err    error
	}
	selfPlay := func(e *Engine, broken bool) (out result) {
		p, err := board.ParseFEN(fen)
		if err != nil {
			out.err = err
			return out
		}
		for ; out.plies < 300; out.plies++ {
			if out.ended = p.GameOver(); out.ended != "" {
				return out
			}
			lim := Limits{Depth: 5}
			var ctx context.Context = context.Background()
			if broken && out.plies == breakAt {
				// Only the helper's panic (or the hang limit) ends an
				// infinite search: the panic happens whatever the timing.
				e.threads[1].history = nil
				lim = Limits{Infinite: true}
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, hangLimit)
				defer cancel()
			}
			var best board.Move
			v := func() (v any) {
				defer func() { v = recover() }()
				best = e.Search(ctx, p, lim, nil, nil).BestMove
				return nil
			}()
			if v != nil {
				out.panics = append(out.panics, v)
				e.Reset()
				var ml board.MoveList
				p.GenerateLegal(&ml)
				best = ml.Moves[0] // the fallback move
			}
			if !p.IsLegal(best) {
				out.err = fmt.Errorf("ply %d: %v is not a legal move (panic %v)", out.plies, best, v)
				return out
			}
			p.MakeMove(best)
		}
		return out
	}
	broken, healthy := New(Options{Threads: 2, HashMB: 1}), New(Options{Threads: 2, HashMB: 1})
	var res [2]result
	engines := [2]*Engine{broken, healthy}
	testsupport.PlayBoth(t, [2]string{"broken", "healthy"}, func(i int) testsupport.GameEnd {
		res[i] = selfPlay(engines[i], i == 0)
		return testsupport.GameEnd{Plies: res[i].plies, Ended: res[i].ended, Err: res[i].err}
	})
	if len(res[0].panics) != 1 {
		t.Fatalf("broken game: panics %v, want one", res[0].panics)
	}
	if tp, ok := res[0].panics[0].(*ThreadPanic); !ok || tp.Thread != 1 {
		t.Errorf("broken game: Search panicked with %T %v, want thread 1's *ThreadPanic", res[0].panics[0], res[0].panics[0])
	}
	if len(res[1].panics) > 0 {
		t.Errorf("healthy game: panics %v", res[1].panics)
	}
}
