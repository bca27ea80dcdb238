package client

import (
	"context"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

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
	d := DeclineRecord{Opponent: id, Reason: DeclineCapped, At: now, Variant: kind.variant, Speed: kind.speed(), Mode: kind.mode()}
	b.mm.history = append(b.mm.history, d)
	b.persist("decline", func(ctx context.Context, s Store) error { return s.AddDecline(ctx, d) })
	b.mu.Unlock()
	b.log.Info().Str("opponent", opp.Username).Time("until", until).
		Msg("matchmaking: the opponent has played too many games against bots today (Lichess' 400); skipped until then")
}
