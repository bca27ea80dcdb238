package ponder

import (
	"context"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// run is one engine search (normal, UCI ponder or background ponder).
type run struct {
	node       nodeRef
	pos        *board.Position // position searched (private copy)
	rec        *board.Position // copy for recording PVs into the tree
	ply        int             // number of game moves up to pos
	background bool            // started by StartPonder
	ponder     bool            // started in ponder mode
	strategy   Strategy
	start      time.Time
	done       chan struct{}
	sig        *search.Signals // this run's own stop and ponder-hit (see stop)
	lease      *lease          // its threads from Options.CPU (nil without one)
	goesOn     *lease          // the lease of the converted run this one searches on from (CPUShare.acquireAfter)
	threads    int             // its threads without Options.CPU (see Game.SearchThreads)
	res        search.Result
	err        *SearchPanic // the search panicked (see recoverRun)
	learn      bool         // the memory may record this search (not restricted to some moves)
	jumped     bool         // its search takes the memory's result for its root (search.Info.KnownDepth)

	// changed while the search runs
	converted  bool // ponder search turned into our move's search (or a normal search)
	immediate  bool
	stopAsked  bool
	hitAt      time.Time
	lim        ThinkLimits
	budget     Budget
	timer      *time.Timer
	depth      int // last completed depth
	lastNodes  uint64
	nodesAtHit uint64
	lastBest   board.Move
	stable     int
	info       func(search.Info)
	userMPV    int
}

// Stop ends the running search (Think returns its best move so far) and a
// background ponder search.
func (g *Game) Stop() {
	g.mu.Lock()
	if g.run != nil {
		g.run.stop()
	}
	g.mu.Unlock()
}

// stop asks r's search to end. The stop goes to r's own search.Signals,
// so it is honoured even when given before the search goroutine enters
// Engine.Search, and it can never reach another run's search.
func (r *run) stop() {
	r.stopAsked = true
	r.sig.Stop()
}

// startRun launches r's search on its own goroutine. The search is stopped
// and hit only through r.sig (r.stop, convert); the caller's context is
// watched here so that r.stopAsked is set when it ends.
func (g *Game) startRun(ctx context.Context, r *run, slim search.Limits) {
	r.start = time.Now()
	r.done = make(chan struct{})
	r.sig = new(search.Signals)
	r.lease = g.opts.CPU.acquireAfter(r.sig, g.opts.Threads, !r.ponder || r.converted, thinkWait(r.budget), r.goesOn)
	r.threads = max(g.opts.Threads, 1)
	g.searching.Store(r)
	stopAfter := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		if g.run == r {
			r.stop()
		}
		g.mu.Unlock()
	})
	r.learn = len(slim.SearchMoves) == 0
	maxLookup := learnMaxLookup
	if r.budget.Timed {
		maxLookup = seedLookups(r.budget.Soft)
	}
	g.seed(r.pos, maxLookup)
	if !r.ponder || r.converted {
		g.noteUsed(r.pos) // a ponder search's: at its conversion (convert)
	}
	if k, ok := g.knownRoot(r.pos); ok && !r.ponder && r.learn && !historyDependent(r.pos) && !repeatsAfter(r.pos, k.Move) &&
		!g.knownSuperseded(r, k) {
		// The memory knows the position exactly to depth k.Depth: after
		// depth 1, the search takes that result as its iteration of that
		// depth, or of the depth this move's budget is expected to reach
		// when less (never without a history of depths: a search cut short
		// would have only depth 1 complete), and goes on from there round
		// its score. Not in ponder mode, which has time, nor for a search
		// restricted to some moves. A root known only by a bound is
		// searched from depth 1 up (its TT entry still orders the moves): a
		// bound gives no score to search round, and jumping to its depth
		// with a full window on a table holding only the seeded entries
		// cost far more than it saved (docs/learn-speed.md). Nor where this
		// game's history may change the result, which the memory cannot
		// know: a root the memory would not record (historyDependent: a
		// repetition behind it, a long fifty-move count), or one whose
		// known move returns to a position this game already had. The
		// search would play the memory's move and score if stopped before
		// the next depth, unchecked against the game's repetitions. Nor
		// when this game already has a result for the root that the
		// memory's would override (knownSuperseded: a search on after a
		// capped ponder hit, a position searched before): plain iterative
		// deepening soon gets back to it through the TT.
		if r.budget.Timed {
			k.Depth = min(k.Depth, g.depths.reachable(r.budget.Base, 0))
		}
		if k.Depth > 2 {
			slim.Known = &k // r.jumped once the search says it took it (Info.KnownDepth)
		}
	}
	g.run = r
	g.searches++
	g.stats.SearchesStarted++
	pos := r.pos.Clone()
	go func() {
		defer stopAfter()
		defer g.recoverRun(r)
		defer g.endLease(r) // on a panic too (a second time does nothing)
		res := g.eng.Search(context.Background(), pos, slim, r.sig, func(inf search.Info) { g.onInfo(r, inf) })
		g.endLease(r) // before the run is seen to end: its threads are free
		g.endRun(r, res)
		close(r.done)
	}()
}

// knownSuperseded reports whether the TT or the tree already holds a
// result for r's root that the memory's k would override: deeper than
// k.Depth, or as deep with another move. The memory's own seeded root
// entry (same depth, same move) does not count.
func (g *Game) knownSuperseded(r *run, k search.KnownRoot) bool {
	overrides := func(depth int, move board.Move) bool {
		return depth > k.Depth || depth == k.Depth && move != board.NoMove && move != k.Move
	}
	if e, ok := g.eng.Probe(r.pos.Key()); ok && e.Bound != search.BoundNone && overrides(e.Depth, e.Move) {
		return true
	}
	if g.tree.valid(r.node) {
		n := &g.tree.pool[r.node.idx]
		if n.key == r.pos.Key() && n.depth > 0 && overrides(int(n.depth), n.best) {
			return true
		}
	}
	return false
}

// repeatsAfter reports whether playing m in p gives a position that
// already occurred in p's game (since the last capture or pawn move).
func repeatsAfter(p *board.Position, m board.Move) bool {
	q := p.Clone()
	q.MakeMove(m)
	return q.RepetitionCount() > 0
}

// endLease gives r's threads back (its search has returned); a second
// call does nothing.
func (g *Game) endLease(r *run) {
	g.opts.CPU.release(r.lease)
	g.searching.CompareAndSwap(r, nil)
}

// SearchThreads is the number of threads the Game's running search may
// use now: those its lease on Options.CPU holds (0 while it waits for one,
// or while a ponder search is paused; see CPUShare), all of
// Options.Threads without a share, 0 when no search runs. It takes no lock
// (two atomic loads), so a sampler may call it often.
func (g *Game) SearchThreads() int {
	r := g.searching.Load()
	switch {
	case r == nil:
		return 0
	case r.lease == nil:
		return r.threads
	}
	return int(r.lease.held.Load())
}

// endRun records r's result (on the search goroutine, when it returned).
func (g *Game) endRun(r *run, res search.Result) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r.res = res
	if r.timer != nil {
		r.timer.Stop()
	}
	if !g.closed {
		g.recordResult(r, res)
		g.learn(r, res)
		g.live.active = false
		g.publish()
	}
}

// stopAndWait stops r's search and waits for it to end (see wait).
func (g *Game) stopAndWait(r *run) {
	r.stop()
	g.wait(r)
}

// wait lets go of g.mu until r's search has ended (the search goroutine
// takes g.mu to record its lines), takes it back and clears g.run if it is
// still r.
func (g *Game) wait(r *run) {
	g.mu.Unlock()
	<-r.done
	g.mu.Lock()
	if g.run == r {
		g.run = nil
	}
}

// waitOrStop is wait, stopping the running search when ctx ends (for a run
// that was started under another context: a converted ponder search).
func (g *Game) waitOrStop(ctx context.Context, r *run) {
	stopCtx := context.AfterFunc(ctx, func() { g.Stop() })
	g.wait(r)
	stopCtx()
}

// onInfo runs on the search goroutine after each iteration: it records the
// line into the tree and applies our time budget (soft stop), then calls
// the run's info callback (and Options.afterIteration) without g.mu.
func (g *Game) onInfo(r *run, inf search.Info) {
	report, it, ok := g.noteIteration(r, inf)
	if !ok {
		return
	}
	if report != nil {
		report(inf)
	}
	if after := g.opts.afterIteration; after != nil {
		after(it)
	}
}

// noteIteration is onInfo's work under g.mu. ok is false once the Game is
// closed.
func (g *Game) noteIteration(r *run, inf search.Info) (report func(search.Info), it iteration, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, it, false
	}
	if inf.Bound == search.BoundExact {
		g.recordLine(r, inf)
		if inf.MultiPV == 1 {
			r.depth = inf.Depth
			r.lastNodes = inf.Nodes
			// Only the search knows whether it took Limits.Known (not with
			// MultiPV, a depth limit of 2, a mate search...): it says so
			// from depth 1's info on.
			r.jumped = r.jumped || inf.KnownDepth > 0
			if !r.jumped { // a jump's times say nothing of a search from nothing
				g.depths.record(inf.Depth, inf.Time-inf.Paused) // not the time it waited for a thread
			}
			if len(inf.PV) > 0 {
				if inf.PV[0] == r.lastBest {
					r.stable++
				} else {
					r.stable, r.lastBest = 0, inf.PV[0]
				}
			}
			g.checkSoft(r, inf)
		}
	}
	if inf.MultiPV == 1 {
		g.noteLive(r, inf)
	}
	if inf.MultiPV <= max(r.userMPV, 1) {
		report = r.info
	}
	return report, iteration{ply: r.ply, pondering: r.ponder && !r.converted, info: inf}, true
}
