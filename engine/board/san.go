package board

import (
	"fmt"
	"strings"
)

// MoveToSAN returns m (legal here) in Standard Algebraic Notation, with "+"
// or "#" when it checks or mates.
func (p *Position) MoveToSAN(m Move) string {
	var b strings.Builder
	from, to := m.From(), m.To()
	pt := p.board[from].Type()
	switch {
	case m.IsCastling():
		if to > from {
			b.WriteString("O-O")
		} else {
			b.WriteString("O-O-O")
		}
	case pt == Pawn:
		if p.IsCapture(m) {
			b.WriteByte(byte('a' + from.File()))
			b.WriteByte('x')
		}
		b.WriteString(to.String())
		if promo := m.Promotion(); promo != NoPieceType {
			b.WriteByte('=')
			b.WriteString(strings.ToUpper(promo.String()))
		}
	default:
		b.WriteString(strings.ToUpper(pt.String()))
		// Disambiguate among other pieces of the same type reaching to.
		var ml MoveList
		p.GenerateLegal(&ml)
		sameFile, sameRank, others := false, false, false
		for _, o := range ml.Slice() {
			if o.To() != to || o.From() == from || o.IsCastling() || p.board[o.From()].Type() != pt {
				continue
			}
			others = true
			if o.From().File() == from.File() {
				sameFile = true
			}
			if o.From().Rank() == from.Rank() {
				sameRank = true
			}
		}
		if others {
			switch {
			case !sameFile:
				b.WriteByte(byte('a' + from.File()))
			case !sameRank:
				b.WriteByte(byte('1' + from.Rank()))
			default:
				b.WriteString(from.String())
			}
		}
		if p.IsCapture(m) {
			b.WriteByte('x')
		}
		b.WriteString(to.String())
	}
	if p.GivesCheck(m) {
		p.MakeMove(m)
		if p.HasLegalMoves() {
			b.WriteByte('+')
		} else {
			b.WriteByte('#')
		}
		p.UnmakeMove()
	}
	return b.String()
}

// ParseSAN parses a move in Standard Algebraic Notation ("Nf3", "exd5",
// "e8=Q", "O-O", "Rad1", "Qh4xe1+") and returns it if it is legal here.
// Check marks and annotations (+ # ! ?) are ignored; "0-0" is accepted.
// Errors wrap ErrMove.
func (p *Position) ParseSAN(s string) (Move, error) {
	orig := s
	s = strings.TrimRight(strings.TrimSpace(s), "+#!?")
	bad := func(why string) (Move, error) {
		return NoMove, fmt.Errorf("%w: SAN %q: %s", ErrMove, orig, why)
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	switch s {
	case "O-O", "0-0", "O-O-O", "0-0-0":
		kingSide := len(s) == 3
		for _, m := range ml.Slice() {
			if m.IsCastling() && (m.To() > m.From()) == kingSide {
				return m, nil
			}
		}
		return bad("castling is not legal")
	}
	if len(s) < 2 {
		return bad("too short")
	}
	pt := Pawn
	if i := strings.IndexByte("NBRQK", s[0]); i >= 0 {
		pt = PieceType(i) + Knight
		s = s[1:]
	}
	promo := NoPieceType
	if i := strings.IndexByte(s, '='); i >= 0 {
		if i+2 != len(s) {
			return bad("bad promotion")
		}
		j := strings.IndexByte("NBRQ", s[i+1])
		if j < 0 {
			return bad("bad promotion piece")
		}
		promo = PieceType(j) + Knight
		s = s[:i]
	} else if pt == Pawn && len(s) >= 3 && strings.IndexByte("NBRQ", s[len(s)-1]) >= 0 {
		promo = PieceType(strings.IndexByte("NBRQ", s[len(s)-1])) + Knight // "e8Q"
		s = s[:len(s)-1]
	}
	if len(s) < 2 {
		return bad("no target square")
	}
	to, ok := ParseSquare(s[len(s)-2:])
	if !ok {
		return bad("bad target square")
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s[:len(s)-2], "x"), "-")
	fromFile, fromRank := -1, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'h' && fromFile < 0:
			fromFile = int(c - 'a')
		case c >= '1' && c <= '8' && fromRank < 0:
			fromRank = int(c - '1')
		default:
			return bad("bad disambiguation")
		}
	}
	found := NoMove
	for _, m := range ml.Slice() {
		if m.IsCastling() || m.To() != to || p.board[m.From()].Type() != pt || m.Promotion() != promo {
			continue
		}
		if (fromFile >= 0 && m.From().File() != fromFile) || (fromRank >= 0 && m.From().Rank() != fromRank) {
			continue
		}
		if found != NoMove {
			return bad("ambiguous")
		}
		found = m
	}
	if found == NoMove {
		return bad("no such legal move")
	}
	return found, nil
}
