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
	cancel     context.CancelFunc
	res        search.Result

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
		g.run.stopAsked = true
		g.run.cancel()
	}
	g.mu.Unlock()
}

// startRun launches r's search on its own goroutine.
func (g *Game) startRun(ctx context.Context, r *run, slim search.Limits) {
	r.start = time.Now()
	r.done = make(chan struct{})
	// Runs are stopped by cancelling their own context (r.cancel; set
	// r.stopAsked first). Unlike Engine.Stop, whose flag the next Search
	// clears when it starts, a cancellation persists, so a stop given
	// before the goroutine enters Engine.Search is not lost. The caller's
	// context is watched here so that r.stopAsked is set when it ends.
	runCtx, cancelRun := context.WithCancel(context.Background())
	r.cancel = cancelRun
	stopAfter := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		if g.run == r {
			r.stopAsked = true
			r.cancel()
		}
		g.mu.Unlock()
	})
	g.run = r
	g.searches++
	g.stats.SearchesStarted++
	pos := r.pos.Clone()
	go func() {
		defer stopAfter()
		defer cancelRun()
		res := g.eng.Search(runCtx, pos, slim, func(inf search.Info) { g.onInfo(r, inf) })
		g.mu.Lock()
		r.res = res
		if r.timer != nil {
			r.timer.Stop()
		}
		if !g.closed {
			g.recordResult(r, res)
		}
		g.mu.Unlock()
		close(r.done)
	}()
}

// stopAndWait stops r's search and waits for it to end (see wait).
func (g *Game) stopAndWait(r *run) {
	r.stopAsked = true
	r.cancel()
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
// line into the tree and applies our time budget (soft stop).
func (g *Game) onInfo(r *run, inf search.Info) {
	g.mu.Lock()
	if g.closed {
		// A stop given before this search entered Engine.Search was
		// cleared by it: repeat it, or Close would wait forever.
		g.eng.Stop()
		g.mu.Unlock()
		return
	}
	if r.converted && r.ponder {
		// Re-issue the hit: one given before the search goroutine entered
		// Engine.Search was cleared by it. Our limits carry no clock, so
		// the engine's own hit time does not matter.
		g.eng.PonderHit()
	}
	if r.stopAsked {
		g.eng.Stop() // in case it came before the search started
	}
	if inf.Bound == search.BoundExact {
		g.recordLine(r, inf)
		if inf.MultiPV == 1 {
			r.depth = inf.Depth
			r.lastNodes = inf.Nodes
			g.depths.record(inf.Depth, inf.Time)
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
	report := r.info
	mpv := r.userMPV
	g.mu.Unlock()
	if report != nil && inf.MultiPV <= max(mpv, 1) {
		report(inf)
	}
}
