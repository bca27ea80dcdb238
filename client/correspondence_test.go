package client

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// Correspondence games (correspondence.go) are played on lichesstest with
// a "day" of a minute: long enough that no move of these tests runs out of
// time, short enough to be a correspondence clock that ticks.
const corrDay = time.Minute

var corrGame = lichesstest.ChallengeParams{Days: 1}

// corrSettings accept correspondence (and real-time) games, think 20 ms a
// move and let a game's stream go after disconnect.
func corrSettings(disconnect, checkin time.Duration) Settings {
	return Settings{
		Challenge: ChallengePolicy{MaxGames: 1, Speeds: []string{"blitz", "rapid", "correspondence"}},
		Game:      GameSettings{AbortAfter: -1},
		Correspondence: CorrespondenceSettings{MoveTime: 20 * time.Millisecond, DisconnectTime: disconnect,
			CheckinPeriod: checkin, Concurrency: 1},
	}
}

// opponentMoves plays the first legal move for who in game id.
func (h *harness) opponentMoves(id, who string) {
	h.t.Helper()
	g := h.game(id)
	opt, err := chess.FEN(g.FEN)
	if err != nil {
		h.t.Fatal(err)
	}
	cg := chess.NewGame(opt)
	mv := cg.ValidMoves()[0]
	if err := h.srv.Move(id, who, chess.UCINotation{}.Encode(cg.Position(), mv)); err != nil {
		h.t.Fatalf("%s's move in %s: %v", who, id, err)
	}
}

// waitParked waits until game id waits for the opponent with no stream of
// ours open.
func (h *harness) waitParked(b *Bot, id string) {
	h.t.Helper()
	testsupport.WaitFor(h.t, "game "+id+" parked", func() bool {
		return slices.Contains(b.ParkedGames(), id) && h.srv.GameStreams(id, botName) == 0
	})
}

// A correspondence game across a restart of the daemon: the bot moves,
// lets the stream go, is stopped; the opponent moves meanwhile; a new Bot
// takes the game up from the games in progress and moves; later moves of
// the opponent reach it by the gameStart Lichess sends; a game that ends
// while it is parked still gets its goodbye and its record.
func TestCorrespondenceAcrossRestart(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	s := corrSettings(time.Millisecond, time.Hour) // no check-in: the start-up list and the events do it
	s.PGNDir = t.TempDir()
	s.Chat.Goodbye.Player = "gg"
	b, stop := h.runBot(s, &playerPool{})
	id := h.challenge("corr", lichesstest.ChallengeParams{Days: 1, Color: "black"}) // the bot plays white
	h.waitPlies(id, 1)
	h.waitParked(b, id)
	stop()

	h.opponentMoves(id, "corr") // while the bot is away
	b, stop = h.runBot(s, &playerPool{})
	h.waitPlies(id, 3)
	h.waitParked(b, id)

	h.opponentMoves(id, "corr") // the bot learns it from the gameStart
	h.waitPlies(id, 5)
	h.waitParked(b, id)
	if err := h.srv.Resign(id, "corr"); err != nil {
		t.Fatal(err)
	}
	g := h.waitOver(id)
	testsupport.WaitFor(t, "the record", func() bool {
		_, err := os.Stat(filepath.Join(s.PGNDir, id+".pgn"))
		return err == nil
	})
	testsupport.WaitFor(t, "the parked game forgotten", func() bool { return len(b.ParkedGames()) == 0 && len(b.Games()) == 0 })
	stop()
	if g.Status != "resign" || g.Winner != "white" || len(g.Moves) != 5 {
		t.Errorf("game %s after %v, winner %q", g.Status, g.Moves, g.Winner)
	}
	if !slices.Contains(h.botChat(id), "player:gg") {
		t.Errorf("no goodbye in %v", h.botChat(id))
	}
	// One stream per move of ours and one for the end: the stream was let
	// go between our moves.
	if n := h.requests("GET /api/bot/game/stream/" + id); n != 4 {
		t.Errorf("game stream opened %d times, want 4 (three moves, the end)", n)
	}
	h.noDuplicatePosts(id)
	h.noRefusedMoves()
}

// A correspondence game takes no real-time slot: with concurrency 1 and a
// correspondence game whose stream is open, a real-time challenge is
// accepted; a second correspondence challenge finds the correspondence
// budget (1) full and is declined "later".
func TestCorrespondenceTakesNoRealtimeSlot(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	h.addHuman("corr2")
	h.addHuman("alice")
	b, _ := h.runBot(corrSettings(time.Hour, time.Hour), &playerPool{})
	corr := h.challenge("corr", lichesstest.ChallengeParams{Days: 1, Color: "black"})
	h.waitPlies(corr, 1)
	testsupport.WaitFor(t, "the correspondence game's worker", func() bool { return slices.Contains(b.Games(), corr) })

	rt := h.challenge("alice", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Color: "black"})
	h.waitFor("the real-time game", func() bool { st, _ := h.srv.ChallengeStatus(rt); return st == "accepted" })
	h.waitPlies(rt, 1)
	second := h.challenge("corr2", corrGame)
	h.waitDeclined(second, lichess.DeclineLater)
	if g := h.game(corr); g.Finished {
		t.Errorf("correspondence game over: %s", g.Status)
	}
}

// The check-in takes up a correspondence game where it is our move though
// no event said so (here every gameStart is lost).
func TestCorrespondenceCheckinTakesUpOurTurn(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	h.hooks = &testHooks{keepEvent: func(ev lichess.Event) bool { return ev.Type != lichess.EventGameStart }}
	b, _ := h.runBot(corrSettings(time.Millisecond, 20*time.Millisecond), &playerPool{})
	// Our challenge, accepted: the bot plays black and learns of the game
	// only from the check-in.
	id, err := h.srv.Challenge(botName, "corr", lichesstest.ChallengeParams{Days: 1, Color: "black"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.srv.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	h.waitParked(b, id) // listed, not our move: parked without a stream
	if n := h.requests("GET /api/bot/game/stream/" + id); n != 0 {
		t.Errorf("stream opened %d times before our move", n)
	}
	h.opponentMoves(id, "corr")
	h.waitPlies(id, 2)
	h.waitParked(b, id)
	h.noDuplicatePosts(id)
}

// Draining does not wait days for a correspondence game: its worker lets
// the stream go at once, and EndGames leaves it running on Lichess (a
// restart takes it up again).
func TestCorrespondenceDrainParks(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	b, _ := h.runBot(corrSettings(time.Hour, time.Hour), &playerPool{})
	id := h.challenge("corr", lichesstest.ChallengeParams{Days: 1, Color: "black"})
	h.waitPlies(id, 1)
	testsupport.WaitFor(t, "the worker", func() bool { return slices.Contains(b.Games(), id) })
	if err := b.Drain(h.ctx); err != nil {
		t.Fatalf("drain: %v", err)
	}
	h.waitParked(b, id)
	if err := b.EndGames(h.ctx); err != nil {
		t.Fatal(err)
	}
	if g := h.game(id); g.Finished {
		t.Errorf("correspondence game ended at shutdown: %s", g.Status)
	}
	if a := h.actions(id); len(a) != 0 {
		t.Errorf("actions at shutdown: %v", a)
	}
}

// A correspondence move thinks MoveTime, with a deadline of that plus a
// slack, whatever the days left, and also when the clock reads nothing.
func TestCorrespondenceMoveClock(t *testing.T) {
	g := &gameWorker{s: Settings{Correspondence: CorrespondenceSettings{MoveTime: 3 * time.Second}}}
	now := time.Now()
	for _, tc := range []struct {
		name     string
		deadline time.Time
		move     time.Duration
		by       time.Time
	}{
		{"days left", now.Add(72 * time.Hour), 3 * time.Second, now.Add(3*time.Second + corrDeadlineSlack)},
		{"no clock", now, 3 * time.Second, now.Add(3*time.Second + corrDeadlineSlack)},
		{"no deadline", time.Time{}, 3 * time.Second, now.Add(3*time.Second + corrDeadlineSlack)},
		{"seconds left", now.Add(2 * time.Second), 2 * time.Second, now.Add(2 * time.Second)},
	} {
		c := g.corrClock(MoveClock{Deadline: tc.deadline}, now)
		if !c.Running || c.MoveTime != tc.move || !c.Deadline.Equal(tc.by) {
			t.Errorf("%s: %+v, want move time %v by %v", tc.name, c, tc.move, tc.by)
		}
	}
}

// A parked game that ended without a gameFinish reaching the bot is
// forgotten at the next check-in: it no longer holds a correspondence
// slot.
func TestCorrespondenceCheckinForgetsEndedGame(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	h.hooks = &testHooks{keepEvent: func(ev lichess.Event) bool { return ev.Type != lichess.EventGameFinish }}
	b, _ := h.runBot(corrSettings(time.Millisecond, 20*time.Millisecond), &playerPool{})
	id := h.challenge("corr", lichesstest.ChallengeParams{Days: 1, Color: "black"})
	h.waitPlies(id, 1)
	h.waitParked(b, id)
	if err := h.srv.Resign(id, "corr"); err != nil {
		t.Fatal(err)
	}
	testsupport.WaitFor(t, "the ended game forgotten", func() bool { return len(b.ParkedGames()) == 0 })
	// The budget (1) is free again: a new correspondence challenge is
	// accepted.
	next := h.challenge("corr", corrGame)
	h.waitFor("the next correspondence game", func() bool { st, _ := h.srv.ChallengeStatus(next); return st == "accepted" })
}

// A correspondence game whose end a worker saw is not parked: not when
// the worker rebuilt after a panic in finish leaves without seeing the end
// (here it keeps panicking), nor is a parked entry kept when the game is
// taken up after its end (a gameFinish, onGameFinishParked). A parked game
// holds a correspondence slot until a check-in sees it over.
func TestCorrespondenceEndedNotParked(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	id, err := h.srv.Challenge(botName, "corr", lichesstest.ChallengeParams{Days: 1, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.srv.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.Resign(id, "corr"); err != nil {
		t.Fatal(err)
	}
	s := corrSettings(time.Hour, time.Hour)
	s.ReconnectMin = time.Hour // each worker opens the game stream once
	s.Chat.Goodbye.Player = "gg"
	b := NewBot(h.client(), nil, s, testsupport.Logger(t))
	var over atomic.Bool
	b.hooks = &testHooks{
		saidGoodbye: func(string) { over.Store(true); panic("injected panic in finish") },
		workerEvent: func(string, lichess.GameEvent) {
			if over.Load() {
				panic("injected panic in a worker rebuilt after the end")
			}
		},
	}
	b.startGame(h.ctx, id, "corr", true)
	b.wg.Wait()
	if n := h.requests("GET /api/bot/game/stream/" + id); n != 1+maxWorkerRebuilds {
		t.Fatalf("game stream opened %d times, want %d (the worker and its rebuilds)", n, 1+maxWorkerRebuilds)
	}
	if p := b.ParkedGames(); len(p) != 0 {
		t.Errorf("parked after its end was seen: %v", p)
	}

	// Parked anyway, then taken up for its end: the entry goes.
	b.mu.Lock()
	b.parked[id] = parkedGame{opponent: "corr", at: time.Now()}
	b.mu.Unlock()
	b.onGameFinishParked(h.ctx, &lichess.GameEventInfo{GameID: id})
	b.wg.Wait()
	if p := b.ParkedGames(); len(p) != 0 {
		t.Errorf("a game over here stays parked after its gameFinish: %v", p)
	}
}
