package nnuedata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// RecordSize is the size of one packed position in bytes.
const RecordSize = 32

// Record is one training position, packed (see docs/nnue-data.md):
//
//	bytes  0–7   occupancy, uint64 little-endian, bit i = square i (a1 = 0, h8 = 63)
//	bytes  8–23  one 4-bit piece code per occupied square, in increasing
//	             square order, low nibble first; unused nibbles are 0
//	byte   24    bit 0: side to move (0 White, 1 Black); bits 1–7 are 0
//	byte   25    en-passant square 0–63 (only when a pawn can capture there), 64 none
//	byte   26    halfmove clock (capped at 255)
//	byte   27    game result, White's view: 0 Black won, 1 draw, 2 White won
//	bytes 28–29  search score, int16 little-endian, centipawns, White's view
//	bytes 30–31  fullmove number, uint16 little-endian (capped at 65535)
//
// Piece codes are board.Piece values (colour<<3 | type: 1–6 White pawn to
// king, 9–14 Black), plus 7 and 15: a White or Black rook that still has its
// castling right (so Chess960 castling needs no extra field).
type Record [RecordSize]byte

// Result is a game result from White's point of view.
type Result uint8

// The three results, as stored in byte 27.
const (
	BlackWin Result = 0
	Draw     Result = 1
	WhiteWin Result = 2
)

// ResultFromWhite converts 0, 0.5 or 1 (White's score in the game).
func ResultFromWhite(r float64) (Result, error) {
	switch r {
	case 0:
		return BlackWin, nil
	case 0.5:
		return Draw, nil
	case 1:
		return WhiteWin, nil
	}
	return 0, fmt.Errorf("result %v: want 0, 0.5 or 1", r)
}

// White returns White's score: 0, 0.5 or 1.
func (r Result) White() float64 { return float64(r) / 2 }

// String returns "0-1", "1/2-1/2" or "1-0".
func (r Result) String() string {
	switch r {
	case BlackWin:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	case WhiteWin:
		return "1-0"
	}
	return "result(" + strconv.Itoa(int(r)) + ")"
}

// Piece codes beyond board.Piece: a rook that still has its castling right.
const (
	whiteCastleRook = 7
	blackCastleRook = 15
)

// noEP is byte 25 when there is no en-passant square.
const noEP = 64

// ErrCorrupt is wrapped by every error about a record or file that does not
// follow the format.
var ErrCorrupt = errors.New("corrupt NNUE data")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Encode packs p with the search score (centipawns, White's view, clamped
// to ±32767) and the game result. It does not allocate.
func Encode(p *board.Position, whiteScore int, res Result) Record {
	var r Record
	var rooks board.Bitboard // rooks that keep a castling right
	for c := board.White; c <= board.Black; c++ {
		for _, ks := range [2]bool{true, false} {
			if s := p.CastlingRook(c, ks); s != board.NoSquare {
				rooks |= s.Bitboard()
			}
		}
	}
	occ := p.Occupied()
	binary.LittleEndian.PutUint64(r[0:8], uint64(occ))
	i := 0
	for b := occ; b != 0; b &= b - 1 {
		s := b.LSB()
		code := byte(p.PieceOn(s))
		if rooks.Has(s) {
			code |= 7
		}
		r[8+i/2] |= code << (4 * (i & 1))
		i++
	}
	if p.SideToMove() == board.Black {
		r[24] = 1
	}
	r[25] = byte(p.EPSquare()) // NoSquare is 64
	r[26] = byte(min(p.HalfmoveClock(), 255))
	r[27] = byte(res)
	binary.LittleEndian.PutUint16(r[28:30], uint16(int16(max(-32767, min(32767, whiteScore)))))
	binary.LittleEndian.PutUint16(r[30:32], uint16(min(p.FullmoveNumber(), 65535)))
	return r
}

// SetResult sets the game result (it is known only when the game ends).
func (r *Record) SetResult(res Result) { r[27] = byte(res) }

// Occupancy returns the occupied squares.
func (r *Record) Occupancy() board.Bitboard {
	return board.Bitboard(binary.LittleEndian.Uint64(r[0:8]))
}

// SideToMove returns the colour to move.
func (r *Record) SideToMove() board.Color { return board.Color(r[24] & 1) }

// EPSquare returns the en-passant square or board.NoSquare.
func (r *Record) EPSquare() board.Square { return board.Square(r[25]) }

// HalfmoveClock returns the halfmove clock (capped at 255).
func (r *Record) HalfmoveClock() int { return int(r[26]) }

// Result returns the game result, White's view.
func (r *Record) Result() Result { return Result(r[27]) }

// Score returns the search score in centipawns, White's view.
func (r *Record) Score() int { return int(int16(binary.LittleEndian.Uint16(r[28:30]))) }

// FullmoveNumber returns the fullmove number.
func (r *Record) FullmoveNumber() int { return int(binary.LittleEndian.Uint16(r[30:32])) }

// PieceSquare is one piece on its square.
type PieceSquare struct {
	Square board.Square
	Piece  board.Piece
}

// Pieces writes the pieces into out in increasing square order and returns
// how many there are. Castling rooks come out as plain rooks. It does not
// validate the record (see Validate) and does not allocate.
func (r *Record) Pieces(out *[32]PieceSquare) int {
	n := 0
	for b := r.Occupancy(); b != 0 && n < 32; b &= b - 1 {
		code := board.Piece(r[8+n/2]>>(4*(n&1))) & 15
		if code&7 == 7 {
			code = code&8 | board.Piece(board.Rook)
		}
		out[n] = PieceSquare{b.LSB(), code}
		n++
	}
	return n
}

// Validate checks everything a reader relies on: at most 32 pieces, valid
// piece codes, unused nibbles zero, one king of each colour, no pawn on the
// first or last rank, reserved bits zero, the en-passant square, castling
// rooks on their first rank with their king, and the result. Errors wrap
// ErrCorrupt. The position itself is checked by Position (board.ParseFEN).
func (r *Record) Validate() error {
	occ := r.Occupancy()
	n := occ.Count()
	if n > 32 {
		return corrupt("%d pieces, at most 32", n)
	}
	for i := n; i < 32; i++ {
		if r[8+i/2]>>(4*(i&1))&15 != 0 {
			return corrupt("unused piece nibble %d is not zero", i)
		}
	}
	var kings [2]board.Square
	var nKings [2]int
	var castleRooks [2][2]int // per colour: rooks left and right of the king, counted below
	var rookSq [2][4]board.Square
	var nRooks [2]int
	i := 0
	for b := occ; b != 0; b &= b - 1 {
		s := b.LSB()
		code := r[8+i/2] >> (4 * (i & 1)) & 15
		i++
		t, c := board.PieceType(code&7), board.Color(code>>3)
		switch {
		case code == 0 || code == 8:
			return corrupt("no piece code for occupied square %v", s)
		case t == board.Pawn && (s.Rank() == 0 || s.Rank() == 7):
			return corrupt("pawn on %v", s)
		case t == board.King:
			kings[c] = s
			nKings[c]++
		case code&7 == 7:
			if nRooks[c] == 4 {
				return corrupt("more than two castling rooks")
			}
			rookSq[c][nRooks[c]] = s
			nRooks[c]++
		}
	}
	if nKings[0] != 1 || nKings[1] != 1 {
		return corrupt("%d white and %d black kings", nKings[0], nKings[1])
	}
	for c := 0; c < 2; c++ {
		back := 7 * c
		for _, s := range rookSq[c][:nRooks[c]] {
			if s.Rank() != back || kings[c].Rank() != back {
				return corrupt("castling rook on %v without its king on the first rank", s)
			}
			side := 0
			if s > kings[c] {
				side = 1
			}
			castleRooks[c][side]++
			if castleRooks[c][side] > 1 {
				return corrupt("two castling rooks on one side of the king")
			}
		}
	}
	if r[24]&^1 != 0 {
		return corrupt("reserved bits %#x in the side-to-move byte", r[24]&^1)
	}
	if ep := board.Square(r[25]); ep != noEP {
		want := 5
		if r.SideToMove() == board.Black {
			want = 2
		}
		if ep > 63 || ep.Rank() != want {
			return corrupt("en-passant square %d", r[25])
		}
	}
	if r[27] > byte(WhiteWin) {
		return corrupt("result byte %d", r[27])
	}
	return nil
}

// FEN returns the position in FEN (castling as KQkq when the castling rook
// is the outermost rook on its side, else as a Shredder file letter, as
// board.Position.FEN writes it). It validates the record first.
func (r *Record) FEN() (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	var sq [64]byte
	var ps [32]PieceSquare
	var castle [4]byte // White king side, White queen side, Black king side, Black queen side
	n := r.Pieces(&ps)
	var kings [2]board.Square
	for i := 0; i < n; i++ {
		sq[ps[i].Square] = byte(ps[i].Piece)
		if ps[i].Piece.Type() == board.King {
			kings[ps[i].Piece.Color()] = ps[i].Square
		}
	}
	for i := 0; i < n; i++ {
		code := r[8+i/2] >> (4 * (i & 1)) & 15
		if code&7 != 7 {
			continue
		}
		s, c := ps[i].Square, board.Color(code>>3)
		kingSide := s > kings[c]
		outermost := true
		rook := byte(board.MakePiece(c, board.Rook))
		for f := s.File() + 1; kingSide && f < 8; f++ {
			outermost = outermost && sq[board.MakeSquare(f, s.Rank())] != rook
		}
		for f := s.File() - 1; !kingSide && f >= 0; f-- {
			outermost = outermost && sq[board.MakeSquare(f, s.Rank())] != rook
		}
		letter := byte('a' + s.File())
		switch {
		case outermost && kingSide:
			letter = 'k'
		case outermost:
			letter = 'q'
		}
		idx := 2 * int(c)
		if !kingSide {
			idx++
		}
		if c == board.White {
			letter -= 'a' - 'A'
		}
		castle[idx] = letter
	}
	out := make([]byte, 0, 90)
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for f := 0; f < 8; f++ {
			pc := board.Piece(sq[board.MakeSquare(f, rank)])
			if pc == board.NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				out = append(out, byte('0'+empty))
				empty = 0
			}
			out = append(out, pc.String()...)
		}
		if empty > 0 {
			out = append(out, byte('0'+empty))
		}
		if rank > 0 {
			out = append(out, '/')
		}
	}
	out = append(out, ' ')
	out = append(out, r.SideToMove().String()...)
	out = append(out, ' ')
	nc := 0
	for _, ch := range castle {
		if ch != 0 {
			out = append(out, ch)
			nc++
		}
	}
	if nc == 0 {
		out = append(out, '-')
	}
	out = append(out, ' ')
	out = append(out, r.EPSquare().String()...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(r.HalfmoveClock()), 10)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(r.FullmoveNumber()), 10)
	return string(out), nil
}

// Position decodes the record into a position (its FEN through
// board.ParseFEN, which checks legality: e.g. the side not to move in check).
func (r *Record) Position() (*board.Position, error) {
	fen, err := r.FEN()
	if err != nil {
		return nil, err
	}
	p, err := board.ParseFEN(fen)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return p, nil
}
