package client

import (
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// An arena's games and the pairMeAsap asks in force, which hold
// real-time slots (tournament.go).

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
