package lichesstest

import (
	"fmt"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// HouseStrategy chooses how a house player picks its moves.
type HouseStrategy int

const (
	// HouseRandom plays a uniformly random legal move.
	HouseRandom HouseStrategy = iota
	// HouseGreedy mates in one if it can, else makes the most valuable
	// capture or promotion, else a random move (one ply, no lookahead).
	HouseGreedy
	// HouseFirst plays the first legal move in notnil/chess's order
	// (deterministic, for tests that want a fixed game).
	HouseFirst
)

// HouseOptions configures a built-in house player.
type HouseOptions struct {
	// ThinkTime is how long the house player waits before each move.
	ThinkTime time.Duration
	Strategy  HouseStrategy
	// DeclineReason, if set, makes the house player decline every
	// incoming challenge with this reason key ("generic", "tooFast", …).
	DeclineReason string
	// IgnoreChallenges leaves incoming challenges unanswered.
	IgnoreChallenges bool
	// AcceptDelay is how long the house player waits before answering a
	// challenge.
	AcceptDelay time.Duration
	// AcceptDraws and AcceptTakebacks make the house player accept the
	// opponent's draw offers and takeback proposals (after ThinkTime; a
	// draw offered with a move is accepted before the house player's
	// reply, never declined by it); otherwise it declines them.
	AcceptDraws     bool
	AcceptTakebacks bool
	// ClaimVictory makes the house player claim the win as soon as its
	// opponent has been gone long enough (see SetGone, WithAutoGone).
	ClaimVictory bool
	// Moves are the house player's first moves of each game, in order
	// (UCI); one that is not legal when its turn comes is replaced by the
	// Strategy's choice, as are the moves after the script.
	Moves []string
	// ResignAt, if > 0, makes the house player resign on its turn once
	// the game has that many plies (an abortable game is aborted, as
	// with Resign).
	ResignAt int
}

type houseConfig struct{ opts HouseOptions }

// SetHousePlayer makes the server play for username: it answers incoming
// challenges (accepting by default) and moves in every game where it is
// the account's turn. The account must exist; it counts as online.
func (s *Server) SetHousePlayer(username string, opts HouseOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	if a == nil {
		return fmt.Errorf("lichesstest: house player: no account %q", username)
	}
	a.house = &houseConfig{opts: opts}
	for _, c := range s.sortedChallengesLocked() {
		if c.dest == a && c.status == "created" {
			s.houseOnChallengeLocked(c)
		}
	}
	for _, id := range s.gameOrder {
		s.houseScheduleLocked(s.games[id])
	}
	s.notifyLocked()
	return nil
}

// RemoveHousePlayer stops the server playing for username (moves already
// scheduled are cancelled).
func (s *Server) RemoveHousePlayer(username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	if a == nil {
		return
	}
	a.house = nil
	for _, g := range s.games {
		if col := g.colorOf(a); col != none {
			s.stopTimerLocked(g.house[col])
			g.house[col] = nil
		}
	}
}

func (s *Server) houseOnChallengeLocked(c *challenge) {
	h := c.dest.house
	if h == nil || h.opts.IgnoreChallenges {
		return
	}
	id, reason := c.id, h.opts.DeclineReason
	s.afterFuncLocked(h.opts.AcceptDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.challenges[id]
		if c == nil || c.status != "created" || c.dest.house == nil {
			return
		}
		if reason == "" && !checkedVariant(c.variant) {
			reason = "variant" // it plays by notnil/chess's rules only
		}
		if reason != "" {
			s.declineLocked(c, reason)
			return
		}
		if _, err := s.acceptLocked(c); err != nil {
			s.declineLocked(c, "variant")
		}
	})
}

// houseScheduleLocked arms a move of the house player whose turn it is.
func (s *Server) houseScheduleLocked(g *game) {
	if g == nil || !g.ongoing() {
		return
	}
	col := g.turn()
	h := g.players[col].house
	if h == nil || g.house[col] != nil || g.cg == nil {
		return // no house moves in a variant the server does not check
	}
	id, ply := g.id, len(g.moves)
	g.house[col] = s.afterFuncLocked(h.opts.ThinkTime, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g := s.games[id]
		if g == nil {
			return
		}
		g.house[col] = nil
		if !g.ongoing() || len(g.moves) != ply || g.turn() != col || g.players[col].house == nil {
			s.houseScheduleLocked(g)
			return
		}
		o := g.players[col].house.opts
		if o.AcceptDraws && g.drawOffer[1-col] {
			// A draw offered with the opponent's move is accepted before
			// moving (a move would decline it), whichever of this timer
			// and the offer's answer (houseOnOfferLocked) comes first.
			_ = s.drawLocked(g, col, true)
			return
		}
		if o.ResignAt > 0 && len(g.moves) >= o.ResignAt {
			_ = s.resignLocked(g, col)
			return
		}
		pos := g.cg.Position()
		var m string
		// At its turn a player has made half the moves, rounded down.
		if k := len(g.moves) / 2; k < len(o.Moves) && isLegalUCI(pos, o.Moves[k]) {
			m = o.Moves[k]
		} else if m = s.houseChooseLocked(pos, o.Strategy); m == "" {
			return
		}
		_ = s.playMoveLocked(g, col, m, nil)
	})
}

// houseOnOfferLocked lets a house player answer a pending draw offer or
// takeback proposal of its opponent.
func (s *Server) houseOnOfferLocked(g *game) {
	if !g.ongoing() {
		return
	}
	for col := range 2 {
		h, opp := g.players[col].house, 1-col
		if h == nil || (!g.drawOffer[opp] && !g.takeback[opp]) {
			continue
		}
		id, ply := g.id, len(g.moves)
		s.afterFuncLocked(h.opts.ThinkTime, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			g := s.games[id]
			if g == nil || !g.ongoing() || len(g.moves) != ply || g.players[col].house == nil {
				return
			}
			o := g.players[col].house.opts
			if g.drawOffer[opp] {
				_ = s.drawLocked(g, col, o.AcceptDraws)
			}
			if g.ongoing() && g.takeback[opp] {
				_ = s.takebackLocked(g, col, o.AcceptTakebacks)
			}
		})
	}
}

// houseOnGoneLocked lets a house player claim the win once its gone
// opponent (col) may be claimed against.
func (s *Server) houseOnGoneLocked(g *game, col int, wait time.Duration) {
	h := g.players[1-col].house
	if h == nil || !h.opts.ClaimVictory {
		return
	}
	id, at := g.id, g.claimAt[col]
	s.afterFuncLocked(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g := s.games[id]
		if g == nil || !g.ongoing() || !g.gone[col] || !g.claimAt[col].Equal(at) {
			return
		}
		_ = s.claimLocked(g, 1-col, true)
	})
}

// isLegalUCI reports whether uci (castling in either form) is legal in pos.
func isLegalUCI(pos *chess.Position, uci string) bool {
	norm := normalizeCastling(pos, strings.ToLower(uci))
	for _, m := range pos.ValidMoves() {
		if m.S1().String()+m.S2().String()+m.Promo().String() == norm {
			return true
		}
	}
	return false
}

var pieceValue = map[chess.PieceType]int{
	chess.Pawn: 1, chess.Knight: 3, chess.Bishop: 3, chess.Rook: 5, chess.Queen: 9,
}

func (s *Server) houseChooseLocked(pos *chess.Position, strat HouseStrategy) string {
	moves := pos.ValidMoves()
	if len(moves) == 0 {
		return ""
	}
	uci := func(m *chess.Move) string { return m.S1().String() + m.S2().String() + m.Promo().String() }
	switch strat {
	case HouseFirst:
		return uci(moves[0])
	case HouseGreedy:
		best, bestScore := []*chess.Move(nil), -1
		for _, m := range moves {
			score := 0
			if m.HasTag(chess.Check) && pos.Update(m).Status() == chess.Checkmate {
				score = 1000
			} else {
				score = pieceValue[pos.Board().Piece(m.S2()).Type()]*10 + pieceValue[m.Promo()]*10
				if m.HasTag(chess.EnPassant) {
					score = 10
				}
			}
			switch {
			case score > bestScore:
				best, bestScore = []*chess.Move{m}, score
			case score == bestScore:
				best = append(best, m)
			}
		}
		return uci(best[s.rng.IntN(len(best))])
	}
	return uci(moves[s.rng.IntN(len(moves))])
}
