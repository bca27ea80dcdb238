package client

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Answering challenges. A challenge that breaks the rules (ChallengePolicy)
// is declined with the rule's reason. One that passes them joins the queue;
// the queue gives every free slot to the first challenge that may take it
// (in arrival order, or the best-rated first), so a challenge that finds a
// slot free is accepted at once, and one that finds every slot busy waits
// until a game ends. A challenge leaves the queue when it is accepted,
// withdrawn by its challenger (challengeCanceled), declined "later" once it
// has waited QueueMaxAge, or declined by a rule that now refuses it (the
// settings were reloaded, the daily bot-game limit was reached); one that
// finds the queue full is declined "later". Draining declines every
// challenge that waits. A freed slot goes to the queue before matchmaking.
//
// Lichess keeps a challenge open until it is answered or withdrawn, and
// sends the open ones again each time the event stream opens: a challenge
// already queued, accepted or playing is not answered twice. At start-up
// the bot lists the open challenges (GET /api/challenge) and queues them
// all before it serves the queue, so that SortBest sees them together.

// Orders of the challenge queue (ChallengePolicy.SortBy).
const (
	SortFirst = "first" // arrival order
	SortBest  = "best"  // the highest-rated challenger first; ties in arrival order
)

// queuedChallenge is a challenge waiting for a slot.
type queuedChallenge struct {
	ch      *lichess.Challenge
	at      time.Time // when the bot first saw it
	seq     uint64    // arrival order
	retryAt time.Time // after an accept that failed: not tried again before
}

// challengeQueue holds the waiting challenges (guarded by Bot.mu).
type challengeQueue struct {
	items []queuedChallenge
	seq   uint64
}

func (q *challengeQueue) add(ch *lichess.Challenge, now time.Time) {
	q.seq++
	q.items = append(q.items, queuedChallenge{ch: ch, at: now, seq: q.seq})
}

func (q *challengeQueue) has(id string) bool {
	return slices.ContainsFunc(q.items, func(e queuedChallenge) bool { return e.ch.ID == id })
}

// remove takes challenge id out of the queue and reports whether it was in.
func (q *challengeQueue) remove(id string) bool {
	n := len(q.items)
	q.items = slices.DeleteFunc(q.items, func(e queuedChallenge) bool { return e.ch.ID == id })
	return len(q.items) < n
}

// takeAll empties the queue and returns what waited.
func (q *challengeQueue) takeAll() []queuedChallenge {
	items := q.items
	q.items = nil
	return items
}

// sorted returns the waiting challenges in the order they get slots.
func (q *challengeQueue) sorted(by string) []queuedChallenge {
	out := slices.Clone(q.items)
	slices.SortFunc(out, func(a, b queuedChallenge) int {
		if by == SortBest {
			if c := cmp.Compare(b.ch.Challenger.Rating, a.ch.Challenger.Rating); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}

// nextExpiry is when the oldest waiting challenge has waited maxAge (zero
// when none waits).
func (q *challengeQueue) nextExpiry(maxAge time.Duration) time.Time {
	var next time.Time
	for _, e := range q.items {
		if t := e.at.Add(maxAge); next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next
}

// pendingGame is an accepted challenge whose game has not started.
type pendingGame struct {
	at   time.Time // when it was accepted
	user string    // the challenger's id
	bot  bool      // a bot game not yet in Bot.botGames (its accept is in flight)
	corr bool      // a correspondence game: it takes a correspondence slot
}

// answer is what the bot tells Lichess about a challenge: accept it
// (reason "") or decline it with reason.
type answer struct {
	ch     *lichess.Challenge
	reason string
	rule   string          // for the log: the rule (a config key) that declines it
	why    string          // for the log, when the reason alone does not say it
	from   queuedChallenge // an accept's place in the queue, to go back to if the accept fails
}

// acceptRetryDelay is how long a challenge whose accept failed for a
// reason that may pass (no answer, a 429, a 5xx) waits in the queue before
// it is tried again: Lichess keeps it open.
const acceptRetryDelay = 5 * time.Second

// QueuedChallenges returns the ids of the challenges waiting for a slot,
// in the order they would get one.
func (b *Bot) QueuedChallenges() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for _, e := range b.queue.sorted(b.settings.Challenge.SortBy) {
		ids = append(ids, e.ch.ID)
	}
	return ids
}

// onChallenge answers a challenge event.
func (b *Bot) onChallenge(ctx context.Context, ch *lichess.Challenge) {
	b.admit(ctx, []*lichess.Challenge{ch})
}

// queueOpenChallenges queues the challenges still open for us on Lichess
// (those that arrived while the bot was away), all before serving any.
// Listing them takes the challenge:read scope, which a bot token need not
// have: without it (or when the list fails) the event stream, which sends
// the open challenges as it opens, brings them one at a time.
func (b *Bot) queueOpenChallenges(ctx context.Context) {
	l, err := b.c.ListChallenges(ctx)
	switch code := lichess.StatusCode(err); {
	case err == nil:
	case ctx.Err() != nil:
		return
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		b.log.Info().Err(err).Msg("cannot list the open challenges (the token lacks the challenge:read scope); the event stream brings them")
		return
	default:
		b.log.Warn().Err(err).Msg("cannot list the open challenges; the event stream brings them")
		return
	}
	chs := make([]*lichess.Challenge, len(l.In))
	for i := range l.In {
		chs[i] = &l.In[i]
	}
	if len(chs) > 0 {
		b.log.Info().Int("open", len(chs)).Msg("challenges open at start-up")
	}
	b.admit(ctx, chs)
}

// admit answers new challenges: those that break the rules are declined,
// the others queued; then the queue is served, and the newcomers that do
// not fit in the queue are declined "later".
func (b *Bot) admit(ctx context.Context, chs []*lichess.Challenge) {
	b.mu.Lock()
	now := time.Now()
	b.dropStalePendingLocked(now)
	var answers []answer
	var added []*lichess.Challenge
	seen := map[string]bool{}
	for _, ch := range chs {
		if ch == nil || ch.ID == "" || ch.Direction == "out" || strings.EqualFold(ch.Challenger.ID, b.me.ID) {
			continue
		}
		if b.knownLocked(ch.ID) || seen[ch.ID] {
			continue // sent again when the event stream reopened, or twice in a list
		}
		seen[ch.ID] = true
		if reason, rule := b.rulesLocked(ch, now); reason != "" {
			answers = append(answers, answer{ch: ch, reason: reason, rule: rule})
			continue
		}
		b.queue.add(ch, now)
		added = append(added, ch)
	}
	answers = append(answers, b.serveQueueLocked(now)...)
	p := b.settings.Challenge
	if over := len(b.queue.items) - p.QueueLength; over > 0 {
		ranked := b.queue.sorted(p.SortBy)
		for i := len(ranked) - 1; i >= 0 && over > 0; i-- {
			if ch := ranked[i].ch; slices.Contains(added, ch) {
				b.queue.remove(ch.ID)
				rule := "challenge.queue_length reached"
				if p.QueueLength == 0 {
					rule = "every challenge.concurrency slot busy (no queue: challenge.queue_length is 0)"
				}
				answers = append(answers, answer{ch: ch, reason: lichess.DeclineLater, rule: rule,
					why: "all slots busy and the queue is full"})
				over--
			}
		}
	}
	waiting := len(b.queue.items)
	for _, ch := range added {
		if b.queue.has(ch.ID) {
			b.challengeLog(ch).Info().Int("waiting", waiting).Msg("challenge queued: every slot is busy")
			b.obs.ChallengeAnswered(ChallengeQueued, "")
		}
	}
	if len(added) > 0 {
		b.notifyLocked() // the queue loop looks at the new expiry
	}
	b.noteDeclinesLocked(answers, now)
	b.mu.Unlock()
	b.send(ctx, answers)
}

// declinedMemory is how long a declined challenge is remembered, so that
// the same challenge sent again (the event stream reopened before the
// decline landed, the start-up list and the stream both naming it) is not
// answered twice.
const declinedMemory = 10 * time.Minute

// noteDeclinesLocked remembers the challenges answers decline, and
// forgets those declined long ago.
func (b *Bot) noteDeclinesLocked(answers []answer, now time.Time) {
	for id, t := range b.declined {
		if now.Sub(t) > declinedMemory {
			delete(b.declined, id)
		}
	}
	for _, a := range answers {
		if a.reason != "" {
			b.declined[a.ch.ID] = now
		}
	}
}

// knownLocked reports whether challenge id is already queued, accepted,
// playing or declined.
func (b *Bot) knownLocked(id string) bool {
	_, pending := b.pending[id]
	_, playing := b.games[id]
	_, declined := b.declined[id]
	_, parked := b.parked[id]
	return pending || playing || declined || parked || b.queue.has(id)
}

// rulesLocked returns the reason to decline ch by the rules and the rule,
// "" when it may have a slot; slots are the queue's business.
func (b *Bot) rulesLocked(ch *lichess.Challenge, now time.Time) (reason, rule string) {
	// Accepted in this round or in flight, and our own challenge: counted
	// before the next one.
	st := policyState{Me: b.me.ID, BotGamesToday: b.botGamesLocked(now), Draining: b.draining}
	return b.settings.Challenge.verdict(ch, st)
}

// pendingTimeout: an accepted challenge whose game has not started this
// long after is forgotten, and its slot given back.
const pendingTimeout = time.Minute

// dropStalePendingLocked forgets accepted challenges whose game never
// started.
func (b *Bot) dropStalePendingLocked(now time.Time) {
	for id, p := range b.pending {
		if now.Sub(p.at) > pendingTimeout {
			delete(b.pending, id)
		}
	}
}

// nextWakeLocked is when the queue must be looked at again though nothing
// happened: the oldest waiting challenge reaches its age limit, or an
// accepted challenge that holds a slot times out. Zero when nothing waits.
func (b *Bot) nextWakeLocked() time.Time {
	next := b.queue.nextExpiry(b.settings.Challenge.QueueMaxAge)
	if next.IsZero() {
		return next
	}
	for _, p := range b.pending {
		if t := p.at.Add(pendingTimeout + time.Millisecond); t.Before(next) {
			next = t
		}
	}
	for _, e := range b.queue.items {
		if !e.retryAt.IsZero() && e.retryAt.Before(next) {
			next = e.retryAt
		}
	}
	if t := b.nextAskExpiryLocked(time.Now()); !t.IsZero() && t.Add(time.Millisecond).Before(next) {
		next = t.Add(time.Millisecond) // an arena's ask ends: its slot frees
	}
	return next
}

// serveQueueLocked gives the free slots to the queue and answers what
// waited too long or breaks the rules now; it returns the answers to send.
func (b *Bot) serveQueueLocked(now time.Time) []answer {
	if len(b.queue.items) == 0 {
		return nil
	}
	b.dropStalePendingLocked(now)
	var out []answer
	if b.draining {
		for _, e := range b.queue.takeAll() {
			out = append(out, answer{ch: e.ch, reason: lichess.DeclineLater, rule: "shutting down: no new games", why: "draining"})
		}
		return out
	}
	p := b.settings.Challenge
	rt, corr := b.slotsLocked()
	// Our own challenge (out or being sent), if accepted, starts a game
	// too: a real-time or a correspondence one, by its kind.
	prt, pcorr := b.matchPendingSlotsLocked()
	rt, corr = rt+prt, corr+pcorr
	rt += b.arenaAsksLocked(now) // an arena's pairMeAsap in force may start a game too
	for _, e := range b.queue.sorted(p.SortBy) {
		ch := e.ch
		if !now.Before(e.at.Add(p.QueueMaxAge)) {
			b.queue.remove(ch.ID)
			out = append(out, answer{ch: ch, reason: lichess.DeclineLater, rule: "challenge.queue_max_age reached", why: "waited too long in the queue"})
			continue
		}
		if reason, rule := b.rulesLocked(ch, now); reason != "" {
			b.queue.remove(ch.ID)
			out = append(out, answer{ch: ch, reason: reason, rule: rule, why: "the rules refuse it now"})
			continue
		}
		if now.Before(e.retryAt) || !b.hasSlotLocked(ch, rt, corr) {
			continue
		}
		b.queue.remove(ch.ID)
		isCorr := isCorrespondenceChallenge(ch)
		b.pending[ch.ID] = pendingGame{at: now, user: strings.ToLower(ch.Challenger.ID), bot: ch.Challenger.IsBot(), corr: isCorr}
		if isCorr {
			corr++
		} else {
			rt++
		}
		out = append(out, answer{ch: ch, from: e})
	}
	return out
}

// hasSlotLocked reports whether ch may take a slot while rt real-time and
// corr correspondence games run or are accepted. A correspondence
// challenge takes a slot of the correspondence budget, which no slot is
// reserved in; a real-time one a slot of MaxGames.
func (b *Bot) hasSlotLocked(ch *lichess.Challenge, rt, corr int) bool {
	p := b.settings.Challenge
	if isCorrespondenceChallenge(ch) {
		return corr < b.settings.Correspondence.Concurrency &&
			(p.MaxGamesPerUser == 0 || b.gamesWithLocked(ch.Challenger) < p.MaxGamesPerUser)
	}
	games := rt
	switch {
	case games >= p.MaxGames:
		return false
	case ch.Challenger.IsBot() && games >= p.MaxGames-p.ReservedForHumans:
		return false
	case p.MaxGamesPerUser > 0 && b.gamesWithLocked(ch.Challenger) >= p.MaxGamesPerUser:
		return false
	}
	return true
}

// gamesWithLocked counts the games against u that run or are accepted.
func (b *Bot) gamesWithLocked(u lichess.ChallengeUser) int {
	n := 0
	for _, g := range b.games {
		if strings.EqualFold(g.opponent, u.ID) || (u.Name != "" && strings.EqualFold(g.opponent, u.Name)) {
			n++
		}
	}
	for _, p := range b.pending {
		if strings.EqualFold(p.user, u.ID) {
			n++
		}
	}
	for id, p := range b.parked {
		if _, running := b.games[id]; !running && (strings.EqualFold(p.opponent, u.ID) || (u.Name != "" && strings.EqualFold(p.opponent, u.Name))) {
			n++
		}
	}
	return n
}

// unqueueLocked takes a withdrawn challenge out of the queue.
func (b *Bot) unqueueLocked(ch *lichess.Challenge) {
	if b.queue.remove(ch.ID) {
		b.challengeLog(ch).Info().Int("waiting", len(b.queue.items)).Msg("queued challenge withdrawn")
	}
}

// queueLoop serves the queue whenever a slot may have freed (a game ended,
// an accepted challenge came to nothing, the settings changed), when the
// oldest waiting challenge reaches its age limit, and when an accepted
// challenge whose game never started times out.
func (b *Bot) queueLoop(ctx context.Context) {
	for {
		b.mu.Lock()
		changed := b.changed
		b.mu.Unlock()
		next := b.queueRound(ctx)
		var expiry <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			t = time.NewTimer(time.Until(next))
			expiry = t.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-expiry:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// queueRound serves the queue once and returns when the next round is due
// at the latest (zero: when something changes). A panic is logged with its
// stack and loses that round only.
func (b *Bot) queueRound(ctx context.Context) (next time.Time) {
	defer panics.Recover(func(e *panics.Error) { panics.Log(b.log, e, "challenge queue round panicked") })
	answers, next := b.serveQueue(time.Now())
	b.send(ctx, answers)
	return next
}

// serveQueue is serveQueueLocked and nextWakeLocked under b.mu (released by
// defer, so that a panic leaves the Bot usable).
func (b *Bot) serveQueue(now time.Time) ([]answer, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	answers := b.serveQueueLocked(now)
	b.noteDeclinesLocked(answers, now)
	return answers, b.nextWakeLocked()
}

// declineQueued declines what waits, when draining, and returns once every
// answer is sent or ctx ends.
func (b *Bot) declineQueued(ctx context.Context, waiting []queuedChallenge) {
	var wg sync.WaitGroup
	for _, e := range waiting {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.sendOne(ctx, answer{ch: e.ch, reason: lichess.DeclineLater, rule: "shutting down: no new games", why: "draining"})
		}()
	}
	wg.Wait()
}

// send answers the challenges, each in the background.
func (b *Bot) send(ctx context.Context, answers []answer) {
	for _, a := range answers {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.sendOne(ctx, a)
		}()
	}
}

// sendOne accepts or declines one challenge. An accepted challenge whose
// accept fails gives its slot back.
func (b *Bot) sendOne(ctx context.Context, a answer) {
	ch := a.ch
	log := b.challengeLog(ch)
	defer panics.Recover(func(e *panics.Error) { panics.Log(*log, e, "answering a challenge panicked") })
	if a.reason != "" {
		ev := log.Info().Str("reason", a.reason)
		if a.rule != "" {
			ev = ev.Str("rule", a.rule)
		}
		if a.why != "" {
			ev = ev.Str("why", a.why)
		}
		ev.Msg("declining challenge")
		err := b.c.DeclineChallenge(ctx, ch.ID, a.reason)
		if err == nil {
			// Counted once it is done: a failed decline is answered (and
			// counted) again if Lichess sends the challenge again.
			b.obs.ChallengeAnswered(ChallengeDeclined, a.reason)
		} else if ctx.Err() == nil {
			log.Warn().Err(err).Msg("decline failed")
			b.mu.Lock()
			delete(b.declined, ch.ID) // answered again if Lichess sends it again
			b.mu.Unlock()
		}
		return
	}
	log.Info().Msg("accepting challenge")
	// Noted before the accept, the game (it has the challenge's id) is
	// noted before it can be played; an accept that fails leaves a note
	// that the recovery forgets (Lichess has no such game).
	b.noteGameNow(ctx, ch.ID)
	if err := b.c.AcceptChallenge(ctx, ch.ID); err != nil {
		code := lichess.StatusCode(err)
		retry := ctx.Err() == nil && a.from.ch != nil && (code == 0 || code == http.StatusTooManyRequests || code >= 500)
		b.mu.Lock()
		delete(b.pending, ch.ID)
		if retry && !b.draining {
			// Lichess keeps the challenge open: it waits in its place.
			e := a.from
			e.retryAt = time.Now().Add(b.acceptRetry)
			b.queue.items = append(b.queue.items, e)
		}
		b.notifyLocked() // the slot is free again
		b.mu.Unlock()
		if ctx.Err() == nil {
			log.Warn().Err(err).Bool("retry", retry).Msg("accept failed")
		}
		return
	}
	b.obs.ChallengeAnswered(ChallengeAccepted, "")
	if ch.Challenger.IsBot() {
		b.mu.Lock()
		if pg, ok := b.pending[ch.ID]; ok {
			pg.bot = false // counted by botGames from now on
			b.pending[ch.ID] = pg
		}
		b.countBotGameLocked(ch.ID) // the game has the challenge's id
		b.mu.Unlock()
	}
}

func (b *Bot) challengeLog(ch *lichess.Challenge) *zerolog.Logger {
	l := b.log.With().Str("challenge", ch.ID).Str("from", ch.Challenger.Name).Str("variant", ch.Variant.Key).
		Str("speed", ch.Speed).Bool("rated", ch.Rated).Logger()
	return &l
}

// queueText answers !queue.
func queueText(n int) string {
	switch n {
	case 0:
		return "No challenge is waiting."
	case 1:
		return "1 challenge is waiting."
	}
	return strconv.Itoa(n) + " challenges are waiting."
}
