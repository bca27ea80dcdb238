package lichesstest

import (
	"fmt"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// normalizeCastling turns king-takes-rook castling (e1h1) into the king's
// two-square move (e1g1) that notnil/chess understands.
func normalizeCastling(pos *chess.Position, uci string) string {
	if len(uci) != 4 {
		return uci
	}
	from, to := uci[:2], uci[2:]
	b := pos.Board()
	king := map[string]chess.Piece{"e1": chess.WhiteKing, "e8": chess.BlackKing}[from]
	if king == chess.NoPiece || b.Piece(squareOf(from)) != king {
		return uci
	}
	rook := chess.WhiteRook
	if king == chess.BlackKing {
		rook = chess.BlackRook
	}
	rank := from[1:]
	switch to {
	case "h" + rank:
		if b.Piece(squareOf(to)) == rook {
			return from + "g" + rank
		}
	case "a" + rank:
		if b.Piece(squareOf(to)) == rook {
			return from + "c" + rank
		}
	}
	return uci
}

func squareOf(name string) chess.Square {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8' {
		return chess.NoSquare
	}
	return chess.Square(int(name[1]-'1')*8 + int(name[0]-'a'))
}

// moveError is a refused move (400).
type moveError struct{ msg string }

func (e *moveError) Error() string { return e.msg }

// playMoveLocked plays uci for col in g. offeringDraw is nil when the
// client did not say.
func (s *Server) playMoveLocked(g *game, col int, uci string, offeringDraw *bool) error {
	if !g.ongoing() || g.turn() != col {
		s.stats.IllegalMoves++
		return &moveError{errNotYourTurn.Error()}
	}
	now := time.Now()
	if g.clockRunning && now.Sub(g.lastMoveAt) >= g.remaining[col] {
		s.flagLocked(g, col)
		s.stats.IllegalMoves++
		return &moveError{errNotYourTurn.Error()}
	}
	pos := g.cg.Position()
	norm := normalizeCastling(pos, strings.ToLower(uci))
	m, err := chess.UCINotation{}.Decode(pos, norm)
	if err != nil || squareOf(norm[:2]) == chess.NoSquare || squareOf(norm[2:4]) == chess.NoSquare {
		s.stats.IllegalMoves++
		return &moveError{"Invalid UCI: " + uci}
	}
	var legal *chess.Move
	for _, v := range pos.ValidMoves() {
		if v.S1() == m.S1() && v.S2() == m.S2() && v.Promo() == m.Promo() {
			legal = v
			break
		}
	}
	if legal == nil {
		s.stats.IllegalMoves++
		if pos.Board().Piece(m.S1()) == chess.NoPiece {
			return &moveError{fmt.Sprintf("No piece on %s", m.S1())}
		}
		return &moveError{fmt.Sprintf("Piece on %s cannot move to %s", m.S1(), m.S2())}
	}
	if err := g.cg.Move(legal); err != nil {
		s.stats.IllegalMoves++
		return &moveError{err.Error()}
	}
	s.stats.MovesPlayed++
	s.logLocked("game %s: %s plays %s", g.id, g.players[col].username, uci)
	g.moves = append(g.moves, legal.S1().String()+legal.S2().String()+legal.Promo().String())
	if g.clockRunning {
		g.remaining[col] -= now.Sub(g.lastMoveAt)
		g.remaining[col] += g.inc
	} else if g.hasClock && len(g.moves) >= 2 {
		g.clockRunning = true // both players have moved: clocks start
	}
	g.lastMoveAt = now
	s.watchPositionLocked(g)
	opp := 1 - col
	oppOffered := g.drawOffer[opp]
	g.drawOffer[opp] = false // a move declines a pending offer
	g.takeback = [2]bool{}
	if offeringDraw != nil {
		g.drawOffer[col] = *offeringDraw && !g.abortable()
	}
	if s.checkEndLocked(g) {
		return nil
	}
	if offeringDraw != nil && *offeringDraw && oppOffered {
		s.endGameLocked(g, "draw", none)
		return nil
	}
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	s.houseScheduleLocked(g)
	if offeringDraw != nil && *offeringDraw {
		s.houseOnOfferLocked(g)
	}
	return nil
}

// checkEndLocked ends g if the position ends it (mate, stalemate,
// insufficient material, threefold repetition, fifty moves).
func (s *Server) checkEndLocked(g *game) bool {
	mover := 1 - g.turn()
	switch g.cg.Method() {
	case chess.Checkmate:
		s.endGameLocked(g, "mate", mover)
		return true
	case chess.Stalemate:
		s.endGameLocked(g, "stalemate", none)
		return true
	case chess.InsufficientMaterial, chess.FivefoldRepetition, chess.SeventyFiveMoveRule:
		s.endGameLocked(g, "draw", none)
		return true
	}
	for _, d := range g.cg.EligibleDraws() {
		if d == chess.ThreefoldRepetition || d == chess.FiftyMoveRule {
			s.endGameLocked(g, "draw", none)
			return true
		}
	}
	return false
}
