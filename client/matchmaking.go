package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// MatchmakingSettings: when enabled, the bot challenges online bots while
// a slot is free (see matchmakeView for what counts as free).
type MatchmakingSettings struct {
	Enabled bool
	// TimeControls to choose from (at random). Default 3+2.
	TimeControls []TimeControlSetting
	Rated        bool
	// Variants to choose from (at random). Default standard.
	Variants []string
	// IdleTime: challenge once a slot has been free this long (since the
	// last real-time game ended, or the bot started). Default 60 s.
	IdleTime time.Duration
	// CheckEvery: how often the matchmaker looks. Default 10 s.
	CheckEvery time.Duration
	// ChallengeTimeout: cancel an unanswered challenge after it. Default 30 s.
	ChallengeTimeout time.Duration
	// DeclineCooldown: do not challenge a bot again this long after it
	// declined. Default 1 h.
	DeclineCooldown time.Duration
	// Opponent rating (in the speed of the chosen clock): an absolute
	// range, and a largest difference to ours; zeros mean any.
	MinRating, MaxRating int
	MaxRatingDiff        int
	// BlockList bots are never challenged.
	BlockList []string
	// BlockAfterDeclines: a bot that declined our challenges this many
	// times within BlockFor (reasons other than "later", and not
	// DeclineCapped: those say "not now", not "not you") is not challenged
	// while that many such declines are within BlockFor: the block ends
	// when the oldest of the last BlockAfterDeclines ages out of it. Derived from the decline
	// history (the state store), so it survives a restart. Default 3;
	// negative: never.
	BlockAfterDeclines int
	// BlockFor is that window. Default 7 days.
	BlockFor time.Duration
}

// TimeControlSetting is a clock: base time and increment.
type TimeControlSetting struct {
	Base, Increment time.Duration
}

func (m MatchmakingSettings) withDefaults() MatchmakingSettings {
	if len(m.Variants) == 0 {
		m.Variants = []string{"standard"}
	}
	if len(m.TimeControls) == 0 {
		m.TimeControls = []TimeControlSetting{{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	}
	if m.IdleTime <= 0 {
		m.IdleTime = 60 * time.Second
	}
	if m.CheckEvery <= 0 {
		m.CheckEvery = 10 * time.Second
	}
	if m.ChallengeTimeout <= 0 {
		m.ChallengeTimeout = 30 * time.Second
	}
	if m.DeclineCooldown <= 0 {
		m.DeclineCooldown = time.Hour
	}
	if m.BlockAfterDeclines == 0 {
		m.BlockAfterDeclines = 3
	}
	if m.BlockFor <= 0 {
		m.BlockFor = 7 * 24 * time.Hour
	}
	return m
}

// matchState is the matchmaker's memory (guarded by Bot.mu).
type matchState struct {
	outID    string    // our open challenge
	outTo    string    // whom
	outAt    time.Time // when sent
	declined map[string]time.Time
	// history is the decline history of the last BlockFor (from the store
	// at start-up, then as declines come), oldest first: the block list
	// is derived from it (blockedLocked).
	history []DeclineRecord
	early   map[string]bool // our challenges closed while CreateChallenge was in flight (cleared when it ends)
	// sending is true while CreateChallenge is in flight; startedEarly
	// holds the games that started meanwhile, one of which may be our
	// challenge's (accepted, and even over, before its id came back).
	sending      bool
	startedEarly map[string]bool
	blockLogged  map[string]time.Time // the blocks logged, by bot: each logged once
	// skipUntil: bots that Lichess would not let us challenge (capped
	// for the day), until the time its answer named.
	skipUntil map[string]time.Time
	// dayLimitUntil: Lichess refused our challenge for the daily bot-game
	// limit (429 bot.vsBot.day); no challenge before this time.
	dayLimitUntil time.Time
}

// onGameStart forgets our challenge when its game starts, and says so:
// the caller counts the bot game (b.mu held).
func (m *matchState) onGameStart(id string) bool {
	if id != "" && id == m.outID {
		m.outID, m.outTo = "", ""
		return true
	}
	if m.sending && id != "" { // a round holds a slot; CreateChallenge may be in flight
		if m.startedEarly == nil {
			m.startedEarly = map[string]bool{}
		}
		m.startedEarly[id] = true
	}
	return false
}

// sendingChallenge notes that a matchmaking round holds a slot for its
// challenge (CreateChallenge may be in flight), or no longer does.
func (b *Bot) sendingChallenge(on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mm.sending = on
	clear(b.mm.startedEarly)
	clear(b.mm.early)
	if !on {
		b.notifyLocked() // the reserved slot goes back to the queue
	}
}

// matchPendingLocked reports whether the matchmaker's challenge is out or
// being sent: it holds a real-time slot, and is a bot game to come.
func (b *Bot) matchPendingLocked() bool {
	return b.mm.outID != "" || b.mm.sending
}

// botGamesLocked is the day's bot games for the daily caps: those counted,
// the accepted bot challenges whose game has not started, and the
// matchmaker's own challenge out or being sent.
func (b *Bot) botGamesLocked(now time.Time) int {
	n := b.botGames.count(now)
	for _, p := range b.pending {
		if p.bot {
			n++
		}
	}
	if b.matchPendingLocked() {
		n++
	}
	return n
}

// onOutgoingClosed notes a decline or cancel of our challenge.
func (b *Bot) onOutgoingClosed(ev lichess.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := ev.Challenge
	if !strings.EqualFold(ch.Challenger.ID, b.me.ID) {
		return // a challenge to us was cancelled
	}
	if ev.Type == lichess.EventChallengeDeclined && ch.DestUser != nil {
		now, opp, reason := time.Now(), strings.ToLower(ch.DestUser.ID), ch.DeclineReasonKey
		b.mm.declined[opp] = now
		b.mm.history = append(b.mm.history, DeclineRecord{Opponent: opp, Reason: reason, At: now})
		b.persist("decline", func(ctx context.Context, s Store) error {
			return s.AddDecline(ctx, DeclineRecord{Opponent: opp, Reason: reason, At: now})
		})
		b.log.Info().Str("opponent", ch.DestUser.Name).Str("reason", ch.DeclineReasonKey).Msg("our challenge was declined")
	}
	if ch.ID == b.mm.outID {
		b.mm.outID, b.mm.outTo = "", ""
		b.notifyLocked() // the slot our challenge held goes to the queue
	} else if b.mm.sending {
		// The answer may overtake CreateChallenge's own answer (only
		// while one is in flight: early is cleared when it ends).
		if b.mm.early == nil {
			b.mm.early = map[string]bool{}
		}
		b.mm.early[ch.ID] = true
	}
}

// matchmaker challenges online bots while a slot is free.
func (b *Bot) matchmaker(ctx context.Context) {
	for {
		mm := b.Settings().Matchmaking
		select {
		case <-ctx.Done():
			return
		case <-time.After(mm.CheckEvery):
		}
		if mm.Enabled {
			b.matchmakeRecovering(ctx, mm)
		}
	}
}

// matchmakeRecovering is matchmakeOnce; a panic is logged with its stack
// and loses that round only.
func (b *Bot) matchmakeRecovering(ctx context.Context, mm MatchmakingSettings) {
	defer panics.Recover(func(e *panics.Error) { panics.Log(b.log, e, "matchmaking round panicked") })
	b.matchmakeOnce(ctx, mm)
}

// matchmakeOnce sends at most one challenge (or cancels a stale one).
func (b *Bot) matchmakeOnce(ctx context.Context, mm MatchmakingSettings) {
	v := b.matchmakeView(time.Now(), mm)
	if v.outID != "" {
		if v.stale {
			if err := b.c.CancelChallenge(ctx, v.outID); err != nil && ctx.Err() == nil {
				b.log.Debug().Err(err).Msg("cancel stale challenge")
			}
		}
		return
	}
	if !v.reserved {
		return
	}
	// The view reserved a slot (mm.sending) under the same lock as its
	// check: every return below that sends nothing gives it back.
	sent := false
	defer func() {
		if !sent {
			b.sendingChallenge(false)
		}
	}()
	if b.c.Cooldown("challenge/create") > 0 {
		return
	}
	bots, err := b.c.OnlineBots(ctx, 100)
	if err != nil {
		b.log.Debug().Err(err).Msg("matchmaking: cannot list online bots")
		return
	}
	s := v.settings
	tc := mm.TimeControls[rand.IntN(len(mm.TimeControls))]
	speed := speedOf(tc)
	myRating := v.me.Perfs[speed].Rating
	var cands []lichess.User
	for _, u := range bots {
		id := strings.ToLower(u.ID)
		if strings.EqualFold(u.ID, v.me.ID) || u.Disabled || v.declined[id] ||
			containsFold(mm.BlockList, u.ID) || containsFold(s.Challenge.BlockList, u.ID) {
			continue
		}
		r := u.Perfs[speed].Rating
		if mm.MaxRatingDiff > 0 && myRating > 0 && (r == 0 || abs(r-myRating) > mm.MaxRatingDiff) {
			continue
		}
		if (mm.MinRating > 0 && r < mm.MinRating) || (mm.MaxRating > 0 && r > mm.MaxRating) {
			continue
		}
		cands = append(cands, u)
	}
	if len(cands) == 0 {
		return
	}
	opp := cands[rand.IntN(len(cands))]
	ch, err := b.c.CreateChallenge(ctx, opp.ID, lichess.ChallengeRequest{
		Limit: int(tc.Base / time.Second), Increment: int(tc.Increment / time.Second),
		Rated: mm.Rated, Variant: mm.Variants[rand.IntN(len(mm.Variants))],
	})
	if err != nil {
		switch {
		case lichess.IsBotDayLimit(err):
			var ae *lichess.APIError
			errors.As(err, &ae)
			b.botDayLimitReached(time.Now(), ae.RateLimitSeconds)
		case lichess.IsOpponentCapped(err):
			b.opponentCapped(opp, err, time.Now())
		default:
			b.log.Info().Err(err).Str("opponent", opp.Username).Msg("matchmaking: challenge not sent")
		}
		return
	}
	sent = true // challengeSent ends the reservation
	b.log.Info().Str("opponent", opp.Username).Str("challenge", ch.ID).Msg("matchmaking: challenge sent")
	b.challengeSent(ctx, ch.ID, opp.ID)
}

// matchmakeView is what one matchmaking round reads from the Bot's state.
type matchmakeView struct {
	outID    string // our challenge still out, if any
	stale    bool   // and it is past the challenge timeout (then forgotten)
	settings Settings
	// reserved: a slot is free for a bot game (and has been for
	// IdleTime), the daily caps allow one more, and the view reserved the
	// slot (mm.sending) for this round; the round must give it back
	// (sendingChallenge(false)) or end it with challengeSent.
	reserved bool
	me       lichess.Account
	declined map[string]bool // bots that declined us recently, by lower-case id
}

// matchmakeView takes a round's view of the state under b.mu (released by
// defer, so that a panic in a round leaves the Bot usable), forgetting a
// stale challenge and declines past their cool-down.
func (b *Bot) matchmakeView(now time.Time, mm MatchmakingSettings) matchmakeView {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id := b.mm.outID; id != "" {
		stale := now.Sub(b.mm.outAt) > mm.ChallengeTimeout
		if stale {
			b.mm.outID, b.mm.outTo = "", ""
			b.notifyLocked() // the slot our challenge held goes to the queue
		}
		return matchmakeView{outID: id, stale: stale}
	}
	if b.inArenaLocked() { // tournament.go: the arena's pairings need the slots
		return matchmakeView{}
	}
	free := !b.draining && !b.mm.sending && b.freeBotSlotsLocked() > 0 && now.Sub(b.idleFrom) >= mm.IdleTime
	if !free || now.Before(b.mm.dayLimitUntil) || b.botGamesLocked(now) >= b.settings.Challenge.MaxBotGamesPerDay {
		return matchmakeView{}
	}
	// Reserve the slot under the lock that saw it free: the queue and the
	// rules count it (as a game and as a bot game) until the round ends.
	b.mm.sending = true
	clear(b.mm.startedEarly)
	v := matchmakeView{
		settings: b.settings,
		reserved: true,
		me:       b.me,
		declined: make(map[string]bool, len(b.mm.declined)),
	}
	for k, t := range b.mm.declined {
		if now.Sub(t) > mm.DeclineCooldown {
			delete(b.mm.declined, k)
		} else {
			v.declined[k] = true
		}
	}
	for k, until := range b.mm.skipUntil {
		if now.Before(until) {
			v.declined[k] = true
		} else {
			delete(b.mm.skipUntil, k)
		}
	}
	for k, until := range b.blockedLocked(now, mm) {
		v.declined[k] = true
		if !b.mm.blockLogged[k].Equal(until) {
			if b.mm.blockLogged == nil {
				b.mm.blockLogged = map[string]time.Time{}
			}
			b.mm.blockLogged[k] = until
			b.log.Info().Str("opponent", k).Time("until", until).Int("declines", mm.BlockAfterDeclines).
				Msg("matchmaking: bot declined us repeatedly; not challenged until then")
		}
	}
	return v
}

// dayLimitProbe is how long the matchmaker pauses after Lichess' 429 for
// the daily bot-game limit when the answer says not how long it holds
// (ratelimit.seconds) and no bot game of the last 24 hours is known to age
// out earlier (they were played by another program, or before the state
// store): then it asks again after this long.
const dayLimitProbe = time.Hour

// botDayLimitReached pauses matchmaking after Lichess' 429 for the daily
// bot-game limit (ratelimit.key bot.vsBot.day) for the ratelimit.seconds
// that answer carries. Without them (seconds 0), it guesses: Lichess
// counts a sliding 24 hours, so the next challenge may go when the oldest
// bot game of the last 24 hours ages out (dayLimitProbe from now when none
// is known). It is logged once per pause: no challenge is sent meanwhile.
func (b *Bot) botDayLimitReached(now time.Time, seconds int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	until := now.Add(dayLimitProbe)
	if seconds > 0 {
		until = now.Add(time.Duration(seconds) * time.Second)
	} else if oldest, ok := b.botGames.oldest(now); ok {
		if t := oldest.Add(24 * time.Hour); t.After(now) {
			until = t
		}
	}
	b.mm.dayLimitUntil = until
	b.log.Warn().Time("until", until).Int("seconds", seconds).Int("bot_games_24h", b.botGames.count(now)).
		Msg("matchmaking: Lichess' daily bot-game limit reached (429 bot.vsBot.day); no challenges until then")
}

// DeclineCapped is the reason recorded (in the decline history) for a bot
// that Lichess would not let us challenge: it has played too many games
// today. It is Lichess' doing, not the bot's: it never counts towards the
// block list.
const DeclineCapped = "capped"

// opponentCapped skips opp after Lichess' 400 saying it has played too
// many games against bots today: until the date that answer names
// (lichess.OpponentCappedUntil), or for DeclineCooldown when it names none
// that is ahead. It is recorded in the decline history with reason
// DeclineCapped.
func (b *Bot) opponentCapped(opp lichess.User, err error, now time.Time) {
	id := strings.ToLower(opp.ID)
	until, ok := lichess.OpponentCappedUntil(err)
	b.mu.Lock()
	if ok && until.After(now) {
		if b.mm.skipUntil == nil {
			b.mm.skipUntil = map[string]time.Time{}
		}
		b.mm.skipUntil[id] = until
	} else {
		b.mm.declined[id] = now
		until = now.Add(b.settings.Matchmaking.DeclineCooldown)
	}
	b.mm.history = append(b.mm.history, DeclineRecord{Opponent: id, Reason: DeclineCapped, At: now})
	b.persist("decline", func(ctx context.Context, s Store) error {
		return s.AddDecline(ctx, DeclineRecord{Opponent: id, Reason: DeclineCapped, At: now})
	})
	b.mu.Unlock()
	b.log.Info().Str("opponent", opp.Username).Time("until", until).
		Msg("matchmaking: the opponent has played too many games against bots today (Lichess' 400); skipped until then")
}

// freeBotSlotsLocked is how many real-time slots a game of ours against a
// bot may take now: of challenge.concurrency (MaxGames), those not held by
// a real-time game or an accepted challenge (correspondence games have
// their own budget), and not taken by the challenges waiting in the queue
// (a queued challenge takes a freed slot before matchmaking does), which
// leaves: of the slots not reserved for humans, those the queued bot
// challenges do not take (a queued human's may take a reserved one), and
// of all slots, those no queued challenge takes. Our own pending challenge
// is handled by the caller: one at a time.
func (b *Bot) freeBotSlotsLocked() int {
	p := b.settings.Challenge
	rt, _ := b.slotsLocked()
	queuedBots := 0
	for _, e := range b.queue.items {
		if e.ch.Challenger.IsBot() {
			queuedBots++
		}
	}
	return min(p.MaxGames-p.ReservedForHumans-rt-queuedBots, p.MaxGames-rt-len(b.queue.items))
}

// blocksDecline reports whether a decline reason counts towards the block
// list: "later" and DeclineCapped say "not now", not "not you".
func blocksDecline(reason string) bool {
	return !strings.EqualFold(reason, lichess.DeclineLater) && reason != DeclineCapped
}

// blockedLocked derives the block list from the decline history: the bots
// that declined us BlockAfterDeclines times (reasons that count, see
// blocksDecline) within BlockFor, each with the end of its block: the
// block lasts while that many counted declines are within BlockFor, so it
// ends when the oldest of the last BlockAfterDeclines ages out (BlockFor
// after it), unless a new decline comes. It forgets the history older
// than BlockFor.
func (b *Bot) blockedLocked(now time.Time, mm MatchmakingSettings) map[string]time.Time {
	cut := now.Add(-mm.BlockFor)
	i := 0
	for i < len(b.mm.history) && !b.mm.history[i].At.After(cut) {
		i++
	}
	b.mm.history = b.mm.history[i:]
	if mm.BlockAfterDeclines < 0 {
		return nil
	}
	// Every decline still in the history is within BlockFor of now.
	times := map[string][]time.Time{}
	for _, d := range b.mm.history {
		if !blocksDecline(d.Reason) {
			continue
		}
		id := strings.ToLower(d.Opponent)
		times[id] = append(times[id], d.At)
	}
	out := map[string]time.Time{}
	for id, ts := range times {
		if len(ts) >= mm.BlockAfterDeclines {
			slices.SortFunc(ts, time.Time.Compare)
			out[id] = ts[len(ts)-mm.BlockAfterDeclines].Add(mm.BlockFor)
		}
	}
	return out
}

// challengeSent records our challenge id to opp, unless its game already
// started (the accept overtook the answer to our request), or it was
// closed meanwhile, or the bot began draining while it was being sent:
// then it is cancelled at once, in the background (accepted, it would
// start a game that Drain no longer expects to cancel). It ends the
// round's reservation.
func (b *Bot) challengeSent(ctx context.Context, id, opp string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, running := b.games[id]
	started := running || b.mm.startedEarly[id] // it may be over already
	closed := b.mm.early[id]
	b.mm.sending = false
	clear(b.mm.startedEarly)
	clear(b.mm.early)
	switch {
	case closed:
		b.notifyLocked() // the reserved slot goes back to the queue
	case started:
		b.countBotGameLocked(id) // accepted and started before we got here
	case b.draining:
		b.notifyLocked()
		go b.cancelDrained(context.WithoutCancel(ctx), id)
	default:
		b.mm.outID, b.mm.outTo, b.mm.outAt = id, opp, time.Now()
	}
}

// cancelDrainedTimeout bounds cancelDrained: the request runs after the
// round's context may have ended (a shutdown).
const cancelDrainedTimeout = 10 * time.Second

// cancelDrained cancels our challenge that came back after Drain began.
func (b *Bot) cancelDrained(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, cancelDrainedTimeout)
	defer cancel()
	if err := b.c.CancelChallenge(ctx, id); err != nil {
		b.log.Debug().Err(err).Str("challenge", id).Msg("draining: cancel our challenge sent meanwhile")
		return
	}
	b.log.Info().Str("challenge", id).Msg("draining: our challenge sent meanwhile cancelled")
}

// speedOf is Lichess's speed of a clock (estimated duration base + 40·inc).
func speedOf(tc TimeControlSetting) string {
	est := tc.Base + 40*tc.Increment
	switch {
	case est < 30*time.Second:
		return "ultraBullet"
	case est < 3*time.Minute:
		return "bullet"
	case est < 8*time.Minute:
		return "blitz"
	case est < 25*time.Minute:
		return "rapid"
	}
	return "classical"
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
