// Move-ordering statistics: butterfly, continuation, capture histories,
// killers and counter moves, and their updates after a cutoff.

package search

import "github.com/ponderosa-chess/ponderosa/engine/board"

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

// quietStatAfter is the history score (butterfly plus two continuation
// histories) of the quiet move m just played from frame f at ply.
func (t *thread) quietStatAfter(f *frame, m board.Move, ply int, us board.Color) int32 {
	pc, to := f.piece, m.To()
	return t.history[us][m.From()][to] + int32(t.frame(ply - 1).cont[pc][to]) + int32(t.frame(ply - 2).cont[pc][to])
}
