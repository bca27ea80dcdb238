package lichesstest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// GameSnapshot is a copy of a game's state at one moment.
type GameSnapshot struct {
	ID         string
	White      string // usernames
	Black      string
	Variant    string
	Speed      string
	Rated      bool
	InitialFEN string // "" for the standard start
	Moves      []string
	FEN        string // current position
	Status     string // a GameStatusName: started, mate, resign, outoftime, aborted, draw, stalemate, timeout
	Winner     string // "white", "black" or "" (draw, abort, or not over)
	Finished   bool
	// Clock settings (zero for correspondence and unlimited games).
	ClockInitial   time.Duration
	ClockIncrement time.Duration
	// DaysPerTurn is a correspondence game's days per move (0 otherwise).
	DaysPerTurn int
	// Remaining time of each player at the moment of the snapshot.
	WhiteTime     time.Duration
	BlackTime     time.Duration
	ClockRunning  bool // the side to move's clock runs (a correspondence game's from the start)
	WhiteDraw     bool // draw offers pending
	BlackDraw     bool
	WhiteTakeback bool // takeback proposals pending
	BlackTakeback bool
	Chat          []ChatLine // both rooms, oldest first
	CreatedAt     time.Time
	FinishedAt    time.Time
	PGN           string
}

// ChatLine is one message of a game's chat.
type ChatLine struct {
	Room     string // "player" or "spectator"
	Username string
	Text     string
}

func (s *Server) snapshotLocked(g *game) GameSnapshot {
	c := g.clocks(time.Now())
	snap := GameSnapshot{
		ID: g.id, White: g.players[white].username, Black: g.players[black].username,
		Variant: g.variant, Speed: g.speed, Rated: g.rated, InitialFEN: g.fen,
		Moves: append([]string(nil), g.moves...), FEN: g.currentFEN(), Status: g.status,
		Finished: !g.ongoing(), WhiteTime: c[white], BlackTime: c[black],
		ClockRunning: g.ticking(),
		WhiteDraw:    g.drawOffer[white], BlackDraw: g.drawOffer[black],
		WhiteTakeback: g.takeback[white], BlackTakeback: g.takeback[black],
		CreatedAt: g.createdAt, FinishedAt: g.finishedAt,
		PGN: g.pgn(),
	}
	for _, c := range g.chat {
		snap.Chat = append(snap.Chat, ChatLine{Room: c.room, Username: c.user, Text: c.text})
	}
	if g.hasClock {
		snap.ClockInitial, snap.ClockIncrement = g.initial, g.inc
	} else {
		snap.DaysPerTurn = g.days
	}
	if g.winner != none {
		snap.Winner = colorNames[g.winner]
	}
	return snap
}

func (g *game) pgn() string {
	result := "*"
	switch {
	case g.ongoing():
	case g.status == "aborted":
	case g.winner == white:
		result = "1-0"
	case g.winner == black:
		result = "0-1"
	default:
		result = "1/2-1/2"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Event \"lichesstest game\"]\n[Site \"%s\"]\n[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n",
		g.id, g.players[white].username, g.players[black].username, result)
	if g.fen != "" {
		fmt.Fprintf(&b, "[SetUp \"1\"]\n[FEN \"%s\"]\n", g.fen)
	}
	if g.cg == nil {
		// Not followed: the moves stay in UCI, as played.
		fmt.Fprintf(&b, "[Variant \"%s\"]\n\n", variantNames[g.variant][0])
		for _, m := range g.moves {
			b.WriteString(m + " ")
		}
		b.WriteString(result + "\n")
		return b.String()
	}
	b.WriteString("\n")
	// Moves in SAN.
	var parts []string
	positions, moves := g.cg.Positions(), g.cg.Moves()
	for i, m := range moves {
		pos := positions[i]
		num := "1"
		if f := strings.Fields(pos.String()); len(f) >= 6 {
			num = f[5]
		}
		if pos.Turn() == chess.White {
			parts = append(parts, num+".")
		} else if i == 0 {
			parts = append(parts, num+"...")
		}
		parts = append(parts, chess.AlgebraicNotation{}.Encode(pos, m))
	}
	movetext := strings.Join(parts, " ")
	if movetext != "" {
		b.WriteString(movetext + " ")
	}
	b.WriteString(result + "\n")
	return b.String()
}

// Game returns a snapshot of game id.
func (s *Server) Game(id string) (GameSnapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return GameSnapshot{}, false
	}
	return s.snapshotLocked(g), true
}

// ForgetGame drops finished game id (and the challenge it came from) from
// the server, as if it had never been played; a long run that took what
// it needs of each game (Game) keeps the server's memory flat with it.
// It reports whether the game was forgotten: false for a game unknown or
// still in progress.
func (s *Server) ForgetGame(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil || g.ongoing() {
		return false
	}
	delete(s.games, id)
	delete(s.challenges, id)
	if i := slices.Index(s.gameOrder, id); i >= 0 {
		s.gameOrder = slices.Delete(s.gameOrder, i, i+1)
	}
	return true
}

// Games returns snapshots of every game, oldest first.
func (s *Server) Games() []GameSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]GameSnapshot, 0, len(s.gameOrder))
	for _, id := range s.gameOrder {
		out = append(out, s.snapshotLocked(s.games[id]))
	}
	return out
}

// WaitGameOver waits until game id exists and is finished.
func (s *Server) WaitGameOver(ctx context.Context, id string) (GameSnapshot, error) {
	var snap GameSnapshot
	err := s.WaitFor(ctx, func() bool {
		g, ok := s.Game(id)
		snap = g
		return ok && g.Finished
	})
	return snap, err
}

// WaitGameStarted waits until a game with username as a player exists that
// is not in the known list, and returns its id.
func (s *Server) WaitGameStarted(ctx context.Context, username string, known ...string) (string, error) {
	var id string
	err := s.WaitFor(ctx, func() bool {
		for _, g := range s.Games() {
			if !strings.EqualFold(g.White, username) && !strings.EqualFold(g.Black, username) {
				continue
			}
			seen := false
			for _, k := range known {
				seen = seen || k == g.ID
			}
			if !seen {
				id = g.ID
				return true
			}
		}
		return false
	})
	return id, err
}

// withPlayer runs f on game id for username's colour, under s.mu.
func (s *Server) withPlayer(id, username, what string, f func(g *game, col int) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return fmt.Errorf("lichesstest: %s in %s: no such game", what, id)
	}
	a := s.accounts[strings.ToLower(username)]
	col := none
	if a != nil {
		col = g.colorOf(a)
	}
	if col == none {
		return fmt.Errorf("lichesstest: %s in %s: %s does not play in it", what, id, username)
	}
	if err := f(g, col); err != nil {
		return fmt.Errorf("lichesstest: %s in %s: %w", what, id, err)
	}
	return nil
}

// Move plays uci for username in game id, as POST …/move/{uci} would.
func (s *Server) Move(id, username, uci string) error {
	return s.withPlayer(id, username, "move "+uci, func(g *game, col int) error {
		return s.playMoveLocked(g, col, uci, nil)
	})
}

// MoveOfferingDraw plays uci for username in game id with a draw offer,
// as POST …/move/{uci}?offeringDraw=true would: the offer comes with the
// move (or, if the other side offers, accepts theirs).
func (s *Server) MoveOfferingDraw(id, username, uci string) error {
	offer := true
	return s.withPlayer(id, username, "move "+uci+" offering a draw", func(g *game, col int) error {
		return s.playMoveLocked(g, col, uci, &offer)
	})
}

// Resign resigns game id for username (an abortable game is aborted, as on
// Lichess).
func (s *Server) Resign(id, username string) error {
	return s.withPlayer(id, username, "resign", func(g *game, col int) error { return s.resignLocked(g, col) })
}

// Abort aborts game id for username.
func (s *Server) Abort(id, username string) error {
	return s.withPlayer(id, username, "abort", func(g *game, _ int) error { return s.abortLocked(g) })
}

// Draw offers or accepts (yes) or declines (no) a draw for username.
func (s *Server) Draw(id, username string, yes bool) error {
	return s.withPlayer(id, username, "draw", func(g *game, col int) error { return s.drawLocked(g, col, yes) })
}

// Takeback proposes or accepts (yes) or declines (no) a takeback for
// username.
func (s *Server) Takeback(id, username string, yes bool) error {
	return s.withPlayer(id, username, "takeback", func(g *game, col int) error { return s.takebackLocked(g, col, yes) })
}

// Chat writes text in room ("player" or "spectator") of game id as
// username; both players' game streams get a chatLine.
func (s *Server) Chat(id, username, room, text string) error {
	return s.withPlayer(id, username, "chat", func(g *game, col int) error { return s.chatLocked(g, col, room, text) })
}

// SetGone marks username as gone from game id (or back, with gone false).
// The opponent's game streams get opponentGone with claimWinInSeconds
// counting claimWait (0: the server's WithClaimWait default; negative: no
// wait at all), and another with claimWinInSeconds 0 once it has elapsed;
// from then on the opponent may claim victory or a draw.
func (s *Server) SetGone(id, username string, gone bool, claimWait time.Duration) error {
	return s.withPlayer(id, username, "set gone", func(g *game, col int) error {
		switch {
		case claimWait == 0:
			claimWait = s.cfg.goneClaimWait
		case claimWait < 0:
			claimWait = 0
		}
		s.setGoneLocked(g, col, gone, claimWait)
		return nil
	})
}
