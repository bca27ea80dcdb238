package client

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Joining an arena (and renewing its pairMeAsap) and withdrawing from
// it (tournament.go).

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
	if !b.withdrawWithin(ctx, st, joined, timeout) {
		b.log.Warn().Msg("arena tournaments: no time left to withdraw")
	}
}

// withdrawArena withdraws from arena a, which a reload took off the list.
// Running out of time is not logged: a stays joined, and withdrawArenas
// tries again when the bot drains or stops.
func (b *Bot) withdrawArena(ctx context.Context, a *arenaJoin) {
	b.mu.Lock()
	st := b.arenasLocked()
	timeout := b.settings.Tournament.WithdrawTimeout
	b.mu.Unlock()
	b.withdrawWithin(ctx, st, []*arenaJoin{a}, timeout)
}

// withdrawWithin withdraws from arenas one after the other, within
// timeout, once a join in flight has landed (st.reqMu); false when the
// time ran out before any withdrawal was sent.
func (b *Bot) withdrawWithin(ctx context.Context, st *arenaState, arenas []*arenaJoin, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case st.reqMu <- struct{}{}: // a join in flight lands first
		defer func() { <-st.reqMu }()
	case <-ctx.Done():
		return false
	}
	for _, a := range arenas {
		b.withdrawOne(ctx, a)
	}
	return true
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
