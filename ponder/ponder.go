package ponder

import (
	"context"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/logging"
)

// StopPonder stops a background ponder search (the game ended, or the front
// end wants the engine) and keeps what it learnt in the tree and TT. It
// also waits for the learning memory's gathering from the table, so that
// the engine is free to be changed (its table resized) when it returns.
func (g *Game) StopPonder() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopPonder()
	g.waitLearning()
	return nil
}

// stopPonder stops and waits for a background ponder search, if one runs.
func (g *Game) stopPonder() {
	if r := g.run; r != nil && r.background {
		g.stopAndWait(r)
	}
}

// Pondering reports whether a background ponder search runs.
func (g *Game) Pondering() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.run != nil && g.run.background
}

// convert turns r (a ponder search on the current position) into the search
// for our move under lim: the budget counts the pondered time by the rule
// of PlanMove, and when the ponder search is already as deep as this
// move's budget would reach, it is stopped at once (never under a fixed
// move time, which is used whole).
func (g *Game) convert(r *run, lim ThinkLimits) {
	now := time.Now()
	pondered := now.Sub(r.start)
	b := PlanMove(lim, g.pos.SideToMove() == board.White, g.opts.MoveOverhead, pondered)
	r.converted, r.hitAt, r.lim, r.budget = true, now, lim, b
	g.noteUsed(r.pos) // its position is played now
	r.nodesAtHit = max(r.lastNodes, g.eng.Nodes())
	g.pending.Pondered = pondered
	g.pending.DepthAtMove = max(g.pending.DepthAtMove, r.depth)
	immediate := false
	if lim.Depth > 0 && r.depth >= lim.Depth {
		immediate = true
	}
	if b.Timed && !lim.Infinite && lim.MoveTime == 0 {
		if reach := g.depths.reachable(b.Base, 0); reach > 0 && r.depth >= reach {
			immediate = true
		}
		if b.Soft <= MinThink {
			immediate = true
		}
	}
	r.immediate = immediate
	if immediate {
		// Answered from the ponder search, which stops at once: no search
		// for the move (its lease neither queues nor counts as one).
		r.sig.PonderHit()
		r.stop()
		return
	}
	g.opts.CPU.think(r.lease, thinkWait(b)) // our move now: served before ponder searches
	r.sig.PonderHit()
	g.armHard(r)
}

// PonderHit tells a UCI "go ponder" search that the predicted move was
// played: the search goes on as our move's search. Harmless otherwise.
func (g *Game) PonderHit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.run
	if r == nil || r.background || !r.ponder || r.converted {
		return
	}
	g.commit()
	g.ageTT(len(g.moves), false)
	g.convert(r, r.lim)
}

// StartPonder starts thinking on the opponent's time after our move (the
// current position has the opponent to move) and returns at once. It does
// nothing when pondering is off, a search runs, or the game is over.
func (g *Game) StartPonder(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || !g.opts.Ponder || g.run != nil {
		return
	}
	pos := g.pos
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	if ml.N == 0 || pos.IsInsufficientMaterial() || pos.HalfmoveClock() >= 100 {
		return
	}
	pred := g.predict(pos, &ml)
	strategy := g.opts.Strategy
	if pred.move == board.NoMove {
		strategy = PonderOpponent
	}
	g.pred = &pred
	r := &run{background: true, ponder: true, strategy: strategy}
	node := g.cur
	rp := pos.Clone()
	ply := len(g.moves)
	if strategy == PonderPredicted {
		g.ageTT(ply, irreversible(rp, pred.move))
		g.agedPredPly, g.agedPredMove = ply, pred.move
		rp.MakeMove(pred.move)
		node = g.tree.ensureChild(g.cur, pred.move, rp.Key())
		if node == nilNode {
			return
		}
		ply++
		// a game-ending prediction leaves nothing to search
		var rl board.MoveList
		rp.GenerateLegal(&rl)
		if rl.N == 0 {
			return
		}
	} else {
		g.ageTT(ply, false)
	}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(node), rp, rp.Clone(), ply
	sl := search.Limits{Ponder: true, Depth: g.opts.PonderDepth, Nodes: g.opts.PonderNodes}
	g.tablebaseLimits(&sl)
	if g.opts.VarietyCP > 0 {
		sl.MultiPV = g.opts.VarietyLines
	}
	g.startRun(ctx, r, sl)
	g.log.Debug().Int(logging.FieldPly, len(g.moves)).Str("strategy", strategy.String()).
		Str("predicted", moveString(pos, pred.move)).Msg("ponder start")
}

// predict chooses the expected reply in pos (the opponent to move): the
// best reply stored at the current node (our PV's second move), else the TT
// move; top3 ranks the replies known to the tree and the TT.
func (g *Game) predict(pos *board.Position, ml *board.MoveList) prediction {
	pr := prediction{ply: len(g.moves)}
	n := &g.tree.pool[g.cur]
	if n.best != board.NoMove && ml.Contains(n.best) {
		pr.move = n.best
	} else if e, ok := g.eng.Probe(pos.Key()); ok && e.Move != board.NoMove && ml.Contains(e.Move) {
		pr.move = e.Move
	}
	// Rank replies by what is known of them: value for the opponent
	// (negated score of the child position), deeper knowledge first.
	type known struct {
		m     board.Move
		depth int
		val   int
	}
	var ks []known
	p := pos.Clone()
	for _, m := range ml.Moves[:ml.N] {
		k := known{m: m, depth: -1}
		if c := g.tree.findChild(g.cur, m); c != nilNode && g.tree.pool[c].depth >= 0 {
			k.depth, k.val = int(g.tree.pool[c].depth), -int(g.tree.pool[c].score)
		} else {
			p.MakeMove(m)
			if e, ok := g.eng.Probe(p.Key()); ok && e.Bound != search.BoundNone {
				k.depth, k.val = e.Depth, -e.Score
			}
			p.UnmakeMove()
		}
		if k.depth >= 0 {
			ks = append(ks, k)
		}
	}
	if pr.move != board.NoMove {
		pr.top3 = append(pr.top3, pr.move)
	}
	for len(pr.top3) < 3 && len(ks) > 0 {
		bi := 0
		for i := range ks {
			if ks[i].val > ks[bi].val {
				bi = i
			}
		}
		if ks[bi].m != pr.move {
			pr.top3 = append(pr.top3, ks[bi].m)
		}
		ks = append(ks[:bi], ks[bi+1:]...)
	}
	return pr
}

// convertedDecision builds our move from a converted ponder search r that
// has ended. searchOn is true instead when r ended at its own cap (the
// depth or nodes of a background ponder search) with budget left: the
// caller then searches on with what is left of r.budget.
func (g *Game) convertedDecision(r *run, lim ThinkLimits) (d Decision, searchOn bool) {
	res := r.res
	g.pending.NodesAfterHit = res.Nodes - min(res.Nodes, r.nodesAtHit)
	leftover := !r.stopAsked && !lim.Infinite && r.budget.Timed && time.Since(r.hitAt) < r.budget.Soft
	if lim.Depth > 0 && res.Depth < lim.Depth && !r.stopAsked {
		leftover = true
	}
	if leftover {
		return Decision{}, true
	}
	src := FromPonder
	if r.immediate {
		src = FromPonderAtOnce
	}
	d = g.fromResult(res, src, r.budget)
	return g.finish(d, r.hitAt, &res), false
}

// thinkPonder is UCI "go ponder": search the current position (ending with
// the predicted reply) in ponder mode until PonderHit or Stop.
func (g *Game) thinkPonder(ctx context.Context, lim ThinkLimits, slim search.Limits, info func(search.Info)) (Decision, error) {
	g.pending.Ply = len(g.moves)
	g.ageTT(len(g.moves), false)
	if n := len(g.moves); n > 0 {
		g.pred = &prediction{ply: n - 1, move: g.moves[n-1], top3: []board.Move{g.moves[n-1]}}
	}
	r := &run{ponder: true, strategy: PonderPredicted, lim: lim, info: info, userMPV: max(lim.MultiPV, 1)}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	slim.Ponder = true
	g.startRun(ctx, r, slim)
	g.waitOrStop(ctx, r)
	if err := runErr("think ponder", r); err != nil {
		return Decision{}, err
	}
	if !r.converted {
		// stopped while pondering: report the move, record nothing as ours
		d := g.fromResult(r.res, FromPonder, Budget{})
		g.moveStrings(&d)
		d.Time = time.Since(r.start)
		return d, nil
	}
	d, searchOn := g.convertedDecision(r, lim)
	if !searchOn {
		return d, nil
	}
	b := leftBudget(r)
	nr := &run{strategy: PonderPredicted, converted: true, lim: lim, budget: b, info: info, userMPV: max(lim.MultiPV, 1),
		goesOn: r.lease}
	nr.node, nr.pos, nr.rec, nr.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	slim.Ponder = false
	g.startRun(ctx, nr, slim)
	nr.hitAt = nr.start
	g.armHard(nr)
	g.wait(nr)
	if err := runErr("think ponder", nr); err != nil {
		return Decision{}, err
	}
	d = g.fromResult(nr.res, FromPonder, b)
	return g.finish(d, r.hitAt, &nr.res), nil
}
