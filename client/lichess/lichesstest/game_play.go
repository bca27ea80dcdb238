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
	if g.ticking() && now.Sub(g.lastMoveAt) >= g.remaining[col] {
		s.flagLocked(g, col)
		s.stats.IllegalMoves++
		return &moveError{errNotYourTurn.Error()}
	}
	if g.cg == nil {
		return s.playUncheckedLocked(g, col, uci, offeringDraw, now)
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
	s.afterMoveLocked(g, col, offeringDraw, now)
	return nil
}

// defaultVariantPlyLimit is WithVariantPlyLimit's default.
const defaultVariantPlyLimit = 400

// playUncheckedLocked plays uci for col in a game of a variant the server
// does not check: any move of UCI shape is taken (drops as P@e4, king
// promotions), as the players' engines and Lichess know the rules.
func (s *Server) playUncheckedLocked(g *game, col int, uci string, offeringDraw *bool, now time.Time) error {
	m, ok := variantMoveShape(uci)
	if !ok {
		s.stats.IllegalMoves++
		return &moveError{"Invalid UCI: " + uci}
	}
	s.stats.MovesPlayed++
	s.logLocked("game %s: %s plays %s (%s, not checked)", g.id, g.players[col].username, m, g.variant)
	g.moves = append(g.moves, m)
	s.afterMoveLocked(g, col, offeringDraw, now)
	return nil
}

// variantMoveShape normalises a move of a variant the server does not
// check (P@e4 for a drop, e2e4 or e7e8k otherwise) and reports whether it
// has that shape.
func variantMoveShape(uci string) (string, bool) {
	sq := func(f, r byte) bool { return f >= 'a' && f <= 'h' && r >= '1' && r <= '8' }
	switch m := strings.TrimSpace(uci); {
	case len(m) == 4 && m[1] == '@':
		m = strings.ToUpper(m[:1]) + strings.ToLower(m[1:])
		return m, strings.IndexByte("PNBRQK", m[0]) >= 0 && sq(m[2], m[3])
	case len(m) == 4 || len(m) == 5:
		m = strings.ToLower(m)
		return m, sq(m[0], m[1]) && sq(m[2], m[3]) && (len(m) == 4 || strings.IndexByte("qrbnk", m[4]) >= 0)
	}
	return "", false
}

// afterMoveLocked runs the clocks, offers and end checks after col's move
// in g.
func (s *Server) afterMoveLocked(g *game, col int, offeringDraw *bool, now time.Time) {
	if g.correspondence() {
		g.remaining[col] = g.perMove() // a new move, a new days-per-move clock
	} else if g.clockRunning {
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
		return
	}
	if offeringDraw != nil && *offeringDraw && oppOffered {
		s.endGameLocked(g, "draw", none)
		return
	}
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	if g.correspondence() {
		// As Lichess, a correspondence player is told on the event stream
		// that it is their move (a gameStart), whether or not they follow
		// the game's stream.
		t := g.turn()
		s.pushEventLocked(g.players[t], jsonGameEvent{Type: "gameStart", Game: s.gameEventInfoLocked(g, t)})
	}
	s.houseScheduleLocked(g)
	if offeringDraw != nil && *offeringDraw {
		s.houseOnOfferLocked(g)
	}
}

// checkEndLocked ends g if the position ends it (mate, stalemate,
// insufficient material, threefold repetition, fifty moves).
func (s *Server) checkEndLocked(g *game) bool {
	if g.cg == nil {
		// A variant the server does not check ends by resignation, time,
		// agreement, claims, or the ply limit (a draw).
		if len(g.moves) >= s.cfg.variantPlyLimit {
			s.endGameLocked(g, "draw", none)
			return true
		}
		return false
	}
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
