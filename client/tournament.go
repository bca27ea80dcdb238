package client

import (
	"context"
	"net/http"
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
//
// This file holds the settings, the arenas' state and the rounds that
// plan and send the requests; joining and withdrawing are in
// tournament_join.go, the arenas the store records in tournament_store.go,
// the arenas' games and the asks in force in tournament_games.go.

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
