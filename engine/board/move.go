package board

// Move is a 16-bit move: bits 0-5 from, 6-11 to, 12-13 promotion piece
// (knight, bishop, rook, queen), 14-15 kind (normal, promotion, en passant,
// castling). Castling is encoded as the king capturing its own rook: To() is
// the rook's square. A Move says nothing about the captured piece; ask the
// Position (IsCapture, PieceOn). NoMove is the zero value.
type Move uint16

// Move kinds.
const (
	KindNormal    = 0
	KindPromotion = 1
	KindEnPassant = 2
	KindCastling  = 3
)

// NoMove is the zero Move; NullMove is a distinct non-move (b1b1) for the
// search to mark null-move plies. Neither is ever generated.
const (
	NoMove   Move = 0
	NullMove Move = 65
)

// NewMove returns a normal move (also used for captures).
func NewMove(from, to Square) Move { return Move(from&63) | Move(to&63)<<6 }

// NewPromotion returns a promotion to piece type promo (Knight..Queen).
func NewPromotion(from, to Square, promo PieceType) Move {
	return NewMove(from, to) | Move((promo-Knight)&3)<<12 | KindPromotion<<14
}

// NewEnPassant returns an en-passant capture; to is the empty target square.
func NewEnPassant(from, to Square) Move { return NewMove(from, to) | KindEnPassant<<14 }

// NewCastling returns a castling move: king on from takes own rook on rook.
func NewCastling(king, rook Square) Move { return NewMove(king, rook) | KindCastling<<14 }

// From returns the origin square.
func (m Move) From() Square { return Square(m & 63) }

// To returns the target square (the rook's square for castling).
func (m Move) To() Square { return Square(m>>6) & 63 }

// Kind returns KindNormal, KindPromotion, KindEnPassant or KindCastling.
func (m Move) Kind() int { return int(m >> 14) }

// IsPromotion reports whether the move promotes.
func (m Move) IsPromotion() bool { return m>>14 == KindPromotion }

// IsEnPassant reports whether the move is an en-passant capture.
func (m Move) IsEnPassant() bool { return m>>14 == KindEnPassant }

// IsCastling reports whether the move castles.
func (m Move) IsCastling() bool { return m>>14 == KindCastling }

// Promotion returns the promotion piece type, or NoPieceType.
func (m Move) Promotion() PieceType {
	if m>>14 != KindPromotion {
		return NoPieceType
	}
	return PieceType(m>>12&3) + Knight
}

// String returns the internal form: from and to squares plus promotion
// letter, with castling as king-takes-rook ("e1h1"). For protocol output use
// UCI(chess960) or Position.MoveToUCI.
func (m Move) String() string {
	if m == NoMove {
		return "0000"
	}
	if m == NullMove {
		return "null"
	}
	s := m.From().String() + m.To().String()
	if p := m.Promotion(); p != NoPieceType {
		s += p.String()
	}
	return s
}

// MaxMoves bounds the number of legal moves in any position (218 is the
// known maximum).
const MaxMoves = 256

// MoveList is a fixed-capacity list of moves; it never allocates.
type MoveList struct {
	Moves [MaxMoves]Move
	N     int
}

// Len returns the number of moves.
func (l *MoveList) Len() int { return l.N }

// Slice returns the moves as a slice aliasing the list's array.
func (l *MoveList) Slice() []Move { return l.Moves[:l.N] }

// Clear empties the list.
func (l *MoveList) Clear() { l.N = 0 }

// Contains reports whether m is in the list.
func (l *MoveList) Contains(m Move) bool {
	for _, x := range l.Moves[:l.N] {
		if x == m {
			return true
		}
	}
	return false
}

func (l *MoveList) add(m Move) {
	l.Moves[l.N] = m
	l.N++
}
