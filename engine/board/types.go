package board

import "math/bits"

// Color is the side of a piece or the side to move: White or Black.
type Color uint8

// The two colours. Other returns the opposite one.
const (
	White Color = 0
	Black Color = 1
)

// Other returns the opposite colour.
func (c Color) Other() Color { return c ^ 1 }

// String returns "w" or "b".
func (c Color) String() string {
	if c == White {
		return "w"
	}
	return "b"
}

// PieceType is a kind of piece without colour. NoPieceType is 0.
type PieceType uint8

// Piece types, in increasing value order.
const (
	NoPieceType PieceType = iota
	Pawn
	Knight
	Bishop
	Rook
	Queen
	King
)

// Piece is a coloured piece: colour<<3 | type. NoPiece is 0.
type Piece uint8

// Coloured pieces.
const (
	NoPiece     Piece = 0
	WhitePawn   Piece = Piece(Pawn)
	WhiteKnight Piece = Piece(Knight)
	WhiteBishop Piece = Piece(Bishop)
	WhiteRook   Piece = Piece(Rook)
	WhiteQueen  Piece = Piece(Queen)
	WhiteKing   Piece = Piece(King)
	BlackPawn   Piece = 8 | Piece(Pawn)
	BlackKnight Piece = 8 | Piece(Knight)
	BlackBishop Piece = 8 | Piece(Bishop)
	BlackRook   Piece = 8 | Piece(Rook)
	BlackQueen  Piece = 8 | Piece(Queen)
	BlackKing   Piece = 8 | Piece(King)
)

// MakePiece combines a colour and a piece type.
func MakePiece(c Color, t PieceType) Piece { return Piece(c)<<3 | Piece(t) }

// Type returns the piece type (NoPieceType for NoPiece).
func (p Piece) Type() PieceType { return PieceType(p & 7) }

// Color returns the colour of the piece (meaningless for NoPiece).
func (p Piece) Color() Color { return Color(p >> 3) }

const pieceChars = " PNBRQK  pnbrqk"

// String returns the FEN letter of the piece ("P", "n", ...) or "." for NoPiece.
func (p Piece) String() string {
	if p == NoPiece || int(p) >= len(pieceChars) || pieceChars[p] == ' ' {
		return "."
	}
	return pieceChars[p : p+1]
}

// String returns the lower-case letter of the piece type ("p", "n", ...).
func (t PieceType) String() string {
	if t == NoPieceType || t > King {
		return "-"
	}
	return " pnbrqk"[t : t+1]
}

// Square is a board square, a1 = 0, b1 = 1, ..., h8 = 63. NoSquare is 64.
type Square uint8

// Named squares.
const (
	A1, B1, C1, D1, E1, F1, G1, H1 Square = 8*iota + 0, 8*iota + 1, 8*iota + 2, 8*iota + 3, 8*iota + 4, 8*iota + 5, 8*iota + 6, 8*iota + 7
	A2, B2, C2, D2, E2, F2, G2, H2
	A3, B3, C3, D3, E3, F3, G3, H3
	A4, B4, C4, D4, E4, F4, G4, H4
	A5, B5, C5, D5, E5, F5, G5, H5
	A6, B6, C6, D6, E6, F6, G6, H6
	A7, B7, C7, D7, E7, F7, G7, H7
	A8, B8, C8, D8, E8, F8, G8, H8
)

// NoSquare marks an absent square (no en-passant square, no castling rook).
const NoSquare Square = 64

// MakeSquare returns the square on file f (0 = a) and rank r (0 = rank 1).
func MakeSquare(file, rank int) Square { return Square(rank*8 + file) }

// File returns 0 (a) to 7 (h).
func (s Square) File() int { return int(s & 7) }

// Rank returns 0 (rank 1) to 7 (rank 8).
func (s Square) Rank() int { return int(s >> 3) }

// RelativeRank returns the rank seen from colour c (0 = c's back rank).
func (s Square) RelativeRank(c Color) int { return int(s>>3) ^ int(c)*7 }

// Flip mirrors the square vertically (a1 <-> a8).
func (s Square) Flip() Square { return s ^ 56 }

// Bitboard returns the bitboard with only this square set.
func (s Square) Bitboard() Bitboard { return Bitboard(1) << (s & 63) }

// String returns "e4" style names, or "-" for NoSquare.
func (s Square) String() string {
	if s >= NoSquare {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// ParseSquare parses "e4" style names.
func ParseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return MakeSquare(int(s[0]-'a'), int(s[1]-'1')), true
}

// Bitboard is a set of squares, bit i set for square i (a1 = bit 0).
type Bitboard uint64

// Useful masks.
const (
	FileA Bitboard = 0x0101010101010101
	FileB Bitboard = FileA << 1
	FileG Bitboard = FileA << 6
	FileH Bitboard = FileA << 7
	Rank1 Bitboard = 0xFF
	Rank2 Bitboard = Rank1 << 8
	Rank3 Bitboard = Rank1 << 16
	Rank4 Bitboard = Rank1 << 24
	Rank5 Bitboard = Rank1 << 32
	Rank6 Bitboard = Rank1 << 40
	Rank7 Bitboard = Rank1 << 48
	Rank8 Bitboard = Rank1 << 56

	LightSquares Bitboard = 0x55AA55AA55AA55AA
	DarkSquares  Bitboard = 0xAA55AA55AA55AA55
)

// FileMask returns the bitboard of file f (0 = a).
func FileMask(f int) Bitboard { return FileA << (f & 7) }

// RankMask returns the bitboard of rank r (0 = rank 1).
func RankMask(r int) Bitboard { return Rank1 << (8 * (r & 7)) }

// Has reports whether square s is in the set.
func (b Bitboard) Has(s Square) bool { return b&(1<<(s&63)) != 0 }

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(uint64(b)) }

// LSB returns the lowest square of a non-empty set.
func (b Bitboard) LSB() Square { return Square(bits.TrailingZeros64(uint64(b))) }

// MSB returns the highest square of a non-empty set.
func (b Bitboard) MSB() Square { return Square(63 - bits.LeadingZeros64(uint64(b))) }

// PopLSB removes the lowest square from the set and returns it.
func (b *Bitboard) PopLSB() Square {
	s := Square(bits.TrailingZeros64(uint64(*b)))
	*b &= *b - 1
	return s
}

// More reports whether the set has more than one square.
func (b Bitboard) More() bool { return b&(b-1) != 0 }

// North shifts every square one rank up.
func (b Bitboard) North() Bitboard { return b << 8 }

// South shifts every square one rank down.
func (b Bitboard) South() Bitboard { return b >> 8 }

// East shifts one file towards h.
func (b Bitboard) East() Bitboard { return (b &^ FileH) << 1 }

// West shifts one file towards a.
func (b Bitboard) West() Bitboard { return (b &^ FileA) >> 1 }

// String draws the set as an 8x8 grid, rank 8 first.
func (b Bitboard) String() string {
	buf := make([]byte, 0, 72)
	for r := 7; r >= 0; r-- {
		for f := 0; f < 8; f++ {
			if b.Has(MakeSquare(f, r)) {
				buf = append(buf, 'X')
			} else {
				buf = append(buf, '.')
			}
		}
		buf = append(buf, '\n')
	}
	return string(buf)
}
