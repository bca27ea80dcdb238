package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// memStore is a Store in memory; fail, when set, is the error of
// RecordGame (the game is kept anyway, as a spooling store does).
type memStore struct {
	mu       sync.Mutex
	games    map[string]GameRecord
	diffs    map[string][2]*int
	botGames map[string]time.Time
	declines []DeclineRecord
	pauses   map[string]time.Time
	fail     error
}

func newMemStore() *memStore {
	return &memStore{games: map[string]GameRecord{}, diffs: map[string][2]*int{}, botGames: map[string]time.Time{}}
}

func (m *memStore) RecordGame(ctx context.Context, r GameRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.games[r.ID] = r
	return m.fail
}

func (m *memStore) RecordRatingDiffs(ctx context.Context, id string, white, black *int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.diffs[id] = [2]*int{white, black}
	return nil
}

func (m *memStore) AddBotGame(ctx context.Context, id string, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.botGames[id]; !ok {
		m.botGames[id] = t
	}
	return nil
}

func (m *memStore) BotGamesSince(ctx context.Context, t time.Time) ([]time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []time.Time
	for _, at := range m.botGames {
		if !at.Before(t) {
			out = append(out, at)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, nil
}

func (m *memStore) AddDecline(ctx context.Context, d DeclineRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.declines = append(m.declines, d)
	return nil
}

func (m *memStore) DeclinesSince(ctx context.Context, t time.Time) ([]DeclineRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []DeclineRecord
	for _, d := range m.declines {
		if !d.At.Before(t) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (m *memStore) SetPause(ctx context.Context, name string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pauses == nil {
		m.pauses = map[string]time.Time{}
	}
	m.pauses[name] = until
	return nil
}

func (m *memStore) PauseUntil(ctx context.Context, name string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pauses[name], nil
}

func (m *memStore) game(id string) (GameRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.games[id]
	return g, ok
}

// TestArchiveRecordsGameWithMoveStats: a whole game against a house
// player reaches the store with every move, our moves with the player's
// figures, the opponent's without.
func TestArchiveRecordsGameWithMoveStats(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	e.store = newMemStore()
	mem := e.store.(*memStore)
	_, stop := e.runBot(Settings{}, &playerPool{next: func(i int, p *testPlayer) { p.score = 25 }})
	id := e.challenge("Greedy", blitz)
	e.resignAfter(id, "Greedy", 12)
	g := e.waitOver(id)
	testsupport.WaitFor(t, "archived game", func() bool { _, ok := mem.game(id); return ok })
	stop()
	r, _ := mem.game(id)
	if r.ID != id || !strings.HasSuffix(r.URL, "/"+id) || r.Termination != g.Status || r.Speed == "" || r.Variant != "standard" {
		t.Errorf("record: id %s url %s termination %s (want %s) speed %q variant %q", r.ID, r.URL, r.Termination, g.Status, r.Speed, r.Variant)
	}
	ourWhite := strings.EqualFold(g.White, botName)
	if ourWhite != (r.OurColor == "white") || r.White != g.White || r.Black != g.Black {
		t.Errorf("players: %s-%s, ours %s; server says %s-%s", r.White, r.Black, r.OurColor, g.White, g.Black)
	}
	if r.Result != "win" { // Greedy resigned
		t.Errorf("result %q, want win", r.Result)
	}
	if !r.Clock || r.ClockInitial != time.Minute || r.ClockIncrement != time.Second {
		t.Errorf("clock %v %v+%v", r.Clock, r.ClockInitial, r.ClockIncrement)
	}
	if r.Started.IsZero() || r.Ended.Before(r.Started) {
		t.Errorf("times: started %v ended %v", r.Started, r.Ended)
	}
	if !strings.Contains(r.PGN, `[Termination "`+g.Status+`"]`) || !strings.Contains(r.PGN, "[%eval") {
		t.Errorf("PGN without its termination or evaluations:\n%s", r.PGN)
	}
	if len(r.Moves) != len(g.Moves) {
		t.Fatalf("%d moves recorded, the game had %d", len(r.Moves), len(g.Moves))
	}
	ours := 0
	for i, m := range r.Moves {
		if m.Ply != i || m.UCI != g.Moves[i] || m.SAN == "" {
			t.Errorf("move %d: %+v (server: %s)", i, m, g.Moves[i])
		}
		if m.Ours != ((i%2 == 0) == ourWhite) {
			t.Errorf("move %d: ours %v", i, m.Ours)
		}
		if m.Ours {
			ours++
			if !m.HasScore || m.ScoreCP != 25 || m.Depth != 3 || m.Nodes != 42 || m.Source != "search" {
				t.Errorf("our move %d: %+v, want the player's figures", i, m)
			}
		} else if m.HasScore || m.Depth != 0 || m.Source != "" {
			t.Errorf("their move %d has our figures: %+v", i, m)
		}
	}
	if ours == 0 {
		t.Error("no move of ours recorded")
	}
}

// TestArchiveFailureDoesNotStopTheBot: the store fails to take the game;
// the game still ended normally and the next game is played and recorded.
func TestArchiveFailureDoesNotStopTheBot(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	mem := newMemStore()
	mem.fail = fmt.Errorf("database is locked (%w)", ErrRecordKept)
	e.store = mem
	_, stop := e.runBot(Settings{}, &playerPool{})
	for range 2 {
		id := e.challenge("Greedy", blitz)
		e.resignAfter(id, "Greedy", 6)
		if g := e.waitOver(id); g.Status != "resign" {
			t.Errorf("game %s ended %s", id, g.Status)
		}
		testsupport.WaitFor(t, "archived game", func() bool { _, ok := mem.game(id); return ok })
	}
	stop()
	e.noRefusedMoves()
}

// TestCountersLoadedFromStore: the bot games of the last 24 hours and the
// declines in their cool-down come back from the store at start.
func TestCountersLoadedFromStore(t *testing.T) {
	mem := newMemStore()
	now := time.Now()
	mem.botGames["old"] = now.Add(-25 * time.Hour) // outside Lichess' sliding day
	mem.botGames["a"] = now.Add(-23 * time.Hour)
	mem.botGames["b"] = now.Add(-time.Minute)
	mem.declines = []DeclineRecord{
		{Opponent: "pickybot", Reason: "tooFast", At: now.Add(-10 * time.Minute), Speed: "blitz"}, // the default 3+2 is blitz
		{Opponent: "oldbot", Reason: "later", At: now.Add(-2 * time.Hour)},                        // past the 1 h cool-down
	}
	c, err := lichess.New("http://127.0.0.1:1", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"}))
	if err != nil {
		t.Fatal(err)
	}
	// Matchmaking on: a round with it off only looks after our challenge out.
	b := NewBot(c, (&playerPool{}).factory, Settings{Matchmaking: MatchmakingSettings{Enabled: true}}, testsupport.Logger(t))
	b.SetStore(mem)
	b.loadState(context.Background())
	b.loadState(context.Background()) // a second Run of the same Bot loads nothing more
	if n := b.botGames.count(now); n != 2 {
		t.Errorf("%d bot games in the last 24 hours, want 2", n)
	}
	v := b.matchmakeView(now, b.Settings().Matchmaking)
	if !v.declined["pickybot"] || v.declined["oldbot"] {
		t.Errorf("declined after loading: %v, want pickybot only", v.declined)
	}
}

// TestCountersSurviveRestart: with max_bot_games_per_day 1, a bot game
// played before a restart keeps the restarted bot from challenging; the
// decline of another bot is remembered with its reason.
func TestCountersSurviveRestart(t *testing.T) {
	e := newHarness(t)
	e.srv.AddAccount("HouseBot", "tok-hb", true, 1900)
	if err := e.srv.SetHousePlayer("HouseBot", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy}); err != nil {
		t.Fatal(err)
	}
	mem := newMemStore()
	e.store = mem
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
	e.resignAfter(id, "HouseBot", 6)
	e.waitOver(id)
	stop()
	if ts, _ := mem.BotGamesSince(context.Background(), time.Now().Add(-time.Hour)); len(ts) != 1 {
		t.Fatalf("store counted %d bot games, want 1", len(ts))
	}
	before := e.requests("POST /api/challenge/*")
	_, stop = e.runBot(s, &playerPool{})
	time.Sleep(300 * time.Millisecond) // many matchmaker rounds
	stop()
	if after := e.requests("POST /api/challenge/*"); after != before {
		t.Errorf("the restarted bot sent %d challenges past the daily limit", after-before)
	}
}

// TestRatingDiffsReachTheStore: the gameFinish event's rating changes go
// to the store by colour (ours was black here).
func TestRatingDiffsReachTheStore(t *testing.T) {
	mem := newMemStore()
	c, err := lichess.New("http://127.0.0.1:1", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"}))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBot(c, (&playerPool{}).factory, Settings{}, testsupport.Logger(t))
	b.SetStore(mem)
	plus, minus := 6, -6
	b.logFinish(&lichess.GameEventInfo{GameID: "g1", Color: "black", Status: lichess.GameStatus{Name: "mate"}, Winner: "black",
		Rated: true, RatingDiff: &plus, Opponent: lichess.GameOpponent{Username: "x", RatingDiff: &minus}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.storeWriter(ctx, mem) // drains what was queued
	d, ok := mem.diffs["g1"]
	if !ok || d[0] == nil || *d[0] != -6 || d[1] == nil || *d[1] != 6 {
		t.Fatalf("rating changes %v, want white -6, black +6", d)
	}
}

// TestBlockListSurvivesRestart: a bot that declined us
// BlockAfterDeclines times (reason "generic") is not challenged again, by
// this run nor by a restarted one that reads the decline history from the
// store; declines "later" block nobody.
func TestBlockListSurvivesRestart(t *testing.T) {
	e := newHarness(t)
	e.srv.AddAccount("RudeBot", "tok-rb", true, 1900)
	if err := e.srv.SetHousePlayer("RudeBot", lichesstest.HouseOptions{DeclineReason: "generic"}); err != nil {
		t.Fatal(err)
	}
	mem := newMemStore()
	e.store = mem
	s := Settings{
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Millisecond, CheckEvery: 10 * time.Millisecond,
			DeclineCooldown: time.Millisecond, BlockAfterDeclines: 3,
			TimeControls: []TimeControlSetting{{Base: time.Minute, Increment: time.Second}}},
	}
	declines := func(m *memStore) int {
		d, _ := m.DeclinesSince(context.Background(), time.Now().Add(-time.Hour))
		return len(d)
	}
	_, stop := e.runBot(s, &playerPool{})
	// No bound on how fast: three challenge rounds take long on a loaded
	// machine.
	testsupport.WaitFor(t, "three declines recorded", func() bool { return declines(mem) >= 3 })
	time.Sleep(200 * time.Millisecond) // many matchmaker rounds after the third decline
	stop()
	if n := declines(mem); n != 3 {
		t.Fatalf("declines recorded: %d, want 3 (blocked after the third)", n)
	}
	if n := e.requests("POST /api/challenge/rudebot"); n != 3 {
		t.Fatalf("challenges to RudeBot: %d, want 3", n)
	}

	_, stop = e.runBot(s, &playerPool{})
	time.Sleep(300 * time.Millisecond) // many matchmaker rounds
	stop()
	if n := e.requests("POST /api/challenge/rudebot"); n != 3 {
		t.Errorf("the restarted bot challenged RudeBot %d more times despite the block", n-3)
	}

	// Three "later" declines in the history block nobody.
	later := newMemStore()
	for i := range 3 {
		_ = later.AddDecline(context.Background(), DeclineRecord{Opponent: "rudebot", Reason: lichess.DeclineLater, At: time.Now().Add(-time.Duration(i+1) * time.Minute)})
	}
	e.store = later
	_, stop = e.runBot(s, &playerPool{})
	// A block would leave the count at 3 for good: WaitFor fails then.
	testsupport.WaitFor(t, "a challenge to RudeBot despite the \"later\" declines", func() bool {
		return e.requests("POST /api/challenge/rudebot") > 3
	})
	stop()
}
