// Quiescence search: captures (and check evasions, and quiet checks at its
// first ply) until the position is quiet.

package search

import "github.com/ponderosa-chess/ponderosa/engine/board"

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
		t.makeMove(m)
		v := -t.qsearch(-beta, -alpha, ply+1, qdepth+1)
		t.unmakeMove()
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
