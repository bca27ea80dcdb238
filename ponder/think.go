package ponder

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// Think decides our move in the current position under lim, calling info
// (if not nil) after each iteration. In order: a running background ponder
// search on this very position (a ponder hit) is converted — or answers at
// once when deep enough; any other ponder search is stopped (its work stays
// in the tree and TT); a timed game with a single legal move, or a tree
// node already deeper than the budget reaches, answers without searching;
// otherwise a new search runs. Before all that, a move of the opening books
// (Options.Books) is played at once (see bookMove): any ponder search is
// stopped first, then the move is chosen, and it comes with no ponder move
// (Decision.Ponder is NoMove), so that a GUI does not ponder on a reply
// from the tree and then, on ponderhit, play a searched move in a position
// that the book knows. Then one of the endgame tablebase (Options.Tablebase,
// see tablebaseMoves), or a search restricted to the moves that keep its
// result. With lim.Ponder it is UCI "go ponder", which never
// plays from the books or the tables.
func (g *Game) Think(ctx context.Context, lim ThinkLimits, info func(search.Info)) (Decision, error) {
	start := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return Decision{}, ErrClosed
	}
	if g.run != nil && !g.run.background {
		return Decision{}, ErrBusy
	}
	g.rootTB = TBResult{}
	// A book move is chosen with no search running: a ponder search is
	// stopped first (what it learnt stays in the tree and TT). Its wait
	// lets go of g.mu, and the game may change meanwhile (a new position,
	// other books), so everything below looks at the game afresh, and the
	// books are asked again.
	for !lim.Ponder && g.run != nil && g.bookApplies(lim) {
		if !g.run.background {
			return Decision{}, ErrBusy
		}
		g.stopAndWait(g.run)
		if g.closed {
			return Decision{}, ErrClosed
		}
	}
	white := g.pos.SideToMove() == board.White
	slim, err := g.searchLimits(lim, g.pos)
	if err != nil {
		return Decision{}, fmt.Errorf("think: %w", err)
	}
	var ml board.MoveList
	g.pos.GenerateLegal(&ml)
	if ml.N == 0 {
		g.stopPonder()
		return Decision{NoMove: true}, nil
	}

	if lim.Ponder {
		return g.thinkPonder(ctx, lim, slim, info)
	}

	g.pending.Ply = len(g.moves)
	if m, ok := g.bookMove(lim); ok {
		// A book move: no search (no search runs: see the loop above). The
		// tree is re-rooted as for any move, so it follows the game. No
		// ponder move: the reply would come from the tree, and a GUI that
		// pondered on it would get a searched move on ponderhit, in a
		// position that may well be in the book.
		g.commit()
		g.ageTT(len(g.moves), false)
		d := Decision{Move: m, Source: FromBook, Budget: PlanMove(lim, white, g.opts.MoveOverhead, 0)}
		return g.finish(d, start, nil), nil
	}
	tbKeep, tbAtOnce := g.tablebaseMoves(lim)
	if tbAtOnce {
		// The tables' move: no search, handled as a book move.
		m := tbKeep[0]
		if r := g.run; r != nil {
			g.stopAndWait(r)
		}
		g.commit()
		g.ageTT(len(g.moves), false)
		d := Decision{Move: m.Move, Source: FromTablebase, Budget: PlanMove(lim, white, g.opts.MoveOverhead, 0),
			Tablebase: true, WDL: m.WDL, DTZ: m.DTZ}
		d.Score, d.Mate = g.tablebaseScore(m)
		if c := g.tree.findChild(g.cur, m.Move); c != nilNode {
			d.Ponder = g.tree.pool[c].best
		}
		return g.finish(d, start, nil), nil
	}
	if len(tbKeep) > 0 {
		// A search among the moves that keep the tables' result (see
		// tablebaseMoves): like "go searchmoves", so neither a ponder
		// search nor the tree (which know every move) answers for it.
		slim.SearchMoves = slim.SearchMoves[:0]
		lim.SearchMoves = lim.SearchMoves[:0:0]
		for _, m := range tbKeep {
			slim.SearchMoves = append(slim.SearchMoves, m.Move)
			lim.SearchMoves = append(lim.SearchMoves, m.Move.String())
		}
	}
	var carried *Budget // budget left by a converted ponder search that stopped at its cap
	var goesOn *lease   // that search's lease on Options.CPU, whose place the search on takes
	if r := g.run; r != nil {
		if len(tbKeep) == 0 && r.strategy == PonderPredicted && g.tree.valid(r.node) && r.node.idx == g.cur && r.ply == len(g.moves) {
			// Ponder hit: the running search already searches this position.
			g.commit()
			g.ageTT(len(g.moves), false)
			r.background = false
			r.info, r.userMPV = info, max(lim.MultiPV, 1)
			g.convert(r, lim)
			g.waitOrStop(ctx, r)
			if err := runErr("think", r); err != nil {
				return Decision{}, err
			}
			d, searchOn := g.convertedDecision(r, lim)
			if !searchOn {
				return d, nil
			}
			// The ponder search stopped at its cap with budget left: search
			// on with what is left of the converted budget.
			left := leftBudget(r)
			carried, goesOn = &left, r.lease
		} else {
			g.stopAndWait(r)
		}
	}
	g.commit()
	g.ageTT(len(g.moves), false)
	n := &g.tree.pool[g.cur]
	depthHere := int(n.depth)
	if e, ok := g.eng.Probe(g.pos.Key()); ok && e.Depth > depthHere {
		depthHere = e.Depth
	}
	g.pending.DepthAtMove = max(g.pending.DepthAtMove, depthHere)
	b := PlanMove(lim, white, g.opts.MoveOverhead, 0)
	if carried != nil {
		b = *carried
	}
	if len(tbKeep) > 0 && b.Timed {
		// A short search: the tables already know the result.
		b.Soft, b.Hard = max(b.Soft/2, MinThink), max(b.Hard/2, MinThink)
	}

	if b.Timed && lim.MoveTime == 0 && ml.N == 1 {
		d := Decision{Move: ml.Moves[0], Source: FromForced, Budget: b}
		d.Ponder = g.tree.pool[g.cur].best
		if c := g.tree.findChild(g.cur, ml.Moves[0]); c != nilNode {
			d.Ponder = g.tree.pool[c].best
		}
		return g.finish(d, start, nil), nil
	}
	if b.Timed && lim.MoveTime == 0 && len(lim.SearchMoves) == 0 && lim.MultiPV <= 1 && g.opts.VarietyCP == 0 &&
		n.depth > 0 && n.bound == search.BoundExact && n.best != board.NoMove && ml.Contains(n.best) {
		if reach := g.depths.reachable(b.Base, 0); reach > 0 && int(n.depth) >= reach {
			d := Decision{Move: n.best, Source: FromTree, Budget: b, Score: int(n.score), Depth: int(n.depth),
				Mate: search.MateMoves(int(n.score))}
			if c := g.tree.findChild(g.cur, n.best); c != nilNode {
				d.Ponder = g.tree.pool[c].best
			}
			return g.finish(d, start, nil), nil
		}
	}

	r := &run{strategy: PonderPredicted, converted: true, lim: lim, budget: b, info: info, userMPV: max(lim.MultiPV, 1),
		goesOn: goesOn}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	g.startRun(ctx, r, slim)
	r.hitAt = r.start
	g.armHard(r)
	g.wait(r)
	if err := runErr("think", r); err != nil {
		return Decision{}, err
	}
	d := g.fromResult(r.res, FromSearch, b)
	for _, m := range tbKeep {
		if m.Move == d.Move {
			d.Tablebase, d.WDL, d.DTZ = true, m.WDL, m.DTZ
		}
	}
	return g.finish(d, start, &r.res), nil
}

// booksAsked reports whether the opening books are asked under lim: not
// without books, nor for an analysis ("go infinite", search moves, mate
// search, MultiPV above 1).
func (g *Game) booksAsked(lim ThinkLimits) bool {
	return len(g.opts.Books) > 0 && !lim.Infinite && len(lim.SearchMoves) == 0 && lim.Mate == 0 && lim.MultiPV <= 1
}

// bookApplies reports whether bookMove would find a move, without drawing
// one (the Game's RNG is not used).
func (g *Game) bookApplies(lim ThinkLimits) bool {
	return g.booksAsked(lim) && book.Has(g.opts.Books, g.pos, g.gamePly(), g.opts.BookOptions)
}

// gamePly is the number of plies played in the game before the current
// position, from its fullmove number and side to move: a position sent as
// a FEN of the middle of a game ("position fen <current>") counts the
// plies before it as well as the moves after it.
func (g *Game) gamePly() int {
	ply := 2 * (max(g.pos.FullmoveNumber(), 1) - 1)
	if g.pos.SideToMove() == board.Black {
		ply++
	}
	return ply
}

// bookMove chooses a move of the opening books for the current position,
// with the Game's RNG. The books are not asked for an analysis (see
// booksAsked) nor when the game is past BookOptions.MaxDepth plies since
// its start (gamePly).
func (g *Game) bookMove(lim ThinkLimits) (board.Move, bool) {
	if !g.booksAsked(lim) {
		return board.NoMove, false
	}
	m, _, ok := book.Choose(g.opts.Books, g.pos, g.gamePly(), g.opts.BookOptions, g.rng)
	if !ok {
		return board.NoMove, false
	}
	return m.Move, true
}

// tablebaseMoves probes the endgame tablebase at the current position and
// returns the moves that keep the tables' result (syzygy.Best), first the
// one to play at once when atOnce: in a win known by DTZ the shortest DTZ,
// so that the game always progresses to mate within the fifty-move rule; a
// single move that keeps the result, whatever it is. Otherwise (a draw or a
// loss, where a fallible opponent may still go wrong, or a win known only by
// WDL) Think searches among the moves returned. Without the DTZ table the
// moves are ranked by WDL alone (syzygy.ProbeRootWDL). The position's
// result is kept in g.rootTB (for Decision.TB) even for an analysis
// (infinite, search moves, mate search, MultiPV above 1), which gets no
// moves: the search decides among all. A position the tables do not hold
// (too many pieces, castling rights, a table missing), one of more pieces
// than a positive Options.TablebaseProbeLimit (as in Stockfish, tables
// beyond the limit are not used at all), or an unreadable table gives no
// moves (the error is logged) and the search decides among all.
func (g *Game) tablebaseMoves(lim ThinkLimits) (keep []syzygy.RootMove, atOnce bool) {
	tb := g.opts.Tablebase
	if tb == nil || !tb.Covers(g.pos.Occupied().Count(), g.opts.TablebaseProbeLimit) || g.pos.CastlingRights() != 0 {
		return nil, false
	}
	rule50 := !g.opts.TablebaseIgnore50
	moves, err := tb.ProbeRoot(g.pos, rule50, g.tbMoves[:0])
	byDTZ := err == nil
	if errors.Is(err, syzygy.ErrNoTable) {
		moves, err = tb.ProbeRootWDL(g.pos, rule50, moves[:0])
	}
	g.tbMoves = moves
	if err != nil || len(moves) == 0 {
		if err != nil && !errors.Is(err, syzygy.ErrNoTable) {
			g.log.Warn().Err(err).Msg("tablebase probe failed; searching instead")
		}
		return nil, false
	}
	best := syzygy.Best(moves)
	g.rootTB = TBResult{Known: true, WDL: best[0].WDL}
	for _, m := range best[1:] {
		// Moves of the best rank may differ in WDL without the fifty-move
		// rule (Options.TablebaseIgnore50): the position is worth the best.
		g.rootTB.WDL = max(g.rootTB.WDL, m.WDL)
	}
	if !byDTZ && rule50 && g.pos.HalfmoveClock() > 0 {
		// ProbeRootWDL ranks as if the fifty-move counter were reset: with
		// moves already played towards it, a win may be cursed and a loss
		// blessed. The position is said to be no more than that (a drawn
		// position is not resigned, nor a win claimed that may be a draw),
		// unless a winning move of the best rank zeroes the counter (a
		// capture or a pawn move): its win is a win.
		switch g.rootTB.WDL {
		case syzygy.Win:
			if !zeroingWin(g.pos, best) {
				g.rootTB.WDL = syzygy.CursedWin
			}
		case syzygy.Loss:
			g.rootTB.WDL = syzygy.BlessedLoss
		}
	}
	if lim.Infinite || len(lim.SearchMoves) > 0 || lim.Mate > 0 || lim.MultiPV > 1 {
		return nil, false
	}
	if byDTZ && best[0].DTZ > 0 {
		for i, m := range best[1:] {
			if m.DTZ < best[0].DTZ {
				best[0], best[i+1] = best[i+1], best[0]
			}
		}
		return best, true
	}
	return best, len(best) == 1
}

// zeroingWin reports whether one of moves, of pos, wins and resets the
// fifty-move counter (a capture or a pawn move): ranked without DTZ, its
// win does not depend on the counter.
func zeroingWin(pos *board.Position, moves []syzygy.RootMove) bool {
	for _, m := range moves {
		if m.WDL == syzygy.Win && (pos.IsCapture(m.Move) || pos.MovedPiece(m.Move).Type() == board.Pawn) {
			return true
		}
	}
	return false
}

// tablebaseScore scores a move the tables chose, on the search's scale
// (search.TBWin): a move that mates is a mate in 1; a win TBWin less its
// DTZ in plies (at least 1), a loss the negative; a draw 0, and so are a
// cursed win and a blessed loss unless the fifty-move rule is ignored, as
// the search scores them.
func (g *Game) tablebaseScore(m syzygy.RootMove) (score, mate int) {
	g.pos.MakeMove(m.Move)
	mated := g.pos.InCheck() && !g.pos.HasLegalMoves()
	g.pos.UnmakeMove()
	if mated {
		return search.MateScore - 1, 1
	}
	dist := max(abs(m.DTZ), 1)
	switch {
	case m.WDL == syzygy.Win || (m.WDL == syzygy.CursedWin && g.opts.TablebaseIgnore50):
		return search.TBWin - dist, 0
	case m.WDL == syzygy.Loss || (m.WDL == syzygy.BlessedLoss && g.opts.TablebaseIgnore50):
		return -search.TBWin + dist, 0
	}
	return 0, 0
}

// SetTablebase replaces the endgame tablebase (nil: none), whether the
// fifty-move rule is ignored, and the search's probe depth and piece limit
// (see Options), from the next Think or search on. A running search keeps
// the tables it started with.
func (g *Game) SetTablebase(tb *syzygy.Tablebase, ignore50 bool, probeDepth, probeLimit int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opts.Tablebase, g.opts.TablebaseIgnore50 = tb, ignore50
	g.opts.TablebaseProbeDepth, g.opts.TablebaseProbeLimit = probeDepth, probeLimit
}

// SetBooks replaces the opening books (nil: none) and how a move is chosen
// from them, from the next Think on.
func (g *Game) SetBooks(books []*book.Book, opt book.Options) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opts.Books = append([]*book.Book(nil), books...)
	g.opts.BookOptions = opt
}

// tablebaseLimits lets a search probe the Game's tablebase.
func (g *Game) tablebaseLimits(sl *search.Limits) {
	if tb := g.opts.Tablebase; tb != nil && g.opts.TablebaseProbeLimit >= 0 {
		sl.Tablebase, sl.TablebaseDepth, sl.TablebaseLimit = tb, g.opts.TablebaseProbeDepth, g.opts.TablebaseProbeLimit
		sl.TablebaseRule50 = !g.opts.TablebaseIgnore50
	}
}

// searchLimits translates our limits to the engine's (time is ours: the
// budget is applied by onInfo and a hard timer, so no clock goes down).
func (g *Game) searchLimits(lim ThinkLimits, pos *board.Position) (search.Limits, error) {
	sl := search.Limits{Depth: lim.Depth, Nodes: lim.Nodes, Mate: lim.Mate, Infinite: lim.Infinite,
		MultiPV: max(lim.MultiPV, 1)}
	g.tablebaseLimits(&sl)
	if g.opts.VarietyCP > 0 {
		sl.MultiPV = max(sl.MultiPV, g.opts.VarietyLines)
	}
	for _, s := range lim.SearchMoves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return sl, fmt.Errorf("searchmoves: %w", err)
		}
		sl.SearchMoves = append(sl.SearchMoves, m)
	}
	return sl, nil
}

// leftBudget is what is left of a converted run's budget since the hit,
// for a search that goes on after it: both limits count from the hit.
func leftBudget(r *run) Budget {
	b := r.budget
	spent := time.Since(r.hitAt)
	b.Soft = max(b.Soft-spent, MinThink)
	b.Hard = max(b.Hard-spent, MinThink)
	return b
}

// armHard starts the hard-limit timer of a converted run (see hardLeft).
func (g *Game) armHard(r *run) {
	if !r.budget.Timed {
		return
	}
	r.timer = time.AfterFunc(hardLeft(r, time.Now()), func() {
		g.mu.Lock()
		if g.run == r {
			r.stop()
		}
		g.mu.Unlock()
	})
}

// checkSoft stops a converted search when our budget says so.
func (g *Game) checkSoft(r *run, inf search.Info) {
	if !r.converted || r.stopAsked {
		return
	}
	stop := false
	if r.lim.Depth > 0 && inf.Depth >= r.lim.Depth {
		stop = true
	}
	if r.lim.Nodes > 0 && inf.Nodes-r.nodesAtHit >= r.lim.Nodes {
		stop = true
	}
	if b := r.budget; b.Timed && (inf.Depth >= 4 || r.ponder) {
		soft := b.Soft
		if r.lim.MoveTime == 0 {
			// Stability: a best move that keeps its place lets us stop earlier
			// (0.75 of Soft when stable for 6+ iterations, 1.25 just after a
			// change). Not for a fixed move time, which is used whole.
			scale := 1.25 - 0.1*float64(min(r.stable, 5))
			soft = min(time.Duration(float64(b.Soft)*scale), b.Hard)
		}
		if time.Since(r.hitAt) >= soft {
			stop = true
		}
	}
	if stop {
		r.stop()
	}
}

// fromResult builds a decision from a search result, applying variety.
func (g *Game) fromResult(res search.Result, src Source, b Budget) Decision {
	d := Decision{Move: res.BestMove, Ponder: res.PonderMove, Score: res.Score, Mate: res.Mate, Depth: res.Depth,
		Nodes: res.Nodes, Source: src, Budget: b, RootMoves: res.RootMoves}
	for _, m := range res.PV {
		d.PV = append(d.PV, g.pos.MoveToUCI(m))
	}
	if pick, ok := g.vary(res); ok && pick.Move != res.BestMove {
		d.Move, d.Score, d.Mate = pick.Move, pick.Score, search.MateMoves(pick.Score)
		d.Ponder = board.NoMove
		if len(pick.PV) > 1 {
			d.Ponder = pick.PV[1]
		}
		d.PV = d.PV[:0]
		for _, m := range pick.PV {
			d.PV = append(d.PV, g.pos.MoveToUCI(m))
		}
	}
	return d
}

// vary picks a root move within VarietyCP of the best exact score with the
// Game's RNG. ok is false when variety is off or does not apply.
func (g *Game) vary(res search.Result) (search.RootMove, bool) {
	if g.opts.VarietyCP <= 0 || len(res.RootMoves) < 2 {
		return search.RootMove{}, false
	}
	best := res.RootMoves[0]
	if best.Bound != search.BoundExact || abs(best.Score) >= search.MateInMaxPly {
		return search.RootMove{}, false
	}
	var cands []search.RootMove
	for _, rm := range res.RootMoves {
		if rm.Bound == search.BoundExact && rm.Depth >= best.Depth && abs(rm.Score) < search.MateInMaxPly &&
			rm.Score >= best.Score-g.opts.VarietyCP {
			cands = append(cands, rm)
		}
	}
	if len(cands) == 0 {
		return search.RootMove{}, false
	}
	return cands[g.rng.Intn(len(cands))], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// moveStrings fills the UCI strings of d (dropping an illegal ponder move).
func (g *Game) moveStrings(d *Decision) {
	d.UCI = moveString(g.pos, d.Move)
	if d.Ponder != board.NoMove && d.Move != board.NoMove {
		p := g.pos.Clone()
		p.MakeMove(d.Move)
		if p.IsLegal(d.Ponder) {
			d.PonderUCI = p.MoveToUCI(d.Ponder)
		} else {
			d.Ponder = board.NoMove
		}
	}
}

// finish completes a decision: UCI strings, timing, stats and the log line;
// it remembers the expected reply.
func (g *Game) finish(d Decision, start time.Time, res *search.Result) Decision {
	g.moveStrings(&d)
	d.Time = time.Since(start)
	d.TB, g.rootTB = g.rootTB, TBResult{}
	ms := g.pending
	g.pending = MoveStats{}
	ms.Ply = len(g.moves)
	ms.Move = d.UCI
	ms.White = g.pos.SideToMove() == board.White
	ms.Score, ms.Mate = d.Score, d.Mate
	ms.Source = d.Source
	ms.Budget = d.Budget
	ms.Depth = d.Depth
	ms.Nodes = d.Nodes
	ms.TimeUsed = d.Time
	if d.Source != FromSearch && d.Budget.Timed && d.Budget.Base > d.Time {
		ms.TimeSaved = d.Budget.Base - d.Time
	}
	ms.TreeNodes = g.tree.live
	ms.TreeBytes = g.tree.live * NodeBytes
	g.stats.add(ms)
	g.stats.TreeNodes, g.stats.FreeListNodes = g.tree.live, g.tree.nFree
	g.stats.MaxTreeNodes = max(g.stats.MaxTreeNodes, g.tree.highWater)
	g.stats.TrimmedNodes = g.tree.trimmedTotal
	g.stats.TreeBytes = g.tree.live * NodeBytes
	ms.log(g.log)
	g.live.active = false
	g.publish()
	return d
}

func moveString(p *board.Position, m board.Move) string {
	if m == board.NoMove {
		return ""
	}
	return p.MoveToUCI(m)
}

// hardLeft is how long r's search may still run at now: its hard limit
// counts from r.hitAt (the run's start, or the ponder hit), so the time
// spent before the timer is armed (seeding the TT from the learning
// memory, in startRun) is on our clock too.
func hardLeft(r *run, now time.Time) time.Duration {
	return max(r.budget.Hard-now.Sub(r.hitAt), 0)
}
