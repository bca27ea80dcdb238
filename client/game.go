package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// gameWorker plays one game: it follows the game stream, keeps the
// position, asks the Player for our moves by the move's deadline, posts
// them (once per ply), and handles draw and takeback offers, an absent
// opponent, the chat, and the record at the end.
//
// One goroutine (run) owns all fields; the mover goroutine (think and post
// one move) owns the Player while it runs, and run touches the Player only
// when no mover runs. A panic on any of its goroutines is recovered there
// and logged; one on run's makes the Bot start a new worker (playGame).
type gameWorker struct {
	bot      *Bot
	c        *lichess.Client
	id       string
	opponent string // the opponent's username at the start; never changes (the Bot counts games per user by it)
	s        Settings
	me       string
	log      zerolog.Logger
	done     chan struct{} // closed when run returns

	player Player          // owned by the mover while one runs
	gctx   context.Context // the game's context (for Ponder, which outlives a mover)
	bgctx  context.Context // the bot's context: requests that may outlive the game (goodbye, answers)

	full *lichess.GameFull
	// facts are the game's facts for the Observer, set at the first
	// gameFull before any mover runs and never changed (the mover reads
	// them; full is rewritten after a stream reconnect).
	facts      GameFacts
	info       GameInfo
	white      bool
	moves      []string // as Lichess sends them
	canon      []string // canonical UCI, for the Player
	b          board
	state      lichess.GameState
	receivedAt time.Time
	finished   bool

	moverCancel context.CancelFunc
	moverPly    int // ply the mover works on; -1: none
	moverDone   chan moveResult
	postedPly   int            // ply of the last move posted; -1: none
	failed      map[int]int    // ply → failed posts
	moverPanics map[int]int    // ply → movers that panicked
	choices     map[int]Choice // by ply, for the record

	badMoves int // our moves in a row with a lost evaluation (mover-owned)

	evalMu   sync.Mutex
	lastEval *Choice  // set by the mover before it posts; for !eval and draw offers
	lastTB   TBResult // the tablebase result of our last move (unknown if none); for draw offers
	// lastTBPly is the ply of the position lastTB is for (-1: none): a
	// result for an earlier position answers no offer (game_offers.go).
	lastTBPly int
	// their is the opponent's draw offer that the mover must know of
	// (game_offers.go).
	their theirOffer

	offers drawOffers // the draw-offer rule's state after our last posted move (drawoffer.go)

	greeted         bool
	saidGoodbye     bool // finish said goodbye (a rebuilt worker does not again)
	recordSaved     bool // finish saved the game's record (likewise)
	archived        bool // finish gave the game to the store (likewise)
	drawAnswered    int  // ply at which the last draw offer was answered
	takebackAnswers int  // ply at which the last takeback offer was answered
	abortTimer      *time.Timer
	abortC          <-chan time.Time
	claimTimer      *time.Timer
	claimC          <-chan time.Time

	// Correspondence (correspondence.go). corr is written under Bot.mu
	// (the Bot counts slots by it) and only by this worker once it runs.
	corr bool
	park bool // run returned to wait for the opponent without a stream
	// wake and wakeEnd (guarded by Bot.mu) say that Lichess told of a move
	// (gameStart) or of the end (gameFinish) of this correspondence game
	// while the worker ran: if it parks, a check-in follows at once (it
	// takes the game up if the move is ours), or for the end a new worker
	// (goodbye, record).
	wake, wakeEnd   bool
	draining        bool // the Bot drains: let the stream go as soon as we wait
	disconnectTimer *time.Timer
	disconnectC     <-chan time.Time

	view gameView // for viewers (view.go)
}

func newGameWorker(b *Bot, id string, s Settings, opponent string) *gameWorker {
	return &gameWorker{
		bot:             b,
		c:               b.c,
		id:              id,
		opponent:        opponent,
		s:               s,
		me:              b.me.ID,
		log:             b.log.With().Str("game", id).Str("opponent", opponent).Logger(),
		done:            make(chan struct{}),
		moverPly:        -1,
		moverDone:       make(chan moveResult, 1),
		postedPly:       -1,
		failed:          map[int]int{},
		moverPanics:     map[int]int{},
		choices:         map[int]Choice{},
		drawAnswered:    -1,
		lastTBPly:       -1,
		their:           theirOffer{ply: -1},
		takebackAnswers: -1,
	}
}

// l is the game logger with the current ply.
func (g *gameWorker) l() *zerolog.Logger {
	l := g.log.With().Int("ply", len(g.moves)).Logger()
	return &l
}

// streamMsg is what the stream goroutine hands to run.
type streamMsg struct {
	ev  lichess.GameEvent
	end error // non-nil: the stream is gone for good (game not found)
}

// run plays the game until it ends or ctx ends.
func (g *gameWorker) run(ctx context.Context) {
	defer close(g.done)
	g.bgctx = ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g.gctx = ctx
	msgs := make(chan streamMsg, 64)
	go g.streamLoop(ctx, msgs)
	g.l().Info().Bool("correspondence", g.corr).Msg("game worker started")
	defer g.cleanup()
	drainC := g.bot.drainC
	for !g.finished {
		g.updateDisconnectTimer()
		select {
		case <-ctx.Done():
			g.l().Info().Msg("game worker stopped before the end of the game")
			return
		case m := <-msgs:
			if m.end != nil {
				g.l().Warn().Err(m.end).Msg("game stream gone; leaving the game")
				return
			}
			if h := g.bot.hooks; h != nil && h.workerEvent != nil {
				h.workerEvent(g.opponent, m.ev)
			}
			g.handle(ctx, m.ev)
		case r := <-g.moverDone:
			g.moverResult(ctx, r)
		case <-g.abortC:
			g.abortC = nil
			g.abortNow(ctx)
		case <-g.claimC:
			g.claimC = nil
			g.claim(ctx)
		case <-g.disconnectC:
			g.disconnectTimer, g.disconnectC = nil, nil
			// Not with events still unread: the opponent's move may be
			// among them (the timer is armed again after them).
			if g.corr && !g.ourTurn() && g.moverPly < 0 && len(msgs) == 0 {
				g.park = true
				return
			}
		case <-drainC:
			drainC = nil
			g.onDrain()
		}
	}
}

// streamLoop keeps the game stream open while the game runs, reopening it
// with backoff when it drops (or its reader panicked: each new stream
// starts with a gameFull, which resyncs the worker).
func (g *gameWorker) streamLoop(ctx context.Context, msgs chan<- streamMsg) {
	bo := backoff{min: g.s.ReconnectMin, max: g.s.ReconnectMax}
	for ctx.Err() == nil {
		got, err := g.streamOnce(ctx, msgs)
		if ctx.Err() != nil {
			return
		}
		if code := lichess.StatusCode(err); code == http.StatusNotFound || code == http.StatusBadRequest {
			select {
			case msgs <- streamMsg{end: err}:
			case <-ctx.Done():
			}
			return
		}
		if got {
			bo.reset()
		}
		d := bo.next()
		ev := g.log.Info()
		if errors.Is(err, lichess.ErrStreamEnded) {
			ev = g.log.Debug() // usually the end of the game
		}
		ev.Err(err).Dur("retry_in", d).Msg("game stream closed; reconnecting")
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
	}
}

// streamOnce reads the game stream until it ends, handing its events to
// run; got says whether any came. A panic while reading is logged with its
// stack and returned as an error (got false, so that a stream that keeps
// panicking is reopened with a growing backoff).
func (g *gameWorker) streamOnce(ctx context.Context, msgs chan<- streamMsg) (got bool, err error) {
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(g.log, e, "game stream reader panicked; reopening the stream")
		got, err = false, fmt.Errorf("game stream: %w", e)
	})
	err = g.c.StreamGame(ctx, g.id, func(ev lichess.GameEvent) error {
		got = true
		if h := g.bot.hooks; h != nil && h.streamEvent != nil {
			h.streamEvent(g.opponent, ev)
		}
		select {
		case msgs <- streamMsg{ev: ev}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return got, err
}

func (g *gameWorker) handle(ctx context.Context, ev lichess.GameEvent) {
	switch ev.Type {
	case lichess.GameEventFull:
		g.onFull(ctx, ev.Full)
	case lichess.GameEventState:
		if g.full == nil {
			g.l().Debug().Msg("gameState before gameFull; ignored")
			return
		}
		g.onState(ctx, *ev.State)
	case lichess.GameEventChatLine:
		g.onChat(ctx, ev.Chat)
	case lichess.GameEventOpponentGone:
		g.onOpponentGone(ctx, ev.OpponentGone)
	}
}

func (g *gameWorker) onFull(ctx context.Context, f *lichess.GameFull) {
	first := g.full == nil
	g.full = f
	if first && !g.corr && corrGameFull(f) {
		g.bot.mu.Lock()
		g.corr = true // Lichess's listing did not say; the Bot counts it now
		g.bot.mu.Unlock()
	}
	if first {
		g.facts = GameFacts{ID: g.id, Speed: f.Speed, Variant: f.Variant.Key, Rated: f.Rated}
		g.white = strings.EqualFold(f.White.ID, g.me)
		opp := f.Black
		if !g.white {
			opp = f.White
		}
		fen := f.InitialFEN
		if fen == "startpos" {
			fen = ""
		}
		g.info = GameInfo{ID: g.id, Variant: f.Variant.Key, Chess960: f.Variant.Key == "chess960",
			InitialFEN: fen, White: g.white, Opponent: opp.Name, Rated: f.Rated}
		if f.Clock != nil {
			g.info.Initial = time.Duration(f.Clock.Initial) * time.Millisecond
			g.info.Increment = time.Duration(f.Clock.Increment) * time.Millisecond
		}
		g.logStart(f, opp)
		if f.TournamentID != "" && opp.Title == "BOT" && len(strings.Fields(f.State.Moves)) == 0 {
			// An arena's game against a bot counts toward the daily limit
			// (the challenges' games are counted as they start). One with
			// moves already is a restart's: counted before it.
			g.bot.countArenaBotGame(g.id)
		}
		g.viewFull(f)
		b, err := newBoard(f.Variant.Key, f.InitialFEN, nil)
		if err != nil {
			// Not told to the Observer: a game it heard start would
			// never be heard to end (finish is not called).
			g.l().Error().Err(err).Msg("cannot follow this game; resigning")
			g.background(ctx, "resign", func(ctx context.Context) error { return g.c.Resign(ctx, g.id) })
			g.finished = true
			return
		}
		if g.bot.noteStarted(g.id) {
			g.bot.obs.GameStarted(g.gameFacts())
		}
		g.b = b
		g.moves, g.canon = nil, nil
	}
	g.onState(ctx, f.State)
	if first && !g.finished && !g.greeted && len(g.moves) < 2 {
		g.greeted = true
		g.sayBoth(ctx, g.s.Chat.Greeting)
	}
}

func (g *gameWorker) onState(ctx context.Context, st lichess.GameState) {
	g.state = st
	g.receivedAt = time.Now()
	g.viewState(st, g.receivedAt)
	if err := g.syncMoves(strings.Fields(st.Moves)); err != nil {
		g.l().Error().Err(err).Msg("cannot follow the moves")
		return
	}
	if st.Status != "" && st.Status != "created" && st.Status != "started" {
		g.finish(ctx, st)
		return
	}
	g.updateAbortTimer()
	g.answerOffers(ctx, st)
	g.maybeMove(ctx)
}

// syncMoves brings the board to the moves of a state: new moves are
// applied; anything else (a takeback) rebuilds it from the start.
//
// g.moves keeps the moves as Lichess writes them (to compare states);
// g.canon the same moves in the board's canonical UCI (castling e1g1 in
// standard chess, king takes rook in Chess960), as the Player gets them.
func (g *gameWorker) syncMoves(moves []string) error {
	if len(moves) >= len(g.moves) && slices.Equal(moves[:len(g.moves)], g.moves) {
		for _, m := range moves[len(g.moves):] {
			c, err := g.b.Legal(m)
			if err == nil {
				err = g.b.Play(m)
			}
			if err != nil {
				return fmt.Errorf("apply move %s: %w", m, err)
			}
			g.moves = append(g.moves, m)
			g.canon = append(g.canon, c)
		}
		return nil
	}
	b, err := newBoard(g.full.Variant.Key, g.full.InitialFEN, nil)
	if err != nil {
		return err
	}
	var canon []string
	for _, m := range moves {
		c, err := b.Legal(m)
		if err == nil {
			err = b.Play(m)
		}
		if err != nil {
			return fmt.Errorf("replay move %s: %w", m, err)
		}
		canon = append(canon, c)
	}
	g.l().Info().Int("from_ply", len(g.moves)).Int("to_ply", len(moves)).Msg("moves taken back")
	g.b, g.moves, g.canon = b, slices.Clone(moves), canon
	g.postedPly = -1
	g.evalMu.Lock()
	g.their = theirOffer{ply: -1} // an offer before the takeback is gone
	g.evalMu.Unlock()
	if g.moverCancel != nil && g.moverPly != len(moves) {
		g.moverCancel()
	}
	return nil
}

func (g *gameWorker) ourTurn() bool { return g.b != nil && g.b.WhiteToMove() == g.white }

// logStart logs the game's first gameFull: its URL, our colour, the
// variant, the clock and the opponent. A game with moves already (a
// restart, a rebuilt worker, a correspondence game taken up) is "joined".
func (g *gameWorker) logStart(f *lichess.GameFull, opp lichess.GamePlayer) {
	msg := "game started"
	if n := len(strings.Fields(f.State.Moves)); n > 0 {
		msg = "game joined"
	}
	ev := g.l().Info().Str("url", g.bot.gameURL(g.id)).Str("color", colorName(g.white)).
		Str("variant", f.Variant.Key).Str("speed", f.Speed).Bool("rated", f.Rated).
		Int("opponent_rating", opp.Rating)
	if opp.Title != "" {
		ev = ev.Str("opponent_title", opp.Title)
	}
	if f.Clock != nil {
		ev = ev.Dur("initial", time.Duration(f.Clock.Initial)*time.Millisecond).
			Dur("increment", time.Duration(f.Clock.Increment)*time.Millisecond)
	}
	if f.DaysPerTurn > 0 {
		ev = ev.Int("days_per_turn", f.DaysPerTurn)
	}
	ev.Msg(msg)
}

func colorName(white bool) string {
	if white {
		return "white"
	}
	return "black"
}

// Results from the bot's side, as logged at the end of a game.
const (
	resultWin     = "win"
	resultLoss    = "loss"
	resultDraw    = "draw"
	resultAborted = "aborted"
	resultUnknown = "unknown"
)

// gameResult is the result of a finished game for the player of color
// (white or black): status and winner as Lichess gives them. A game with
// a winner is a win or a loss; an aborted one (or one whose first move
// never came) is aborted; any other end without a winner (a draw, a
// stalemate, a flag against a lone king) is a draw.
func gameResult(status, winner, color string) string {
	switch {
	case winner != "" && color == "":
		return resultUnknown // whose side we were on was not said
	case winner != "" && winner == color:
		return resultWin
	case winner != "":
		return resultLoss
	case status == "aborted" || status == "noStart":
		return resultAborted
	case status == "unknownFinish" || status == "" || status == "created" || status == "started":
		return resultUnknown
	}
	return resultDraw
}

// finish ends the game: stops the mover, tells the player, says goodbye
// and saves the record.
//
// The end is told (Observer, the player's ResultTaker) by the first worker
// of the game to get here: a worker rebuilt after a panic in finish hears
// the end again from its gameFull. The rest (goodbye, record, archive) is
// done by whichever worker has not done it (rebuilt keeps those flags).
// A record or archive write that fails is not tried again by any worker:
// its flag is set whatever the result (the store spools an archive write
// it could not make, ErrRecordKept; only the PGN file is lost).
func (g *gameWorker) finish(ctx context.Context, st lichess.GameState) {
	g.finished = true
	// The rating change comes with Lichess' gameFinish event ("game
	// finished", logged by the Bot), not with the game stream.
	g.l().Info().Str("result", gameResult(st.Status, st.Winner, colorName(g.white))).Str("termination", st.Status).
		Str("status", st.Status).Str("winner", st.Winner).Str("color", colorName(g.white)).
		Str("url", g.bot.gameURL(g.id)).Msg("game over")
	// The mover first: a move it posted is told to the Observer before
	// the end.
	g.stopMover()
	first := g.bot.noteEnded(g.id, time.Now())
	if first {
		g.bot.obs.GameFinished(g.gameFacts(), gameResult(st.Status, st.Winner, colorName(g.white)))
	}
	if p := g.player; p != nil {
		if err := playerCall(*g.l(), "end game", func() error { return p.EndGame(ctx) }); err != nil {
			g.l().Debug().Err(err).Msg("player end game")
		}
		if rt, ok := p.(ResultTaker); ok && first {
			res := gameResult(st.Status, st.Winner, colorName(g.white))
			_ = playerCall(*g.l(), "game result", func() error { rt.GameResult(res); return nil })
		}
	}
	if !g.saidGoodbye {
		g.saidGoodbye = true
		g.sayBoth(ctx, g.s.Chat.Goodbye)
		if h := g.bot.hooks; h != nil && h.saidGoodbye != nil {
			h.saidGoodbye(g.opponent)
		}
	}
	if g.s.PGNDir != "" && !g.recordSaved {
		path, err := g.saveRecord(st)
		g.recordSaved = true
		if err != nil {
			g.l().Error().Err(err).Msg("save game record")
		} else {
			g.l().Info().Str("path", path).Msg("game record saved")
		}
	}
	g.archive(ctx, st)
}

// endedMemory is how long the Bot remembers a game it saw end (Bot.ended):
// Lichess may list a game as in progress for a moment after its end (the
// event stream's opening, GET /api/account/playing; seen for seconds, an
// observation, not a documented bound), and a game never starts again.
const endedMemory = 24 * time.Hour

// endedPruneEvery is how often, at most, noteEnded forgets the games that
// ended more than endedMemory ago: the scan runs under the Bot's lock, and
// a game remembered a little longer does no harm.
const endedPruneEvery = time.Hour

// noteEnded records that a worker saw game id end and reports whether it
// is the first of this process to: only that one tells the end. Games
// that ended more than endedMemory ago are forgotten (once an hour, as a
// game ends).
func (b *Bot) noteEnded(id string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.endedPruned) >= endedPruneEvery {
		b.endedPruned = now
		for k, t := range b.ended {
			if now.Sub(t) > endedMemory {
				delete(b.ended, k)
			}
		}
	}
	if b.endedLocked(id) {
		return false
	}
	b.ended[id] = now
	delete(b.started, id)
	return true
}

// noteStarted records that a worker of game id follows it and reports
// whether it is the first of this process to: only that one tells the
// Observer the game started. A correspondence game taken up again, a
// worker rebuilt after a panic, and one rebuilt after a panic in finish
// (the end already told) are not told again; a game that starts again
// after a restart is.
func (b *Bot) noteStarted(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started[id] || b.endedLocked(id) {
		return false
	}
	b.started[id] = true
	return true
}

// endedLocked reports whether a worker of this process saw game id end.
func (b *Bot) endedLocked(id string) bool {
	_, ok := b.ended[id]
	return ok
}

// stopMover cancels a running mover and waits for it.
func (g *gameWorker) stopMover() {
	if g.moverCancel == nil {
		return
	}
	g.moverCancel()
	r := <-g.moverDone
	g.moverCancel, g.moverPly = nil, -1
	if r.err == nil || g.playedAt(r.ply, r.choice.Move) {
		// A move whose post was cut short by the end of the game may have
		// reached Lichess all the same: the game says so.
		g.choices[r.ply] = r.choice
		if r.err != nil {
			g.bot.obs.MovePlayed(g.gameFacts(), r.choice)
		}
	}
}

// playedAt says whether move m (UCI) was played at ply.
func (g *gameWorker) playedAt(ply int, m string) bool {
	return m != "" && ply >= 0 && ((ply < len(g.moves) && g.moves[ply] == m) || (ply < len(g.canon) && g.canon[ply] == m))
}

func (g *gameWorker) cleanup() {
	g.stopMover()
	for _, t := range []*time.Timer{g.abortTimer, g.claimTimer, g.disconnectTimer} {
		if t != nil {
			t.Stop()
		}
	}
	g.view.update(func(v *GameView) { v.Game = nil })
	if g.player != nil {
		p := g.player
		g.player = nil
		if err := playerCall(*g.l(), "close", p.Close); err != nil {
			g.l().Debug().Err(err).Msg("close player")
		}
	}
}
