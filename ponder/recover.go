package ponder

import (
	"fmt"
	"runtime/debug"

	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
	"github.com/ponderosa-chess/ponderosa/logging"
)

// SearchPanic is the error Think returns when the search deciding the move
// panicked (in the engine, one of its helper threads, in writing the search
// into the tree, or in the info callback). The panic was recovered on the
// search goroutine and logged with Stack; the Game dropped its tree and
// transposition table and made fresh ones for the same position, so it can
// be used on: the front end plays a fallback move, then Play as usual.
type SearchPanic struct {
	Value any    // what the search panicked with
	Stack []byte // the panicking goroutine's stack
}

func (p *SearchPanic) Error() string { return fmt.Sprintf("ponder: search panicked: %v", p.Value) }

// Unwrap returns the panic value when it is an error (a *search.ThreadPanic
// for a helper thread's panic).
func (p *SearchPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// recoverRun is deferred by r's search goroutine. A panic there is logged
// with its stack on the game's logger, the engine is Reset and the tree
// made anew at the current position, and r ends with a *SearchPanic in
// r.err for the Think waiting on it; a background ponder run is simply
// over. g.mu is not held when the panic unwinds to here: every locked
// section of the search goroutine releases it by defer.
func (g *Game) recoverRun(r *run) {
	v := recover()
	if v == nil {
		return
	}
	perr := &SearchPanic{Value: v, Stack: search.PanicStack(v, debug.Stack())}
	g.mu.Lock()
	defer g.mu.Unlock()
	// Reset takes the engine's lock, which the panic released (Search has
	// returned, its threads have ended); under g.mu, as nothing may probe
	// the table while it is replaced. No new run starts meanwhile: g.run is
	// still r, or nil for a closed Game.
	g.waitLearning() // it reads the table
	g.eng.Reset()
	clear(g.seeded) // a new table: seed again
	g.log.Error().Int(logging.FieldPly, r.ply).Bool("ponder", r.ponder && !r.converted).
		Str(panics.FieldPanic, fmt.Sprint(v)).Str(panics.FieldStack, string(perr.Stack)).
		Msg("search panicked: tree and hash table dropped, the game goes on")
	r.err = perr
	r.res = search.Result{}
	if r.timer != nil {
		r.timer.Stop()
	}
	if g.run == r && r.background {
		g.run = nil // nobody waits on it; the next search starts afresh
	}
	g.stats.SearchPanics++
	if !g.closed {
		g.freshTree()
	}
	close(r.done)
}

// freshTree replaces the tree with an empty one rooted at the current
// position (the game's moves are kept): nothing the panicked search wrote
// is used again.
func (g *Game) freshTree() {
	t := newTree(g.tree.cap)
	t.protect = g.protected
	g.tree = t
	g.tree.reset(g.pos.Key())
	g.newGeneration()
	g.rootPly, g.agedPly = len(g.moves), len(g.moves)
	g.cur = g.tree.root
	g.pred = nil
	g.pending = MoveStats{}
}

// runErr is the error of a run that ended in a panic, wrapped for what
// was being done.
func runErr(what string, r *run) error {
	if r.err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, r.err)
}
