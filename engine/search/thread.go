package search

import (
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

const (
	histMax    = 16384
	checkEvery = 1024 // nodes between stop/time checks
	stackOff   = 2    // frames before ply 0, so ply-2 is always addressable
)

// lmrTable[depth][moveNumber] is the late-move reduction in plies
// (log-based; computed once at init, read-only afterwards).
var lmrTable [64][64]int8

func init() {
	for d := 1; d < 64; d++ {
		for m := 1; m < 64; m++ {
			lmrTable[d][m] = int8(0.75 + math.Log(float64(d))*math.Log(float64(m))/2.25)
		}
	}
}

func lmr(depth, moveCount int) int {
	return int(lmrTable[min(depth, 63)][min(moveCount, 63)])
}

// contEntry is the continuation history of one (piece, to-square): how good
// each following quiet (piece, to) has been.
type contEntry [16][64]int16

// frame is the per-ply search state.
type frame struct {
	pk         picker
	pv         [MaxPly + 1]board.Move
	pvLen      int
	killers    [2]board.Move
	staticEval int
	move       board.Move // move made at this ply (NullMove for a null move)
	piece      board.Piece
	cont       *contEntry // continuation history of move at this ply
	excluded   board.Move
	quiets     [64]board.Move
	nQuiets    int
	caps       [32]board.Move
	nCaps      int
}

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

// thread is one lazy-SMP search thread. All its state is private except
// the published node count.
type thread struct {
	e   *Engine
	id  int
	pos *board.Position
	ev  *eval.Evaluator
	ctl *control

	stack    *[MaxPly + stackOff + 2]frame
	history  *[2][64][64]int32
	contHist *[16][64]contEntry
	sentinel contEntry
	counter  [16][64]board.Move
	evalTab  *[evalCacheSize]evalCacheEntry
	capHist  *[16][64][8]int16 // moved piece, to, captured type

	nodes     uint64
	pubNodes  atomic.Uint64
	seldepth  int
	stopped   bool
	rootMoves []rootMove
	rootDepth int
	pvIdx     int

	completedDepth int
	bestChanges    float64
	report         func(Info)
}

func newThread(e *Engine, id int) *thread {
	return &thread{
		e:        e,
		id:       id,
		pos:      board.NewPosition(),
		ev:       eval.NewEvaluator(),
		stack:    new([MaxPly + stackOff + 2]frame),
		history:  new([2][64][64]int32),
		contHist: new([16][64]contEntry),
		evalTab:  new([evalCacheSize]evalCacheEntry),
		capHist:  new([16][64][8]int16),
	}
}

func (t *thread) clearHistory() {
	*t.history = [2][64][64]int32{}
	*t.contHist = [16][64]contEntry{}
	t.sentinel = contEntry{}
	t.counter = [16][64]board.Move{}
	*t.evalTab = [evalCacheSize]evalCacheEntry{}
	*t.capHist = [16][64][8]int16{}
}

// capturedType is the piece type m captures (Pawn for en passant, none for
// a quiet promotion).
func capturedType(p *board.Position, m board.Move) board.PieceType {
	if m.IsEnPassant() {
		return board.Pawn
	}
	return p.PieceOn(m.To()).Type()
}

// captureScore orders noisy moves: victim value first, adjusted by how
// well this capture has done before (capture history), then promotions.
func (t *thread) captureScore(m board.Move) int32 {
	p := t.pos
	victim := capturedType(p, m)
	s := int32(board.SEEValue[victim])*16 + int32(t.capHist[p.PieceOn(m.From())][m.To()][victim])/4
	if pr := m.Promotion(); pr != board.NoPieceType {
		s += int32(board.SEEValue[pr]) * 16
	}
	return s
}

// updateCaptureStats rewards the capture best (if it is one) and punishes
// the other captures tried at this node.
func (t *thread) updateCaptureStats(ply, depth int, best board.Move, bestIsCapture bool) {
	f := t.frame(ply)
	p := t.pos
	bonus := historyBonus(depth)
	for i := 0; i < f.nCaps; i++ {
		m := f.caps[i]
		b := -bonus
		if bestIsCapture && m == best {
			b = bonus
		}
		gravity16(&t.capHist[p.PieceOn(m.From())][m.To()][capturedType(p, m)], b)
	}
}

// prepare copies the position and builds the root move list.
func (t *thread) prepare(pos *board.Position, ctl *control) {
	t.pos.CopyFrom(pos)
	t.ctl = ctl
	t.nodes, t.seldepth, t.stopped = 0, 0, false
	t.pubNodes.Store(0)
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

func (t *thread) frame(ply int) *frame { return &t.stack[ply+stackOff] }

// checkup runs every checkEvery nodes: it notices Stop, and the main
// thread enforces the node and hard time limits.
func (t *thread) checkup() {
	t.pubNodes.Store(t.nodes)
	if t.e.stop.Load() {
		t.stopped = true
		return
	}
	if t.id != 0 {
		return
	}
	total := t.e.totalNodes()
	t.e.nodesPub.Store(total)
	if t.completedDepth < 1 {
		return // always finish depth 1 so there is a move to play
	}
	if (t.ctl.lim.Nodes > 0 && total >= t.ctl.lim.Nodes) || t.ctl.timeUp() {
		t.e.stop.Store(true)
		t.stopped = true
	}
}

func (e *Engine) totalNodes() uint64 {
	var n uint64
	for _, t := range e.threads {
		n += t.pubNodes.Load()
	}
	return n
}

// iterate runs iterative deepening until a limit or Stop.
func (t *thread) iterate() {
	main := t.id == 0
	ctl := t.ctl
	stable := 0
	var prevBest board.Move
	prevScore := NoScore
	multiPV := min(ctl.multiPV, len(t.rootMoves))
	for depth := 1; depth <= ctl.maxDepth; depth++ {
		t.rootDepth = depth
		t.bestChanges *= 0.5
		for i := range t.rootMoves {
			t.rootMoves[i].prevScore = t.rootMoves[i].score
		}
		for t.pvIdx = 0; t.pvIdx < multiPV; t.pvIdx++ {
			t.seldepth = 0
			t.aspiration(depth)
			if t.stopped {
				break
			}
		}
		// Order the finished lines (a stopped iteration keeps the moves that
		// were completely searched, sorted in front).
		sortRoot(t.rootMoves[:min(t.pvIdx+1, len(t.rootMoves))])
		if t.stopped {
			break
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
		if ctl.timed && depth >= 4 && ctl.softUp(softScale(stable, t.bestChanges, drop)) {
			break
		}
		if ctl.timed && len(t.rootMoves) == 1 && depth >= 8 {
			break // forced move: no point thinking long
		}
	}
	if main && !ctl.lim.Infinite && !t.e.pondering.Load() {
		t.e.stop.Store(true)
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
	rm := &t.rootMoves[i]
	elapsed := time.Since(t.ctl.start)
	nodes := t.e.totalNodes()
	score := rm.score
	if score == -Infinity {
		score = rm.repScore
	}
	inf := Info{
		Depth:    t.rootDepth,
		SelDepth: rm.seldepth,
		MultiPV:  i + 1,
		Score:    score,
		Mate:     MateMoves(score),
		Bound:    b,
		Nodes:    nodes,
		Time:     elapsed,
		Hashfull: t.e.tt.Hashfull(),
		PV:       append([]board.Move(nil), rm.pv...),
	}
	if b == BoundExact {
		inf.Depth = t.completedDepth
	}
	if elapsed > 0 {
		inf.NPS = uint64(float64(nodes) / elapsed.Seconds())
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

const evalCacheSize = 1 << 16

// evalCacheEntry caches one static evaluation by position key (per thread,
// so no synchronisation; the key is stored in full).
type evalCacheEntry struct {
	key  uint64
	eval int32
}

// evaluate returns the static evaluation, clamped away from mate scores.
func (t *thread) evaluate() int {
	key := t.pos.Key()
	ce := &t.evalTab[key&(evalCacheSize-1)]
	if ce.key == key && key != 0 {
		return int(ce.eval)
	}
	v := t.ev.Evaluate(t.pos)
	v = max(min(v, MateInMaxPly-1), -MateInMaxPly+1)
	ce.key, ce.eval = key, int32(v)
	return v
}

// hasNonPawn reports whether the side to move has a piece other than king
// and pawns (null move is unsafe without: zugzwang).
func hasNonPawn(p *board.Position) bool {
	c := p.SideToMove()
	return p.Occupancy(c)&^(p.Pieces(c, board.Pawn)|p.Pieces(c, board.King)) != 0
}

// nullMoveSafe reports whether a null move is a reasonable test here: the
// side to move has more than one minor piece's worth of material besides
// pawns (with less, zugzwang is common).
func nullMoveSafe(p *board.Position) bool {
	c := p.SideToMove()
	pieces := p.Occupancy(c) &^ (p.Pieces(c, board.Pawn) | p.Pieces(c, board.King))
	return pieces.More() || pieces&(p.Pieces(c, board.Rook)|p.Pieces(c, board.Queen)) != 0
}

func (t *thread) isDraw(ply int) bool {
	p := t.pos
	if p.IsRepetition(ply) || p.IsInsufficientMaterial() {
		return true
	}
	// Fifty-move rule: a checkmate on the 100th half-move still counts.
	return p.HalfmoveClock() >= 100 && (!p.InCheck() || p.HasLegalMoves())
}

func (t *thread) scoreQuiets(l *board.MoveList, sc *[board.MaxMoves]int32, ply int) {
	p := t.pos
	c := p.SideToMove()
	c1, c2 := t.frame(ply-1).cont, t.frame(ply-2).cont
	for i := 0; i < l.N; i++ {
		m := l.Moves[i]
		pc, to := p.PieceOn(m.From()), m.To()
		sc[i] = t.history[c][m.From()][to] + int32(c1[pc][to]) + int32(c2[pc][to])
	}
}

func historyBonus(depth int) int32 {
	return int32(min(170*depth-80, 1700))
}

func gravity32(h *int32, bonus int32) {
	b := bonus
	if b < 0 {
		b = -b
	}
	*h += bonus - *h*b/histMax
}

func gravity16(h *int16, bonus int32) {
	b := bonus
	if b < 0 {
		b = -b
	}
	v := int32(*h)
	*h = int16(v + bonus - v*b/histMax)
}

// updateQuietStats rewards the quiet move best that caused a cutoff and
// punishes the quiets tried before it.
func (t *thread) updateQuietStats(ply, depth int, best board.Move) {
	f := t.frame(ply)
	p := t.pos
	c := p.SideToMove()
	bonus := historyBonus(depth)
	c1, c2 := t.frame(ply-1).cont, t.frame(ply-2).cont
	for i := 0; i < f.nQuiets; i++ {
		m := f.quiets[i]
		b := -bonus
		if m == best {
			b = bonus
		}
		pc, to := p.PieceOn(m.From()), m.To()
		gravity32(&t.history[c][m.From()][to], b)
		gravity16(&c1[pc][to], b)
		gravity16(&c2[pc][to], b)
	}
	if f.killers[0] != best {
		f.killers[1] = f.killers[0]
		f.killers[0] = best
	}
	if prev := t.frame(ply - 1); prev.move != board.NoMove && prev.move != board.NullMove {
		t.counter[prev.piece][prev.move.To()] = best
	}
}

// search is the principal-variation alpha-beta search.
func (t *thread) search(alpha, beta, depth, ply int, cutNode bool) int {
	if depth <= 0 {
		return t.qsearch(alpha, beta, ply, 0)
	}
	pvNode := beta-alpha > 1
	root := ply == 0
	p := t.pos
	f := t.frame(ply)
	f.pvLen = 0
	inCheck := p.InCheck()

	t.nodes++
	if t.nodes%checkEvery == 0 {
		t.checkup()
	}
	if t.stopped {
		return 0
	}
	if ply > t.seldepth {
		t.seldepth = ply
	}

	if !root {
		if t.isDraw(ply) {
			return 0
		}
		if ply >= MaxPly-1 {
			if inCheck {
				return 0
			}
			return t.evaluate()
		}
		// Mate-distance pruning.
		alpha = max(alpha, -MateScore+ply)
		beta = min(beta, MateScore-ply-1)
		if alpha >= beta {
			return alpha
		}
	}

	// Transposition table.
	excluded := f.excluded
	key := p.Key()
	var tte TTEntry
	ttHit := false
	if excluded == board.NoMove {
		tte, ttHit = t.e.tt.Probe(key)
	}
	ttMove := board.NoMove
	ttScore := NoScore
	if ttHit {
		ttMove = tte.Move
		if tte.Score != NoScore {
			ttScore = ScoreFromTT(tte.Score, ply)
		}
		if !pvNode && tte.Depth >= depth && ttScore != NoScore &&
			(tte.Bound == BoundExact ||
				(tte.Bound == BoundLower && ttScore >= beta) ||
				(tte.Bound == BoundUpper && ttScore <= alpha)) {
			return ttScore
		}
	}
	if root {
		ttMove = t.rootMoves[t.pvIdx].move
	}

	// Static evaluation.
	staticEval := NoScore
	eval := NoScore
	improving := false
	if !inCheck {
		if ttHit && tte.Eval != NoScore {
			staticEval = tte.Eval
		} else if excluded != board.NoMove {
			staticEval = f.staticEval
		} else {
			staticEval = t.evaluate()
		}
		eval = staticEval
		// The TT score is a better estimate when its bound allows.
		if ttHit && ttScore != NoScore && ttScore > -MateInMaxPly && ttScore < MateInMaxPly &&
			(tte.Bound == BoundExact || (tte.Bound == BoundLower && ttScore > eval) ||
				(tte.Bound == BoundUpper && ttScore < eval)) {
			eval = ttScore
		}
		if pe := t.frame(ply - 2).staticEval; pe != NoScore {
			improving = staticEval > pe
		}
		if !ttHit && excluded == board.NoMove {
			t.e.tt.Store(key, board.NoMove, NoScore, staticEval, -depthOffset, BoundNone)
		}
	}
	f.staticEval = staticEval
	t.frame(ply + 1).killers = [2]board.Move{}

	if !pvNode && !inCheck && excluded == board.NoMove {
		// Reverse futility pruning.
		if !t.e.feat.noRFP && depth <= 8 && eval < MateInMaxPly && beta > -MateInMaxPly && eval-rfpMargin(depth, improving) >= beta {
			return eval
		}
		// Razoring: hopeless positions drop into quiescence.
		if !t.e.feat.noRazor && depth <= 3 && alpha < MateInMaxPly && alpha > -MateInMaxPly && eval+razorMargin(depth) <= alpha {
			v := t.qsearch(alpha, alpha+1, ply, 0)
			if v <= alpha {
				return v
			}
		}
		// Null-move pruning, not in pawn endings (zugzwang).
		if !t.e.feat.noNull && depth >= 3 && eval >= beta && staticEval >= beta && t.frame(ply-1).move != board.NullMove &&
			nullMoveSafe(p) && beta > -MateInMaxPly {
			r := 3 + depth/3 + min((eval-beta)/200, 3)
			f.move, f.piece, f.cont = board.NullMove, board.NoPiece, &t.sentinel
			p.MakeNullMove()
			v := -t.search(-beta, -beta+1, depth-r, ply+1, !cutNode)
			p.UnmakeNullMove()
			if t.stopped {
				return 0
			}
			if v >= beta {
				if v >= MateInMaxPly {
					v = beta
				}
				if depth < 12 {
					return v
				}
				// Verification at high depth: the same reduced search without
				// the null move.
				f.excluded = board.NullMove // marks "no null move below"; not a real move
				vv := t.search(beta-1, beta, depth-r, ply, false)
				f.excluded = board.NoMove
				if vv >= beta {
					return v
				}
			}
		}
	}

	// Internal iterative reduction: without a TT move this node is probably
	// not important enough for a full-depth search.
	if !t.e.feat.noIIR && depth >= 4 && ttMove == board.NoMove && !root && (pvNode || cutNode) && excluded == board.NoMove {
		depth--
	}

	// Singular extension: is the TT move much better than all the others?
	// (Searched before the move loop because it reuses this ply's frame.)
	singularExt := 0
	if !t.e.feat.noSingular && !root && depth >= 8 && excluded == board.NoMove && ttHit && ttMove != board.NoMove &&
		tte.Bound&BoundLower != 0 && tte.Depth >= depth-3 && ttScore != NoScore &&
		ttScore > -MateInMaxPly && ttScore < MateInMaxPly && p.IsLegal(ttMove) {
		sBeta := ttScore - 2*depth
		f.excluded = ttMove
		v := t.search(sBeta-1, sBeta, (depth-1)/2, ply, cutNode)
		f.excluded = board.NoMove
		f.pvLen = 0
		if t.stopped {
			return 0
		}
		if v < sBeta {
			singularExt = 1
		} else if sBeta >= beta {
			return sBeta // multi-cut: several moves beat beta
		} else if ttScore >= beta {
			singularExt = -1
		}
	}

	// Move loop.
	bestScore := -Infinity
	bestMove := board.NoMove
	origAlpha := alpha
	moveCount := 0
	f.nQuiets, f.nCaps = 0, 0
	pk := &f.pk
	if !root {
		var counter board.Move
		if prev := t.frame(ply - 1); prev.move != board.NoMove && prev.move != board.NullMove {
			counter = t.counter[prev.piece][prev.move.To()]
		}
		pk.init(ttMove, f.killers[0], f.killers[1], counter)
	}
	rootIdx := t.pvIdx
	us := p.SideToMove()
	nonPawn := hasNonPawn(p)
	for {
		var m board.Move
		if root {
			if rootIdx >= len(t.rootMoves) {
				break
			}
			m = t.rootMoves[rootIdx].move
			rootIdx++
		} else {
			m = pk.next(t, ply)
			if m == board.NoMove {
				break
			}
		}
		if m == excluded {
			continue
		}
		moveCount++
		quiet := !p.IsNoisy(m)
		givesCheck := p.GivesCheck(m)
		lmrDepth := max(depth-1-lmr(depth, moveCount), 0)

		// Shallow-depth pruning of late moves.
		if !root && bestScore > -MateInMaxPly && alpha < MateInMaxPly && nonPawn {
			if quiet && !givesCheck {
				if !t.e.feat.noLMP && depth <= 8 && moveCount >= lmpLimit(depth, improving) {
					continue
				}
				if !t.e.feat.noFutility && !inCheck && alpha < MateInMaxPly && lmrDepth <= 8 && staticEval+110+110*lmrDepth <= alpha {
					continue
				}
				if !t.e.feat.noSEEPrune && lmrDepth <= 8 && !p.SEEGE(m, -30*lmrDepth*lmrDepth) {
					continue
				}
			} else if !t.e.feat.noSEEPrune && depth <= 8 && pk.stage != stageGoodCaptures && !p.SEEGE(m, -90*depth) {
				// (captures from the good-capture stage already have SEE >= 0)
				continue
			}
		}

		// Extensions.
		ext := 0
		if m == ttMove {
			ext = singularExt
		}
		if ext == 0 && !t.e.feat.noCheckExt && givesCheck && ply < 2*t.rootDepth {
			ext = 1
		}

		nodesBefore := t.nodes
		f.move, f.piece = m, p.PieceOn(m.From())
		f.cont = &t.contHist[f.piece][m.To()]
		if quiet && f.nQuiets < len(f.quiets) {
			f.quiets[f.nQuiets] = m
			f.nQuiets++
		} else if !quiet && f.nCaps < len(f.caps) {
			f.caps[f.nCaps] = m
			f.nCaps++
		}
		p.MakeMove(m)
		newDepth := depth - 1 + ext
		var v int
		if !t.e.feat.noLMR && depth >= 3 && moveCount > 1+b2i(root) && (quiet || !pvNode) {
			r := lmr(depth, moveCount)
			r += b2i(!pvNode) + b2i(cutNode)
			r -= b2i(improving)
			r -= b2i(givesCheck)
			if m == f.killers[0] || m == f.killers[1] {
				r--
			}
			if quiet {
				r -= int(t.quietStatAfter(f, m, ply, us) / 10000)
			} else {
				r--
			}
			d := min(max(newDepth-r, 1), newDepth)
			v = -t.search(-alpha-1, -alpha, d, ply+1, true)
			if v > alpha && d < newDepth {
				v = -t.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
			}
		} else if !pvNode || moveCount > 1 {
			v = -t.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
		}
		if pvNode && (moveCount == 1 || (v > alpha && (root || v < beta))) {
			v = -t.search(-beta, -alpha, newDepth, ply+1, false)
		}
		p.UnmakeMove()
		if t.stopped {
			return 0
		}

		if root {
			t.updateRoot(rootIdx-1, m, v, alpha, beta, moveCount, depth, t.nodes-nodesBefore)
		}

		if v > bestScore {
			bestScore = v
			if v > alpha {
				bestMove = m
				if pvNode {
					t.updatePV(ply, m)
				}
				if v >= beta {
					break
				}
				alpha = v
			}
		}
	}

	if moveCount == 0 {
		if excluded != board.NoMove {
			return alpha
		}
		if inCheck {
			return -MateScore + ply
		}
		return 0
	}

	if bestScore >= beta {
		noisy := p.IsNoisy(bestMove)
		if !noisy {
			t.updateQuietStats(ply, depth, bestMove)
		}
		t.updateCaptureStats(ply, depth, bestMove, noisy)
	}

	if excluded == board.NoMove && !(root && t.pvIdx > 0) {
		bound := BoundUpper
		if bestScore >= beta {
			bound = BoundLower
		} else if pvNode && bestScore > origAlpha {
			bound = BoundExact
		}
		t.e.tt.Store(key, bestMove, ScoreToTT(bestScore, ply), staticEval, depth, bound)
	}
	return bestScore
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

// updatePV makes m followed by the child's PV the PV of ply.
func (t *thread) updatePV(ply int, m board.Move) {
	f, child := t.frame(ply), t.frame(ply+1)
	f.pv[0] = m
	copy(f.pv[1:], child.pv[:child.pvLen])
	f.pvLen = child.pvLen + 1
}

func rfpMargin(depth int, improving bool) int {
	return 80 * (depth - b2i(improving))
}

func lmpLimit(depth int, improving bool) int {
	if improving {
		return 3 + depth*depth
	}
	return (3 + depth*depth) / 2
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// qsearch resolves captures (and check evasions) until the position is quiet.
func (t *thread) qsearch(alpha, beta, ply, qdepth int) int {
	p := t.pos
	f := t.frame(ply)
	f.pvLen = 0
	pvNode := beta-alpha > 1
	t.nodes++
	if t.nodes%checkEvery == 0 {
		t.checkup()
	}
	if t.stopped {
		return 0
	}
	if ply > t.seldepth {
		t.seldepth = ply
	}
	if t.isDraw(ply) {
		return 0
	}
	inCheck := p.InCheck()
	if ply >= MaxPly-1 {
		if inCheck {
			return 0
		}
		return t.evaluate()
	}

	key := p.Key()
	tte, ttHit := t.e.tt.Probe(key)
	ttMove := board.NoMove
	if ttHit {
		ttMove = tte.Move
		s := ScoreFromTT(tte.Score, ply)
		if !pvNode && tte.Score != NoScore && (tte.Bound == BoundExact ||
			(tte.Bound == BoundLower && s >= beta) || (tte.Bound == BoundUpper && s <= alpha)) {
			return s
		}
	}

	bestScore := -Infinity
	staticEval := NoScore
	if !inCheck {
		if ttHit && tte.Eval != NoScore {
			staticEval = tte.Eval
		} else {
			staticEval = t.evaluate()
		}
		bestScore = staticEval
		if bestScore >= beta {
			if !ttHit {
				t.e.tt.Store(key, board.NoMove, ScoreToTT(bestScore, ply), staticEval, 0, BoundLower)
			}
			return bestScore
		}
		if bestScore > alpha {
			alpha = bestScore
		}
	}
	f.staticEval = staticEval

	origAlpha := alpha
	bestMove := board.NoMove
	pk := &f.pk
	pk.initQ(ttMove, inCheck, qdepth == 0 && !t.e.feat.noQChecks)
	moveCount := 0
	for {
		m := pk.next(t, ply)
		if m == board.NoMove {
			break
		}
		moveCount++
		if !inCheck {
			// Delta pruning: even winning the victim cannot reach alpha.
			if !t.e.feat.noDelta && !m.IsPromotion() && p.IsNoisy(m) {
				victim := board.Pawn
				if !m.IsEnPassant() {
					victim = p.PieceOn(m.To()).Type()
				}
				if staticEval+board.SEEValue[victim]+200 <= alpha {
					continue
				}
			}
			// Losing captures (the TT move is not filtered by the picker).
			if m == ttMove && p.IsNoisy(m) && !p.SEEGE(m, 0) {
				continue
			}
		}
		f.move, f.piece = m, p.PieceOn(m.From())
		f.cont = &t.contHist[f.piece][m.To()]
		p.MakeMove(m)
		v := -t.qsearch(-beta, -alpha, ply+1, qdepth+1)
		p.UnmakeMove()
		if t.stopped {
			return 0
		}
		if v > bestScore {
			bestScore = v
			if v > alpha {
				bestMove = m
				if pvNode {
					t.updatePV(ply, m)
				}
				if v >= beta {
					break
				}
				alpha = v
			}
		}
	}
	if inCheck && moveCount == 0 {
		return -MateScore + ply
	}
	bound := BoundUpper
	if bestScore >= beta {
		bound = BoundLower
	} else if pvNode && bestScore > origAlpha {
		bound = BoundExact
	}
	t.e.tt.Store(key, bestMove, ScoreToTT(bestScore, ply), staticEval, 0, bound)
	return bestScore
}

func razorMargin(depth int) int {
	return 400 + 250*depth*depth
}

// quietStatAfter is the history score (butterfly plus two continuation
// histories) of the quiet move m just played from frame f at ply.
func (t *thread) quietStatAfter(f *frame, m board.Move, ply int, us board.Color) int32 {
	pc, to := f.piece, m.To()
	return t.history[us][m.From()][to] + int32(t.frame(ply - 1).cont[pc][to]) + int32(t.frame(ply - 2).cont[pc][to])
}
