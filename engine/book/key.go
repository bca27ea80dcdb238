package book

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Offsets into random64 fixed by the Polyglot format.
const (
	castleOffset = 768 // + 0 White short, 1 White long, 2 Black short, 3 Black long
	epOffset     = 772 // + file of the en-passant square
	turnOffset   = 780 // xored in when White is to move
)

// Key returns the Polyglot key of p: the xor of the format's numbers for
// every piece on its square, each castling right, the en-passant file and
// White to move.
//
// A piece's number is random64[64*kind + square], where kind counts black
// pawn 0, white pawn 1, black knight 2, white knight 3, … black king 10,
// white king 11, and square is 8*rank + file (a1 = 0, h8 = 63), the same
// numbering as engine/board. The en-passant file counts only when a pawn of
// the side to move stands next to the pawn that has just made a double step
// (the format's rule: whether the capture would leave the king in check does
// not matter); board.Position keeps its en-passant square under exactly that
// condition, so EPSquare is used as it is.
func Key(p *board.Position) uint64 {
	var k uint64
	for c := board.White; c <= board.Black; c++ {
		for t := board.Pawn; t <= board.King; t++ {
			kind := 2*int(t-board.Pawn) + 1 - int(c) // white = odd, black = even
			for bb := p.Pieces(c, t); bb != 0; {
				s := bb.PopLSB()
				k ^= random64[64*kind+int(s)]
			}
		}
	}
	rights := p.CastlingRights()
	for i, bit := range [4]uint8{board.WhiteKingSide, board.WhiteQueenSide, board.BlackKingSide, board.BlackQueenSide} {
		if rights&bit != 0 {
			k ^= random64[castleOffset+i]
		}
	}
	if ep := p.EPSquare(); ep != board.NoSquare {
		k ^= random64[epOffset+ep.File()]
	}
	if p.SideToMove() == board.White {
		k ^= random64[turnOffset]
	}
	return k
}
