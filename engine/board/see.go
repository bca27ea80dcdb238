package board

// SEEValue holds the piece values used by static exchange evaluation,
// indexed by PieceType.
var SEEValue = [7]int{0, 100, 300, 300, 500, 900, 20000}

// SEE returns the static exchange evaluation of m: the material balance for
// the side to move after the best sequence of captures on m's target square
// (each side may stop capturing when that is better). Pins are ignored;
// x-ray attackers behind the capturing pieces are included; a pawn that
// captures onto the last rank becomes a queen; a king only captures when no
// enemy attacker remains. Castling scores 0.
func (p *Position) SEE(m Move) int {
	if m.IsCastling() {
		return 0
	}
	from, to := m.From(), m.To()
	occ := p.byColor[0] | p.byColor[1]
	var gain [40]int
	onSquare := p.board[from].Type()
	if m.IsEnPassant() {
		gain[0] = SEEValue[Pawn]
		occ &^= (to ^ 8).Bitboard()
	} else {
		gain[0] = SEEValue[p.board[to].Type()]
	}
	if m.IsPromotion() {
		gain[0] += SEEValue[m.Promotion()] - SEEValue[Pawn]
		onSquare = m.Promotion()
	}
	occ &^= from.Bitboard()
	diag := p.byType[Bishop] | p.byType[Queen]
	orth := p.byType[Rook] | p.byType[Queen]
	attackers := p.AttackersTo(to, occ) & occ
	side := p.side ^ 1
	promoRank := to.Rank() == 0 || to.Rank() == 7
	d := 0
	for {
		mine := attackers & p.byColor[side]
		if mine == 0 {
			break
		}
		var pt PieceType
		var bb Bitboard
		for pt = Pawn; pt <= King; pt++ {
			if bb = mine & p.byType[pt]; bb != 0 {
				break
			}
		}
		sq := bb & -bb
		occ &^= sq
		attackers &^= sq
		if pt != Knight {
			attackers |= (BishopAttacks(to, occ) & diag) | (RookAttacks(to, occ) & orth)
			attackers &= occ
		}
		if pt == King && attackers&p.byColor[side^1] != 0 {
			break // the king cannot capture into a defended square
		}
		d++
		gain[d] = SEEValue[onSquare] - gain[d-1]
		onSquare = pt
		if pt == Pawn && promoRank {
			gain[d] += SEEValue[Queen] - SEEValue[Pawn]
			onSquare = Queen
		}
		side ^= 1
		if d == len(gain)-1 {
			break
		}
	}
	for ; d > 0; d-- {
		gain[d-1] = -max(-gain[d-1], gain[d])
	}
	return gain[0]
}

// SEEGE reports whether SEE(m) >= threshold. Most calls are decided by two
// bounds without running the exchange: SEE never exceeds the first gain
// (the opponent may decline to recapture), and off the promotion ranks it
// never falls below the first gain minus the value of the piece left on the
// square (we may decline to go on after one recapture).
func (p *Position) SEEGE(m Move, threshold int) bool {
	if m.IsCastling() {
		return threshold <= 0
	}
	to := m.To()
	onSquare := p.board[m.From()].Type()
	var gain int
	if m.IsEnPassant() {
		gain = SEEValue[Pawn]
	} else {
		gain = SEEValue[p.board[to].Type()]
	}
	if m.IsPromotion() {
		gain += SEEValue[m.Promotion()] - SEEValue[Pawn]
		onSquare = m.Promotion()
	}
	if gain < threshold {
		return false
	}
	if r := to.Rank(); r != 0 && r != 7 && gain-SEEValue[onSquare] >= threshold {
		return true
	}
	return p.SEE(m) >= threshold
}
