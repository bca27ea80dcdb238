package board

import (
	"errors"
	"fmt"
)

// ErrMove is wrapped by every error of ParseUCIMove and ParseSAN.
var ErrMove = errors.New("invalid move")

// UCI returns the move in UCI notation. Castling is written king-to-target
// ("e1g1") when chess960 is false and king-takes-rook ("e1h1") when true.
func (m Move) UCI(chess960 bool) string {
	if m.IsCastling() && !chess960 {
		from := m.From()
		i := castleIndex(Color(from.Rank()/7), m.To() > from)
		kingTo, _ := castleTargets(i)
		return from.String() + kingTo.String()
	}
	return m.String()
}

// MoveToUCI returns m in UCI notation using the position's Chess960 flag.
func (p *Position) MoveToUCI(m Move) string { return m.UCI(p.chess960) }

// ParseUCIMove parses a UCI move ("e2e4", "e7e8q") and returns it if it is
// legal here. Castling is accepted in both forms whatever the Chess960 flag:
// king-takes-rook ("e1h1") and king-to-target ("e1g1"); the latter only when
// it is not also an ordinary king move (possible in Chess960). Errors wrap
// ErrMove; no input panics.
func (p *Position) ParseUCIMove(s string) (Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return NoMove, fmt.Errorf("%w: %q is not a UCI move", ErrMove, s)
	}
	from, ok1 := ParseSquare(s[0:2])
	to, ok2 := ParseSquare(s[2:4])
	if !ok1 || !ok2 {
		return NoMove, fmt.Errorf("%w: %q is not a UCI move", ErrMove, s)
	}
	promo := NoPieceType
	if len(s) == 5 {
		switch s[4] | 0x20 {
		case 'n':
			promo = Knight
		case 'b':
			promo = Bishop
		case 'r':
			promo = Rook
		case 'q':
			promo = Queen
		default:
			return NoMove, fmt.Errorf("%w: %q has a bad promotion piece", ErrMove, s)
		}
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	var castle Move
	for _, m := range ml.Moves[:ml.N] {
		if m.From() != from {
			continue
		}
		if m.IsCastling() {
			if promo != NoPieceType {
				continue
			}
			if m.To() == to {
				return m, nil
			}
			kingTo, _ := castleTargets(castleIndex(p.side, m.To() > from))
			if kingTo == to {
				castle = m
			}
			continue
		}
		if m.To() == to && m.Promotion() == promo {
			return m, nil
		}
	}
	if castle != NoMove {
		return castle, nil
	}
	return NoMove, fmt.Errorf("%w: %s is not legal in %s", ErrMove, s, p.FEN())
}
