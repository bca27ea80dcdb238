package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Bot is the daemon: it follows the incoming-events stream, answers
// challenges by its ChallengePolicy (queueing those that find every slot
// busy, see queue.go), runs one game worker per game, rejoins
// games in progress on start-up and after each reconnect, and (when enabled)
// challenges other bots while a slot is free.
//
// Stopping: Drain stops accepting challenges and matchmaking and waits for
// the running games to finish (bounded by its context); cancelling Run's
// context stops everything at once (games in progress are rejoined by the
// next Run).
type Bot struct {
	c       *lichess.Client
	factory PlayerFactory
	log     zerolog.Logger
	latency latencyEWMA

	mu       sync.Mutex
	settings Settings
	me       lichess.Account
	games    map[string]*gameWorker
	pending  map[string]pendingGame // accepted challenges whose game has not started
	queue    challengeQueue         // challenges waiting for a slot
	declined map[string]time.Time   // challenges we declined lately: not answered again when sent again
	// acceptRetry is acceptRetryDelay (tests shorten it).
	acceptRetry time.Duration
	// recoverPace and recoverRetry are recoverPaceDefault and
	// recoverRetryDefault (archive_recover.go; tests shorten them).
	recoverPace, recoverRetry time.Duration
	parked                    map[string]parkedGame // correspondence games waiting without a worker (correspondence.go)
	// ended are the games whose end a worker of this process saw, with
	// when (noteEnded): the end is told once per game, and a game that
	// Lichess still lists as in progress after it ended gets no worker.
	ended       map[string]time.Time
	endedPruned time.Time // when noteEnded last forgot old ends
	// started are the games told to the Observer as started and not
	// yet ended (noteStarted): a game is told started once, however
	// many workers it has.
	started     map[string]bool
	draining    bool
	drainC      chan struct{} // closed when draining begins
	idleFrom    time.Time
	changed     chan struct{} // closed and replaced when games, slots, the queue, settings or draining change
	botGames    dailyCounter
	store       Store        // nil: none (SetStore)
	storeC      chan storeOp // counter updates for the store writer
	stateLoaded bool         // loadState ran (a second Run does not count twice)
	mm          matchState
	arenas      arenaState // arena tournaments (tournament.go)
	eventsOpen  bool       // the event stream is open: arenas ask for pairings only then
	wg          sync.WaitGroup
	hooks       *testHooks // set by tests before Run; nil otherwise
	obs         Observer   // never nil (nopObserver): WithObserver
}

// NewBot makes a bot that plays with players from factory.
func NewBot(c *lichess.Client, factory PlayerFactory, s Settings, log zerolog.Logger, opts ...BotOption) *Bot {
	b := &Bot{
		c:            c,
		factory:      factory,
		log:          log,
		settings:     s.withDefaults(),
		games:        map[string]*gameWorker{},
		pending:      map[string]pendingGame{},
		declined:     map[string]time.Time{},
		acceptRetry:  acceptRetryDelay,
		recoverPace:  recoverPaceDefault,
		recoverRetry: recoverRetryDefault,
		parked:       map[string]parkedGame{},
		ended:        map[string]time.Time{},
		started:      map[string]bool{},
		changed:      make(chan struct{}),
		drainC:       make(chan struct{}),
		mm:           matchState{declined: map[string]time.Time{}},
		storeC:       make(chan storeOp, 256),
		obs:          nopObserver{},
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Settings returns the current settings (with defaults filled in).
func (b *Bot) Settings() Settings {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.settings
}

// UpdateSettings replaces the settings; games already running keep theirs.
func (b *Bot) UpdateSettings(s Settings) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.settings = s.withDefaults()
	b.notifyLocked()       // the queue may fit more games now
	b.rereadArenasLocked() // `ponderosa tournament join` may have recorded arenas meanwhile
	b.log.Info().Msg("settings updated")
}

// Games returns the ids of the games being played.
func (b *Bot) Games() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.games))
}

// notifyLocked wakes whoever waits for a change; b.mu must be held.
func (b *Bot) notifyLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Run plays until ctx ends. It checks the token (bot:play scope) and that
// the account is a Bot account, then streams events, reconnecting with
// backoff. It returns after all game workers have stopped.
//
// Once Lichess refuses the token (lichess.Client.TokenRefused: a 401 that
// GET /api/account confirms, or a 403 to the event stream: it was
// revoked), nothing more can be done with it: Run
// stops everything at once, games in progress included (they cannot be
// played without the token), and returns an error matching
// lichess.ErrTokenRefused.
func (b *Bot) Run(ctx context.Context) error {
	acct, err := b.checkToken(ctx)
	if err != nil {
		return err
	}
	if !acct.IsBot() {
		return fmt.Errorf("account %s %w: upgrade it once with `curl -d '' %s/api/bot/account/upgrade -H \"Authorization: Bearer <token>\"` (irreversible; the account must not have played any game)", acct.Username, lichess.ErrNotBot, b.c.BaseURL())
	}
	b.mu.Lock()
	b.me = acct
	b.idleFrom = time.Now()
	b.mm.corrIdleFrom = b.idleFrom
	b.mu.Unlock()
	b.log.Info().Str("account", acct.Username).Msg("bot started")
	b.loadState(ctx)
	as := b.arenaStore()
	if as != nil {
		b.loadArenas(ctx, as)
	}

	defer b.wg.Wait() // runs after cancel: every goroutine sees the end
	ctx, cancel := context.WithCancelCause(ctx)
	rejoined := make(chan struct{}) // closed after the first rejoin
	defer cancel(nil)
	if s := b.storeOf(); s != nil {
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.storeWriter(ctx, s) }()
		// The games an earlier run began and never archived, once the
		// games in progress are known (rejoin).
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.recoverLoop(ctx, rejoined) }()
	}
	refused := b.c.TokenRefused()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		select {
		case <-refused:
			cancel(lichess.ErrTokenRefused)
		case <-ctx.Done():
		}
	}()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.matchmaker(ctx) }()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.queueLoop(ctx) }()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.checkinLoop(ctx) }()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.arenaLoop(ctx) }()
	if as != nil {
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.arenaStoreLoop(ctx, as) }()
	}

	var bo backoff
	for first := true; ctx.Err() == nil; first = false {
		b.rejoin(ctx)
		if first { // after the rejoin: games in progress keep their slots
			close(rejoined)
			b.queueOpenChallenges(ctx)
		}
		got := false
		err := b.c.StreamEventsOpened(ctx, func() { b.setEventsOpen(true) }, func(ev lichess.Event) error {
			got = true
			b.handleEventRecovering(ctx, ev)
			return nil
		})
		b.setEventsOpen(false)
		if ctx.Err() != nil {
			break
		}
		if code := lichess.StatusCode(err); errors.Is(err, lichess.ErrTokenRefused) || code == http.StatusForbidden {
			cancel(lichess.ErrTokenRefused)
			b.logRefused()
			return fmt.Errorf("event stream: %w now (HTTP %d; revoked?): %w", lichess.ErrTokenRefused, code, err)
		}
		s := b.Settings()
		bo.min, bo.max = s.ReconnectMin, s.ReconnectMax
		if got {
			bo.reset()
		}
		d := bo.next()
		b.log.Warn().Err(err).Dur("retry_in", d).Msg("event stream dropped; reconnecting")
		b.obs.StreamReconnect()
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	if errors.Is(context.Cause(ctx), lichess.ErrTokenRefused) {
		b.logRefused()
		return fmt.Errorf("%w (HTTP 401; revoked?): create a new API token with the bot:play scope at %s",
			lichess.ErrTokenRefused, lichess.TokenCreateURL(b.c.BaseURL(), lichess.ScopeBotPlay))
	}
	b.log.Info().Msg("bot stopping")
	b.withdrawArenas(context.WithoutCancel(ctx)) // unless Drain did: no pairing for a bot that is gone
	return nil
}

// setEventsOpen notes whether the event stream is open (a change wakes the
// arenas, which ask for pairings only while it is: a pairing's gameStart
// comes by it).
func (b *Bot) setEventsOpen(open bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eventsOpen != open {
		b.eventsOpen = open
		b.notifyLocked()
	}
}

// logRefused says what a refused token does to the games in progress.
func (b *Bot) logRefused() {
	b.log.Error().Strs("games", b.Games()).
		Msg("Lichess refuses the token (revoked?): stopping; games in progress cannot be played without it and are left on Lichess, where their clocks run out")
}

// checkToken checks the token at start-up, retrying with backoff while
// Lichess cannot be reached (network trouble, 5xx, 429); a refused token
// (whatever told: the account's 401 or 403, or the token test's not
// knowing it), a missing scope or another 4xx is an error at once.
func (b *Bot) checkToken(ctx context.Context) (lichess.Account, error) {
	var bo backoff
	for {
		acct, _, err := b.c.CheckToken(ctx)
		code := lichess.StatusCode(err)
		switch {
		case err == nil:
			return acct, nil
		case ctx.Err() != nil:
			return acct, err
		case errors.Is(err, lichess.ErrMissingScope), errors.Is(err, lichess.ErrTokenRefused),
			code >= 400 && code < 500 && code != http.StatusTooManyRequests:
			return acct, err
		}
		s := b.Settings()
		bo.min, bo.max = s.ReconnectMin, s.ReconnectMax
		d := bo.next()
		b.log.Warn().Err(err).Dur("retry_in", d).Msg("cannot reach Lichess; retrying")
		select {
		case <-ctx.Done():
			return acct, err
		case <-time.After(d):
		}
	}
}

// Drain stops accepting challenges and matchmaking, declines the queued
// challenges, then waits until no game is running or ctx ends (the grace
// period); correspondence games are let go once the move under way is
// posted, and go on after a restart. Run keeps running; cancel its context
// afterwards.
func (b *Bot) Drain(ctx context.Context) error {
	b.mu.Lock()
	if !b.draining {
		close(b.drainC)
	}
	b.draining = true
	b.notifyLocked()
	out := b.mm.outID
	b.mm.outID, b.mm.outTo = "", ""
	waiting := b.queue.takeAll()
	b.mu.Unlock()
	b.log.Info().Msg("draining: no new games")
	// Our own challenge first: accepted meanwhile, it would start a game.
	if out != "" {
		if err := b.c.CancelChallenge(ctx, out); err != nil {
			b.log.Debug().Err(err).Msg("cancel our open challenge")
		}
	}
	b.withdrawArenas(ctx) // no more pairings
	b.declineQueued(ctx, waiting)
	for {
		b.mu.Lock()
		n, ch := len(b.games), b.changed
		b.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("drain: %d game(s) still running: %w", n, ctx.Err())
		case <-ch:
		}
	}
}

// EndGames aborts every running real-time game, or resigns it when it is
// too late to abort — for a shutdown whose grace period (Drain) has run
// out. Correspondence games are left to go on after a restart.
func (b *Bot) EndGames(ctx context.Context) error {
	var errs []error
	for _, id := range b.realtimeGames() {
		if err := b.c.Abort(ctx, id); err == nil {
			b.log.Info().Str("game", id).Msg("game aborted at shutdown")
			continue
		}
		if err := b.c.Resign(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("end game %s: %w", id, err))
			continue
		}
		b.log.Info().Str("game", id).Msg("game resigned at shutdown")
	}
	return errors.Join(errs...)
}

// rejoin starts workers for the games in progress on Lichess (and parks
// the correspondence games that wait for the opponent).
func (b *Bot) rejoin(ctx context.Context) {
	games, err := b.c.Playing(ctx, 50)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn().Err(err).Msg("cannot list games in progress")
		}
		return
	}
	for i := range games {
		b.startListedGame(ctx, &games[i])
	}
}

// handleEventRecovering is handleEvent on the event stream's goroutine (the
// caller of Run): a panic is logged with its stack and loses that event only.
func (b *Bot) handleEventRecovering(ctx context.Context, ev lichess.Event) {
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(b.log, e, "handling an event panicked; event dropped")
	})
	if h := b.hooks; h != nil && h.keepEvent != nil && !h.keepEvent(ev) {
		return
	}
	b.handleEvent(ctx, ev)
}

func (b *Bot) handleEvent(ctx context.Context, ev lichess.Event) {
	switch ev.Type {
	case lichess.EventChallenge:
		b.onChallenge(ctx, ev.Challenge)
	case lichess.EventChallengeCanceled, lichess.EventChallengeDeclined:
		b.mu.Lock()
		delete(b.pending, ev.Challenge.ID)
		b.unqueueLocked(ev.Challenge)
		b.notifyLocked() // an accepted challenge withdrawn gives its slot back
		b.mu.Unlock()
		b.onOutgoingClosed(ev)
	case lichess.EventGameStart:
		b.startListedGame(ctx, ev.Game)
	case lichess.EventGameFinish:
		b.mu.Lock()
		delete(b.pending, ev.Game.GameID)
		b.notifyLocked() // a game that ended before it started frees its slot now
		b.mu.Unlock()
		b.onGameFinishParked(ctx, ev.Game)
		b.logFinish(ev.Game)
	}
}

// gameURL is the address of game id on the Lichess the client talks to.
func (b *Bot) gameURL(id string) string { return b.c.BaseURL() + "/" + id }

// logFinish logs Lichess' gameFinish event: the result from our side, the
// termination and, for a rated game, the rating change (ours and the
// opponent's) when Lichess sends it.
func (b *Bot) logFinish(gi *lichess.GameEventInfo) {
	ev := b.log.Info().Str("game", gi.GameID).Str("opponent", gi.Opponent.Username).Str("url", b.gameURL(gi.GameID)).
		Str("result", gameResult(gi.Status.Name, gi.Winner, gi.Color)).Str("termination", gi.Status.Name).
		Str("status", gi.Status.Name).Bool("rated", gi.Rated)
	if gi.Rating > 0 {
		ev = ev.Int("rating", gi.Rating)
	}
	if d := gi.RatingDiff; d != nil {
		ev = ev.Int("rating_diff", *d)
	}
	if d := gi.Opponent.RatingDiff; d != nil {
		ev = ev.Int("opponent_rating_diff", *d)
	}
	ev.Msg("game finished")
	if gi.RatingDiff != nil || gi.Opponent.RatingDiff != nil {
		white, black := gi.RatingDiff, gi.Opponent.RatingDiff
		if gi.Color == "black" {
			white, black = black, white
		}
		id := gi.GameID
		b.persist("rating changes", func(ctx context.Context, s Store) error { return s.RecordRatingDiffs(ctx, id, white, black) })
	}
}

// startGame runs a worker for game id unless one runs already; corr: a
// correspondence game.
func (b *Bot) startGame(ctx context.Context, id, opponent string, corr bool) {
	b.mu.Lock()
	if old, ok := b.games[id]; ok || ctx.Err() != nil {
		if ok && old.corr {
			old.wake = true // it may be parking: take it up again then
		}
		b.mu.Unlock()
		return
	}
	if b.endedLocked(id) {
		// Listed late (the event stream's opening, the games in progress):
		// a new worker would only hear the end again. Nor does its arena
		// count it as playing (noteArenaGame skips it, but may have
		// counted it just before the end was seen).
		b.arenaGameOverLocked(id) // tournament_games.go
		// Nor does it hold a correspondence slot (parked games are
		// taken up for their end, onGameFinishParked).
		if _, parked := b.parked[id]; parked {
			delete(b.parked, id)
			b.notifyLocked()
		}
		b.mu.Unlock()
		b.log.Debug().Str("game", id).Msg("game listed after its end here; no worker")
		return
	}
	delete(b.pending, id)
	b.queue.remove(id)
	if b.mm.onGameStart(id) {
		b.countBotGameLocked(id)
	}
	b.noteGameLocked(id) // until its record is archived (archive_recover.go)
	g := newGameWorker(b, id, b.settings, opponent)
	g.corr = corr
	b.unparkLocked(g)
	b.games[id] = g
	b.notifyLocked()
	b.mu.Unlock()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.playGame(ctx, g)
		b.mu.Lock()
		last := b.games[id] // the last worker, after rebuilds
		b.workerDoneLocked(last)
		b.gameOverLocked(id, g.corr, time.Now())
		b.arenaGameOverLocked(id) // tournament_games.go
		b.notifyLocked()
		wake := last != nil && last.park && last.wake
		wakeEnd := last != nil && last.park && last.wakeEnd
		b.mu.Unlock()
		if wakeEnd {
			b.startGame(ctx, id, opponent, true) // its goodbye and record
		} else if wake {
			// Lichess told of a move while it parked, or
			// before: a check-in now asks it whose turn it is (and takes
			// the game up if it is ours) rather than waiting for the
			// next one.
			b.checkin(ctx)
		}
	}()
}
