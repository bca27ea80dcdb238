package client

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Correspondence games (days per move) are not followed for days. When it
// is our move the worker thinks for CorrespondenceSettings.MoveTime and
// posts; once it has waited DisconnectTime without it being our move
// again, it lets the game's stream go and the game is parked: it holds no
// stream, no engine and no real-time slot. A parked game is taken up again
// when Lichess says it is our move (the gameStart event that Lichess sends
// when the opponent moves in a correspondence game), at each check-in
// (every CheckinPeriod the bot lists its games in progress, GET
// /api/account/playing, and takes up those where it is our move), and at
// start-up (the same list: a restart parks the correspondence games that
// wait for the opponent and takes up the others). A parked game that ends
// (gameFinish) gets a worker once more, for the goodbye and the record.
//
// Correspondence games have their own budget, Concurrency: a
// correspondence challenge takes a slot of it, not of
// ChallengePolicy.MaxGames, and counts every correspondence game in
// progress, parked or not. Draining parks the correspondence games (after
// the move under way) instead of waiting for them, and EndGames leaves
// them alone: they go on after a restart.

// CorrespondenceSettings: how correspondence games are played.
type CorrespondenceSettings struct {
	// MoveTime is how long to think on each move. Default 1 min.
	MoveTime time.Duration
	// DisconnectTime: after our move, the game's stream is kept open this
	// long for a quick answer, then let go. Default 150 s.
	DisconnectTime time.Duration
	// CheckinPeriod is how often the parked games are looked at (to take
	// up those where it is our move). Default 10 min.
	CheckinPeriod time.Duration
	// Ponder thinks on the opponent's time while the stream is open.
	// Default false.
	Ponder bool
	// Concurrency is the most correspondence games in progress at once,
	// parked ones included; it is apart from ChallengePolicy.MaxGames.
	// Default 5.
	Concurrency int
}

func (s CorrespondenceSettings) withDefaults() CorrespondenceSettings {
	if s.MoveTime <= 0 {
		s.MoveTime = time.Minute
	}
	if s.DisconnectTime <= 0 {
		s.DisconnectTime = 150 * time.Second
	}
	if s.CheckinPeriod <= 0 {
		s.CheckinPeriod = 10 * time.Minute
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 5
	}
	return s
}

// speedCorrespondence is Lichess's speed of the games without a clock.
const speedCorrespondence = "correspondence"

// corrDeadlineSlack: a correspondence move's player must answer by
// MoveTime plus this (it has days, but a hung engine must not hold the
// game for them).
const corrDeadlineSlack = 10 * time.Second

// isCorrespondenceChallenge reports whether ch is for a correspondence
// game.
func isCorrespondenceChallenge(ch *lichess.Challenge) bool {
	return ch.TimeControl.Type == "correspondence" || ch.Speed == speedCorrespondence
}

// isCorrespondenceGame reports whether a game listed by Lichess (gameStart,
// GET /api/account/playing) is a correspondence game.
func isCorrespondenceGame(gi *lichess.GameEventInfo) bool {
	return gi.Speed == speedCorrespondence || gi.Perf == speedCorrespondence
}

// parkedGame is a correspondence game in progress that has no worker: it
// waits for the opponent's move. It keeps what a new worker must not do
// again or lose.
type parkedGame struct {
	opponent string
	greeted  bool
	choices  map[int]Choice // our moves' choices so far, for the record
	at       time.Time      // when it was parked
}

// startListedGame takes up a game that Lichess lists (gameStart, the games
// in progress): a correspondence game that waits for the opponent is
// parked, any other gets a worker.
func (b *Bot) startListedGame(ctx context.Context, gi *lichess.GameEventInfo) {
	if gi == nil || gi.GameID == "" {
		return
	}
	b.noteArenaGame(gi) // tournament_games.go
	if isCorrespondenceGame(gi) {
		b.mu.Lock()
		park := !gi.IsMyTurn || b.draining
		if park {
			b.parkLocked(gi.GameID, gi.Opponent.Username)
		}
		b.mu.Unlock()
		if park {
			return
		}
	}
	b.startGame(ctx, gi.GameID, gi.Opponent.Username, isCorrespondenceGame(gi))
}

// parkLocked records a correspondence game without a worker, unless one
// runs for it or one saw it end.
func (b *Bot) parkLocked(id, opponent string) {
	if _, running := b.games[id]; running || b.endedLocked(id) {
		return
	}
	delete(b.pending, id)
	b.queue.remove(id)
	if b.mm.onGameStart(id) {
		// Our matchmaking challenge's game, started on the opponent's
		// move: it is a bot game, and our challenge is no longer out.
		b.countBotGameLocked(id)
	}
	// Until its record is archived (archive_recover.go): a game that
	// ends while it is parked and the bot down is recovered at the next
	// start. A game parked again is noted again, which is a no-op.
	b.noteGameLocked(id)
	if _, ok := b.parked[id]; !ok {
		b.parked[id] = parkedGame{opponent: opponent, at: time.Now()}
		b.log.Info().Str("game", id).Str("opponent", opponent).Msg("correspondence game waits for the opponent's move")
		b.notifyLocked()
	}
}

// unparkLocked hands a parked game's memory to its new worker.
func (b *Bot) unparkLocked(g *gameWorker) {
	p, ok := b.parked[g.id]
	if !ok {
		return
	}
	delete(b.parked, g.id)
	g.corr = true
	g.greeted = p.greeted
	maps.Copy(g.choices, p.choices)
}

// workerDoneLocked records what a worker leaves when it returns: a
// correspondence game not over is parked. One whose end a worker saw is
// over even when this worker did not see it (rebuilt after a panic in
// finish, it left on a gone stream or more panics).
func (b *Bot) workerDoneLocked(g *gameWorker) {
	if g == nil || !g.corr || g.finished || b.endedLocked(g.id) {
		return
	}
	// Parked on purpose, or its worker ended otherwise (stream gone, too
	// many panics, the bot stopping): either way the game goes on at
	// Lichess and keeps its correspondence slot until a check-in sees it
	// over.
	b.parked[g.id] = parkedGame{opponent: g.opponent, greeted: g.greeted, choices: g.choices, at: time.Now()}
	if g.park {
		g.log.Info().Int("ply", len(g.moves)).Msg("correspondence game: stream let go until the opponent moves")
	}
}

// onGameFinishParked gives a parked game that ended a worker once more, for
// its goodbye and record.
func (b *Bot) onGameFinishParked(ctx context.Context, gi *lichess.GameEventInfo) {
	b.mu.Lock()
	p, ok := b.parked[gi.GameID]
	if g := b.games[gi.GameID]; !ok && g != nil && g.corr {
		g.wakeEnd = true // it may be parking: take it up again for the end
	}
	b.mu.Unlock()
	if ok {
		b.startGame(ctx, gi.GameID, p.opponent, true)
	}
}

// slotsLocked counts the games that hold slots: real-time ones (workers
// and accepted challenges) and correspondence ones (workers, parked games
// and accepted challenges).
func (b *Bot) slotsLocked() (realtime, corr int) {
	for _, g := range b.games {
		if g.corr {
			corr++
		} else {
			realtime++
		}
	}
	for _, p := range b.pending {
		if p.corr {
			corr++
		} else {
			realtime++
		}
	}
	return realtime, corr + len(b.parked)
}

// ParkedGames returns the ids of the correspondence games that wait for
// the opponent without a stream.
func (b *Bot) ParkedGames() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.parked))
}

// checkinLoop checks in on the correspondence games every CheckinPeriod.
func (b *Bot) checkinLoop(ctx context.Context) {
	for {
		t := time.NewTimer(b.Settings().Correspondence.CheckinPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		b.checkin(ctx)
	}
}

// checkin lists the games in progress and takes up the correspondence
// games where it is our move; parked games no longer listed (they ended
// while no event said so) are forgotten. Nothing is asked when no
// correspondence game is parked and none is accepted. A panic is logged
// with its stack and loses that check-in only.
func (b *Bot) checkin(ctx context.Context) {
	defer panics.Recover(func(e *panics.Error) { panics.Log(b.log, e, "correspondence check-in panicked") })
	b.mu.Lock()
	idle := len(b.parked) == 0 && !containsFold(b.settings.Challenge.Speeds, speedCorrespondence)
	b.mu.Unlock()
	if idle {
		return
	}
	const nb = 50
	asked := time.Now()
	games, err := b.c.Playing(ctx, nb)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn().Err(err).Msg("correspondence check-in: cannot list the games in progress")
		}
		return
	}
	listed := map[string]bool{}
	for i := range games {
		gi := &games[i]
		listed[gi.GameID] = true
		if isCorrespondenceGame(gi) {
			b.startListedGame(ctx, gi)
		}
	}
	if len(games) < nb { // the whole list: what is not in it has ended
		b.mu.Lock()
		for id, p := range b.parked {
			// A game parked since the list was asked for is not in it.
			if !listed[id] && p.at.Before(asked) {
				delete(b.parked, id)
				delete(b.started, id)
				b.log.Info().Str("game", id).Msg("parked correspondence game is over")
				b.notifyLocked()
			}
		}
		b.mu.Unlock()
	}
}

// realtimeGames returns the ids of the real-time games being played: those
// EndGames ends (correspondence games go on after a restart).
func (b *Bot) realtimeGames() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for id, g := range b.games {
		if !g.corr {
			ids = append(ids, id)
		}
	}
	return ids
}

// Worker side.

// corrGameFull reports whether a gameFull is of a correspondence game.
func corrGameFull(f *lichess.GameFull) bool {
	return f.Speed == speedCorrespondence || f.DaysPerTurn > 0
}

// updateDisconnectTimer runs the timer after which a correspondence game
// waiting for the opponent lets its stream go (at once when the bot is
// draining).
func (g *gameWorker) updateDisconnectTimer() {
	waiting := g.corr && !g.finished && g.full != nil && !g.ourTurn() && g.moverPly < 0
	if waiting && g.disconnectTimer == nil {
		d := g.s.Correspondence.DisconnectTime
		if g.draining {
			d = 0
		}
		g.disconnectTimer = time.NewTimer(d)
		g.disconnectC = g.disconnectTimer.C
	}
	if !waiting && g.disconnectTimer != nil {
		g.disconnectTimer.Stop()
		g.disconnectTimer, g.disconnectC = nil, nil
	}
}

// onDrain: a correspondence worker lets its stream go as soon as it waits
// for the opponent.
func (g *gameWorker) onDrain() {
	g.draining = true
	if g.disconnectTimer != nil {
		g.disconnectTimer.Stop()
		g.disconnectTimer, g.disconnectC = nil, nil
	}
}

// corrClock narrows a correspondence move's clock: MoveTime to think, and
// a deadline of that plus a slack (within the days per move left). A clock
// that reads no time left (Lichess sent none) is taken as unknown: a
// correspondence move has days, and thinking beats an instant fallback
// move.
func (g *gameWorker) corrClock(c MoveClock, now time.Time) MoveClock {
	cs := g.s.Correspondence
	c.Running = true
	if limit := now.Add(cs.MoveTime + corrDeadlineSlack); c.Deadline.After(limit) || !c.Deadline.After(now) {
		c.Deadline = limit
	}
	c.MoveTime = min(cs.MoveTime, c.Left(now))
	return c
}
