// The main search: principal-variation alpha-beta with transposition
// table, pruning, reductions and extensions.

package search

import (
	"math"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
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
	// Tablebase: an exact draw or a bound that cuts ends the node; at PV
	// nodes a win (loss) bounds the score from below (above).
	tbLow, tbHigh := -Infinity, Infinity
	if root {
		ttMove = t.rootMoves[t.pvIdx].move
	} else if tb := t.ctl.lim.Tablebase; tb != nil && excluded == board.NoMove {
		if v, bound, ok := t.probeTablebase(tb, depth, ply); ok {
			if bound == BoundExact || (bound == BoundLower && v >= beta) || (bound == BoundUpper && v <= alpha) {
				t.e.tt.Store(key, board.NoMove, ScoreToTT(v, ply), NoScore, min(depth+6, MaxPly-1), bound)
				return v
			}
			if pvNode && bound == BoundLower {
				// Only a mate can do better than the tables' win: the
				// moves are searched for one.
				tbLow = v
				alpha = max(alpha, v)
			} else if pvNode {
				tbHigh = v
			}
		}
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
			t.makeNullMove()
			v := -t.search(-beta, -beta+1, depth-r, ply+1, !cutNode)
			t.unmakeNullMove()
			if t.stopped {
				return 0
			}
			if v >= beta {
				if v >= TBWinInMaxPly { // no unproven mate or tablebase win
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
		t.makeMove(m)
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
		t.unmakeMove()
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
	tbRaised := bestScore < tbLow // no move proved more than the tables' win
	bestScore = min(max(bestScore, tbLow), tbHigh)

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
		} else if tbRaised {
			bound = BoundLower
		} else if pvNode && bestScore > origAlpha {
			bound = BoundExact
		}
		t.e.tt.Store(key, bestMove, ScoreToTT(bestScore, ply), staticEval, depth, bound)
	}
	return bestScore
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

func razorMargin(depth int) int {
	return 400 + 250*depth*depth
}

// probeTablebase probes the WDL tables in the search (see
// Limits.Tablebase): a draw is an exact 0, a win a lower bound of
// TBWin-ply, a loss an upper bound of -TBWin+ply. ok is false when the
// position is not probed or the tables do not answer.
func (t *thread) probeTablebase(tb *syzygy.Tablebase, depth, ply int) (v int, bound Bound, ok bool) {
	p := t.pos
	lim := &t.ctl.lim
	pieces := p.Occupied().Count()
	limit := tb.MaxPieces()
	depthRule := false // as in Stockfish: a limit beyond the largest tables probes them at any depth
	if lim.TablebaseLimit > 0 && lim.TablebaseLimit <= limit {
		limit, depthRule = lim.TablebaseLimit, true
	}
	if pieces > limit || (depthRule && pieces == limit && depth < lim.TablebaseDepth) ||
		p.HalfmoveClock() != 0 || p.CastlingRights() != 0 {
		return 0, BoundNone, false
	}
	w, err := tb.ProbeWDL(p)
	if err != nil {
		return 0, BoundNone, false
	}
	t.tbHits++
	v, bound = 0, BoundExact
	switch {
	case w == syzygy.Win || (w == syzygy.CursedWin && !lim.TablebaseRule50):
		v, bound = TBWin-ply, BoundLower
	case w == syzygy.Loss || (w == syzygy.BlessedLoss && !lim.TablebaseRule50):
		v, bound = -TBWin+ply, BoundUpper
	}
	return v, bound, true
}
