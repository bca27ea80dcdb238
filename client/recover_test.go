package client

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// Panics at the goroutine boundaries of a game (see playGame): each subtest
// runs the Bot on two games at once against lichesstest, injects one panic
// into the game against "Broken" only, and sees both games played to
// their end with legal moves (no move refused by the server).

// panicGameFEN is king, queen and rook against a lone king, the bot with
// the pieces: the built-in engine ends the game quickly.
const panicGameFEN = "8/8/8/4k3/8/8/8/KQR5 w - - 0 1"

// panickyPlayer is a Player whose Think panics when panicNow says so (it
// is told the game's opponent and ply).
type panickyPlayer struct {
	Player
	opponent string
	ply      int
	panicNow func(opponent string, ply int) bool
}

func (p *panickyPlayer) NewGame(ctx context.Context, gi GameInfo) error {
	p.opponent = gi.Opponent
	return p.Player.NewGame(ctx, gi)
}

func (p *panickyPlayer) Position(ctx context.Context, moves []string) error {
	p.ply = len(moves)
	return p.Player.Position(ctx, moves)
}

func (p *panickyPlayer) Think(ctx context.Context, c MoveClock) (Choice, error) {
	if p.panicNow(p.opponent, p.ply) {
		panic("injected player panic")
	}
	return p.Player.Think(ctx, c)
}

func TestGamePanicOneGameOfTwo(t *testing.T) {
	const broken, healthy = "Broken", "Healthy"
	var brokenGoodbyes atomic.Int32 // the finish case's
	// inject is called at a boundary of a game with its opponent and ply:
	// it says whether to panic there, once, in the broken game from ply 2.
	for _, tc := range []struct {
		name  string
		hooks func(inject func(opponent string, ply int) bool) *testHooks
		// the player panics (callPlayer) instead of a hook
		player bool
		check  func(t *testing.T, h *harness, ids map[string]string)
	}{
		{name: "worker", hooks: func(inject func(string, int) bool) *testHooks {
			return &testHooks{workerEvent: func(opp string, ev lichess.GameEvent) {
				if ev.Type == lichess.GameEventState && inject(opp, len(strings.Fields(ev.State.Moves))) {
					panic("injected worker panic")
				}
			}}
		}, check: func(t *testing.T, h *harness, ids map[string]string) {
			// The new worker opened the game stream again.
			if n := h.requests("GET /api/bot/game/stream/" + ids[broken]); n < 2 {
				t.Errorf("broken game: stream opened %d times, want a new one after the panic", n)
			}
		}},
		{name: "stream", hooks: func(inject func(string, int) bool) *testHooks {
			return &testHooks{streamEvent: func(opp string, ev lichess.GameEvent) {
				if ev.Type == lichess.GameEventState && inject(opp, len(strings.Fields(ev.State.Moves))) {
					panic("injected stream panic")
				}
			}}
		}, check: func(t *testing.T, h *harness, ids map[string]string) {
			if n := h.requests("GET /api/bot/game/stream/" + ids[broken]); n < 2 {
				t.Errorf("broken game: stream opened %d times, want it reopened after the panic", n)
			}
		}},
		{name: "mover", hooks: func(inject func(string, int) bool) *testHooks {
			return &testHooks{beforePost: func(opp string, ply int) {
				if inject(opp, ply) {
					panic("injected mover panic")
				}
			}}
		}},
		{name: "player", player: true},
		{name: "chat", hooks: func(inject func(string, int) bool) *testHooks {
			return &testHooks{background: func(opp, what string) {
				if what == "chat" && inject(opp, 2) {
					panic("injected chat panic")
				}
			}}
		}, check: func(t *testing.T, h *harness, ids map[string]string) {
			// Only the broken game's greeting is lost.
			for opp, want := range map[string]int{broken: 0, healthy: 1} {
				if n := h.requests("POST /api/bot/game/" + ids[opp] + "/chat"); n != want {
					t.Errorf("%s game: %d chat lines sent, want %d", opp, n, want)
				}
			}
		}},
		{name: "finish", hooks: func(inject func(string, int) bool) *testHooks {
			return &testHooks{saidGoodbye: func(opp string) {
				if opp == broken {
					brokenGoodbyes.Add(1)
				}
				if inject(opp, 2) {
					panic("injected panic after the goodbye")
				}
			}}
		}, check: func(t *testing.T, h *harness, ids map[string]string) {
			// The worker rebuilt after the game ended does not say
			// goodbye (nor save the record) a second time.
			if n := h.requests("GET /api/bot/game/stream/" + ids[broken]); n < 2 {
				t.Errorf("broken game: stream opened %d times, want a new worker after the panic", n)
			}
			if n := brokenGoodbyes.Load(); n != 1 {
				t.Errorf("broken game: goodbye said %d times, want 1", n)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fired atomic.Int32
			inject := func(opponent string, ply int) bool {
				return opponent == broken && ply >= 2 && fired.CompareAndSwap(0, 1)
			}
			h := newHarness(t)
			for _, opp := range []string{broken, healthy} {
				h.addHouse(opp, lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst})
			}
			log, logged := testsupport.CountingLogger(zerolog.ErrorLevel, "panicked")
			builtin := NewBuiltinPlayer(BuiltinOptions{HashMB: 1, TreeMB: 1, MaxDepth: 4, Seed: 1, Logger: zerolog.Nop()})
			factory := builtin
			if tc.player {
				factory = func(ctx context.Context) (Player, error) {
					p, err := builtin(ctx)
					return &panickyPlayer{Player: p, panicNow: inject}, err
				}
			}
			s := Settings{ReconnectMin: 10 * time.Millisecond, ReconnectMax: 100 * time.Millisecond,
				Challenge: ChallengePolicy{MaxGames: 2}, Chat: ChatSettings{Greeting: ChatMessages{Player: "hi"}}}
			// As h.runBot, with the hooks set before Run.
			b := NewBot(h.client(), factory, s, log)
			if tc.hooks != nil {
				b.hooks = tc.hooks(inject)
			}
			ctx, cancel := context.WithCancel(context.Background())
			runDone := make(chan error, 1)
			go func() { runDone <- b.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-runDone; err != nil {
					t.Errorf("Run: %v", err)
				}
			}()
			h.waitFor("the event stream", func() bool { return h.srv.EventStreamOpen(botName) })

			ids := map[string]string{}
			for _, opp := range []string{broken, healthy} {
				// The bot plays white: the pieces.
				ids[opp] = h.challenge(opp, lichesstest.ChallengeParams{ClockLimit: time.Minute, ClockIncrement: time.Second,
					Color: "black", Variant: "fromPosition", FEN: panicGameFEN})
			}
			for _, opp := range []string{broken, healthy} {
				g := h.waitOver(ids[opp])
				t.Logf("%s game: %s after %d plies", opp, g.Status, len(g.Moves))
				if g.Status == "aborted" || g.Status == "outoftime" || g.Status == "timeout" || g.Status == "resign" {
					t.Errorf("%s game ended %s, not played to its end", opp, g.Status)
				}
			}
			// The workers end after the games (the finish case's panic
			// comes then): wait for them before counting panics.
			testsupport.WaitFor(t, "both workers done", func() bool {
				b.mu.Lock()
				defer b.mu.Unlock()
				return len(b.games) == 0
			})
			h.noRefusedMoves()
			for _, id := range ids {
				h.noDuplicatePosts(id)
			}
			if fired.Load() != 1 {
				t.Fatal("the panic was never injected")
			}
			if n := logged.Load(); n != 1 {
				t.Errorf("%d panics logged, want 1", n)
			}
			if tc.check != nil {
				tc.check(t, h, ids)
			}
		})
	}
}
