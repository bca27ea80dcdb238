package board

// Castling right bits, as returned by CastlingRights. Index i of a right
// (0..3) is also used for per-right tables: White king side (towards h),
// White queen side (towards a), Black king side, Black queen side.
const (
	WhiteKingSide  = 1
	WhiteQueenSide = 2
	BlackKingSide  = 4
	BlackQueenSide = 8
)

// state is everything MakeMove changes that UnmakeMove cannot recompute.
type state struct {
	key           uint64
	pawnKey       uint64
	checkers      Bitboard
	halfmove      int32
	pliesFromNull int32
	move          Move
	ep            Square
	castle        uint8
	captured      Piece
}

// Position is a chess position with its move history. MakeMove/UnmakeMove
// keep an internal undo stack, so a Position must not be copied by value
// (the copy would share the stack): use Clone or CopyFrom.
type Position struct {
	byType   [7]Bitboard // index PieceType; [0] is unused
	byColor  [2]Bitboard
	board    [64]Piece
	side     Color
	fullmove int
	chess960 bool
	st       state
	hist     []state

	// Castling geometry, fixed by the FEN: per right index (see WhiteKingSide).
	castleRook     [4]Square
	castlePath     [4]Bitboard // must be empty, excluding king and rook
	castleKingPath [4]Bitboard // must not be attacked (king's path incl. target)
	castleMask     [64]uint8   // rights lost when a piece leaves or lands on a square
}

const histCapacity = 1024

func castleIndex(c Color, kingSide bool) int {
	if kingSide {
		return int(c) * 2
	}
	return int(c)*2 + 1
}

// castleTargets returns the king's and rook's destination for right i.
func castleTargets(i int) (kingTo, rookTo Square) {
	c := Color(i >> 1)
	if i&1 == 0 {
		kingTo, rookTo = G1, F1
	} else {
		kingTo, rookTo = C1, D1
	}
	if c == Black {
		kingTo, rookTo = kingTo.Flip(), rookTo.Flip()
	}
	return
}

// Clone returns a deep copy, history included.
func (p *Position) Clone() *Position {
	q := &Position{}
	q.CopyFrom(p)
	return q
}

// CopyFrom makes p a deep copy of src, reusing p's history buffer when it is
// large enough (no allocation then).
func (p *Position) CopyFrom(src *Position) {
	hist := p.hist
	*p = *src
	if cap(hist) < len(src.hist) || cap(hist) == 0 {
		hist = make([]state, 0, max(histCapacity, 2*len(src.hist)))
	}
	p.hist = append(hist[:0], src.hist...)
}

// SideToMove returns the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// PieceOn returns the piece on s, or NoPiece.
func (p *Position) PieceOn(s Square) Piece { return p.board[s&63] }

// Pieces returns the squares of c's pieces of type t.
func (p *Position) Pieces(c Color, t PieceType) Bitboard {
	return p.byColor[c&1] & p.byType[t%7]
}

// PiecesOfType returns the squares of pieces of type t of both colours.
func (p *Position) PiecesOfType(t PieceType) Bitboard { return p.byType[t%7] }

// Occupancy returns the squares of c's pieces.
func (p *Position) Occupancy(c Color) Bitboard { return p.byColor[c&1] }

// Occupied returns all occupied squares.
func (p *Position) Occupied() Bitboard { return p.byColor[0] | p.byColor[1] }

// KingSquare returns the square of c's king.
func (p *Position) KingSquare(c Color) Square {
	return (p.byColor[c&1] & p.byType[King]).LSB()
}

// Key returns the Zobrist key of the position (pieces, side, castling
// rights, en-passant file when an en-passant capture is pseudo-legal).
func (p *Position) Key() uint64 { return p.st.key }

// PawnKey returns the Zobrist key of the pawns of both colours only.
func (p *Position) PawnKey() uint64 { return p.st.pawnKey }

// EPSquare returns the en-passant target square, or NoSquare. It is only
// set when a pawn of the side to move attacks it.
func (p *Position) EPSquare() Square { return p.st.ep }

// CastlingRights returns the rights as a mask of WhiteKingSide etc.
func (p *Position) CastlingRights() uint8 { return p.st.castle }

// CastlingRook returns the square of the rook for c's castling on the given
// side, or NoSquare if that right is gone.
func (p *Position) CastlingRook(c Color, kingSide bool) Square {
	i := castleIndex(c, kingSide)
	if p.st.castle&(1<<i) == 0 {
		return NoSquare
	}
	return p.castleRook[i]
}

// HalfmoveClock returns the plies since the last capture or pawn move.
func (p *Position) HalfmoveClock() int { return int(p.st.halfmove) }

// FullmoveNumber returns the FEN fullmove number.
func (p *Position) FullmoveNumber() int { return p.fullmove }

// Chess960 reports whether castling is printed in king-takes-rook form and
// FEN castling may use Shredder letters. ParseFEN sets it when the castling
// rights need a non-standard king or rook square.
func (p *Position) Chess960() bool { return p.chess960 }

// SetChess960 sets the Chess960 flag (only affects move and FEN output).
func (p *Position) SetChess960(on bool) { p.chess960 = on }

// Checkers returns the enemy pieces giving check to the side to move.
func (p *Position) Checkers() Bitboard { return p.st.checkers }

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool { return p.st.checkers != 0 }

// LastMove returns the last move made (NullMove after MakeNullMove), or
// NoMove at the start.
func (p *Position) LastMove() Move { return p.st.move }

// CapturedPiece returns the piece captured by the last move, or NoPiece.
func (p *Position) CapturedPiece() Piece { return p.st.captured }

// Plies returns how many moves (null moves included) have been made on this
// Position since it was set up and not yet unmade.
func (p *Position) Plies() int { return len(p.hist) }

// AttackersTo returns the pieces of both colours attacking s, with
// occupancy occ (pass p.Occupied() for the real board).
func (p *Position) AttackersTo(s Square, occ Bitboard) Bitboard {
	s &= 63
	return (pawnAttacks[Black][s] & p.byColor[White] & p.byType[Pawn]) |
		(pawnAttacks[White][s] & p.byColor[Black] & p.byType[Pawn]) |
		(knightAttacks[s] & p.byType[Knight]) |
		(kingAttacks[s] & p.byType[King]) |
		(BishopAttacks(s, occ) & (p.byType[Bishop] | p.byType[Queen])) |
		(RookAttacks(s, occ) & (p.byType[Rook] | p.byType[Queen]))
}

// IsAttacked reports whether colour by attacks s on the current board.
func (p *Position) IsAttacked(s Square, by Color) bool {
	return p.attackedBy(s, by, p.Occupied())
}

func (p *Position) attackedBy(s Square, by Color, occ Bitboard) bool {
	s &= 63
	them := p.byColor[by]
	if pawnAttacks[by^1][s]&them&p.byType[Pawn] != 0 ||
		knightAttacks[s]&them&p.byType[Knight] != 0 ||
		kingAttacks[s]&them&p.byType[King] != 0 {
		return true
	}
	if BishopAttacks(s, occ)&them&(p.byType[Bishop]|p.byType[Queen]) != 0 {
		return true
	}
	return RookAttacks(s, occ)&them&(p.byType[Rook]|p.byType[Queen]) != 0
}

// Pinned returns c's pieces pinned to c's own king (by enemy sliders).
func (p *Position) Pinned(c Color) Bitboard {
	return p.blockers(c, p.KingSquare(c), p.Occupied())
}

// blockers returns c's pieces that alone stand between c's king on ksq and
// an enemy slider.
func (p *Position) blockers(c Color, ksq Square, occ Bitboard) Bitboard {
	them := p.byColor[c^1]
	snipers := (RookAttacks(ksq, 0) & them & (p.byType[Rook] | p.byType[Queen])) |
		(BishopAttacks(ksq, 0) & them & (p.byType[Bishop] | p.byType[Queen]))
	var pinned Bitboard
	for snipers != 0 {
		s := snipers.PopLSB()
		b := betweenBB[ksq][s] & occ
		if b != 0 && b&(b-1) == 0 {
			pinned |= b
		}
	}
	return pinned & p.byColor[c]
}

func (p *Position) put(pc Piece, s Square) {
	b := s.Bitboard()
	p.board[s] = pc
	p.byType[pc.Type()] |= b
	p.byColor[pc.Color()] |= b
}

func (p *Position) remove(s Square) {
	pc := p.board[s]
	b := s.Bitboard()
	p.board[s] = NoPiece
	p.byType[pc.Type()] &^= b
	p.byColor[pc.Color()] &^= b
}

func (p *Position) shift(from, to Square) {
	pc := p.board[from]
	b := from.Bitboard() | to.Bitboard()
	p.board[from] = NoPiece
	p.board[to] = pc
	p.byType[pc.Type()] ^= b
	p.byColor[pc.Color()] ^= b
}

// MakeMove plays m, which must be legal in this position (as produced by the
// generators, IsLegal or ParseUCIMove). It never allocates unless the game
// history outgrows its buffer.
func (p *Position) MakeMove(m Move) {
	p.hist = append(p.hist, p.st)
	st := &p.st
	us := p.side
	them := us ^ 1
	from, to := m.From(), m.To()
	pc := p.board[from]
	key := st.key ^ zSide
	if st.ep != NoSquare {
		key ^= zEP[st.ep&7]
		st.ep = NoSquare
	}
	st.halfmove++
	st.pliesFromNull++
	st.move = m
	st.captured = NoPiece

	switch m.Kind() {
	case KindCastling:
		i := castleIndex(us, to > from)
		kingTo, rookTo := castleTargets(i)
		rook := p.board[to]
		p.remove(from)
		p.remove(to)
		p.put(pc, kingTo)
		p.put(rook, rookTo)
		key ^= zPiece[pc][from] ^ zPiece[pc][kingTo] ^ zPiece[rook][to] ^ zPiece[rook][rookTo]
	case KindEnPassant:
		capSq := to ^ 8
		st.captured = p.board[capSq]
		p.remove(capSq)
		p.shift(from, to)
		k := zPiece[st.captured][capSq] ^ zPiece[pc][from] ^ zPiece[pc][to]
		key ^= k
		st.pawnKey ^= k
		st.halfmove = 0
	default:
		if cap := p.board[to]; cap != NoPiece {
			st.captured = cap
			p.remove(to)
			key ^= zPiece[cap][to]
			if cap.Type() == Pawn {
				st.pawnKey ^= zPiece[cap][to]
			}
			st.halfmove = 0
		}
		p.shift(from, to)
		key ^= zPiece[pc][from] ^ zPiece[pc][to]
		if pc.Type() == Pawn {
			st.halfmove = 0
			if m.Kind() == KindPromotion {
				promo := MakePiece(us, m.Promotion())
				p.remove(to)
				p.put(promo, to)
				key ^= zPiece[pc][to] ^ zPiece[promo][to]
				st.pawnKey ^= zPiece[pc][from]
			} else {
				st.pawnKey ^= zPiece[pc][from] ^ zPiece[pc][to]
				if from^to == 16 {
					epSq := (from + to) / 2
					if pawnAttacks[us][epSq]&p.byColor[them]&p.byType[Pawn] != 0 {
						st.ep = epSq
						key ^= zEP[epSq&7]
					}
				}
			}
		}
	}
	if st.castle != 0 {
		if lost := (p.castleMask[from] | p.castleMask[to]) & st.castle; lost != 0 {
			key ^= zCastle[st.castle]
			st.castle &^= lost
			key ^= zCastle[st.castle]
		}
	}
	if us == Black {
		p.fullmove++
	}
	p.side = them
	st.key = key
	ksq := (p.byColor[them] & p.byType[King]).LSB() & 63
	occ := p.byColor[0] | p.byColor[1]
	ours := p.byColor[us]
	st.checkers = ours & ((pawnAttacks[them][ksq] & p.byType[Pawn]) |
		(knightAttacks[ksq] & p.byType[Knight]) |
		(BishopAttacks(ksq, occ) & (p.byType[Bishop] | p.byType[Queen])) |
		(RookAttacks(ksq, occ) & (p.byType[Rook] | p.byType[Queen])))
}

// UnmakeMove takes back the last MakeMove.
func (p *Position) UnmakeMove() {
	m := p.st.move
	captured := p.st.captured
	p.side ^= 1
	us := p.side
	if us == Black {
		p.fullmove--
	}
	from, to := m.From(), m.To()
	switch m.Kind() {
	case KindCastling:
		kingTo, rookTo := castleTargets(castleIndex(us, to > from))
		king, rook := p.board[kingTo], p.board[rookTo]
		p.remove(kingTo)
		p.remove(rookTo)
		p.put(king, from)
		p.put(rook, to)
	case KindEnPassant:
		p.shift(to, from)
		p.put(captured, to^8)
	case KindPromotion:
		p.remove(to)
		p.put(MakePiece(us, Pawn), from)
		if captured != NoPiece {
			p.put(captured, to)
		}
	default:
		p.shift(to, from)
		if captured != NoPiece {
			p.put(captured, to)
		}
	}
	n := len(p.hist) - 1
	p.st = p.hist[n]
	p.hist = p.hist[:n]
}

// MakeNullMove passes the turn. The side to move must not be in check.
func (p *Position) MakeNullMove() {
	p.hist = append(p.hist, p.st)
	st := &p.st
	st.key ^= zSide
	if st.ep != NoSquare {
		st.key ^= zEP[st.ep&7]
		st.ep = NoSquare
	}
	st.halfmove++
	st.pliesFromNull = 0
	st.move = NullMove
	st.captured = NoPiece
	st.checkers = 0
	p.side ^= 1
}

// UnmakeNullMove takes back MakeNullMove.
func (p *Position) UnmakeNullMove() {
	p.side ^= 1
	n := len(p.hist) - 1
	p.st = p.hist[n]
	p.hist = p.hist[:n]
}

// RepetitionCount returns how many earlier positions in the history (since
// the last capture, pawn move or null move) equal the current one.
func (p *Position) RepetitionCount() int {
	limit := min(int(p.st.halfmove), int(p.st.pliesFromNull), len(p.hist))
	n := 0
	for i := 4; i <= limit; i += 2 {
		if p.hist[len(p.hist)-i].key == p.st.key {
			n++
		}
	}
	return n
}

// IsRepetition reports whether the search should score the position as a
// draw by repetition: it occurred once before strictly after the search
// root (fewer than plyFromRoot plies ago), or twice before anywhere in the
// reversible history (a threefold repetition, which also covers returning
// to the root position and positions before it). With plyFromRoot = 0 it
// reports a threefold repetition only.
func (p *Position) IsRepetition(plyFromRoot int) bool {
	limit := min(int(p.st.halfmove), int(p.st.pliesFromNull), len(p.hist))
	n := 0
	for i := 4; i <= limit; i += 2 {
		if p.hist[len(p.hist)-i].key == p.st.key {
			if i < plyFromRoot {
				return true
			}
			n++
			if n >= 2 {
				return true
			}
		}
	}
	return false
}

// IsInsufficientMaterial reports a dead position by material alone: K v K,
// K+minor v K, or only bishops (any number, both sides) all on squares of
// one colour.
func (p *Position) IsInsufficientMaterial() bool {
	if p.byType[Pawn]|p.byType[Rook]|p.byType[Queen] != 0 {
		return false
	}
	minors := p.byType[Knight] | p.byType[Bishop]
	if !minors.More() {
		return true
	}
	if p.byType[Knight] != 0 {
		return false
	}
	b := p.byType[Bishop]
	return b&LightSquares == 0 || b&DarkSquares == 0
}

// computeKeys recomputes the Zobrist keys from scratch.
func (p *Position) computeKeys() (key, pawnKey uint64) {
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			key ^= zPiece[pc][s]
			if pc.Type() == Pawn {
				pawnKey ^= zPiece[pc][s]
			}
		}
	}
	if p.side == Black {
		key ^= zSide
	}
	key ^= zCastle[p.st.castle]
	if p.st.ep != NoSquare {
		key ^= zEP[p.st.ep&7]
	}
	return key, pawnKey
}

// String draws the board (rank 8 first) followed by the FEN, for debugging.
func (p *Position) String() string {
	buf := make([]byte, 0, 200)
	for r := 7; r >= 0; r-- {
		buf = append(buf, byte('1'+r), ' ')
		for f := 0; f < 8; f++ {
			buf = append(buf, p.board[MakeSquare(f, r)].String()[0], ' ')
		}
		buf = append(buf, '\n')
	}
	buf = append(buf, "  a b c d e f g h\n"...)
	return string(buf) + p.FEN()
}
