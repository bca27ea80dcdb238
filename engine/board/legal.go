package board

// IsLegal reports whether m, any 16-bit value (e.g. from the transposition
// table or a killer slot), is a legal move in this position. It agrees
// exactly with GenerateLegal (tested over all 65536 values) without
// generating moves.
func (p *Position) IsLegal(m Move) bool {
	from, to := m.From(), m.To()
	us := p.side
	pc := p.board[from]
	if pc == NoPiece || pc.Color() != us || from == to {
		return false
	}
	kind := m.Kind()
	if kind != KindPromotion && m>>12&3 != 0 {
		return false // non-canonical bits
	}
	them := us ^ 1
	occ := p.byColor[0] | p.byColor[1]
	ksq := (p.byColor[us] & p.byType[King]).LSB()
	pt := pc.Type()

	switch kind {
	case KindCastling:
		if pt != King || p.st.checkers != 0 {
			return false
		}
		i := castleIndex(us, to > from)
		return p.st.castle&(1<<i) != 0 && p.castleRook[i] == to && p.castlingClear(i, them, occ)
	case KindEnPassant:
		if pt != Pawn || to != p.st.ep || !pawnAttacks[us][from].Has(to) {
			return false
		}
		return p.enPassantSafe(us, from, to, ksq, occ)
	}

	if p.byColor[us].Has(to) {
		return false
	}
	if pt == Pawn {
		lastRank := to.RelativeRank(us) == 7
		if lastRank != (kind == KindPromotion) {
			return false
		}
		up := 8
		if us == Black {
			up = -8
		}
		switch {
		case pawnAttacks[us][from].Has(to):
			if !p.byColor[them].Has(to) {
				return false
			}
		case int(to) == int(from)+up:
			if occ.Has(to) {
				return false
			}
		case int(to) == int(from)+2*up:
			if from.RelativeRank(us) != 1 || occ.Has(to) || occ.Has(Square(int(from)+up)) {
				return false
			}
		default:
			return false
		}
	} else {
		if kind == KindPromotion {
			return false
		}
		if !Attacks(pt, from, occ).Has(to) {
			return false
		}
	}

	if pt == King {
		return !p.attackedBy(to, them, occ&^from.Bitboard())
	}
	if checkers := p.st.checkers; checkers != 0 {
		if checkers.More() {
			return false
		}
		if !(betweenBB[ksq][checkers.LSB()] | checkers).Has(to) {
			return false
		}
	}
	if p.blockers(us, ksq, occ).Has(from) && !lineBB[ksq][from].Has(to) {
		return false
	}
	return true
}

// GivesCheck reports whether the legal move m checks the opponent's king.
func (p *Position) GivesCheck(m Move) bool {
	us := p.side
	them := us ^ 1
	from, to := m.From(), m.To()
	eksq := (p.byColor[them] & p.byType[King]).LSB()
	occ := p.byColor[0] | p.byColor[1]
	ours := p.byColor[us]
	diag := ours & (p.byType[Bishop] | p.byType[Queen]) &^ from.Bitboard()
	orth := ours & (p.byType[Rook] | p.byType[Queen]) &^ from.Bitboard()
	pt := p.board[from].Type()
	occ = occ&^from.Bitboard() | to.Bitboard()

	switch m.Kind() {
	case KindCastling:
		kingTo, rookTo := castleTargets(castleIndex(us, to > from))
		occ = (p.byColor[0]|p.byColor[1])&^(from.Bitboard()|to.Bitboard()) | kingTo.Bitboard() | rookTo.Bitboard()
		orth = orth&^to.Bitboard() | rookTo.Bitboard()
		pt = NoPieceType
	case KindEnPassant:
		occ &^= (to ^ 8).Bitboard()
	case KindPromotion:
		pt = m.Promotion()
	}
	switch pt {
	case Pawn:
		if pawnAttacks[us][to].Has(eksq) {
			return true
		}
	case Knight:
		if knightAttacks[to].Has(eksq) {
			return true
		}
	case Bishop:
		diag |= to.Bitboard()
	case Rook:
		orth |= to.Bitboard()
	case Queen:
		diag |= to.Bitboard()
		orth |= to.Bitboard()
	}
	return BishopAttacks(eksq, occ)&diag != 0 || RookAttacks(eksq, occ)&orth != 0
}
