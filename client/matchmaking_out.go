package client

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

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
// being sent: it holds a slot (matchPendingSlotsLocked), and is a bot
// game to come.
func (b *Bot) matchPendingLocked() bool {
	return b.mm.outID != "" || b.mm.sending
}

// matchPendingSlotsLocked is the slot the matchmaker's challenge out or
// being sent holds, by its kind: a real-time one (rt 1) or a
// correspondence one (corr 1); none when nothing is pending.
func (b *Bot) matchPendingSlotsLocked() (rt, corr int) {
	if !b.matchPendingLocked() {
		return 0, 0
	}
	k := b.mm.outKind
	if b.mm.outID == "" {
		k = b.mm.sendKind
	}
	if k.corr() {
		return 0, 1
	}
	return 1, 0
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
				d.Speed = cmp.Or(d.Speed, k.speed())
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
	if !cancelAnswered(err) {
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

// cancelAnswered reports whether err, from the cancel of a challenge of
// ours, is Lichess' answer: none (done) or a 4xx but 429 (gone, or its
// game under way). The network, a 5xx or a 429 is no answer: ask again.
func cancelAnswered(err error) bool {
	code := lichess.StatusCode(err)
	return err == nil || (code >= 400 && code < 500 && code != http.StatusTooManyRequests)
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
		if err := b.c.CancelChallenge(ctx, id); cancelAnswered(err) {
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
