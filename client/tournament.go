package client

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Arena tournaments (Lichess lets bots into arenas whose organiser allows
// them). The bot joins each arena of TournamentSettings.Join when it
// starts (again after every restart: joining an arena one is in is
// harmless, and unpauses it), plays the games Lichess pairs it in (they
// come as gameStart events with a tournamentId, with no challenge, and
// take a real-time slot like any game), and withdraws from every arena it
// joined when it drains or stops, so that Lichess pairs it no more.
//
// A bot is not on the tournament page, so Lichess pairs it only while a
// join with pairMeAsap, which lasts a minute, is in force: while an arena
// runs and the event stream is open (a pairing comes as its gameStart),
// the bot renews it (every PairEvery) for as many arenas, in the
// order of the list, as it has free real-time slots (those the queued
// real-time challenges and the matchmaker's real-time challenge out do not
// take), and never
// for an arena whose game it is playing. An ask in force (a minute, until
// a pairing) holds its slot: the queue accepts no challenge into it and
// the matchmaker does not count it free. So a bot at its concurrency is
// not paired, and a bot in more arenas than slots plays the first ones.
// Only a join whose answer was lost (it may have asked without the bot
// knowing) can bring a pairing above concurrency; it is played all the
// same (a gameStart is never declined).
//
// An arena's state is asked every CheckEvery while it runs; one that starts
// later is asked half-way to its start (at most 30 minutes apart) and at
// its start. Once Lichess closes its pairings (pairingsClosed, its last
// minutes), the bot asks for none there.
//
// While the bot is in a running arena whose pairings are open, matchmaking
// sends no real-time challenge: its games would take the slots that the
// arena's pairings need. Its correspondence challenges go on: they take
// correspondence slots only.
// Incoming challenges are answered as always (concurrency bounds both).
// An arena that is over, or that refuses the join (wrong password, bots
// not allowed, a token without the tournament:write scope), is logged and
// left alone until the next start, and so is an arena whose variant or
// speed the bot would decline in a challenge (ArenaVerdict: arena games
// come without a challenge, so they are checked on the arena's first
// state). A refusal that passes (the pause that
// Lichess imposes after a withdrawal, too many joins; any refusal of an
// arena that runs or that the bot was in, unless it names the password,
// the team, the restrictions or the end) is tried again after 15 s,
// doubling up to 2 minutes. An arena left alone, unless over, is
// followed again when a reload puts it back on the list or changes its
// password or team, or when the store records it again after the bot left
// it alone (ArenaEntry.Recorded newer: `ponderosa tournament join` again,
// once the cause is mended). UpdateSettings (a reload) joins the
// arenas added to the list and withdraws from those taken off it.
//
// The list is TournamentSettings.Join followed by the arenas that the
// Store records (when it is an ArenaStore: `ponderosa tournament join`
// records them there, `ponderosa tournament withdraw` removes them), read
// when Run starts, at each reload and every StoreEvery: an arena recorded
// while the bot runs is joined and played like one of the settings, and one
// removed is withdrawn from. A recorded arena that is over (or that
// Lichess no longer knows: two 404s at least arenaGoneAfter apart) is
// removed from the store.

// TournamentSettings: the arena tournaments the bot plays in.
type TournamentSettings struct {
	// Join lists the arenas to join, in order of preference.
	Join []ArenaEntry
	// CheckEvery: how often each arena's state is asked while it runs (to
	// see it end); an arena that starts later is asked less often
	// (createdCheckAt). Default 30 s.
	CheckEvery time.Duration
	// PairEvery: how often the pairMeAsap of a running arena is renewed
	// while a slot is free (Lichess keeps one a minute). Default 40 s.
	PairEvery time.Duration
	// WithdrawTimeout bounds the withdrawals when the bot stops. Default
	// 10 s.
	WithdrawTimeout time.Duration
	// StoreEvery: how often the arenas recorded in the store (ArenaStore)
	// are read again, to see the ones `ponderosa tournament join` and
	// `withdraw` added or removed meanwhile. Default 20 s.
	StoreEvery time.Duration
}

// ArenaStore is a Store that also keeps arenas to play (cmd/ponderosa's
// store: the arenas `ponderosa tournament join` recorded). A Bot whose
// Store is one plays them besides TournamentSettings.Join.
type ArenaStore interface {
	// Arenas returns the recorded arenas, in order of preference.
	Arenas(ctx context.Context) ([]ArenaEntry, error)
	// RemoveArena forgets arena id (no error when it is not recorded).
	RemoveArena(ctx context.Context, id string) error
}

// ArenaEntry is one arena to join: its id and, when it asks for them, the
// password (or entry code) and the team (team battles).
type ArenaEntry struct {
	ID       string
	Password string
	Team     string
	// Recorded: when the store last recorded it (zero for the settings'):
	// an arena left alone before then is followed again (`ponderosa
	// tournament join` of an arena that the bot gave up on).
	Recorded time.Time
}

func (t TournamentSettings) withDefaults() TournamentSettings {
	if t.CheckEvery <= 0 {
		t.CheckEvery = 30 * time.Second
	}
	if t.PairEvery <= 0 {
		t.PairEvery = 40 * time.Second
	}
	if t.WithdrawTimeout <= 0 {
		t.WithdrawTimeout = 10 * time.Second
	}
	if t.StoreEvery <= 0 {
		t.StoreEvery = 20 * time.Second
	}
	return t
}

// arenaState is the bot's memory of its arenas (guarded by Bot.mu).
type arenaState struct {
	arenas map[string]*arenaJoin // by id: the arenas of the list met so far
	gameOf map[string]string     // game id → arena id, for the arenas' games seen start
	// counted: the arena games against bots counted toward the daily
	// bot-game limit (countArenaBotGame), while they run. gameOf and
	// counted lose a game when its worker ends (arenaGameOverLocked).
	counted map[string]bool
	// reqMu orders the join and withdraw requests: a withdrawal waits for
	// a join in flight, so that the join cannot land after it.
	reqMu chan struct{}
	// stored: the arenas the store records (ArenaStore), as last read;
	// those of the settings come first (arenaListLocked).
	stored []ArenaEntry
	// reread asks arenaStoreLoop to read the store now (a reload).
	reread chan struct{}
	// storeFailing: the last read of the stored arenas failed (logged).
	storeFailing bool
}

// arenaJoin is what the bot knows of one arena.
type arenaJoin struct {
	entry     ArenaEntry
	joined    bool      // a join succeeded and no withdrawal followed
	state     string    // lichess.ArenaCreated, ArenaStarted, ArenaFinished ("" = not asked yet)
	done      bool      // over, or refused: left alone until the next start
	doneAt    time.Time // when done was set (a record newer than it follows the arena again)
	checkAt   time.Time // when to ask its state next
	askedAt   time.Time // the last join with pairMeAsap (zero: none in force)
	pairedAt  time.Time // when a game of the arena last started
	joinAfter time.Time // a failed join is tried again from then
	refusals  int       // transient refusals in a row (joinBackoff)
	everIn    bool      // a join succeeded in this run
	offList   bool      // a reload took it off tournament.join
	closed    bool      // Lichess closed its pairings (its last minutes): no more asks
	// notFoundAt: when Lichess first answered 404 for it since it last
	// answered (zero: not so); a stored arena is removed only on a second
	// 404 at least arenaGoneAfter later.
	notFoundAt time.Time
}

// arenaGoneAfter is how far apart two 404s for an arena that the store
// records must be for the bot to remove its record (every: CheckEvery, 30
// s by default, so 5 minutes): one stray 404 (a proxy's answer during a
// Lichess deploy) does not drop the operator's arena.
func arenaGoneAfter(every time.Duration) time.Duration { return 10 * every }

// arenaWaitMax bounds the wait between two looks at an arena that starts
// later: the organiser may move its start.
const arenaWaitMax = 30 * time.Minute

// arenaStartSoon is how soon an arena whose start time has come, but which
// Lichess has not started yet, is looked at again.
const arenaStartSoon = 5 * time.Second

// createdCheckAt is when to look again at an arena that has not started,
// asked at now, secondsToStart s: at its start (a second after), when that
// is within every; else half-way to it, at least every and at most
// arenaWaitMax away, so that an arena days ahead is not asked every
// CheckEvery; a few seconds away when its start time has come.
func createdCheckAt(now time.Time, s int, every time.Duration) time.Time {
	toStart := time.Duration(s) * time.Second
	switch {
	case s <= 0:
		return now.Add(min(every, arenaStartSoon))
	case toStart < every:
		return now.Add(toStart + time.Second)
	}
	return now.Add(min(max(toStart/2, every), arenaWaitMax))
}

// Backoff of a join that Lichess refused for a while (a pause not over,
// too many joins): 15 s, doubled each time, at most 2 minutes.
const (
	joinBackoffMin = 15 * time.Second
	joinBackoffMax = 2 * time.Minute
)

func joinBackoff(refusals int) time.Duration {
	d := joinBackoffMin
	for i := 1; i < refusals && d < joinBackoffMax; i++ {
		d *= 2
	}
	return min(d, joinBackoffMax)
}

// joinRefusalTransient reports whether Lichess' refusal err of a join to
// arena a (a 400) may pass: its pause after a withdrawal is not over
// ("Your pause is not over yet"), the account joins too many tournaments,
// or, for a reason that does not name the entry code, the team, the
// arena's restrictions or its end, the arena runs or the bot was in it
// (Lichess' "Couldn't join for some reason?"). A refusal for those
// reasons, before the bot was ever in the arena, is final.
func joinRefusalTransient(err error, a *arenaJoin) bool {
	var ae *lichess.APIError
	msg := ""
	if errors.As(err, &ae) {
		msg = strings.ToLower(ae.Message)
	}
	switch {
	case strings.Contains(msg, "pause"), strings.Contains(msg, "too many"):
		return true
	case strings.Contains(msg, "entry code"), strings.Contains(msg, "password"), strings.Contains(msg, "team"),
		strings.Contains(msg, "restriction"), strings.Contains(msg, "not allowed"), strings.Contains(msg, "bots"),
		strings.Contains(msg, "over"), strings.Contains(msg, "no longer exists"), strings.Contains(msg, "not found"):
		return false
	}
	return a.state == lichess.ArenaStarted || a.everIn
}

// arenasLocked returns the state, made on first use; b.mu must be held.
func (b *Bot) arenasLocked() *arenaState {
	if b.arenas.arenas == nil {
		b.arenas.arenas = map[string]*arenaJoin{}
		b.arenas.gameOf = map[string]string{}
		b.arenas.counted = map[string]bool{}
		b.arenas.reqMu = make(chan struct{}, 1)
		b.arenas.reread = make(chan struct{}, 1)
	}
	return &b.arenas
}

// arenaListLocked is the list of arenas to play: the settings' (their
// password and team win) and then the store's; b.mu must be held.
func (b *Bot) arenaListLocked() []ArenaEntry {
	list := slices.Clone(b.settings.Tournament.Join)
	for _, e := range b.arenas.stored {
		if !slices.ContainsFunc(list, func(l ArenaEntry) bool { return l.ID == e.ID }) {
			list = append(list, e)
		}
	}
	return list
}

// storedArenaLocked reports whether the store records arena id (as last
// read); b.mu must be held.
func (b *Bot) storedArenaLocked(id string) bool {
	return slices.ContainsFunc(b.arenas.stored, func(e ArenaEntry) bool { return e.ID == id })
}

// arenaOriginLocked names where arena id came from, for the log lines that
// tell the operator what to check; b.mu must be held.
func (b *Bot) arenaOriginLocked(id string) string {
	inSettings := slices.ContainsFunc(b.settings.Tournament.Join, func(e ArenaEntry) bool { return e.ID == id })
	switch stored := b.storedArenaLocked(id); {
	case inSettings && stored:
		return "tournament.join, whose password and team win over the record of `ponderosa tournament join`"
	case stored:
		return "the record of `ponderosa tournament join`; run it again once mended"
	}
	return "tournament.join"
}

// rereadArenasLocked asks arenaStoreLoop to read the store now (a reload);
// b.mu must be held.
func (b *Bot) rereadArenasLocked() {
	select {
	case b.arenasLocked().reread <- struct{}{}:
	default: // a read is due already
	}
}

// arenaStore is the Store as an ArenaStore; nil when it is none.
func (b *Bot) arenaStore() ArenaStore {
	as, _ := b.storeOf().(ArenaStore)
	return as
}

// loadArenas reads the arenas the store records; on failure the list read
// before stays (logged).
func (b *Bot) loadArenas(ctx context.Context, as ArenaStore) {
	got, err := as.Arenas(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.arenasLocked()
	if err != nil {
		if ctx.Err() == nil && !st.storeFailing { // once, not every StoreEvery
			b.log.Warn().Err(err).Msg("state store: cannot read the recorded arena tournaments; playing those read before, trying again")
		}
		st.storeFailing = ctx.Err() == nil
		return
	}
	if st.storeFailing {
		st.storeFailing = false
		b.log.Info().Msg("state store: the recorded arena tournaments can be read again")
	}
	if slices.Equal(got, st.stored) {
		return
	}
	for _, e := range got {
		if !b.storedArenaLocked(e.ID) {
			b.log.Info().Str("tournament", e.ID).Msg("arena tournament recorded in the state store: playing it")
		}
	}
	for _, e := range st.stored {
		if !slices.ContainsFunc(got, func(g ArenaEntry) bool { return g.ID == e.ID }) {
			b.log.Info().Str("tournament", e.ID).Msg("arena tournament no longer recorded in the state store: leaving it")
		}
	}
	st.stored = got
	b.notifyLocked() // the arena loop plans again
}

// arenaStoreLoop reads the arenas that the store records every
// StoreEvery, and at once when a reload asks, until ctx ends.
func (b *Bot) arenaStoreLoop(ctx context.Context, as ArenaStore) {
	b.mu.Lock()
	reread := b.arenasLocked().reread
	b.mu.Unlock()
	for {
		b.mu.Lock()
		every := b.settings.Tournament.StoreEvery
		b.mu.Unlock()
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-reread:
		case <-t.C:
		}
		t.Stop()
		b.loadArenas(ctx, as)
	}
}

// noteArenaGame records a game that an arena paired us in (gi from a
// gameStart event or the games in progress): its arena's pairMeAsap was
// used up, and the arena counts as playing while the game runs. A game
// whose end a worker saw is listed late, not paired: it gets no worker
// (startGame) whose end would forget it, and the arena would count as
// playing it for good, asking for no pairing again.
func (b *Bot) noteArenaGame(gi *lichess.GameEventInfo) {
	if gi == nil || gi.TournamentID == "" || gi.GameID == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.endedLocked(gi.GameID) {
		return
	}
	st := b.arenasLocked()
	if _, seen := st.gameOf[gi.GameID]; seen {
		return
	}
	st.gameOf[gi.GameID] = gi.TournamentID
	if a := st.arenas[gi.TournamentID]; a != nil {
		a.askedAt, a.pairedAt = time.Time{}, time.Now()
	}
	b.log.Info().Str("game", gi.GameID).Str("tournament", gi.TournamentID).Str("opponent", gi.Opponent.Username).
		Msg("arena pairing: game starts")
}

// pairMeAsapFor is how long Lichess keeps a join with pairMeAsap (one
// minute): while it lasts, the bot may be paired at any moment.
const pairMeAsapFor = time.Minute

// askInForce reports whether a's pairMeAsap may still bring a pairing at
// now: asked within pairMeAsapFor, no pairing since, the arena followed.
func (a *arenaJoin) askInForce(now time.Time) bool {
	return a.joined && !a.done && !a.askedAt.IsZero() && now.Sub(a.askedAt) < pairMeAsapFor && !a.pairedAt.After(a.askedAt)
}

// arenaAsksLocked counts the arenas whose pairMeAsap is in force at now:
// each may start a game at any moment, so each holds a real-time slot
// for the queue and the matchmaker, as an accepted challenge does.
func (b *Bot) arenaAsksLocked(now time.Time) int {
	n := 0
	for _, a := range b.arenas.arenas {
		if a.askInForce(now) {
			n++
		}
	}
	return n
}

// nextAskExpiryLocked is when the first pairMeAsap in force ends (zero:
// none): its slot is then free for the queue.
func (b *Bot) nextAskExpiryLocked(now time.Time) time.Time {
	var next time.Time
	for _, a := range b.arenas.arenas {
		if a.askInForce(now) {
			if t := a.askedAt.Add(pairMeAsapFor); next.IsZero() || t.Before(next) {
				next = t
			}
		}
	}
	return next
}

// countArenaBotGame counts arena game id, against a bot, toward the daily
// bot-game limit (Lichess counts every bot-vs-bot game, an arena's too),
// once: the worker's gameFull tells that the opponent is a bot (the
// gameStart event does not), and a rebuilt worker sees it again.
func (b *Bot) countArenaBotGame(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.arenasLocked()
	if st.counted[id] {
		return
	}
	st.counted[id] = true
	b.countBotGameLocked(id)
}

// inArenaLocked reports whether the bot is in an arena that runs (joined,
// not withdrawn, started): matchmaking then sends no real-time challenge.
func (b *Bot) inArenaLocked() bool {
	for _, a := range b.arenas.arenas {
		if a.joined && !a.done && a.state == lichess.ArenaStarted && !a.closed {
			return true
		}
	}
	return false
}

// playingInLocked reports whether a game of arena id runs, or is about
// to: noteArenaGame records it before startGame gives it a worker, and
// arenaGameOverLocked forgets it when its worker ends.
func (b *Bot) playingInLocked(id string) bool {
	for _, aid := range b.arenas.gameOf {
		if aid == id {
			return true
		}
	}
	return false
}

// arenaGameOverLocked forgets game id, whose worker ended, as an arena's
// game: its arena may ask for a pairing again.
func (b *Bot) arenaGameOverLocked(id string) {
	delete(b.arenas.gameOf, id)
	delete(b.arenas.counted, id)
}

// arenaLoop joins the arenas of the list, follows their state, and asks
// for pairings while slots are free, until ctx ends or the bot drains.
func (b *Bot) arenaLoop(ctx context.Context) {
	for {
		b.mu.Lock()
		ch, draining := b.changed, b.draining
		b.mu.Unlock()
		if draining || ctx.Err() != nil {
			return
		}
		next := b.arenaRoundRecovering(ctx, time.Now())
		var wait <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			t = time.NewTimer(max(time.Until(next), 10*time.Millisecond))
			wait = t.C
		}
		select {
		case <-ctx.Done():
		case <-ch: // a slot may have freed, the settings may have changed
		case <-wait:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// arenaRoundRecovering is arenaRound; a panic is logged with its stack
// and loses that round only.
func (b *Bot) arenaRoundRecovering(ctx context.Context, now time.Time) (next time.Time) {
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(b.log, e, "arena round panicked")
		next = now.Add(time.Second)
	})
	return b.arenaRound(ctx, now)
}

// arenaStep is one request that a round sends for an arena.
type arenaStep struct {
	a        *arenaJoin
	info     bool // ask its state (else join)
	asap     bool // the join asks for a pairing
	withdraw bool // withdraw: the arena left the list (a reload)
}

// arenaRound sends the requests that the arenas need now and returns when
// the next round is due (zero: only a change wakes it).
func (b *Bot) arenaRound(ctx context.Context, now time.Time) time.Time {
	steps, next := b.arenaPlan(now)
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		switch {
		case s.withdraw:
			b.withdrawArena(ctx, s.a)
		case s.info:
			b.arenaCheck(ctx, s.a)
		default:
			b.arenaJoin(ctx, s.a, s.asap)
		}
	}
	if len(steps) > 0 {
		return time.Now() // the answers may call for more at once (a join after the first state)
	}
	return next
}

// arenaPlan decides, under b.mu, the requests of a round.
func (b *Bot) arenaPlan(now time.Time) ([]arenaStep, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.arenasLocked()
	ts := b.settings.Tournament
	p := b.settings.Challenge
	rt, _ := b.slotsLocked()
	queued, _ := b.queuedRealtimeLocked()
	free := p.MaxGames - rt - queued // the queued real-time challenges first, as for matchmaking
	if prt, _ := b.matchPendingSlotsLocked(); prt > 0 {
		free-- // our real-time matchmaking challenge, if accepted, starts a game too
	}
	var steps []arenaStep
	var next time.Time
	soon := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	list := b.arenaListLocked()
	listed := map[string]bool{}
	for _, e := range list {
		listed[e.ID] = true
	}
	for id, a := range st.arenas {
		if listed[id] {
			continue
		}
		a.offList = true
		if a.joined && !a.done {
			a.done = true // left alone, and withdrawn from now
			a.doneAt = now
			steps = append(steps, arenaStep{a: a, withdraw: true})
		}
	}
	for _, e := range list {
		a := st.arenas[e.ID]
		if a == nil {
			a = &arenaJoin{}
			st.arenas[e.ID] = a
		}
		if a.done && a.state != lichess.ArenaFinished &&
			(a.offList || a.entry.Password != e.Password || a.entry.Team != e.Team || e.Recorded.After(a.doneAt)) {
			// A reload put it back on the list, or changed what a refusal
			// may have been about, or the store recorded it again after
			// the bot left it alone (`ponderosa tournament join` once the
			// cause is mended): follow it again from its state.
			if e.Recorded.After(a.doneAt) && !a.offList {
				b.log.Info().Str("tournament", e.ID).Msg("arena tournament recorded again in the state store: following it again")
			}
			a.done, a.state, a.joinAfter, a.refusals = false, "", time.Time{}, 0
		}
		a.offList = false
		a.entry = e // a reload may change the password or the team
		if a.done {
			continue
		}
		switch {
		case a.state == "" || !now.Before(a.checkAt):
			if !now.Before(a.joinAfter) {
				steps = append(steps, arenaStep{a: a, info: true})
				continue
			}
			soon(a.joinAfter)
			continue
		case !a.joined:
			if now.Before(a.joinAfter) {
				soon(a.joinAfter)
			} else {
				asap := a.state == lichess.ArenaStarted && !a.closed && free > 0 && b.eventsOpen
				steps = append(steps, arenaStep{a: a, asap: asap})
				if asap {
					free--
				}
			}
		case a.state == lichess.ArenaStarted && !a.closed && !b.playingInLocked(e.ID) && free > 0 && b.eventsOpen:
			free--
			if now.Before(a.joinAfter) { // a renewal failed: not again before joinAfter
				soon(a.joinAfter)
			} else if a.askedAt.IsZero() || now.Sub(a.askedAt) >= ts.PairEvery {
				steps = append(steps, arenaStep{a: a, asap: true})
			} else {
				soon(a.askedAt.Add(ts.PairEvery))
			}
		}
		soon(a.checkAt)
	}
	return steps, next
}

// arenaCheck asks the state of arena a; an arena over is left alone.
func (b *Bot) arenaCheck(ctx context.Context, a *arenaJoin) {
	b.mu.Lock()
	id, every := a.entry.ID, b.settings.Tournament.CheckEvery
	b.mu.Unlock()
	info, err := b.c.ArenaInfo(ctx, id)
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		a.checkAt = now.Add(every)
		if a.state == "" {
			a.joinAfter = a.checkAt
		}
		if code := lichess.StatusCode(err); code == http.StatusNotFound && b.storedArenaLocked(id) &&
			(a.notFoundAt.IsZero() || now.Sub(a.notFoundAt) < arenaGoneAfter(every)) {
			if a.notFoundAt.IsZero() {
				a.notFoundAt = now
			}
			a.checkAt = a.notFoundAt.Add(arenaGoneAfter(every))
			if a.state == "" {
				a.joinAfter = a.checkAt
			}
			b.log.Warn().Err(err).Str("tournament", id).Dur("retry_in", a.checkAt.Sub(now)).
				Msg("Lichess does not know the arena recorded in the state store now: asking again before removing it")
		} else if code == http.StatusNotFound {
			a.done = true
			a.doneAt = now
			b.log.Error().Err(err).Str("tournament", id).Msg("no such arena tournament: not joining it (check " + b.arenaOriginLocked(id) + ")")
			b.forgetStoredArenaLocked(id)
		} else if ctx.Err() == nil {
			b.log.Warn().Err(err).Str("tournament", id).Msg("cannot ask the arena's state; trying again later")
		}
		return
	}
	a.notFoundAt = time.Time{}
	if a.state == "" && info.State() != lichess.ArenaFinished { // the first answer: can the bot play its games?
		variant, speed, rule := ArenaVerdict(b.settings.Challenge, info)
		if rule != "" {
			a.done = true
			a.doneAt = now
			b.log.Error().Str("tournament", id).Str("name", info.FullName).Str("variant", variant).Str("speed", speed).
				Str("rule", rule).Msg("the bot cannot play this arena's games (arena games skip the challenge rules, so they are checked here): not joining it (check " + b.arenaOriginLocked(id) + ", challenge.variants, challenge.speeds)")
			return
		}
	}
	old := a.state
	a.state, a.checkAt = info.State(), now.Add(every)
	if a.state == lichess.ArenaCreated {
		a.checkAt = createdCheckAt(now, info.SecondsToStart, every) // ask for a pairing as soon as it starts
	}
	if closed := a.state == lichess.ArenaStarted && info.PairingsClosed; closed != a.closed {
		a.closed = closed
		b.notifyLocked() // matchmaking may go on
		if closed {
			b.log.Info().Str("tournament", id).Msg("the arena's pairings are closed: no more pairings asked for")
		}
	}
	switch {
	case a.state == lichess.ArenaFinished:
		a.done, a.joined = true, false
		a.doneAt = now
		b.log.Info().Str("tournament", id).Str("name", info.FullName).Msg("arena tournament over: no longer following it")
		b.notifyLocked() // matchmaking may go on
		b.forgetStoredArenaLocked(id)
	case old != a.state:
		b.log.Info().Str("tournament", id).Str("name", info.FullName).Str("state", a.state).Msg("arena tournament")
	}
}

// forgetStoredArenaLocked removes arena id, over or unknown to Lichess,
// from the store when the store records it (through the store writer: no
// waiting under b.mu); b.mu must be held.
func (b *Bot) forgetStoredArenaLocked(id string) {
	if !b.storedArenaLocked(id) {
		return
	}
	b.arenas.stored = slices.DeleteFunc(slices.Clone(b.arenas.stored), func(e ArenaEntry) bool { return e.ID == id })
	b.persist("arena over", func(ctx context.Context, s Store) error {
		as, ok := s.(ArenaStore)
		if !ok {
			return nil
		}
		if err := as.RemoveArena(ctx, id); err != nil {
			return err
		}
		b.log.Info().Str("tournament", id).Msg("arena tournament removed from the state store")
		return nil
	})
}

// ArenaVerdict checks an arena's variant and speed by the rules that the
// challenges' are checked by (ChallengePolicy.variantVerdict and
// speedVerdict: challenge.variants, whose variants check-config makes sure
// an engine plays, and challenge.speeds, never ultraBullet); rule is ""
// when the bot can play the arena's games, else why not.
func ArenaVerdict(p ChallengePolicy, info lichess.Arena) (variant, speed, rule string) {
	p = p.withDefaults()
	variant = info.Variant
	if variant == "" {
		variant = "standard"
	}
	speed = speedOf(TimeControlSetting{Base: time.Duration(info.Clock.Limit) * time.Second,
		Increment: time.Duration(info.Clock.Increment) * time.Second})
	if _, rule = p.variantVerdict(variant); rule == "" {
		_, rule = p.speedVerdict(speed)
	}
	return variant, speed, rule
}

// arenaJoin joins arena a (asap: asking for a pairing). A refusal other
// than a rate limit, a server's trouble or one that may pass
// (joinRefusalTransient) is final for this run.
func (b *Bot) arenaJoin(ctx context.Context, a *arenaJoin, asap bool) {
	if !b.stillRecorded(ctx, a) {
		return // `ponderosa tournament withdraw` removed it: the next round withdraws
	}
	b.mu.Lock()
	st := b.arenasLocked()
	e, every := a.entry, b.settings.Tournament.CheckEvery
	b.mu.Unlock()
	select {
	case st.reqMu <- struct{}{}:
		defer func() { <-st.reqMu }()
	case <-ctx.Done():
		return
	}
	b.mu.Lock()
	draining, was := b.draining, a.joined
	if !draining {
		a.joined = true // until a refusal says otherwise: a join whose answer is lost may have landed, and is withdrawn
	}
	b.mu.Unlock()
	if draining { // Drain withdraws: no join after it
		return
	}
	sent := time.Now()
	err := b.c.JoinArena(ctx, e.ID, lichess.JoinRequest{Password: e.Password, Team: e.Team, PairMeAsap: asap})
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	code := lichess.StatusCode(err)
	switch {
	case err == nil:
		if !was {
			b.log.Info().Str("tournament", e.ID).Str("state", a.state).Msg("joined arena tournament")
		}
		a.everIn, a.refusals = true, 0
		if asap && !a.pairedAt.After(sent) { // (a pairing may come before the answer: then the ask is used up)
			a.askedAt = now
		}
		b.notifyLocked() // real-time matchmaking pauses
	case ctx.Err() != nil: // stopping: it may have landed (withdrawArenas sees to it)
	case lichess.IsRateLimited(err), code == 0, code >= 500:
		a.joined = was
		a.joinAfter = now.Add(every)
		b.log.Warn().Err(err).Str("tournament", e.ID).Msg("cannot join the arena now; trying again later")
	case code == http.StatusForbidden || errors.Is(err, lichess.ErrTokenRefused):
		a.done, a.joined = true, false
		a.doneAt = now
		b.log.Error().Err(err).Str("tournament", e.ID).
			Msg("Lichess refuses to let the token join tournaments: it needs the tournament:write scope besides bot:play (create one at " +
				lichess.TokenCreateURL(b.c.BaseURL(), lichess.ScopeBotPlay, lichess.ScopeTournamentWrite) + ")")
	case joinRefusalTransient(err, a):
		a.joined = was
		a.refusals++
		wait := joinBackoff(a.refusals)
		a.joinAfter = now.Add(wait)
		b.log.Warn().Err(err).Str("tournament", e.ID).Dur("retry_in", wait).Msg("Lichess refuses the join for now (a pause after a withdrawal, too many joins); trying again later")
	default:
		a.done, a.joined = true, false
		a.doneAt = now
		b.log.Error().Err(err).Str("tournament", e.ID).Msg("Lichess refused to let the bot join the arena (password, team, or bots not allowed?): not trying again until the next start (check " + b.arenaOriginLocked(e.ID) + ")")
	}
}

// stillRecorded reads the store again before a join (or the renewal of a
// pairing) of arena a when only the store lists it, so that an arena that
// `ponderosa tournament withdraw` removed is not joined again before
// arenaStoreLoop's next read (a join unpauses: the bot could be paired in
// an arena the operator just left). False when the arena is off the list
// now; a read that fails keeps the list read before (loadArenas).
func (b *Bot) stillRecorded(ctx context.Context, a *arenaJoin) bool {
	b.mu.Lock()
	id := a.entry.ID
	storeOnly := b.storedArenaLocked(id) &&
		!slices.ContainsFunc(b.settings.Tournament.Join, func(e ArenaEntry) bool { return e.ID == id })
	b.mu.Unlock()
	if !storeOnly {
		return true
	}
	as := b.arenaStore()
	if as == nil {
		return true
	}
	b.loadArenas(ctx, as)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.storedArenaLocked(id)
}

// withdrawArenas withdraws from every arena joined and not over (for Drain
// and the end of Run), within ts.WithdrawTimeout: Lichess then pairs the
// bot no more. An arena left alone stays so.
func (b *Bot) withdrawArenas(ctx context.Context) {
	b.mu.Lock()
	st := b.arenasLocked()
	var joined []*arenaJoin
	for _, a := range st.arenas {
		if a.joined { // done ones included: an arena off the list may not have been withdrawn from yet
			joined = append(joined, a)
		}
	}
	timeout := b.settings.Tournament.WithdrawTimeout
	b.mu.Unlock()
	if len(joined) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case st.reqMu <- struct{}{}: // a join in flight lands first
		defer func() { <-st.reqMu }()
	case <-ctx.Done():
		b.log.Warn().Msg("arena tournaments: no time left to withdraw")
		return
	}
	for _, a := range joined {
		b.withdrawOne(ctx, a)
	}
}

// withdrawArena withdraws from arena a, which a reload took off the list.
func (b *Bot) withdrawArena(ctx context.Context, a *arenaJoin) {
	b.mu.Lock()
	st := b.arenasLocked()
	timeout := b.settings.Tournament.WithdrawTimeout
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case st.reqMu <- struct{}{}:
		defer func() { <-st.reqMu }()
	case <-ctx.Done():
		return
	}
	b.withdrawOne(ctx, a)
}

// withdrawOne sends the withdrawal from arena a (st.reqMu held).
func (b *Bot) withdrawOne(ctx context.Context, a *arenaJoin) {
	b.mu.Lock()
	id := a.entry.ID
	b.mu.Unlock()
	if err := b.c.WithdrawArena(ctx, id); err != nil {
		b.log.Warn().Err(err).Str("tournament", id).Msg("cannot withdraw from the arena")
		return
	}
	b.mu.Lock()
	a.joined, a.askedAt = false, time.Time{}
	b.notifyLocked() // matchmaking may go on
	b.mu.Unlock()
	b.log.Info().Str("tournament", id).Msg("withdrew from arena tournament")
}
