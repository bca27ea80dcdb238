package client

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
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
	// VariantTimeControls: a variant's own time controls, chosen from in
	// the place of TimeControls when that variant is offered.
	VariantTimeControls map[string][]TimeControlSetting
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
// (and so the speed), rated or casual.
type matchKind struct {
	variant string
	tc      TimeControlSetting
	rated   bool
}

// pickKind draws the kind of the next challenge: a variant, then a clock
// among that variant's time controls, then rated or casual by Mode.
func (m MatchmakingSettings) pickKind() matchKind {
	k := matchKind{variant: m.Variants[rand.IntN(len(m.Variants))]}
	tcs := m.TimeControls
	if own := m.VariantTimeControls[k.variant]; len(own) > 0 {
		tcs = own
	}
	k.tc = tcs[rand.IntN(len(tcs))]
	switch m.Mode {
	case MatchRated:
		k.rated = true
	case MatchRandom:
		k.rated = rand.IntN(2) == 0
	}
	return k
}

// mode is MatchRated or MatchCasual.
func (k matchKind) mode() string {
	if k.rated {
		return MatchRated
	}
	return MatchCasual
}

func (k matchKind) String() string {
	return k.variant + " " + speedOf(k.tc) + " " + k.mode()
}

// What a decline reason is about (declineAbout).
const (
	aboutBot     = ""        // us, or not now: every kind of challenge
	aboutSpeed   = "speed"   // tooFast, tooSlow, timeControl
	aboutVariant = "variant" // variant, standard
	aboutMode    = "mode"    // rated, casual
)

// declineAbout says what a decline reason is about: the kind of challenge
// (its speed, variant, or rated or casual), or else the bot (generic,
// later, noBot, onlyBot, DeclineCapped, and a reason Lichess may add).
func declineAbout(reason string) string {
	switch strings.ToLower(reason) {
	case strings.ToLower(lichess.DeclineTooFast), strings.ToLower(lichess.DeclineTooSlow), strings.ToLower(lichess.DeclineTimeControl):
		return aboutSpeed
	case lichess.DeclineVariant, lichess.DeclineStandard:
		return aboutVariant
	case lichess.DeclineRated, lichess.DeclineCasual:
		return aboutMode
	}
	return aboutBot
}

// speedRank orders Lichess' real-time speeds, fastest first; -1 for
// another (or none).
func speedRank(speed string) int {
	switch speed {
	case "ultraBullet":
		return 0
	case "bullet":
		return 1
	case "blitz":
		return 2
	case "rapid":
		return 3
	case "classical":
		return 4
	}
	return -1
}

// refuses reports whether decline d tells of a challenge of kind k too: a
// reason about the bot, always; one about the kind, when k is of the kind
// it answered: the same variant (for standard, "only standard": every
// variant), the same mode, the same speed (for tooFast, that speed or a
// faster one; for tooSlow, or a slower one). A
// decline whose kind is unknown (recorded before the kinds were) tells of
// no kind.
func (d DeclineRecord) refuses(k matchKind) bool {
	switch declineAbout(d.Reason) {
	case aboutVariant:
		if strings.EqualFold(d.Reason, lichess.DeclineStandard) {
			return k.variant != "standard" // "I only play standard": every variant
		}
		return d.Variant != "" && d.Variant == k.variant
	case aboutMode:
		return d.Mode != "" && d.Mode == k.mode()
	case aboutSpeed:
		was, is := speedRank(d.Speed), speedRank(speedOf(k.tc))
		switch {
		case was < 0:
			return false
		case strings.EqualFold(d.Reason, lichess.DeclineTooFast):
			return is <= was
		case strings.EqualFold(d.Reason, lichess.DeclineTooSlow):
			return is >= was
		}
		return is == was
	}
	return true
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
	blockLogged  map[string]time.Time // the blocks logged, by bot and kind, with their end: each logged once (dropped once over)
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
	// dayLimitUntil: Lichess refused our challenge for the daily bot-game
	// limit (429 bot.vsBot.day); no challenge before this time. Kept in
	// the store (PauseBotDayLimit): a restart keeps it.
	dayLimitUntil time.Time
}

// onGameStart forgets our challenge when its game starts, and says so:
// the caller counts the bot game (b.mu held).
func (m *matchState) onGameStart(id string) bool {
	if id != "" && id == m.outID {
		m.outID, m.outTo = "", ""
		return true
	}
	if _, ok := m.lateOurs[id]; ok && id != "" {
		delete(m.lateOurs, id) // accepted before our cancel reached Lichess
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
		now, opp := time.Now(), strings.ToLower(ch.DestUser.ID)
		d := DeclineRecord{Opponent: opp, Reason: ch.DeclineReasonKey, At: now,
			Variant: ch.Variant.Key, Speed: ch.Speed, Mode: MatchCasual}
		if ch.Rated {
			d.Mode = MatchRated
		}
		// The event may lack the kind: then it is the kind we sent, when
		// the challenge is the one out (or being sent).
		if d.Variant == "" || d.Speed == "" {
			var k matchKind
			switch {
			case ch.ID != "" && ch.ID == b.mm.outID:
				k = b.mm.outKind
			case b.mm.sending:
				k = b.mm.sendKind
			}
			if k.variant != "" {
				if d.Speed == "" && d.Variant == "" {
					d.Mode = k.mode() // a bare event: its rated says nothing either
				}
				d.Variant = cmp.Or(d.Variant, k.variant)
				d.Speed = cmp.Or(d.Speed, speedOf(k.tc))
			}
		}
		switch about := declineAbout(d.Reason); {
		case about == aboutBot:
			b.mm.declined[opp] = now // a kind's cool-down comes from the history
		case about == aboutSpeed && d.Speed == "", about == aboutVariant && d.Variant == "":
			// A decline of a kind unknown: cool the bot down for every
			// kind (the history, with no kind, refuses none).
			b.mm.declined[opp] = now
		}
		b.mm.history = append(b.mm.history, d)
		b.persist("decline", func(ctx context.Context, s Store) error { return s.AddDecline(ctx, d) })
		b.log.Info().Str("opponent", ch.DestUser.Name).Str("reason", ch.DeclineReasonKey).
			Str("variant", d.Variant).Str("speed", d.Speed).Str("mode", d.Mode).Msg("our challenge was declined")
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
	ch, err := b.c.CreateChallenge(ctx, opp.ID, lichess.ChallengeRequest{
		Limit: int(kind.tc.Base / time.Second), Increment: int(kind.tc.Increment / time.Second),
		Rated: kind.rated, Variant: kind.variant,
	})
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
	sent = true // challengeSent ends the reservation
	b.log.Info().Str("opponent", opp.Username).Str("challenge", ch.ID).Msg("matchmaking: challenge sent")
	b.challengeSent(ctx, ch.ID, opp.ID, kind)
}

// matchmakeView is what one matchmaking round reads from the Bot's state.
type matchmakeView struct {
	outID    string // our challenge still out, if any
	stale    bool   // and it is past the challenge timeout: to be cancelled
	givenUp  string // our challenge just given up (staleGiveUp): cancelled in the background
	settings Settings
	// reserved: a slot is free for a bot game (and has been for
	// IdleTime), the daily caps allow one more, and the view reserved the
	// slot (mm.sending) for this round; the round must give it back
	// (sendingChallenge(false)) or end it with challengeSent.
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
// speed for standard chess (and a position set up), else its variant.
func perfOf(k matchKind) string {
	switch k.variant {
	case "", "standard", "fromPosition":
		return speedOf(k.tc)
	}
	return k.variant
}

// matchmakeView takes a round's view of the state under b.mu (released by
// defer, so that a panic in a round leaves the Bot usable), forgetting a
// stale challenge and declines past their cool-down.
func (b *Bot) matchmakeView(now time.Time, mm MatchmakingSettings) matchmakeView {
	b.mu.Lock()
	defer b.mu.Unlock()
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
		kind:     mm.pickKind(),
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
		if logged := k + " " + v.kind.String(); !b.mm.blockLogged[logged].Equal(until) {
			if b.mm.blockLogged == nil {
				b.mm.blockLogged = map[string]time.Time{}
			}
			b.mm.blockLogged[logged] = until
			b.log.Info().Str("opponent", k).Stringer("kind", v.kind).Time("until", until).Int("declines", mm.BlockAfterDeclines).
				Msg("matchmaking: bot declined such challenges repeatedly; not offered them until then")
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

// staleGiveUp is how long after its timeout a challenge of ours whose
// cancel keeps failing (the network, Lichess' 5xx or 429) is still held
// pending: then it is forgotten, so that a lost cancel never keeps a slot
// for good.
const staleGiveUp = 10 * time.Minute

// staleCancelAnswered takes the answer to the cancel of our stale
// challenge id. Lichess answers 200 when it cancelled the challenge, or
// when the challenge had been accepted and the cancel aborted its game
// (still abortable); a 4xx but 429 when the challenge is gone (404:
// declined or expired, its event lost) or its game is under way (400). On
// either it is forgotten and its slot freed, and remembered for
// cancelRefusedMemory: the start of its game, aborted or under way, may
// come after the answer and is still ours to count. Otherwise (the
// network, 5xx, 429) it stays pending and the next round asks again.
func (b *Bot) staleCancelAnswered(id string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if code := lichess.StatusCode(err); err != nil && (code < 400 || code >= 500 || code == http.StatusTooManyRequests) {
		b.log.Debug().Err(err).Str("challenge", id).Msg("matchmaking: cancel of our stale challenge failed; asked again next round")
		return
	}
	if b.mm.outID == id {
		if err != nil {
			b.log.Debug().Err(err).Str("challenge", id).Msg("matchmaking: Lichess refused to cancel our stale challenge: gone, or its game under way")
		}
		now := time.Now()
		b.rememberLateLocked(id, now.Add(cancelRefusedMemory), now)
	}
	b.forgetOutLocked(id)
}

// cancelRefusedMemory is how long a stale challenge of ours whose cancel
// Lichess answered is remembered, so that its game, should its start come
// late, is counted as ours.
const cancelRefusedMemory = 5 * time.Minute

// givenUpMemory is how long a challenge of ours given up after staleGiveUp
// is remembered (and its cancel tried, every givenUpRetry): it may still
// be open, and its game start, should it come, is counted as ours.
const givenUpMemory = 3 * time.Hour

// givenUpRetry is how often the cancel of a given-up challenge is tried.
const givenUpRetry = time.Minute

// rememberLateLocked remembers our challenge id until until (see
// matchState.lateOurs), forgetting those whose time has passed.
func (b *Bot) rememberLateLocked(id string, until, now time.Time) {
	for k, u := range b.mm.lateOurs {
		if !now.Before(u) {
			delete(b.mm.lateOurs, k)
		}
	}
	if b.mm.lateOurs == nil {
		b.mm.lateOurs = map[string]time.Time{}
	}
	b.mm.lateOurs[id] = until
}

// lateOursLocked reports whether our challenge id is still remembered.
func (b *Bot) lateOursLocked(id string, now time.Time) bool {
	u, ok := b.mm.lateOurs[id]
	return ok && now.Before(u)
}

// cancelGivenUp tries the cancel of our given-up challenge id every
// givenUpRetry until Lichess answers it (done, or a 4xx but 429: gone or
// under way), its game starts, it is no longer remembered, or ctx ends.
func (b *Bot) cancelGivenUp(ctx context.Context, id string) {
	for {
		b.mu.Lock()
		open := b.lateOursLocked(id, time.Now())
		b.mu.Unlock()
		if !open {
			return
		}
		err := b.c.CancelChallenge(ctx, id)
		code := lichess.StatusCode(err)
		if err == nil || (code >= 400 && code < 500 && code != http.StatusTooManyRequests) {
			b.log.Debug().Err(err).Str("challenge", id).Msg("matchmaking: cancel of our given-up challenge answered")
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(givenUpRetry):
		}
	}
}

// forgetOutLocked forgets our challenge id, if it is still the one out,
// and gives its slot to the queue.
func (b *Bot) forgetOutLocked(id string) {
	if b.mm.outID != id {
		return // answered meanwhile (its game started, or it was closed)
	}
	b.mm.outID, b.mm.outTo = "", ""
	b.notifyLocked()
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
// The pause is kept in the store, so that a restart keeps it (loadState).
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
	until = clampDayLimitPause(until, now)
	b.mm.dayLimitUntil = until
	b.persist("daily-limit pause", func(ctx context.Context, s Store) error {
		return s.SetPause(ctx, PauseBotDayLimit, until)
	})
	b.log.Warn().Time("until", until).Int("seconds", seconds).Int("bot_games_24h", b.botGames.count(now)).
		Msg("matchmaking: Lichess' daily bot-game limit reached (429 bot.vsBot.day); no challenges until then")
}

// maxDayLimitPause bounds the daily-limit pause: Lichess counts a sliding
// 24 hours, so no longer pause is right (a ratelimit.seconds out of reason,
// or a stored time damaged or from a clock that was wrong).
const maxDayLimitPause = 24 * time.Hour

// clampDayLimitPause is until, at most maxDayLimitPause after now.
func clampDayLimitPause(until, now time.Time) time.Time {
	if limit := now.Add(maxDayLimitPause); until.After(limit) {
		return limit
	}
	return until
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
func (b *Bot) opponentCapped(opp lichess.User, kind matchKind, err error, now time.Time) {
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
	d := DeclineRecord{Opponent: id, Reason: DeclineCapped, At: now, Variant: kind.variant, Speed: speedOf(kind.tc), Mode: kind.mode()}
	b.mm.history = append(b.mm.history, d)
	b.persist("decline", func(ctx context.Context, s Store) error { return s.AddDecline(ctx, d) })
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
// of all slots, those no queued challenge takes. An arena's pairMeAsap in
// force holds a slot as an accepted challenge does. Our own pending
// challenge is handled by the caller: one at a time.
func (b *Bot) freeBotSlotsLocked() int {
	p := b.settings.Challenge
	rt, _ := b.slotsLocked()
	rt += b.arenaAsksLocked(time.Now()) // an arena's pairMeAsap in force may start a game
	queuedBots := 0
	for _, e := range b.queue.items {
		if e.ch.Challenger.IsBot() {
			queuedBots++
		}
	}
	return min(p.MaxGames-p.ReservedForHumans-rt-queuedBots, p.MaxGames-rt-len(b.queue.items))
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
	if b.matchPendingLocked() {
		free-- // the slot our own challenge holds
	}
	idleBefore := free > 0
	delete(b.games, id)
	if !corr && !idleBefore {
		b.idleFrom = now
	}
}

// blocksDecline reports whether a decline reason counts towards the block
// list: "later" and DeclineCapped say "not now", not "not you".
func blocksDecline(reason string) bool {
	return !strings.EqualFold(reason, lichess.DeclineLater) && reason != DeclineCapped
}

// blockedLocked derives the block list for challenges of kind k from the
// decline history: the bots that declined us BlockAfterDeclines times
// (reasons that count, see blocksDecline, and that refuse k: a reason
// about the bot, or about k's speed, variant or mode) within BlockFor,
// each with the end of its block: the block lasts while that many counted
// declines are within BlockFor, so it ends when the oldest of the last
// BlockAfterDeclines ages out (BlockFor after it), unless a new decline
// comes. It forgets the history older than BlockFor (and the decline
// cool-down).
func (b *Bot) blockedLocked(now time.Time, mm MatchmakingSettings, k matchKind) map[string]time.Time {
	cut := now.Add(-max(mm.BlockFor, mm.DeclineCooldown))
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
	cut = now.Add(-mm.BlockFor)
	for _, d := range b.mm.history {
		if !blocksDecline(d.Reason) || !d.refuses(k) || !d.At.After(cut) {
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
func (b *Bot) challengeSent(ctx context.Context, id, opp string, kind matchKind) {
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
		b.mm.outID, b.mm.outTo, b.mm.outAt, b.mm.outKind = id, opp, time.Now(), kind
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
