package syzygy

import "github.com/ponderosa-chess/ponderosa/engine/board"

// transpose mirrors a square in the a1-h8 diagonal (a3 <-> c1).
func transpose(s board.Square) board.Square { return (s>>3 | s<<3) & 63 }

// locate finds the section of t that holds p and the index of p in it.
// The table stores positions with its first-named side as White; when p
// has that material with the colours swapped (or the material is
// symmetric and Black is to move) the board is mirrored vertically and
// the colours swapped. ok is false for a DTZ table that stores only the
// other side to move.
func (t *table) locate(p *board.Position, key uint64) (d *pairs, file int, idx uint64, ok bool, err error) {
	flip := key != t.key || (t.symmetric && p.SideToMove() == board.Black)
	var flipSq board.Square
	var flipPc board.Piece
	stm := int(p.SideToMove())
	if flip {
		flipSq, flipPc = 56, 8
		stm ^= 1
	}
	var sq [maxPieces]board.Square
	var pc [maxPieces]board.Piece
	n, lead := 0, 0
	var leadPawns board.Bitboard
	if t.pawns {
		lp := t.pd[0][0].pieces[0] ^ flipPc
		leadPawns = p.Pieces(lp.Color(), board.Pawn)
		for b := leadPawns; b != 0 && n < maxPieces; n++ {
			sq[n] = b.PopLSB() ^ flipSq
			pc[n] = lp ^ flipPc
		}
		lead = n
		best := 0
		for i := 1; i < lead; i++ {
			if tables.pawnRank[sq[i]] > tables.pawnRank[sq[best]] {
				best = i
			}
		}
		sq[0], sq[best] = sq[best], sq[0]
		file = sq[0].File()
		if file > 3 {
			file = 7 - file
		}
	}
	side := 0
	if t.sides == 2 {
		side = stm
	}
	d = &t.pd[file][side]
	if t.kind == kindDTZ && int(d.flags&flagSTM) != stm && !(t.symmetric && !t.pawns) {
		return d, file, 0, false, nil
	}
	for b := p.Occupied() &^ leadPawns; b != 0; n++ {
		if n >= t.pieces {
			return d, file, 0, false, errDecode
		}
		s := b.PopLSB()
		sq[n] = s ^ flipSq
		pc[n] = p.PieceOn(s) ^ flipPc
	}
	if n != t.pieces {
		return d, file, 0, false, errDecode
	}
	// Put the pieces in the order the section encodes them.
	for i := lead; i < n-1; i++ {
		for j := i + 1; j < n; j++ {
			if d.pieces[i] == pc[j] {
				pc[i], pc[j] = pc[j], pc[i]
				sq[i], sq[j] = sq[j], sq[i]
				break
			}
		}
	}
	// Mirror left-right so that the leading piece is on files a-d.
	if sq[0].File() > 3 {
		for i := 0; i < n; i++ {
			sq[i] ^= 7
		}
	}
	if t.pawns {
		idx = tables.leadPawn[lead][sq[0]]
		// The other leading pawns, in increasing pawnRank order.
		for i := 2; i < lead; i++ {
			for j := i; j > 1 && tables.pawnRank[sq[j]] < tables.pawnRank[sq[j-1]]; j-- {
				sq[j], sq[j-1] = sq[j-1], sq[j]
			}
		}
		for i := 1; i < lead; i++ {
			idx += tables.binom[i][tables.pawnRank[sq[i]]]
		}
	} else {
		// Mirror top-bottom so that the leading piece is on ranks 1-4,
		// then in the diagonal so that the first piece of the leading
		// group that is off the diagonal is below it.
		if sq[0].Rank() > 3 {
			for i := 0; i < n; i++ {
				sq[i] ^= 56
			}
		}
		for i := 0; i < d.groupLen[0]; i++ {
			dg := diagonal(sq[i])
			if dg == 0 {
				continue
			}
			if dg > 0 {
				for j := i; j < n; j++ {
					sq[j] = transpose(sq[j])
				}
			}
			break
		}
		if t.unique {
			idx = uniqueIndex(sq[0], sq[1], sq[2])
		} else {
			tri := tables.triangle[sq[0]]
			if tri < 0 || tables.kings[tri][sq[1]] < 0 {
				return d, file, 0, false, errDecode
			}
			idx = uint64(tables.kings[tri][sq[1]])
		}
	}
	idx *= d.groupIdx[0]
	start := d.groupLen[0]
	pawnGroup := t.pawns && t.pawnCount[1] > 0
	for g := 1; d.groupLen[g] != 0; g++ {
		l := d.groupLen[g]
		if start+l > n {
			return d, file, 0, false, errDecode
		}
		grp := sq[start : start+l]
		for i := 1; i < l; i++ {
			for j := i; j > 0 && grp[j] < grp[j-1]; j-- {
				grp[j], grp[j-1] = grp[j-1], grp[j]
			}
		}
		var m uint64
		for i, s := range grp {
			v := int(s)
			for _, o := range sq[:start] {
				if s > o {
					v--
				}
			}
			if pawnGroup {
				v -= 8
			}
			if v < 0 {
				return d, file, 0, false, errDecode
			}
			m += tables.binom[i+1][v]
		}
		pawnGroup = false
		idx += m * d.groupIdx[g]
		start += l
	}
	return d, file, idx, true, nil
}

// uniqueIndex encodes a leading group of three pieces (0..31331), the
// first in the a1-d1-d4 triangle and, when it is on the diagonal, the next
// off the diagonal below it.
func uniqueIndex(s0, s1, s2 board.Square) uint64 {
	var a1, a2 uint64
	if s1 > s0 {
		a1 = 1
	}
	if s2 > s0 {
		a2++
	}
	if s2 > s1 {
		a2++
	}
	r0, r1, r2 := uint64(s0.Rank()), uint64(s1.Rank()), uint64(s2.Rank())
	switch {
	case diagonal(s0) != 0:
		return (uint64(tables.triangle[s0])*63+uint64(s1)-a1)*62 + uint64(s2) - a2
	case diagonal(s1) != 0:
		return (6*63+r0*28+uint64(tables.lower[s1]))*62 + uint64(s2) - a2
	case diagonal(s2) != 0:
		return 6*63*62 + 4*28*62 + r0*7*28 + (r1-a1)*28 + uint64(tables.lower[s2])
	default:
		return 6*63*62 + 4*28*62 + 4*7*28 + r0*7*6 + (r1-a1)*6 + r2 - a2
	}
}
