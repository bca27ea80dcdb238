package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// End-to-end tests: the Bot against house players of lichesstest, which
// challenge it or accept its challenges and play whole games (harness in
// harness_test.go).

var blitz = lichesstest.ChallengeParams{ClockLimit: 60 * time.Second, ClockIncrement: time.Second, Color: "random"}

func TestE2EFullGame(t *testing.T) {
	e := newHarness(t, lichesstest.WithUnknownFields())
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	dir := t.TempDir()
	_, stop := e.runBot(Settings{PGNDir: dir, Chat: ChatSettings{Greeting: ChatMessages{Player: "hi"}, Goodbye: ChatMessages{Player: "gg", Spectator: "gg all"}}}, &playerPool{})
	id := e.challenge("Greedy", blitz)
	e.resignAfter(id, "Greedy", 12)
	g := e.waitOver(id)
	testsupport.WaitFor(t, "record", func() bool { _, err := os.Stat(filepath.Join(dir, id+".pgn")); return err == nil })
	stop()
	if g.Status == "started" || g.Status == "aborted" || len(g.Moves) < 2 {
		t.Fatalf("game ended %s after %d plies", g.Status, len(g.Moves))
	}
	e.noRefusedMoves()
	pgn, err := os.ReadFile(filepath.Join(dir, id+".pgn"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pgn), `[Termination "`+g.Status+`"]`) {
		t.Errorf("PGN does not record the end %q:\n%s", g.Status, pgn)
	}
	if st, _ := e.srv.ChallengeStatus(id); st != "accepted" {
		t.Errorf("challenge status %s", st)
	}
}

func TestE2EDeclines(t *testing.T) {
	e := newHarness(t)
	e.srv.AddAccount("Human", "tok-Human", false, 1800)
	e.runBot(Settings{Challenge: ChallengePolicy{AcceptBots: true}}, &playerPool{})
	id := e.challenge("Human", blitz)
	atomic := e.challenge("Human", lichesstest.ChallengeParams{ClockLimit: time.Minute, Variant: "atomic"})
	for id, want := range map[string]string{id: "onlybot", atomic: "variant"} {
		err := e.srv.WaitFor(e.ctx, func() bool { st, _ := e.srv.ChallengeStatus(id); return st == "declined" })
		if err != nil {
			t.Fatal(err)
		}
		if _, key := e.srv.ChallengeStatus(id); key != want {
			t.Errorf("challenge %s declined with %q, want %q", id, key, want)
		}
	}
}

func TestE2EStreamDroppedMidGame(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	_, stop := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("Greedy", blitz)
	for _, n := range []int{4, 8} {
		e.waitPlies(id, n)
		e.srv.DropGameStreams(id)
		e.srv.DropEventStream(botName)
	}
	e.resignAfter(id, "Greedy", 14)
	g := e.waitOver(id)
	stop()
	if g.Status == "aborted" {
		t.Fatalf("game aborted")
	}
	if n := len(e.srv.RequestsMatching("GET /api/bot/game/stream/" + id)); n < 2 {
		t.Errorf("game stream opened %d times", n)
	}
	e.noRefusedMoves()
}

// A 429 on one game's move: that game waits out its cool-down (no move
// request inside it) while the other game keeps moving.
func TestE2ERateLimitedMove(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Alpha", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	e.addHouse("Beta", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	_, stop := e.runBot(Settings{Challenge: ChallengePolicy{MaxGames: 2}}, &playerPool{})
	slow := e.challenge("Alpha", lichesstest.ChallengeParams{ClockLimit: time.Minute, Color: "black"}) // bot white
	e.waitPlies(slow, 2)
	const cool = 2 * time.Second
	e.srv.Inject429("POST /api/bot/game/"+slow+"/move/*", 1, cool)
	fast := e.challenge("Beta", lichesstest.ChallengeParams{ClockLimit: time.Minute, Color: "black"})
	// Wait until the slow game got its 429, then for the fast game to finish
	// or move on.
	var limitedAt time.Time
	err := e.srv.WaitFor(e.ctx, func() bool {
		for _, r := range e.srv.RequestsMatching("POST /api/bot/game/" + slow + "/move/*") {
			if r.Status == 429 {
				limitedAt = r.Time
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	// Both games go on after the cool-down, then end.
	g, _ := e.srv.Game(slow)
	e.resignAfter(slow, "Alpha", len(g.Moves)+4)
	e.resignAfter(fast, "Beta", 10)
	e.waitOver(slow)
	e.waitOver(fast)
	stop()
	e.noRefusedMoves()
	movedDuring := 0
	for _, r := range e.srv.RequestsMatching("POST /api/bot/game/" + fast + "/move/*") {
		if r.Time.After(limitedAt) && r.Time.Before(limitedAt.Add(cool)) {
			movedDuring++
		}
	}
	if movedDuring == 0 {
		t.Errorf("the other game made no move during the %v cool-down", cool)
	}
	for _, r := range e.srv.RequestsMatching("POST /api/bot/game/" + slow + "/move/*") {
		if r.Time.After(limitedAt) && r.Time.Before(limitedAt.Add(cool)) {
			t.Errorf("move request in the rate-limited game %v after the 429", r.Time.Sub(limitedAt))
		}
	}
}

func TestE2ERestartMidGame(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	_, stop1 := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("Greedy", blitz)
	e.waitPlies(id, 6)
	stop1()
	if g, _ := e.srv.Game(id); g.Finished {
		t.Skip("the game ended before the restart")
	}
	_, stop2 := e.runBot(Settings{}, &playerPool{})
	e.resignAfter(id, "Greedy", 12)
	g := e.waitOver(id)
	stop2()
	if g.Status == "aborted" || g.Status == "outoftime" {
		t.Fatalf("game ended %s", g.Status)
	}
	e.noRefusedMoves()
	if n := len(e.srv.RequestsMatching("GET /api/account/playing")); n < 2 {
		t.Errorf("games in progress listed %d times", n)
	}
}

// A move post under way when the bot stops is let finish: the move
// reaches the game before stop returns, so a bot restarted at once finds
// the ply played rather than posting it again (TestE2ERestartMidGame saw
// such a second post refused).
func TestStopLetsAMovePostFinish(t *testing.T) {
	e := newHarness(t)
	e.addHuman("Alice")
	id := e.startGame("Alice", true, lichesstest.ChallengeParams{})
	// Every request takes 300 ms at the server, which gives up on one
	// whose client went away.
	e.srv.SetLatency(300*time.Millisecond, 300*time.Millisecond)
	_, stop := e.runBot(Settings{}, &playerPool{})
	testsupport.WaitFor(t, "our move's post under way", func() bool {
		return len(e.srv.RequestsMatching("POST /api/bot/game/"+id+"/move/*")) > 0
	})
	stop()
	posts := e.srv.RequestsMatching("POST /api/bot/game/" + id + "/move/*")
	if len(posts) != 1 || posts[0].Status != 200 {
		t.Fatalf("move posts %+v, want one, answered 200 before stop returned", posts)
	}
	if g := e.game(id); len(g.Moves) != 1 {
		t.Errorf("game has %d plies after the stop, want our move", len(g.Moves))
	}
}

func TestE2EOpponentGoneClaimVictory(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Leaver", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst})
	_, stop := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("Leaver", lichesstest.ChallengeParams{ClockLimit: time.Minute, Color: "black"}) // bot white
	e.waitPlies(id, 2)
	e.srv.RemoveHousePlayer("Leaver")
	e.waitPlies(id, 3) // our move
	if err := e.srv.SetGone(id, "Leaver", true, time.Second); err != nil {
		t.Fatal(err)
	}
	g := e.waitOver(id)
	stop()
	if g.Winner != "white" || g.Status != "timeout" {
		t.Fatalf("game ended %s, winner %q; want a claimed win", g.Status, g.Winner)
	}
	// One claim when the time is up; a second one may cross the server's
	// "claimWinInSeconds 0" event.
	if n := len(e.srv.RequestsMatching("POST /api/bot/game/" + id + "/claim-victory")); n < 1 || n > 2 {
		t.Errorf("%d victory claims", n)
	}
}

// Unknown event types and fields on both streams are ignored.
func TestE2EUnknownEvents(t *testing.T) {
	e := newHarness(t, lichesstest.WithUnknownFields())
	e.addHouse("Slow", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy, ThinkTime: 5 * time.Millisecond})
	_, stop := e.runBot(Settings{}, &playerPool{})
	if !e.srv.InjectEventLine(botName, `{"type":"somethingNew","payload":[1,2,3]}`) {
		t.Fatal("event line not injected")
	}
	id := e.challenge("Slow", blitz)
	e.waitPlies(id, 3)
	e.srv.InjectGameLine(id, `{"type":"gameAnalysis","x":{"y":1}}`)
	e.srv.InjectGameLine(id, `{"type":"gameState","moves":12}`) // malformed: skipped
	e.resignAfter(id, "Slow", 10)
	g := e.waitOver(id)
	stop()
	if g.Status == "aborted" {
		t.Fatal("game aborted")
	}
	e.noRefusedMoves()
}

// Matchmaking: when idle the bot challenges online bots, skips one that
// declined, plays, and stops at the daily bot-game limit.
func TestE2EMatchmaking(t *testing.T) {
	e := newHarness(t)
	e.srv.AddAccount("HouseBot", "tok-hb", true, 1900)
	if err := e.srv.SetHousePlayer("HouseBot", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy}); err != nil {
		t.Fatal(err)
	}
	e.srv.AddAccount("PickyBot", "tok-pb", true, 1900)
	if err := e.srv.SetHousePlayer("PickyBot", lichesstest.HouseOptions{DeclineReason: "tooFast"}); err != nil {
		t.Fatal(err)
	}
	s := Settings{
		Challenge: ChallengePolicy{MaxBotGamesPerDay: 1},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: 10 * time.Millisecond, CheckEvery: 20 * time.Millisecond,
			TimeControls: []TimeControlSetting{{Base: time.Minute, Increment: time.Second}}},
	}
	_, stop := e.runBot(s, &playerPool{})
	id, err := e.srv.WaitGameStarted(e.ctx, botName)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := e.srv.Game(id)
	if g.White != "HouseBot" && g.Black != "HouseBot" {
		t.Fatalf("game %s between %s and %s", id, g.White, g.Black)
	}
	e.resignAfter(id, "HouseBot", 6)
	e.waitOver(id)
	before := len(e.srv.RequestsMatching("POST /api/challenge/*"))
	time.Sleep(300 * time.Millisecond) // many matchmaker rounds: none may challenge
	stop()
	if after := len(e.srv.RequestsMatching("POST /api/challenge/*")); after != before {
		t.Errorf("%d challenges sent after the daily limit was reached", after-before)
	}
	picky := 0
	for _, r := range e.srv.RequestsMatching("POST /api/challenge/*") {
		if strings.EqualFold(r.Path, "/api/challenge/pickybot") {
			picky++
		}
	}
	if picky > 1 {
		t.Errorf("PickyBot challenged %d times although it declined", picky)
	}
	e.noRefusedMoves()
}
