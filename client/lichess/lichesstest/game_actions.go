package lichesstest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// takebackLocked handles takeback/{yes|no} from col.
func (s *Server) takebackLocked(g *game, col int, yes bool) error {
	if !g.ongoing() {
		return errors.New("This game is over")
	}
	opp := 1 - col
	if !yes {
		if g.takeback[opp] {
			g.takeback[opp] = false
			s.pushStateLocked(g)
		}
		return nil
	}
	if !g.takeback[opp] {
		if !g.hasMoved(col) {
			return errors.New("You have no move to take back")
		}
		if !g.takeback[col] {
			g.takeback[col] = true
			s.pushStateLocked(g)
			s.houseOnOfferLocked(g)
		}
		return nil
	}
	// Accept opp's proposal: undo opp's last move, and the moves after it.
	n := 1
	if g.turn() == opp {
		n = 2
	}
	if n > len(g.moves) {
		n = len(g.moves)
	}
	moves := g.moves[:len(g.moves)-n]
	var cg *chess.Game
	if g.cg != nil {
		var err error
		if cg, err = newChessGame(g.fen); err != nil {
			return err
		}
		for _, m := range moves {
			if err := cg.MoveStr(m); err != nil {
				return fmt.Errorf("replay %s: %w", m, err)
			}
		}
	}
	if g.ticking() && !g.correspondence() {
		t := g.turn()
		g.remaining[t] -= time.Since(g.lastMoveAt)
	}
	g.cg, g.moves = cg, append([]string(nil), moves...)
	g.lastMoveAt = time.Now()
	if len(g.moves) < 2 {
		g.clockRunning = false
	}
	g.takeback = [2]bool{}
	g.drawOffer = [2]bool{}
	s.watchPositionLocked(g)
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	s.houseScheduleLocked(g)
	return nil
}

// drawLocked handles draw/{yes|no} from col.
func (s *Server) drawLocked(g *game, col int, yes bool) error {
	if !g.ongoing() {
		return errors.New("This game is over")
	}
	opp := 1 - col
	if yes && g.abortable() {
		return nil // as Lichess: no draw offers before both players moved (silently ignored)
	}
	switch {
	case yes && g.drawOffer[opp]:
		s.endGameLocked(g, "draw", none)
	case yes && !g.drawOffer[col]:
		g.drawOffer[col] = true
		s.pushStateLocked(g)
		s.houseOnOfferLocked(g)
	case !yes && g.drawOffer[opp]:
		g.drawOffer[opp] = false
		s.pushStateLocked(g)
	}
	return nil
}

func (s *Server) resignLocked(g *game, col int) error {
	if !g.ongoing() {
		return errors.New("This game cannot be resigned")
	}
	if g.abortable() {
		s.endGameLocked(g, "aborted", none)
		return nil
	}
	s.endGameLocked(g, "resign", 1-col)
	return nil
}

func (s *Server) abortLocked(g *game) error {
	if !g.abortable() {
		return errNotAbortable
	}
	s.endGameLocked(g, "aborted", none)
	return nil
}

func (s *Server) chatLocked(g *game, col int, room, text string) error {
	if room != "player" && room != "spectator" {
		return fmt.Errorf("Invalid room %q", room)
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("Empty text")
	}
	user := g.players[col].username
	g.chat = append(g.chat, chatEntry{room: room, user: user, text: text})
	s.broadcastLocked(g, jsonChatLine{Type: "chatLine", Room: room, Username: user, Text: text}, none)
	s.notifyLocked()
	return nil
}

// setGoneLocked marks col as gone (or back) and tells the opponent.
func (s *Server) setGoneLocked(g *game, col int, gone bool, wait time.Duration) {
	if !g.ongoing() {
		return
	}
	g.gone[col] = gone
	opp := 1 - col
	if !gone {
		g.claimAt[col] = time.Time{}
		s.broadcastLocked(g, jsonOpponentGone{Type: "opponentGone", Gone: false}, opp)
		s.notifyLocked()
		return
	}
	g.claimAt[col] = time.Now().Add(wait)
	s.houseOnGoneLocked(g, col, wait)
	s.goneTickLocked(g, col, g.claimAt[col])
	s.notifyLocked()
}

// goneTickLocked tells col's opponent how many seconds are left before it
// may claim (rounded up), then again every second down to 0.
func (s *Server) goneTickLocked(g *game, col int, at time.Time) {
	left := time.Until(at)
	if left < 0 {
		left = 0
	}
	secs := int((left + time.Second - 1) / time.Second)
	s.broadcastLocked(g, jsonOpponentGone{Type: "opponentGone", Gone: true, ClaimWinInSeconds: &secs}, 1-col)
	if secs == 0 {
		return
	}
	next := left - time.Duration(secs-1)*time.Second // until the count drops by one
	id := g.id
	s.afterFuncLocked(next, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g := s.games[id]
		if g == nil || !g.ongoing() || !g.gone[col] || !g.claimAt[col].Equal(at) {
			return
		}
		s.goneTickLocked(g, col, at)
		s.notifyLocked()
	})
}

// claimLocked handles claim-victory (win) and claim-draw from col.
func (s *Server) claimLocked(g *game, col int, win bool) error {
	opp := 1 - col
	if !g.ongoing() || !g.gone[opp] || time.Now().Before(g.claimAt[opp]) {
		if win {
			return errors.New("You cannot claim the win yet")
		}
		return errors.New("You cannot claim a draw yet")
	}
	if win {
		s.endGameLocked(g, "timeout", col)
	} else {
		s.endGameLocked(g, "timeout", none)
	}
	return nil
}
