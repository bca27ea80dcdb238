package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// A panic in a game ends neither the daemon nor another game. Every
// goroutine of a game recovers it at its top (internal/panics) and logs it
// with its stack on the game's logger; then only what that goroutine was
// doing is lost:
//
//   - the worker (gameWorker.run): the Bot makes a new worker for the game,
//     which opens the game stream again and resyncs from its gameFull
//     (playGame; after maxWorkerRebuilds panics the game is left);
//   - the game stream's reader (streamLoop): the stream is opened again;
//   - the mover: the player is dropped and the ply is played by a fallback
//     mover (moveJob.fallback), unless the move was already posted;
//   - a call into the Player (playerCall, callPlayer): an error; a panicking
//     Think (or the built-in engine's search, ponder.SearchPanic) gets the
//     fallback move without a retry;
//   - a background request or chat line: that request.
//
// The Bot's own event handling, challenge answers and matchmaking rounds
// recover the same way (that event or round is lost).

// maxWorkerRebuilds is how many times a game's worker is made anew after a
// panic; a worker that panics once more leaves the game (a later rejoin
// may pick it up again).
const maxWorkerRebuilds = 3

// testHooks let tests inject panics at the goroutine boundaries of a game
// (Bot.hooks; nil outside tests). Each is told the game's opponent, which
// tests give a name of its own per game.
type testHooks struct {
	workerEvent func(opponent string, ev lichess.GameEvent) // on the worker, before it handles ev
	streamEvent func(opponent string, ev lichess.GameEvent) // on the stream reader, as ev is read
	beforePost  func(opponent string, ply int)              // on the mover, before our move is posted
	background  func(opponent, what string)                 // on a background request's goroutine ("chat": a chat line's)
	saidGoodbye func(opponent string)                       // on the worker, in finish, after the goodbye
	keepEvent   func(ev lichess.Event) bool                 // on the event stream: false loses ev (as if never sent)
}

// playGame runs the worker of a game until the game or ctx ends. A panic on
// the worker's goroutine has already run the worker's cleanup (mover
// stopped, player closed) when runRecovering returns it; a new worker for
// the same game then takes over from the game stream's gameFull.
func (b *Bot) playGame(ctx context.Context, g *gameWorker) {
	for rebuilds := 0; ; rebuilds++ {
		if g.runRecovering(ctx) == nil || ctx.Err() != nil {
			return
		}
		if rebuilds == maxWorkerRebuilds {
			g.log.Error().Int("panics", rebuilds+1).Msg("game worker keeps panicking; leaving the game")
			return
		}
		g = g.rebuilt()
		b.mu.Lock()
		b.games[g.id] = g
		b.mu.Unlock()
	}
}

// runRecovering is run, returning a panic on the worker's goroutine
// (logged with its stack) instead of ending the process.
func (g *gameWorker) runRecovering(ctx context.Context) (perr *panics.Error) {
	defer panics.Recover(func(e *panics.Error) {
		perr = e
		panics.Log(*g.l(), e, "game worker panicked; rebuilding it from the game stream")
	})
	g.run(ctx)
	return nil
}

// rebuilt returns a new worker for g's game, to run after g panicked: it
// starts from nothing but the game stream (gameFull: the position, the
// clocks, the offers), keeping only what must not happen twice (the
// greeting, the answers to the offers of a ply, the goodbye and the saved
// record of a game that ended) and the choices for the record.
func (g *gameWorker) rebuilt() *gameWorker {
	n := newGameWorker(g.bot, g.id, g.s, g.opponent)
	n.greeted = g.greeted
	n.drawAnswered, n.takebackAnswers = g.drawAnswered, g.takebackAnswers
	n.saidGoodbye, n.recordSaved, n.archived = g.saidGoodbye, g.recordSaved, g.archived
	n.choices = g.choices
	n.corr = g.corr
	return n
}

// moveRecovering runs think on the mover goroutine. A panic there is
// logged with its stack, the player (in an unknown state) is dropped, and
// unless the move was already posted the result is the panic, for which the
// worker starts a fallback mover for the ply.
func (g *gameWorker) moveRecovering(ctx context.Context, j moveJob) (res moveResult) {
	res.ply = j.ply
	defer panics.Recover(func(e *panics.Error) {
		log := g.log.With().Int("ply", j.ply).Logger()
		panics.Log(log, e, "mover panicked; dropping the player")
		g.dropPlayer(log)
		if !res.posted {
			res.err = fmt.Errorf("mover: %w", e)
		}
	})
	g.think(ctx, j, &res)
	return res
}

// dropPlayer closes the player in the background (it may hang) and forgets
// it; the next move makes a new one. Mover-owned, like the player.
func (g *gameWorker) dropPlayer(log zerolog.Logger) {
	if p := g.player; p != nil {
		g.player = nil
		go closePlayer(p, log)
	}
}

// closePlayer closes p (on a goroutine of its own: it may block on a hung
// engine).
func closePlayer(p Player, log zerolog.Logger) {
	if err := playerCall(log, "close", p.Close); err != nil {
		log.Debug().Err(err).Msg("close player")
	}
}

// playerCall runs one call into a Player (code plugged into the bot: the
// built-in engine, an external engine's driver): a panic in it is logged
// with its stack and returned as an error.
func playerCall(log zerolog.Logger, what string, f func() error) (err error) {
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(log, e, "player panicked in "+what)
		err = fmt.Errorf("player %s: %w", what, e)
	})
	return f()
}

// isPanic reports whether a Player's error is a recovered panic: its own
// (playerCall, callPlayer) or its search's (ponder.SearchPanic).
func isPanic(err error) bool {
	var sp *ponder.SearchPanic
	return panics.Is(err) || errors.As(err, &sp)
}

// goRecovering runs f on a goroutine of its own; a panic in it is logged
// with its stack on log and ends only f.
func goRecovering(log zerolog.Logger, what string, f func()) {
	go func() {
		defer panics.Recover(func(e *panics.Error) { panics.Log(log, e, what+" panicked") })
		f()
	}()
}
