package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// StartFEN is the standard starting position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// ErrFEN is wrapped by every FEN parse error.
var ErrFEN = errors.New("invalid FEN")

func fenErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFEN, fmt.Sprintf(format, args...))
}

// NewPosition returns the standard starting position.
func NewPosition() *Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic(err) // cannot happen: StartFEN is valid
	}
	return p
}

// ParseFEN parses a FEN (or the first four fields of an EPD line). The
// halfmove clock and fullmove number may be missing (default 0 and 1), as
// may castling and en passant ("-"). Castling accepts standard KQkq, X-FEN
// (K/Q meaning the outermost rook on that side of the king) and
// Shredder-FEN file letters (HAha). Errors wrap ErrFEN.
func ParseFEN(fen string) (*Position, error) {
	p := &Position{}
	if err := p.SetFEN(fen); err != nil {
		return nil, err
	}
	return p, nil
}

// SetFEN sets p to the position of fen, clearing the history. On error p is
// left unchanged.
func (p *Position) SetFEN(fen string) error {
	var q Position
	q.hist = p.hist[:0]
	if q.hist == nil {
		q.hist = make([]state, 0, histCapacity)
	}
	if err := q.parseFEN(fen); err != nil {
		return err
	}
	*p = q
	return nil
}

func (p *Position) parseFEN(fen string) error {
	fields := strings.Fields(fen)
	if len(fields) < 2 {
		return fenErr("need at least piece placement and side to move, got %q", fen)
	}
	if len(fields) > 6 {
		return fenErr("too many fields (%d) in %q", len(fields), fen)
	}
	for len(fields) < 6 {
		fields = append(fields, [...]string{2: "-", 3: "-", 4: "0", 5: "1"}[len(fields)])
	}
	p.st.ep = NoSquare
	for i := range p.castleRook {
		p.castleRook[i] = NoSquare
	}

	// Piece placement.
	ranks := strings.Split(fields[0], "/")
	if len(ranks) != 8 {
		return fenErr("piece placement has %d ranks, want 8", len(ranks))
	}
	for i, row := range ranks {
		r := 7 - i
		f := 0
		for j := 0; j < len(row); j++ {
			c := row[j]
			if c >= '1' && c <= '8' {
				f += int(c - '0')
				if f > 8 {
					break
				}
				continue
			}
			idx := strings.IndexByte(pieceChars, c)
			if idx <= 0 || c == ' ' {
				return fenErr("bad piece letter %q in rank %d", c, r+1)
			}
			if f >= 8 {
				f++
				break
			}
			p.put(Piece(idx), MakeSquare(f, r))
			f++
		}
		if f != 8 {
			return fenErr("rank %d (%q) does not describe exactly 8 squares", r+1, row)
		}
	}
	for c := White; c <= Black; c++ {
		name := [2]string{"white", "black"}[c]
		switch n := p.Pieces(c, King).Count(); {
		case n == 0:
			return fenErr("no %s king", name)
		case n > 1:
			return fenErr("%d %s kings", n, name)
		}
		if n := p.byColor[c].Count(); n > 16 {
			return fenErr("%d %s pieces, at most 16 allowed", n, name)
		}
		if n := p.Pieces(c, Pawn).Count(); n > 8 {
			return fenErr("%d %s pawns, at most 8 allowed", n, name)
		}
	}
	if p.byType[Pawn]&(Rank1|Rank8) != 0 {
		return fenErr("pawn on the first or last rank")
	}

	// Side to move.
	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return fenErr("side to move %q, want w or b", fields[1])
	}
	if p.IsAttacked(p.KingSquare(p.side^1), p.side) {
		return fenErr("the side not to move is in check")
	}

	// Castling.
	if fields[2] != "-" {
		for i := 0; i < len(fields[2]); i++ {
			if err := p.addCastlingRight(fields[2][i]); err != nil {
				return err
			}
		}
	}

	// En passant.
	if fields[3] != "-" {
		s, ok := ParseSquare(fields[3])
		if !ok {
			return fenErr("bad en-passant square %q", fields[3])
		}
		wantRank := 5
		if p.side == Black {
			wantRank = 2
		}
		up := 8
		if p.side == Black {
			up = -8
		}
		pawnSq := Square(int(s) - up)
		if s.Rank() != wantRank {
			return fenErr("en-passant square %s is on the wrong rank", s)
		}
		if p.board[pawnSq] != MakePiece(p.side^1, Pawn) || p.board[s] != NoPiece || p.board[int(s)+up] != NoPiece {
			return fenErr("en-passant square %s does not follow a double pawn push", s)
		}
		if pawnAttacks[p.side^1][s]&p.Pieces(p.side, Pawn) != 0 {
			p.st.ep = s
		}
	}

	// Clocks.
	hm, err := strconv.Atoi(fields[4])
	if err != nil || hm < 0 || hm > 10000 {
		return fenErr("bad halfmove clock %q", fields[4])
	}
	fm, err := strconv.Atoi(fields[5])
	if err != nil || fm < 0 || fm > 100000 {
		return fenErr("bad fullmove number %q", fields[5])
	}
	if fm == 0 {
		fm = 1
	}
	p.st.halfmove = int32(hm)
	p.st.pliesFromNull = int32(hm)
	p.fullmove = fm

	p.st.key, p.st.pawnKey = p.computeKeys()
	ksq := p.KingSquare(p.side)
	p.st.checkers = p.AttackersTo(ksq, p.Occupied()) & p.byColor[p.side^1]
	if p.st.checkers.Count() > 2 {
		return fenErr("the side to move is in check by %d pieces", p.st.checkers.Count())
	}
	return nil
}

// addCastlingRight adds one castling letter (KQkq or a file letter).
func (p *Position) addCastlingRight(ch byte) error {
	c := White
	lower := ch | 0x20
	if ch >= 'a' {
		c = Black
	}
	back := 0
	if c == Black {
		back = 7
	}
	ksq := p.KingSquare(c)
	if ksq.Rank() != back {
		return fenErr("castling right %q but the king is not on its first rank", ch)
	}
	rook := MakePiece(c, Rook)
	var rsq Square = NoSquare
	switch {
	case lower == 'k':
		for f := 7; f > ksq.File(); f-- {
			if s := MakeSquare(f, back); p.board[s] == rook {
				rsq = s
				break
			}
		}
	case lower == 'q':
		for f := 0; f < ksq.File(); f++ {
			if s := MakeSquare(f, back); p.board[s] == rook {
				rsq = s
				break
			}
		}
	case lower >= 'a' && lower <= 'h':
		s := MakeSquare(int(lower-'a'), back)
		if p.board[s] == rook {
			rsq = s
		}
	default:
		return fenErr("bad castling letter %q", ch)
	}
	if rsq == NoSquare || rsq == ksq {
		return fenErr("castling right %q has no rook to castle with", ch)
	}
	i := castleIndex(c, rsq > ksq)
	if p.st.castle&(1<<i) != 0 {
		if p.castleRook[i] == rsq {
			return nil // repeated letter, e.g. "KK" or "KH" in a standard position
		}
		return fenErr("two castling rooks on one side in %q", ch)
	}
	p.st.castle |= 1 << i
	p.castleRook[i] = rsq
	kingTo, rookTo := castleTargets(i)
	p.castlePath[i] = (betweenBB[ksq][kingTo] | kingTo.Bitboard() | betweenBB[rsq][rookTo] | rookTo.Bitboard()) &^ (ksq.Bitboard() | rsq.Bitboard())
	p.castleKingPath[i] = betweenBB[ksq][kingTo] | kingTo.Bitboard()
	p.castleMask[ksq] |= 3 << (2 * c)
	p.castleMask[rsq] |= 1 << i
	if ksq.File() != 4 || (rsq.File() != 0 && rsq.File() != 7) {
		p.chess960 = true
	}
	return nil
}

// FEN returns the position in FEN. Castling is written as KQkq when the
// castling rook is the outermost rook on its side (X-FEN, which is plain
// FEN for standard chess) and as a Shredder file letter otherwise. The
// en-passant square is only written when a pawn can capture there.
func (p *Position) FEN() string {
	var sb strings.Builder
	sb.Grow(90)
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			pc := p.board[MakeSquare(f, r)]
			if pc == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteString(pc.String())
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			sb.WriteByte('/')
		}
	}
	sb.WriteByte(' ')
	sb.WriteString(p.side.String())
	sb.WriteByte(' ')
	sb.WriteString(p.castlingString())
	sb.WriteByte(' ')
	sb.WriteString(p.st.ep.String())
	fmt.Fprintf(&sb, " %d %d", p.st.halfmove, p.fullmove)
	return sb.String()
}

func (p *Position) castlingString() string {
	if p.st.castle == 0 {
		return "-"
	}
	var out []byte
	for i := 0; i < 4; i++ {
		if p.st.castle&(1<<i) == 0 {
			continue
		}
		c := Color(i >> 1)
		rsq := p.castleRook[i]
		outermost := true
		rook := MakePiece(c, Rook)
		for s := rsq; ; {
			if i&1 == 0 {
				if s.File() == 7 {
					break
				}
				s++
			} else {
				if s.File() == 0 {
					break
				}
				s--
			}
			if p.board[s] == rook {
				outermost = false
			}
		}
		var ch byte
		switch {
		case outermost && i&1 == 0:
			ch = 'K'
		case outermost:
			ch = 'Q'
		default:
			ch = byte('A' + rsq.File())
		}
		if c == Black {
			ch |= 0x20
		}
		out = append(out, ch)
	}
	return string(out)
}
