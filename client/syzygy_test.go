package client

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	chessboard "github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The built-in player with local tables plays the tables' move in a won
// position they hold (in a draw or a loss it searches among the moves that
// keep the result) and hands on their result either way (from our side, a
// cursed win kept apart) as Choice.TB with source syzygy; without the
// tables, or in a position they do not hold, the result is not known.
func TestBuiltinPlayerTablebaseResult(t *testing.T) {
	tb := testsupport.Syzygy(t)
	for _, tc := range []struct {
		name   string
		tables bool
		fen    string
		white  bool
		known  bool
		wdl    int
		source string
	}{
		{"win", true, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true, true, 2, "tablebase"},
		{"loss", true, "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", false, true, -2, "search"},
		{"draw", true, "4k3/8/8/8/8/8/r7/4K2R w - - 0 1", true, true, 0, "search"},
		{"cursed win", true, "8/8/8/8/8/3k4/7r/QK6 w - - 98 60", true, true, 1, "tablebase"},
		{"too many pieces", true, "4k3/pp6/8/8/8/8/PP6/3QK3 w - - 0 1", true, false, 0, "search"},
		{"no tables", false, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true, false, 0, "search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			opts := BuiltinOptions{HashMB: 1, TreeMB: 1, MaxDepth: 3, Seed: 1, Logger: testsupport.Logger(t)}
			if tc.tables {
				opts.Tablebase = tb
			}
			p, _ := NewBuiltinPlayer(opts)(ctx)
			defer p.Close()
			if err := p.NewGame(ctx, GameInfo{ID: "g", White: tc.white, InitialFEN: tc.fen, Variant: "fromPosition"}); err != nil {
				t.Fatal(err)
			}
			if err := p.Position(ctx, nil); err != nil {
				t.Fatal(err)
			}
			c, err := p.Think(ctx, MoveClock{WTime: time.Minute, BTime: time.Minute, White: tc.white, Running: true, Deadline: time.Now().Add(time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			want := TBResult{}
			if tc.known {
				want = TBResult{Known: true, WDL: tc.wdl, Source: "syzygy"}
			}
			if c.TB != want || c.Source != tc.source {
				t.Errorf("move %s from %s, TB %+v; want from %s, TB %+v", c.Move, c.Source, c.TB, tc.source, want)
			}
		})
	}
}

// End to end with the built-in engine and local tables (game.draw with
// tablebase on): an offer that comes with the opponent's move is answered
// with our next move, by the tables' result for the offer's position: a
// tablebase win is declined, a tablebase draw accepted (our move offers a
// draw, which agrees to theirs). Without Choice.TB the tables' move has no
// score, and both would go by the score rule (here: accept).
func TestBuiltinDrawAnswerByLocalTablebase(t *testing.T) {
	tb := testsupport.Syzygy(t)
	for _, tc := range []struct {
		name string
		fen  string
		want string
	}{
		{"win", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "no"},
		{"draw", "4k3/8/8/8/8/8/r7/4K2R w - - 0 1", "yes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			h.wrap = func(PlayerFactory) PlayerFactory {
				return NewBuiltinPlayer(BuiltinOptions{HashMB: 1, TreeMB: 1, MaxDepth: 3, Seed: 1, Tablebase: tb, Logger: testsupport.Logger(t)})
			}
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{FEN: tc.fen})
			// A level score would accept: only the tables decline the win.
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 100000, DrawTablebase: true}}
			_, stop := h.runBot(s, &playerPool{})
			h.waitPlies(id, 1)
			reply := firstLegalReply(t, tc.fen, h.game(id).Moves)
			if err := h.srv.MoveOfferingDraw(id, "opponent", reply); err != nil {
				t.Fatal(err)
			}
			got, offers := h.drawAnswer(id)
			stop()
			if got != tc.want {
				t.Errorf("draw answer %s (our offers %s), want %s", got, offers, tc.want)
			}
		})
	}
}

// firstLegalReply is the first legal move after moves from fen.
func firstLegalReply(t *testing.T, fen string, moves []string) string {
	t.Helper()
	p, err := chessboard.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range moves {
		m, err := p.ParseUCIMove(u)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
	var ml chessboard.MoveList
	p.GenerateLegal(&ml)
	if ml.N == 0 {
		t.Fatalf("no legal reply after %v", moves)
	}
	return p.MoveToUCI(ml.Moves[0])
}

// End to end with the built-in engine and local tables: with
// game.resign.tablebase the bot resigns at its first move in a position
// the tables prove lost (no score is needed; before both sides moved,
// Lichess makes it an abort); without it, it plays on.
func TestBuiltinResignsByLocalTablebase(t *testing.T) {
	tb := testsupport.Syzygy(t)
	const fen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1" // KQvK, we are Black
	for _, tc := range []struct {
		name   string
		on     bool
		resign bool
	}{
		{"on", true, true},
		{"off", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			builtin := NewBuiltinPlayer(BuiltinOptions{HashMB: 1, TreeMB: 1, MaxDepth: 3, Seed: 1, Tablebase: tb, Logger: testsupport.Logger(t)})
			h.wrap = func(PlayerFactory) PlayerFactory { return builtin }
			id := h.startGame("opponent", false, lichesstest.ChallengeParams{FEN: fen})
			s := Settings{Game: GameSettings{ResignTablebase: tc.on}}
			_, stop := h.runBot(s, &playerPool{})
			if err := h.srv.Move(id, "opponent", firstLegalReply(t, fen, nil)); err != nil {
				t.Fatal(err)
			}
			if tc.resign {
				g := h.waitOver(id)
				stop()
				// Lichess (and lichesstest) turns a resignation before
				// both sides moved into an abort.
				if acts := h.actions(id); !slices.Equal(acts, []string{"resign"}) || len(g.Moves) != 1 || (g.Status != "resign" && g.Status != "aborted") {
					t.Errorf("game %s/%s after %d plies, actions %v; want our resignation at our first move", g.Status, g.Winner, len(g.Moves), acts)
				}
				return
			}
			h.waitPlies(id, 2)
			stop()
			if g := h.game(id); g.Finished {
				t.Errorf("game over (%s) with resign.tablebase off", g.Status)
			}
		})
	}
}
