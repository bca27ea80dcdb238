// Root bookkeeping: the root move list, iterative deepening with
// aspiration windows, progress reports and the final result.

package search

import (
	"sort"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

type rootMove struct {
	move      board.Move
	score     int // -Infinity when it failed low in the current iteration
	prevScore int
	repScore  int // last reported score (exact or bound)
	repBound  Bound
	depth     int
	seldepth  int
	nodes     uint64
	pv        []board.Move // preallocated, cap MaxPly
}

// prepare copies the position and builds the root move list.
func (t *thread) prepare(pos *board.Position, ctl *control) {
	t.pos.CopyFrom(pos)
	if t.nn != nil {
		t.nn.Reset()
	}
	t.ctl = ctl
	t.nodes, t.seldepth, t.stopped = 0, 0, false
	t.pubNodes.Store(0)
	t.tbHits = 0
	t.pubTBHits.Store(0)
	t.completedDepth, t.bestChanges = 0, 0
	for i := range t.stack {
		f := &t.stack[i]
		f.killers = [2]board.Move{}
		f.move, f.piece, f.cont, f.excluded = board.NoMove, board.NoPiece, &t.sentinel, board.NoMove
		f.staticEval = NoScore
	}
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	t.rootMoves = t.rootMoves[:0]
	restrict := false
	for _, m := range ctl.searchMoves {
		if ml.Contains(m) {
			restrict = true // only when at least one search move is legal
		}
	}
	for _, m := range ml.Slice() {
		if restrict && !contains(ctl.searchMoves, m) {
			continue
		}
		pv := make([]board.Move, 0, MaxPly)
		t.rootMoves = append(t.rootMoves, rootMove{move: m, score: -Infinity, prevScore: -Infinity,
			repScore: -Infinity, repBound: BoundUpper, pv: append(pv, m)})
	}
	// Initial order: noisy moves by MVV-LVA first, the rest as generated.
	sort.SliceStable(t.rootMoves, func(i, j int) bool {
		return rootOrderKey(pos, t.rootMoves[i].move) > rootOrderKey(pos, t.rootMoves[j].move)
	})
	// Limits.Known stands for an iteration below the depth limit: the
	// limit's own depth is always searched. Not for a mate search, which
	// would stop on a known mate right after depth 1.
	t.knownDepth = 0
	if k := ctl.lim.Known; k != nil && min(k.Depth, ctl.maxDepth-1) >= 2 && ctl.multiPV == 1 && ctl.lim.Mate <= 0 &&
		k.Score > -MateScore && k.Score < MateScore {
		for _, rm := range t.rootMoves {
			if rm.move == k.Move {
				t.knownDepth = min(k.Depth, ctl.maxDepth-1)
			}
		}
	}
}

func rootOrderKey(p *board.Position, m board.Move) int32 {
	if p.IsNoisy(m) {
		return 1000 + mvvlva(p, m)
	}
	return 0
}

func contains(ms []board.Move, m board.Move) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// iterate runs iterative deepening until a limit or Stop.
func (t *thread) iterate() {
	main := t.id == 0
	ctl := t.ctl
	stable := 0
	var prevBest board.Move
	prevScore := NoScore
	multiPV := min(ctl.multiPV, len(t.rootMoves))
	soft := 0.0 // the soft limit's scale after the last iteration that checked it
	for depth := 1; depth <= ctl.maxDepth; depth = t.nextDepth(depth) {
		// The known iteration needs no thread: it is taken even when the
		// search has none, so that a stop while paused after depth 1 plays
		// the known move, not depth 1's.
		known := depth == t.knownDepth
		if !known && !ctl.sig.mayRun(t.id) {
			if t.pause(soft); t.stopped {
				break
			}
			// Paused past the soft deadline: no new iteration.
			if main && soft != 0 && ctl.softUp(soft) {
				break
			}
		}
		t.rootDepth = depth
		t.bestChanges *= 0.5
		for i := range t.rootMoves {
			t.rootMoves[i].prevScore = t.rootMoves[i].score
		}
		if known {
			t.takeKnown(depth)
		} else {
			for t.pvIdx = 0; t.pvIdx < multiPV; t.pvIdx++ {
				t.seldepth = 0
				t.aspiration(depth)
				if t.stopped {
					break
				}
			}
			// Order the finished lines (a stopped iteration keeps the moves
			// that were completely searched, sorted in front).
			sortRoot(t.rootMoves[:min(t.pvIdx+1, len(t.rootMoves))])
			if t.stopped {
				break
			}
		}
		t.completedDepth = depth
		if !main {
			continue
		}
		if t.report != nil {
			for i := 0; i < multiPV; i++ {
				t.report(t.info(i, BoundExact))
			}
		}
		if known {
			// The score fell or rose from depth 1 to the known depth: that
			// says nothing of this search's stability.
			prevScore = NoScore
		}
		best := t.rootMoves[0]
		if ctl.lim.Mate > 0 && best.score >= MateInMaxPly && MateMoves(best.score) <= ctl.lim.Mate {
			break
		}
		if best.move == prevBest {
			stable++
		} else {
			stable = 0
		}
		drop := 0
		if prevScore != NoScore {
			drop = prevScore - best.score
		}
		prevBest, prevScore = best.move, best.score
		if ctl.timed && depth >= 4 {
			if soft = softScale(stable, t.bestChanges, drop); ctl.softUp(soft) {
				break
			}
		}
		if ctl.timed && !ctl.budget.fixed && len(t.rootMoves) == 1 && depth >= 8 {
			break // forced move: no point thinking long
		}
	}
	if main && !ctl.lim.Infinite && !ctl.pondering() {
		ctl.halt()
	}
}

// nextDepth is the iteration after depth: the next one, save that after
// depth 1 (always searched, so that there is a move to play) a search
// given Limits.Known goes on at the depth it knows (see takeKnown).
func (t *thread) nextDepth(depth int) int {
	if depth == 1 && t.knownDepth > 2 {
		return t.knownDepth
	}
	return depth + 1
}

// takeKnown makes Limits.Known the root's iteration of depth: its move
// first, with the known score (exact) and a PV of that move; every other
// move scores -Infinity, as one that failed low at that depth, so that
// nothing of depth 1 compares with the known score. The next iteration
// then searches round the known score, the known move first, and the
// others in their depth-1 order.
func (t *thread) takeKnown(depth int) {
	k := t.ctl.lim.Known
	t.pvIdx = 0
	for i := range t.rootMoves {
		rm := &t.rootMoves[i]
		if rm.move != k.Move {
			rm.score = -Infinity
			continue
		}
		rm.score, rm.repScore, rm.repBound = k.Score, k.Score, BoundExact
		rm.depth, rm.seldepth = depth, depth
		rm.pv = append(rm.pv[:0], rm.move)
		for j := i; j > 0; j-- {
			t.rootMoves[j-1], t.rootMoves[j] = t.rootMoves[j], t.rootMoves[j-1]
		}
	}
}

func (t *thread) aspiration(depth int) {
	alpha, beta := -Infinity, Infinity
	delta := 0
	rm := &t.rootMoves[t.pvIdx]
	if !t.e.feat.noAspiration && depth >= 4 && rm.prevScore > -Infinity {
		prev := rm.prevScore
		delta = 12 + prev*prev/16000
		alpha = max(prev-delta, -Infinity)
		beta = min(prev+delta, Infinity)
	}
	for {
		score := t.search(alpha, beta, depth, 0, false)
		sortRoot(t.rootMoves[t.pvIdx:])
		if t.stopped {
			return
		}
		switch {
		case score <= alpha:
			beta = (alpha + beta) / 2
			alpha = max(score-delta, -Infinity)
			t.reportBound(BoundUpper)
		case score >= beta:
			beta = min(score+delta, Infinity)
			t.reportBound(BoundLower)
		default:
			sortRoot(t.rootMoves[:t.pvIdx+1])
			return
		}
		delta += delta/2 + 5
	}
}

func (t *thread) reportBound(b Bound) {
	if t.id != 0 || t.report == nil || time.Since(t.ctl.start) < time.Second {
		return
	}
	t.report(t.info(t.pvIdx, b))
}

// sortRoot orders root moves by score, then previous score (stable).
func sortRoot(rms []rootMove) {
	for i := 1; i < len(rms); i++ {
		for j := i; j > 0 && rootLess(&rms[j-1], &rms[j]); j-- {
			rms[j-1], rms[j] = rms[j], rms[j-1]
		}
	}
}

func rootLess(a, b *rootMove) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.prevScore < b.prevScore
}

func (t *thread) info(i int, b Bound) Info {
	t.pubNodes.Store(t.nodes)
	t.pubTBHits.Store(t.tbHits)
	rm := &t.rootMoves[i]
	elapsed := time.Since(t.ctl.start)
	nodes := t.e.totalNodes()
	score := rm.score
	if score == -Infinity {
		score = rm.repScore
	}
	inf := Info{
		Depth:      t.rootDepth,
		SelDepth:   rm.seldepth,
		MultiPV:    i + 1,
		Score:      score,
		Mate:       MateMoves(score),
		Bound:      b,
		Nodes:      nodes,
		Time:       elapsed,
		Paused:     t.ctl.paused,
		KnownDepth: t.knownDepth,
		Hashfull:   t.e.tt.Hashfull(),
		TBHits:     t.e.totalTBHits(),
		PV:         append([]board.Move(nil), rm.pv...),
	}
	if b == BoundExact {
		inf.Depth = t.completedDepth
	}
	if ran := elapsed - inf.Paused; ran > 0 {
		inf.NPS = uint64(float64(nodes) / ran.Seconds())
	}
	return inf
}

func (t *thread) result(start time.Time) Result {
	t.pubNodes.Store(t.nodes)
	rm := t.rootMoves[0]
	score := rm.score
	if score == -Infinity {
		score = rm.repScore
	}
	if score == -Infinity {
		score = 0 // stopped before any root move was searched completely
	}
	res := Result{
		BestMove: rm.move,
		Score:    score,
		Mate:     MateMoves(score),
		Depth:    t.completedDepth,
		SelDepth: rm.seldepth,
		Nodes:    t.e.totalNodes(),
		Time:     time.Since(start),
		PV:       append([]board.Move(nil), rm.pv...),
	}
	t.e.nodesPub.Store(res.Nodes)
	if len(rm.pv) > 1 {
		res.PonderMove = rm.pv[1]
	} else {
		t.pos.MakeMove(rm.move)
		if e, ok := t.e.tt.Probe(t.pos.Key()); ok && e.Move != board.NoMove && t.pos.IsLegal(e.Move) {
			res.PonderMove = e.Move
		}
		t.pos.UnmakeMove()
	}
	res.RootMoves = make([]RootMove, len(t.rootMoves))
	for i, r := range t.rootMoves {
		s, b := r.score, BoundExact
		if s == -Infinity {
			s, b = r.repScore, r.repBound
		}
		res.RootMoves[i] = RootMove{Move: r.move, Score: s, Bound: b, Depth: r.depth, SelDepth: r.seldepth,
			Nodes: r.nodes, PV: append([]board.Move(nil), r.pv...)}
	}
	return res
}

// updateRoot records the result of root move index i.
func (t *thread) updateRoot(i int, m board.Move, v, alpha, beta, moveCount, depth int, nodes uint64) {
	rm := &t.rootMoves[i]
	rm.nodes += nodes
	if rm.move != m {
		return
	}
	rm.depth = depth
	if moveCount == 1 || v > alpha {
		rm.score = v
		rm.repScore = v
		rm.seldepth = t.seldepth
		switch {
		case v >= beta:
			rm.repBound = BoundLower
		case v <= alpha:
			rm.repBound = BoundUpper
		default:
			rm.repBound = BoundExact
		}
		child := t.frame(1)
		rm.pv = append(rm.pv[:0], m)
		rm.pv = append(rm.pv, child.pv[:child.pvLen]...)
		if moveCount > 1 && t.pvIdx == 0 {
			t.bestChanges++
		}
	} else {
		rm.score = -Infinity
		rm.repScore = v
		rm.repBound = BoundUpper
	}
}
