package client

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// addHouseBot adds a bot account played by the server (online, so the
// matchmaker may challenge it).
func addHouseBot(h *harness, name string, opts lichesstest.HouseOptions) {
	h.t.Helper()
	h.srv.AddAccount(name, "tok-"+name, true, 1900)
	if err := h.srv.SetHousePlayer(name, opts); err != nil {
		h.t.Fatal(err)
	}
}

// newCorrMatchBot is the bot of the correspondence matchmaking tests on
// h: correspondence accepted (1 to 7 days), one real-time slot (busy with
// a game) and corrSlots correspondence slots; matchmaking offers days
// only, idle for an hour.
func newCorrMatchBot(t *testing.T, h *harness, corrSlots int, days ...int) *Bot {
	t.Helper()
	b := NewBot(h.client(), nil, Settings{
		Challenge: ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100, MinDays: 1, MaxDays: 7,
			Speeds: []string{"blitz", "correspondence"}},
		Matchmaking:    MatchmakingSettings{Enabled: true, IdleTime: time.Minute, CorrespondenceDays: days},
		Correspondence: CorrespondenceSettings{Concurrency: corrSlots},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = time.Now().Add(-time.Hour)
	b.mm.corrIdleFrom = time.Now().Add(-time.Hour)
	b.games["busy"] = &gameWorker{} // the only real-time slot is taken
	return b
}

// A bot with only correspondence days configured (matchmaking's
// challenge_days) sends a correspondence challenge, Lichess' days without
// a clock, while its real-time slot is busy: it takes a correspondence
// slot. Its game, started on the opponent's move (parked), counts as the
// matchmaker's bot game and ends the challenge out.
func TestMatchmakerSendsCorrespondence(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{ThinkTime: time.Hour})
	b := newCorrMatchBot(t, h, 2, 3)
	if mm := b.Settings().Matchmaking; len(mm.TimeControls) != 0 {
		t.Fatalf("days only: time controls %v added by default, want none", mm.TimeControls)
	}
	notes := &noteStore{memStore: newMemStore(), notes: map[string]bool{}}
	b.SetStore(notes)
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	b.mu.Lock()
	id, kind := b.mm.outID, b.mm.outKind
	rt, corr := b.matchPendingSlotsLocked()
	b.mu.Unlock()
	if id == "" {
		t.Fatalf("no challenge out (online bots listed %d times)", h.requests("GET /api/bot/online"))
	}
	if !kind.corr() || kind.days != 3 || rt != 0 || corr != 1 {
		t.Errorf("challenge out of kind %v holds rt %d corr %d; want 3 days a move, a correspondence slot", kind, rt, corr)
	}
	if !notes.noted(id) {
		t.Errorf("our challenge %s: its game not noted once it was sent", id)
	}
	h.waitFor("the game of our challenge", func() bool { _, ok := h.srv.Game(id); return ok })
	g := h.game(id)
	if g.Speed != "correspondence" || g.DaysPerTurn != 3 || g.ClockInitial != 0 || g.ClockIncrement != 0 {
		t.Errorf("game %s: speed %s, %d days, clock %v+%v; want correspondence, 3 days, no clock", id, g.Speed, g.DaysPerTurn, g.ClockInitial, g.ClockIncrement)
	}
	// Lichess says the game started, on the opponent's move: parked.
	b.mu.Lock()
	b.parkLocked(id, "corrbot")
	out, counted, free := b.mm.outID, b.botGames.count(time.Now()), b.freeCorrSlotsLocked()
	b.mu.Unlock()
	if out != "" || counted != 1 || free != 1 {
		t.Errorf("after its game was parked: challenge out %q, bot games %d, correspondence slots free %d; want none, 1, 1", out, counted, free)
	}
}

// With every correspondence slot taken (a parked game, or a queued
// correspondence challenge that comes first), with correspondence not
// accepted by our own rules, or with only days our rules decline, the
// matchmaker sends no correspondence challenge; a slot free for less than
// idle_time neither. Once a slot has been free long enough, it does.
func TestMatchmakerCorrespondenceSlotsFull(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{IgnoreChallenges: true})
	listed := 0
	try := func(what string, b *Bot, want bool) {
		t.Helper()
		b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
		n := h.requests("GET /api/bot/online")
		if got := n > listed; got != want {
			t.Errorf("%s: online bots listed: %v, want %v", what, got, want)
		}
		if n > listed && h.requests("POST /api/challenge/corrbot") != n {
			t.Errorf("%s: listed bots %d times, challenged %d times", what, n, h.requests("POST /api/challenge/corrbot"))
		}
		listed = n
	}

	b := newCorrMatchBot(t, h, 1, 2)
	b.parked["p1"] = parkedGame{opponent: "someone", at: time.Now()}
	try("the only correspondence slot held by a parked game", b, false)
	b.mu.Lock()
	corrIdle := b.mm.corrIdleFrom
	b.mu.Unlock()
	if time.Since(corrIdle) > time.Minute {
		t.Errorf("a round that found the correspondence slots full left idle_time counting from %v", corrIdle)
	}
	delete(b.parked, "p1")
	try("a correspondence slot just freed (idle_time 1m)", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	b.queue.add(&lichess.Challenge{ID: "waiting", Challenger: lichess.ChallengeUser{ID: "human"},
		TimeControl: lichess.TimeControl{Type: "correspondence", DaysPerTurn: 2}, Speed: "correspondence"}, time.Now())
	try("the only correspondence slot promised to a queued challenge", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	b.settings.Challenge.Speeds = []string{"blitz"}
	try("correspondence not in our speeds", b, false)

	b = newCorrMatchBot(t, h, 1, 10, 14)
	try("only days over our days_max", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	try("a correspondence slot free for an hour", b, true)
	b.mu.Lock()
	_, corr := b.matchPendingSlotsLocked()
	b.mu.Unlock()
	if corr != 1 {
		t.Error("the correspondence challenge out holds no correspondence slot")
	}
}

// pickKind: with clocks and days, each challenge is real-time or
// correspondence at random (a correspondence one carries days, no clock);
// with no real-time slot free, or no clock, only correspondence; with no
// days allowed now, only real-time; with neither, none.
func TestPickKindCorrespondence(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	m := MatchmakingSettings{TimeControls: []TimeControlSetting{blitz}, CorrespondenceDays: []int{2, 5}}.withDefaults()
	seen := map[string]bool{}
	for range 400 {
		k, ok := m.pickKind(true, []int{2, 5})
		switch {
		case !ok:
			t.Fatal("no kind with a real-time slot and days free")
		case k.corr() && (k.tc != TimeControlSetting{} || !slices.Contains([]int{2, 5}, k.days) || k.speed() != "correspondence"):
			t.Fatalf("correspondence kind %+v", k)
		case !k.corr() && k.tc != blitz:
			t.Fatalf("real-time kind %+v", k)
		}
		seen[k.speed()] = true
		if k.corr() {
			seen[string(rune('0'+k.days))] = true
		}
	}
	for _, s := range []string{"blitz", "correspondence", "2", "5"} {
		if !seen[s] {
			t.Errorf("400 draws never gave %s", s)
		}
	}
	for range 50 {
		if k, ok := m.pickKind(false, []int{5}); !ok || k.days != 5 {
			t.Fatalf("no real-time slot: kind %+v, %v; want 5 days", k, ok)
		}
		if k, ok := m.pickKind(true, nil); !ok || k.corr() {
			t.Fatalf("no days allowed: kind %+v, %v; want real-time", k, ok)
		}
	}
	if k, ok := m.pickKind(false, nil); ok {
		t.Errorf("nothing free: kind %+v", k)
	}
	daysOnly := MatchmakingSettings{CorrespondenceDays: []int{3}}.withDefaults()
	for range 50 {
		if k, ok := daysOnly.pickKind(true, []int{3}); !ok || !k.corr() {
			t.Fatalf("days only: kind %+v, %v; want correspondence", k, ok)
		}
	}
}

// The days offered are those our own rules accept: correspondence among
// the speeds, within MinDays..MaxDays, challenges accepted at all.
func TestAcceptedDays(t *testing.T) {
	p := ChallengePolicy{Speeds: []string{"correspondence"}, MinDays: 2, MaxDays: 7}
	if got := p.acceptedDays([]int{1, 2, 3, 7, 10}); !slices.Equal(got, []int{2, 3, 7}) {
		t.Errorf("days 2..7: %v", got)
	}
	p.DeclineAll = true
	if got := p.acceptedDays([]int{3}); len(got) != 0 {
		t.Errorf("declining all: %v", got)
	}
	if got := (ChallengePolicy{Speeds: []string{"blitz"}}).acceptedDays([]int{3}); len(got) != 0 {
		t.Errorf("correspondence not accepted: %v", got)
	}
}

// The rating filters of a correspondence challenge read the opponent's
// correspondence rating (and ours), not a real-time one.
func TestMatchmakerRatingFiltersCorrespondence(t *testing.T) {
	user := func(id string, blitzR, corrR int) lichess.User {
		return lichess.User{ID: id, Username: id, Perfs: map[string]lichess.Perf{"blitz": {Rating: blitzR}, "correspondence": {Rating: corrR}}}
	}
	bots := []lichess.User{user("strongblitz", 2500, 1500), user("strongcorr", 1500, 2500)}
	me := lichess.Account{ID: botID, Perfs: map[string]lichess.Perf{"blitz": {Rating: 1500}, "correspondence": {Rating: 2500}}}
	corr := matchKind{variant: "standard", days: 3}
	v := matchmakeView{me: me, kind: corr}
	if got := v.candidates(bots, MatchmakingSettings{MinRating: 2000}.withDefaults()); len(got) != 1 || got[0].ID != "strongcorr" {
		t.Errorf("correspondence, min rating 2000: candidates %v, want [strongcorr]", got)
	}
	if got := v.candidates(bots, MatchmakingSettings{MaxRatingDiff: 100}.withDefaults()); len(got) != 1 || got[0].ID != "strongcorr" {
		t.Errorf("correspondence, within 100 of our correspondence rating: candidates %v, want [strongcorr]", got)
	}
}

// Declines are remembered per kind for correspondence too (speed
// correspondence): one about correspondence ("timeControl", or "tooSlow"
// at a slower speed than a real-time one) refuses correspondence, not
// blitz; a bare decline event of our correspondence challenge is recorded
// with speed correspondence.
func TestDeclinesPerKindCorrespondence(t *testing.T) {
	blitz := matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	corr := matchKind{variant: "standard", days: 3}
	for _, tt := range []struct {
		d                 DeclineRecord
		refCorr, refBlitz bool
	}{
		{DeclineRecord{Reason: lichess.DeclineTimeControl, Speed: "correspondence"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooSlow, Speed: "correspondence"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooSlow, Speed: "rapid"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooFast, Speed: "correspondence"}, true, true},
		{DeclineRecord{Reason: lichess.DeclineTimeControl, Speed: "blitz"}, false, true},
	} {
		if c, b := tt.d.refuses(corr), tt.d.refuses(blitz); c != tt.refCorr || b != tt.refBlitz {
			t.Errorf("%s at %s refuses correspondence %v, blitz %v; want %v, %v", tt.d.Reason, tt.d.Speed, c, b, tt.refCorr, tt.refBlitz)
		}
	}
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.sendingChallenge(true)
	b.challengeSent(context.Background(), "c-corr", "corrbot", corr)
	b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
		ID: "c-corr", Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: "corrbot", Name: "corrbot"},
		DeclineReasonKey: lichess.DeclineTimeControl}})
	if h := declineHistory(b); len(h) != 1 || h[0].Speed != "correspondence" {
		t.Errorf("history %+v, want the decline with speed correspondence", h)
	}
}

// corrQueued is a correspondence challenge from challenger waiting in a
// queue: it takes a correspondence slot, never a real-time one.
func corrQueued(id string, challenger lichess.ChallengeUser) *lichess.Challenge {
	return &lichess.Challenge{ID: id, Challenger: challenger, Variant: lichess.Variant{Key: "standard"},
		TimeControl: lichess.TimeControl{Type: "correspondence", DaysPerTurn: 2}, Speed: "correspondence"}
}

// A correspondence challenge that waits in the queue for a correspondence
// slot takes no real-time one: with a real-time slot free (concurrency 2,
// one game) and the only correspondence slot held by a parked game, the
// matchmaker still sends a real-time challenge, a game that ends does not
// restart idle_time (the slot already sat free), and a running arena still
// asks for a pairing.
func TestQueuedCorrespondenceLeavesRealtimeSlots(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "rtbot", lichesstest.HouseOptions{IgnoreChallenges: true})
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	b := NewBot(h.client(), nil, Settings{
		Challenge: ChallengePolicy{MaxGames: 2, MaxBotGamesPerDay: 100, MinDays: 1, MaxDays: 7,
			Speeds: []string{"blitz", "correspondence"}},
		Matchmaking:    MatchmakingSettings{Enabled: true, IdleTime: time.Minute, TimeControls: []TimeControlSetting{blitz}},
		Correspondence: CorrespondenceSettings{Concurrency: 1},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	start := time.Now().Add(-time.Hour)
	b.idleFrom = start
	b.games["busy"] = &gameWorker{}
	b.parked["p1"] = parkedGame{opponent: "someone", at: time.Now()}
	b.queue.add(corrQueued("human1", lichess.ChallengeUser{ID: "human"}), time.Now())
	b.queue.add(corrQueued("bot1", lichess.ChallengeUser{ID: "otherbot", Title: "BOT"}), time.Now())
	b.mu.Lock()
	free := b.freeBotSlotsLocked()
	b.mu.Unlock()
	if free != 1 {
		t.Errorf("real-time slots free for a bot game with two correspondence challenges queued: %d, want 1", free)
	}

	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	b.mu.Lock()
	id, kind := b.mm.outID, b.mm.outKind
	b.mu.Unlock()
	if id == "" || kind.corr() {
		t.Errorf("challenge out %q of kind %v, want a real-time one (online bots listed %d times)", id, kind, h.requests("GET /api/bot/online"))
	}

	b.mu.Lock()
	b.forgetOutLocked(id)
	b.games["g2"] = &gameWorker{}
	b.idleFrom = start
	delete(b.games, "busy") // one slot sat free beside g2 and the queue
	b.gameOverLocked("g2", false, time.Now())
	idle := b.idleFrom
	b.mu.Unlock()
	if !idle.Equal(start) {
		t.Errorf("a game that ended beside a free real-time slot (the queue holding only correspondence) restarted idle_time: idle from %v, want %v", idle, start)
	}

	a := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 1},
		Correspondence: CorrespondenceSettings{Concurrency: 1},
		Tournament:     TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}}, PairEvery: time.Minute}})
	now := time.Now()
	a.mu.Lock()
	a.arenasLocked().arenas["arenaAAA"] = &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, joined: true, state: lichess.ArenaStarted,
		checkAt: now.Add(time.Hour), askedAt: now.Add(-2 * time.Minute)}
	a.queue.add(corrQueued("human2", lichess.ChallengeUser{ID: "human"}), now)
	a.mu.Unlock()
	if steps, _ := a.arenaPlan(now); len(steps) != 1 || !steps[0].asap {
		t.Errorf("an arena with the only real-time slot free and a correspondence challenge queued: steps %+v, want one ask", steps)
	}
}

// The matchmaker respects challenge.max_simultaneous_games_per_user for
// both kinds: with correspondence.concurrency (3) above the limit (2) it
// does not challenge a bot it has a parked correspondence game and a
// queued challenge against, nor (real-time) one it plays a game against at
// a limit of 1. Below the limit it does.
func TestMatchmakerMaxGamesPerUser(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{IgnoreChallenges: true})
	sent := func() int { return h.requests("POST /api/challenge/corrbot") }

	b := newCorrMatchBot(t, h, 3, 2)
	b.settings.Challenge.MaxGamesPerUser = 2
	b.parked["p1"] = parkedGame{opponent: "CorrBot", at: time.Now()}
	b.queue.add(&lichess.Challenge{ID: "theirs", Challenger: lichess.ChallengeUser{ID: "corrbot", Name: "CorrBot", Title: "BOT"},
		Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}}, time.Now())
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	if h.requests("GET /api/bot/online") == 0 {
		t.Fatal("the matchmaker did not look for a bot with correspondence slots free")
	}
	if n := sent(); n != 0 {
		t.Fatalf("challenged corrbot %d times with a parked game and a queued challenge against it (limit 2)", n)
	}
	b.queue.remove("theirs")
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	if n := sent(); n != 1 {
		t.Fatalf("challenged corrbot %d times with one game against it (limit 2), want 1", n)
	}

	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	rt := NewBot(h.client(), nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 2, MaxBotGamesPerDay: 100, MaxGamesPerUser: 1, Speeds: []string{"blitz"}},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Minute, TimeControls: []TimeControlSetting{blitz}},
	}, testsupport.Logger(t))
	rt.me = lichess.Account{ID: botID, Username: botName}
	rt.idleFrom = time.Now().Add(-time.Hour)
	rt.games["g1"] = &gameWorker{opponent: "CorrBot"}
	rt.matchmakeOnce(h.ctx, rt.Settings().Matchmaking)
	if n := sent(); n != 1 {
		t.Errorf("challenged corrbot to a real-time game while playing it (limit 1): %d challenges in all, want the 1 before", n)
	}
	rt.settings.Challenge.MaxGamesPerUser = 2
	rt.matchmakeOnce(h.ctx, rt.Settings().Matchmaking)
	if n := sent(); n != 2 {
		t.Errorf("did not challenge corrbot below the limit (2): %d challenges in all, want 2", n)
	}
}

// While the bot is in a running arena, the matchmaker sends no real-time
// challenge (the arena's pairings need the real-time slots) but goes on
// with correspondence, which takes none of them: with both a real-time and
// a correspondence slot free, and clocks and days configured, the
// challenge that goes out is a correspondence one; with no days, none.
func TestMatchmakerCorrespondenceDuringArena(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{IgnoreChallenges: true})
	inArena := func(b *Bot) {
		b.mu.Lock()
		b.arenasLocked().arenas["arenaAAA"] = &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, joined: true, state: lichess.ArenaStarted,
			checkAt: time.Now().Add(time.Hour)}
		b.mu.Unlock()
	}
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}

	b := newCorrMatchBot(t, h, 1)
	delete(b.games, "busy") // the real-time slot is free too
	b.settings.Matchmaking.TimeControls = []TimeControlSetting{blitz}
	inArena(b)
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Fatalf("in a running arena with no days: online bots listed %d times, want no real-time matchmaking", n)
	}

	b = newCorrMatchBot(t, h, 1, 3)
	delete(b.games, "busy")
	b.settings.Matchmaking.TimeControls = []TimeControlSetting{blitz}
	inArena(b)
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	b.mu.Lock()
	id, kind := b.mm.outID, b.mm.outKind
	b.mu.Unlock()
	if id == "" || !kind.corr() {
		t.Errorf("in a running arena with a correspondence slot free: challenge out %q of kind %v, want a correspondence one", id, kind)
	}
}

// corrOut makes b's matchmaking challenge out a correspondence one (3
// days a move): it holds a correspondence slot, not a real-time one.
func corrOut(b *Bot) {
	b.mm.outID, b.mm.outTo, b.mm.outAt = "ours", "corrbot", time.Now()
	b.mm.outKind = matchKind{variant: "standard", days: 3}
}

// The queue counts our own challenge out by its kind: with our
// correspondence challenge out (the only correspondence slot) and the only
// real-time slot free, a queued real-time challenge is accepted and a
// queued correspondence one waits.
func TestQueueCountsPendingChallengeByKind(t *testing.T) {
	b := NewBot(nil, nil, Settings{
		Challenge: ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100, MinDays: 1, MaxDays: 7,
			Speeds: []string{"blitz", "correspondence"}},
		Correspondence: CorrespondenceSettings{Concurrency: 1},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	corrOut(b)
	b.queue.add(corrQueued("c1", lichess.ChallengeUser{ID: "human1"}), now)
	b.queue.add(&lichess.Challenge{ID: "r1", Challenger: lichess.ChallengeUser{ID: "human2"}, Variant: lichess.Variant{Key: "standard"},
		Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}}, now)
	out := b.serveQueueLocked(now)
	var accepted []string
	for _, a := range out {
		if a.reason != "" {
			t.Errorf("%s declined: %s (%s)", a.ch.ID, a.reason, a.rule)
			continue
		}
		accepted = append(accepted, a.ch.ID)
	}
	if !slices.Equal(accepted, []string{"r1"}) {
		t.Errorf("accepted %v, want [r1]", accepted)
	}
	if !b.queue.remove("c1") {
		t.Error("the correspondence challenge did not wait in the queue")
	}
}

// gameOverLocked counts our own challenge out by its kind: a real-time
// game that ends beside a free real-time slot, with only our
// correspondence challenge out, leaves idle_time counting.
func TestGameOverPendingCorrespondenceKeepsIdleTime(t *testing.T) {
	b := NewBot(nil, nil, Settings{Challenge: ChallengePolicy{MaxGames: 2, MaxBotGamesPerDay: 100},
		Correspondence: CorrespondenceSettings{Concurrency: 1}}, testsupport.Logger(t))
	start := time.Now().Add(-time.Hour)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.games["g1"] = &gameWorker{}
	b.idleFrom = start
	corrOut(b)
	b.gameOverLocked("g1", false, time.Now())
	if !b.idleFrom.Equal(start) {
		t.Errorf("a game that ended beside a free real-time slot, our correspondence challenge out, restarted idle_time: idle from %v, want %v", b.idleFrom, start)
	}
}

// arenaPlan counts our own challenge out by its kind: with our
// correspondence challenge out, the only real-time slot is free and a
// running arena asks for a pairing.
func TestArenaPlanPendingCorrespondenceAsks(t *testing.T) {
	h := newHarness(t)
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 1},
		Correspondence: CorrespondenceSettings{Concurrency: 1},
		Tournament:     TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}}, PairEvery: time.Minute}})
	now := time.Now()
	b.mu.Lock()
	b.arenasLocked().arenas["arenaAAA"] = &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, joined: true, state: lichess.ArenaStarted,
		checkAt: now.Add(time.Hour), askedAt: now.Add(-2 * time.Minute)}
	corrOut(b)
	b.mu.Unlock()
	if steps, _ := b.arenaPlan(now); len(steps) != 1 || !steps[0].asap {
		t.Errorf("our correspondence challenge out, the only real-time slot free: steps %+v, want one ask", steps)
	}
	b.mu.Lock()
	b.mm.outKind = matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	b.arenasLocked().arenas["arenaAAA"].askedAt = now.Add(-2 * time.Minute)
	b.mu.Unlock()
	if steps, _ := b.arenaPlan(now); len(steps) != 0 {
		t.Errorf("our real-time challenge out holding the only slot: steps %+v, want none", steps)
	}
}

// A bot blocked for correspondence (declines of the kind) is logged once,
// not again for each days value drawn: the log's key is the variant,
// speed and mode, as the block is.
func TestBlockLoggedOncePerCorrespondenceBlock(t *testing.T) {
	h := newHarness(t)
	b := newCorrMatchBot(t, h, 1, 2)
	b.settings.Matchmaking.BlockAfterDeclines = 2
	b.settings.Matchmaking.BlockFor = 24 * time.Hour
	now := time.Now()
	for i := range 2 {
		b.mm.history = append(b.mm.history, DeclineRecord{Opponent: "corrbot", Reason: lichess.DeclineTimeControl,
			At: now.Add(-time.Duration(i+1) * time.Hour), Variant: "standard", Speed: "correspondence", Mode: MatchCasual})
	}
	for _, days := range []int{2, 3} {
		b.settings.Matchmaking.CorrespondenceDays = []int{days}
		v := b.matchmakeView(now, b.Settings().Matchmaking)
		if !v.reserved || v.kind.days != days || !v.declined["corrbot"] {
			t.Fatalf("%d days: view reserved %v, kind %v, corrbot left out %v; want a %d-day round without corrbot", days, v.reserved, v.kind, v.declined["corrbot"], days)
		}
		b.sendingChallenge(false)
	}
	b.mu.Lock()
	n := len(b.mm.blockLogged)
	b.mu.Unlock()
	if n != 1 {
		t.Errorf("blocks logged %d times for one correspondence block drawn at 2 and 3 days, want once", n)
	}
}
