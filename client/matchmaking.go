package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
	// VariantTimeControls: a variant's own time controls, chosen from in
	// the place of TimeControls when that variant is offered.
	VariantTimeControls map[string][]TimeControlSetting
	// CorrespondenceDays: days per move offered in correspondence
	// challenges (Lichess' days, no clock; lichess-bot's challenge_days),
	// one at random. A correspondence challenge goes out only while a
	// correspondence slot is free (CorrespondenceSettings.Concurrency),
	// and with the days the challenge policy accepts (acceptedDays); with
	// real-time clocks too, each challenge is real-time or correspondence
	// at random (pickKind). Default none: with days and no TimeControls,
	// only correspondence is offered.
	CorrespondenceDays []int
	// Mode: MatchRated, MatchCasual, or MatchRandom (each challenge rated
	// or casual at random). Default ("") casual.
	Mode string
	// Variants to choose from (at random). Default standard.
	Variants []string
	// IdleTime: challenge once a slot has been free this long (since the
	// bot went from busy to idle, see gameOverLocked, or started). Default
	// 60 s.
	IdleTime time.Duration
	// CheckEvery: how often the matchmaker looks. Default 10 s.
	CheckEvery time.Duration
	// ChallengeTimeout: cancel an unanswered challenge after it; it stays
	// pending (its slot held) until the cancel answers. Default 30 s.
	ChallengeTimeout time.Duration
	// DeclineCooldown: do not challenge a bot again this long after it
	// declined (for a reason about the kind of challenge, see
	// declineAbout: not with such a challenge). Default 1 h.
	DeclineCooldown time.Duration
	// Opponent rating (in the perf of the kind offered, perfOf: the
	// clock's speed, or a variant's own): an absolute range, and a
	// largest difference to ours; zeros mean any.
	MinRating, MaxRating int
	MaxRatingDiff        int
	// BlockList bots are never challenged.
	BlockList []string
	// BlockAfterDeclines: a bot that declined our challenges this many
	// times within BlockFor (reasons other than "later", and not
	// DeclineCapped: those say "not now", not "not you") is not challenged
	// while that many such declines are within BlockFor: the block ends
	// when the oldest of the last BlockAfterDeclines ages out of it. A
	// decline for a reason about the kind of challenge (declineAbout)
	// counts for the challenges of that kind only, like lichess-bot's
	// challenge_filter: fine. Derived from the decline history (the state
	// store), so it survives a restart. Default 3; negative: never.
	BlockAfterDeclines int
	// BlockFor is that window. Default 7 days.
	BlockFor time.Duration
}

// Matchmaking modes (MatchmakingSettings.Mode): lichess-bot's
// challenge_mode.
const (
	MatchRated  = "rated"
	MatchCasual = "casual"
	MatchRandom = "random"
)

// matchKind is what one challenge of ours offers: the variant, the clock
// (and so the speed) or the days per move of a correspondence game, rated
// or casual.
type matchKind struct {
	variant string
	tc      TimeControlSetting
	days    int // > 0: a correspondence challenge, without a clock
	rated   bool
}

// corr reports whether k is a correspondence challenge.
func (k matchKind) corr() bool { return k.days > 0 }

// speed is Lichess' speed of a game of kind k: correspondence, or its
// clock's.
func (k matchKind) speed() string {
	if k.corr() {
		return speedCorrespondence
	}
	return speedOf(k.tc)
}

// clocksOf is the real-time clocks offered with variant: its own
// (VariantTimeControls), or TimeControls.
func (m MatchmakingSettings) clocksOf(variant string) []TimeControlSetting {
	if own := m.VariantTimeControls[variant]; len(own) > 0 {
		return own
	}
	return m.TimeControls
}

// pickKind draws the kind of the next challenge, or reports false when
// none may go: real-time (when realtime, a real-time slot being free) or
// correspondence (days, the days that may be offered now: none when no
// correspondence slot is free), at random when both may (as lichess-bot
// chooses between challenge_days and its clocks); then a variant (for
// real-time, one that has clocks), a clock among that variant's time
// controls or days among days, and rated or casual by Mode.
func (m MatchmakingSettings) pickKind(realtime bool, days []int) (matchKind, bool) {
	var rtVariants []string
	if realtime {
		for _, v := range m.Variants {
			if len(m.clocksOf(v)) > 0 {
				rtVariants = append(rtVariants, v)
			}
		}
	}
	if len(rtVariants) == 0 && len(days) == 0 {
		return matchKind{}, false
	}
	var k matchKind
	if len(days) > 0 && (len(rtVariants) == 0 || rand.IntN(2) == 0) {
		k.variant = m.Variants[rand.IntN(len(m.Variants))]
		k.days = days[rand.IntN(len(days))]
	} else {
		k.variant = rtVariants[rand.IntN(len(rtVariants))]
		tcs := m.clocksOf(k.variant)
		k.tc = tcs[rand.IntN(len(tcs))]
	}
	switch m.Mode {
	case MatchRated:
		k.rated = true
	case MatchRandom:
		k.rated = rand.IntN(2) == 0
	}
	return k, true
}

// mode is MatchRated or MatchCasual.
func (k matchKind) mode() string {
	if k.rated {
		return MatchRated
	}
	return MatchCasual
}

func (k matchKind) String() string {
	if k.corr() {
		return fmt.Sprintf("%s correspondence %dd %s", k.variant, k.days, k.mode())
	}
	return k.variant + " " + speedOf(k.tc) + " " + k.mode()
}

// blockKey names what a block for kind k is about (its variant, speed and
// mode; not a correspondence challenge's days, which a decline is not
// about): a block is logged once per bot and blockKey.
func (k matchKind) blockKey() string {
	return k.variant + " " + k.speed() + " " + k.mode()
}

// TimeControlSetting is a clock: base time and increment.
type TimeControlSetting struct {
	Base, Increment time.Duration
}

func (m MatchmakingSettings) withDefaults() MatchmakingSettings {
	if len(m.Variants) == 0 {
		m.Variants = []string{"standard"}
	}
	if len(m.TimeControls) == 0 && len(m.CorrespondenceDays) == 0 {
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
	outKind  matchKind // what it offers (a decline event may lack it)
	sendKind matchKind // what the challenge being sent offers (while sending)
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
	blockLogged  map[string]time.Time // the blocks logged, by bot and blockKey, with their end: each logged once (dropped once over)
	// skipUntil: bots that Lichess would not let us challenge (capped
	// for the day), until the time its answer named.
	skipUntil map[string]time.Time
	// lateOurs: our challenges no longer held pending whose game may
	// still start, by id, with until when they are remembered: the stale
	// ones whose cancel Lichess answered (200: cancelled, or its game
	// aborted; a 4xx: gone, or its game under way; cancelRefusedMemory)
	// and those given up after staleGiveUp (givenUpMemory, their cancel
	// still tried in the background). A game that starts from one is
	// still ours to count.
	lateOurs map[string]time.Time
	// corrIdleFrom: the last time a round saw no correspondence slot free
	// for matchmaking (or the start): matchmaking.idle_time counts from it
	// for correspondence challenges, as idleFrom does for real-time ones.
	corrIdleFrom time.Time
	// dayLimitUntil: Lichess refused our challenge for the daily bot-game
	// limit (429 bot.vsBot.day); no challenge before this time. Kept in
	// the store (PauseBotDayLimit): a restart keeps it.
	dayLimitUntil time.Time
}

// matchmaker challenges online bots while a slot is free. It looks after
// our challenge out while matchmaking is off too (a reload may turn it off
// while one is out): a stale one is cancelled and forgotten all the same.
func (b *Bot) matchmaker(ctx context.Context) {
	for {
		mm := b.Settings().Matchmaking
		select {
		case <-ctx.Done():
			return
		case <-time.After(mm.CheckEvery):
		}
		b.matchmakeRecovering(ctx, mm)
	}
}

// matchmakeRecovering is matchmakeOnce; a panic is logged with its stack
// and loses that round only.
func (b *Bot) matchmakeRecovering(ctx context.Context, mm MatchmakingSettings) {
	defer panics.Recover(func(e *panics.Error) { panics.Log(b.log, e, "matchmaking round panicked") })
	b.matchmakeOnce(ctx, mm)
}

// matchmakeOnce sends at most one challenge (or cancels a stale one);
// with matchmaking off, it only looks after our challenge out.
func (b *Bot) matchmakeOnce(ctx context.Context, mm MatchmakingSettings) {
	v := b.matchmakeView(time.Now(), mm)
	if v.givenUp != "" {
		go b.cancelGivenUp(ctx, v.givenUp)
		return
	}
	if v.outID != "" {
		if v.stale {
			err := b.c.CancelChallenge(ctx, v.outID)
			if ctx.Err() == nil {
				b.staleCancelAnswered(v.outID, err)
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
	kind := v.kind
	cands := v.candidates(bots, mm)
	if len(cands) == 0 {
		return
	}
	opp := cands[rand.IntN(len(cands))]
	req := lichess.ChallengeRequest{Rated: kind.rated, Variant: kind.variant}
	if kind.corr() {
		req.Days = kind.days // no clock: Lichess wants none beside days
	} else {
		req.Limit, req.Increment = int(kind.tc.Base/time.Second), int(kind.tc.Increment/time.Second)
	}
	ch, err := b.c.CreateChallenge(ctx, opp.ID, req)
	if err != nil {
		switch {
		case lichess.IsBotDayLimit(err):
			var ae *lichess.APIError
			errors.As(err, &ae)
			b.botDayLimitReached(time.Now(), ae.RateLimitSeconds)
		case lichess.IsOpponentCapped(err):
			b.opponentCapped(opp, kind, err, time.Now())
		default:
			b.log.Info().Err(err).Str("opponent", opp.Username).Msg("matchmaking: challenge not sent")
		}
		return
	}
	// The game has the challenge's id: noted now, before the opponent
	// has had much time to accept it (a challenge never accepted leaves
	// a note that the recovery forgets).
	b.noteGameNow(ctx, ch.ID)
	sent = true // challengeSent ends the reservation
	b.log.Info().Str("opponent", opp.Username).Str("challenge", ch.ID).Stringer("kind", kind).Msg("matchmaking: challenge sent")
	b.challengeSent(ctx, ch.ID, opp.ID, kind)
}

// matchmakeView is what one matchmaking round reads from the Bot's state.
type matchmakeView struct {
	outID    string // our challenge still out, if any
	stale    bool   // and it is past the challenge timeout: to be cancelled
	givenUp  string // our challenge just given up (staleGiveUp): cancelled in the background
	settings Settings
	// reserved: a slot is free for a bot game of kind (real-time, or
	// correspondence: see matchmakeView), the daily caps allow one more,
	// and the view reserved the slot (mm.sending) for this round; the
	// round must give it back (sendingChallenge(false)) or end it with
	// challengeSent.
	reserved bool
	me       lichess.Account
	kind     matchKind       // what this round offers
	declined map[string]bool // bots not to offer kind now, by lower-case id
}

// candidates are the bots of bots that the round may challenge: not us,
// nor disabled, declined, or blocked, and within the rating filters in
// the perf of the kind offered (perfOf).
func (v matchmakeView) candidates(bots []lichess.User, mm MatchmakingSettings) []lichess.User {
	perf := perfOf(v.kind)
	myRating := v.me.Perfs[perf].Rating
	var cands []lichess.User
	for _, u := range bots {
		id := strings.ToLower(u.ID)
		if strings.EqualFold(u.ID, v.me.ID) || u.Disabled || v.declined[id] ||
			containsFold(mm.BlockList, u.ID) || containsFold(v.settings.Challenge.BlockList, u.ID) {
			continue
		}
		r := u.Perfs[perf].Rating
		if mm.MaxRatingDiff > 0 && myRating > 0 && (r == 0 || abs(r-myRating) > mm.MaxRatingDiff) {
			continue
		}
		if (mm.MinRating > 0 && r < mm.MinRating) || (mm.MaxRating > 0 && r > mm.MaxRating) {
			continue
		}
		cands = append(cands, u)
	}
	return cands
}

// perfOf is the Lichess perf (rating) a game of kind k counts in: its
// speed for standard chess (and a position set up; correspondence for a
// correspondence game), else its variant.
func perfOf(k matchKind) string {
	switch k.variant {
	case "", "standard", "fromPosition":
		return k.speed()
	}
	return k.variant
}

// matchmakeView takes a round's view of the state under b.mu (released by
// defer, so that a panic in a round leaves the Bot usable), forgetting a
// stale challenge and declines past their cool-down.
func (b *Bot) matchmakeView(now time.Time, mm MatchmakingSettings) matchmakeView {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freeCorrSlotsLocked() <= 0 {
		b.mm.corrIdleFrom = now // idle_time counts from when one frees
	}
	if id := b.mm.outID; id != "" {
		// A stale challenge stays pending (holding its slot, and counted
		// as a bot game to come) until its cancel answers: Lichess may
		// start its game meanwhile. Only one whose cancel has failed for
		// staleGiveUp is forgotten without an answer.
		age := now.Sub(b.mm.outAt)
		if age > mm.ChallengeTimeout+staleGiveUp {
			b.log.Warn().Str("challenge", id).Dur("age", age).
				Msg("matchmaking: our unanswered challenge could not be cancelled; its slot is freed, the cancel tried on in the background")
			// It may still be open: a game that starts from it is ours.
			b.rememberLateLocked(id, now.Add(givenUpMemory), now)
			b.forgetOutLocked(id)
			return matchmakeView{givenUp: id}
		}
		return matchmakeView{outID: id, stale: age > mm.ChallengeTimeout}
	}
	if !mm.Enabled {
		return matchmakeView{}
	}
	if b.draining || b.mm.sending || now.Before(b.mm.dayLimitUntil) || b.botGamesLocked(now) >= b.settings.Challenge.MaxBotGamesPerDay {
		return matchmakeView{}
	}
	// A real-time slot free for a bot game, or a correspondence slot (its
	// own budget) with days that our own rules accept; each free for
	// IdleTime. No real-time challenge goes out while the bot is in a
	// running arena (tournament.go): the arena's pairings need the
	// real-time slots. A correspondence one does, taking none of them.
	rtFree := !b.inArenaLocked() && b.freeBotSlotsLocked() > 0 && now.Sub(b.idleFrom) >= mm.IdleTime
	var days []int
	if len(mm.CorrespondenceDays) > 0 && b.freeCorrSlotsLocked() > 0 && now.Sub(b.mm.corrIdleFrom) >= mm.IdleTime {
		days = b.settings.Challenge.acceptedDays(mm.CorrespondenceDays)
	}
	kind, ok := mm.pickKind(rtFree, days)
	if !ok {
		return matchmakeView{}
	}
	// Reserve the slot under the lock that saw it free: the queue and the
	// rules count it (as a game, real-time or correspondence by its kind,
	// and as a bot game) until the round ends.
	b.mm.sending = true
	clear(b.mm.startedEarly)
	v := matchmakeView{
		settings: b.settings,
		reserved: true,
		me:       b.me,
		kind:     kind,
		declined: make(map[string]bool, len(b.mm.declined)),
	}
	b.mm.sendKind = v.kind
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
	for k, until := range b.mm.blockLogged {
		if !now.Before(until) {
			delete(b.mm.blockLogged, k) // its block is over
		}
	}
	for k, until := range b.blockedLocked(now, mm, v.kind) {
		v.declined[k] = true
		if logged := k + " " + v.kind.blockKey(); !b.mm.blockLogged[logged].Equal(until) {
			if b.mm.blockLogged == nil {
				b.mm.blockLogged = map[string]time.Time{}
			}
			b.mm.blockLogged[logged] = until
			b.log.Info().Str("opponent", k).Stringer("kind", v.kind).Time("until", until).Int("declines", mm.BlockAfterDeclines).
				Msg("matchmaking: bot declined such challenges repeatedly; not offered them until then")
		}
	}
	// A bot we play max_simultaneous_games_per_user games against (running,
	// parked, accepted, or queued challenges of theirs) is not challenged:
	// its own challenge would wait in the queue (hasSlotLocked), so ours
	// would start a game the bot would not have taken.
	if limit := b.settings.Challenge.MaxGamesPerUser; limit > 0 {
		for id, n := range b.opponentGamesLocked() {
			if n >= limit {
				v.declined[id] = true
			}
		}
	}
	// A decline about the kind of challenge cools down that kind only.
	for _, d := range b.mm.history {
		if declineAbout(d.Reason) != aboutBot && now.Sub(d.At) <= mm.DeclineCooldown && d.refuses(v.kind) {
			v.declined[strings.ToLower(d.Opponent)] = true
		}
	}
	return v
}

// freeBotSlotsLocked is how many real-time slots a game of ours against a
// bot may take now: of challenge.concurrency (MaxGames), those not held by
// a real-time game or an accepted challenge (correspondence games have
// their own budget), and not taken by the real-time challenges waiting in
// the queue (a queued challenge takes a freed slot before matchmaking
// does; a queued correspondence one waits for a correspondence slot
// only), which leaves: of the slots not reserved for humans, those the
// queued real-time bot challenges do not take (a queued human's may take a
// reserved one), and of all slots, those no queued real-time challenge
// takes. An arena's pairMeAsap in force holds a slot as an accepted
// challenge does. Our own pending challenge is handled by the caller: one
// at a time.
func (b *Bot) freeBotSlotsLocked() int {
	p := b.settings.Challenge
	rt, _ := b.slotsLocked()
	rt += b.arenaAsksLocked(time.Now()) // an arena's pairMeAsap in force may start a game
	queued, queuedBots := b.queuedRealtimeLocked()
	return min(p.MaxGames-p.ReservedForHumans-rt-queuedBots, p.MaxGames-rt-queued)
}

// queuedRealtimeLocked counts the real-time challenges waiting in the
// queue: all of them, and those of bots. A queued correspondence challenge
// is left out: it takes a correspondence slot (hasSlotLocked), never a
// real-time one, so it holds back neither matchmaking nor an arena.
func (b *Bot) queuedRealtimeLocked() (all, bots int) {
	for _, e := range b.queue.items {
		if isCorrespondenceChallenge(e.ch) {
			continue
		}
		all++
		if e.ch.Challenger.IsBot() {
			bots++
		}
	}
	return all, bots
}

// opponentGamesLocked counts, by lower-case opponent, the games of either
// kind the bot has or is to have against each: running, parked
// correspondence ones without a worker, accepted challenges whose game has
// not started, and the challenges waiting in the queue.
func (b *Bot) opponentGamesLocked() map[string]int {
	n := map[string]int{}
	for _, g := range b.games {
		n[strings.ToLower(g.opponent)]++
	}
	for id, p := range b.parked {
		if _, running := b.games[id]; !running {
			n[strings.ToLower(p.opponent)]++
		}
	}
	for _, p := range b.pending {
		n[strings.ToLower(p.user)]++
	}
	for _, e := range b.queue.items {
		n[strings.ToLower(e.ch.Challenger.ID)]++
	}
	delete(n, "")
	return n
}

// freeCorrSlotsLocked is how many correspondence slots a game of ours
// may take now: of correspondence.concurrency, those not held by a
// correspondence game (running, parked, or accepted) nor taken by the
// correspondence challenges waiting in the queue (they come first). Our
// own pending challenge is handled by the caller, as in freeBotSlotsLocked.
func (b *Bot) freeCorrSlotsLocked() int {
	_, corr := b.slotsLocked()
	for _, e := range b.queue.items {
		if isCorrespondenceChallenge(e.ch) {
			corr++
		}
	}
	return b.settings.Correspondence.Concurrency - corr
}

// acceptedDays is the days of offered that p accepts in a correspondence
// challenge (verdict): challenges accepted, correspondence among the
// speeds, within MinDays..MaxDays. The matchmaker offers only those: a
// game we would decline is not one to ask for.
func (p ChallengePolicy) acceptedDays(offered []int) []int {
	if p.DeclineAll || !containsFold(p.Speeds, speedCorrespondence) {
		return nil
	}
	var out []int
	for _, d := range offered {
		if d >= p.MinDays && (p.MaxDays <= 0 || d <= p.MaxDays) {
			out = append(out, d)
		}
	}
	return out
}

// gameOverLocked forgets the game id that ended at now. A real-time game
// that frees a slot while none sat free for a bot game restarts
// matchmaking.idle_time (the bot goes from busy to idle now); one that ends
// while a slot already sits free (no game, accepted or queued challenge,
// nor challenge of ours holding it) leaves it counting from when that slot
// freed, so that games ending one after another never keep a free slot
// from being filled.
func (b *Bot) gameOverLocked(id string, corr bool, now time.Time) {
	free := b.freeBotSlotsLocked()
	if rt, _ := b.matchPendingSlotsLocked(); rt > 0 {
		free-- // the slot our own real-time challenge holds
	}
	idleBefore := free > 0
	delete(b.games, id)
	if !corr && !idleBefore {
		b.idleFrom = now
	}
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
