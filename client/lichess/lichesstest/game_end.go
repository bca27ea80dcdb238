package lichesstest

import (
	"math"
	"time"

	"github.com/notnil/chess"
)

// flagLocked ends g on time for col; a draw if the opponent cannot mate.
func (s *Server) flagLocked(g *game, col int) {
	g.remaining[col] = 0
	g.lastMoveAt = time.Now()
	g.clockRunning = false
	winner := 1 - col
	if g.cg != nil && !canMate(g.cg.Position().Board(), winner) {
		winner = none
	}
	s.endGameLocked(g, "outoftime", winner)
}

// canMate is false when col has a bare king or king and one minor piece.
func canMate(b *chess.Board, col int) bool {
	c := chess.White
	if col == black {
		c = chess.Black
	}
	minors := 0
	for _, p := range b.SquareMap() {
		if p.Color() != c || p.Type() == chess.King {
			continue
		}
		if p.Type() != chess.Knight && p.Type() != chess.Bishop {
			return true
		}
		minors++
	}
	return minors > 1
}

// endGameLocked finishes g with status and winner (none for no winner).
func (s *Server) endGameLocked(g *game, status string, winner int) {
	if !g.ongoing() {
		return
	}
	if g.ticking() {
		t := g.turn()
		g.remaining[t] -= time.Since(g.lastMoveAt)
		if g.remaining[t] < 0 {
			g.remaining[t] = 0
		}
		g.clockRunning = false
	}
	g.status, g.winner, g.finishedAt = status, winner, time.Now()
	if winner != none {
		s.logLocked("game %s over: %s, %s (%s) wins after %d plies", g.id, status, colorNames[winner], g.players[winner].username, len(g.moves))
	} else {
		s.logLocked("game %s over: %s, no winner, after %d plies", g.id, status, len(g.moves))
	}
	g.drawOffer, g.takeback = [2]bool{}, [2]bool{}
	s.stopTimerLocked(g.timer)
	g.timer = nil
	for i, t := range g.house {
		s.stopTimerLocked(t)
		g.house[i] = nil
	}
	for i, t := range g.goneTimer {
		s.stopTimerLocked(t)
		g.goneTimer[i] = nil
	}
	if status != "aborted" {
		if g.rated {
			g.ratingDiff = ratingDiffs(g.players[white].rating, g.players[black].rating, winner)
		}
		for col, a := range g.players {
			a.played++
			switch winner {
			case none:
				a.draws++
			case col:
				a.wins++
			default:
				a.losses++
			}
		}
	}
	s.broadcastLocked(g, s.gameStateLocked(g), none)
	for _, gs := range g.subs {
		gs.sub.finish()
	}
	g.subs = nil
	s.watchEndLocked(g)
	for col := range 2 {
		s.pushEventLocked(g.players[col], jsonGameEvent{Type: "gameFinish", Game: s.gameEventInfoLocked(g, col)})
	}
	s.notifyLocked()
}

// ratingDiffs is the rating change of White and Black after a rated game
// with winner (none for a draw): the Elo formula with K = 20, rounded, in
// place of Lichess' Glicko-2. The accounts' ratings stay as they are, so
// that tests meet the ratings they set.
func ratingDiffs(whiteRating, blackRating, winner int) *[2]int {
	expected := 1 / (1 + math.Pow(10, float64(blackRating-whiteRating)/400))
	score := 0.5
	switch winner {
	case white:
		score = 1
	case black:
		score = 0
	}
	d := int(math.Round(20 * (score - expected)))
	return &[2]int{d, -d}
}

// scheduleGameTimerLocked arms the one timer a game needs: the first-move
// expiration before the clocks run, the flag of the side to move after.
func (s *Server) scheduleGameTimerLocked(g *game) {
	s.stopTimerLocked(g.timer)
	g.timer = nil
	if !g.ongoing() || (!g.hasClock && !g.correspondence()) {
		return
	}
	var due time.Duration
	if g.ticking() {
		due = g.remaining[g.turn()] - time.Since(g.lastMoveAt)
	} else {
		due = g.firstMove - time.Since(g.lastMoveAt)
	}
	if due < 0 {
		due = 0
	}
	id, ply := g.id, len(g.moves)
	g.timer = s.afterFuncLocked(due, func() { s.onGameTimer(id, ply) })
}

func (s *Server) onGameTimer(id string, ply int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil || !g.ongoing() || len(g.moves) != ply {
		return
	}
	g.timer = nil
	since := time.Since(g.lastMoveAt)
	switch {
	case g.ticking() && since >= g.remaining[g.turn()]:
		s.flagLocked(g, g.turn())
	case !g.ticking() && since >= g.firstMove:
		// A player did not make their first move in time: Lichess
		// aborts casual games (status aborted, no winner).
		s.endGameLocked(g, "aborted", none)
	default:
		s.scheduleGameTimerLocked(g)
	}
}
