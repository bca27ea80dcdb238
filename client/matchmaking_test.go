package client

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestSpeedOf(t *testing.T) {
	for _, tc := range []struct {
		base, inc time.Duration
		want      string
	}{
		{15 * time.Second, 0, "ultraBullet"},
		{time.Minute, 0, "bullet"},
		{2 * time.Minute, time.Second, "bullet"},
		{3 * time.Minute, 0, "blitz"},
		{3 * time.Minute, 2 * time.Second, "blitz"},
		{10 * time.Minute, 0, "rapid"},
		{15 * time.Minute, 10 * time.Second, "rapid"},
		{30 * time.Minute, 0, "classical"},
	} {
		if got := speedOf(TimeControlSetting{Base: tc.base, Increment: tc.inc}); got != tc.want {
			t.Errorf("speedOf(%v+%v) = %s, want %s", tc.base, tc.inc, got, tc.want)
		}
	}
}

// The matchmaker sends nothing while challenge creation cools down, while
// every slot is busy (here concurrency 1 and a game running), or past the
// daily bot-game limit.
func TestMatchmakerHoldsBack(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	b := NewBot(c, nil, Settings{Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond}}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	mm := b.Settings().Matchmaking
	ctx := context.Background()

	// A client whose challenge creation got a 429 (Retry-After one hour)
	// is in its cool-down.
	h.srv.Inject429("POST /api/challenge/*", 1, time.Hour)
	cooling := h.client()
	if _, err := cooling.CreateChallenge(ctx, "someone", lichess.ChallengeRequest{Limit: 60}); !lichess.IsRateLimited(err) {
		t.Fatalf("challenge answered %v, want a 429", err)
	}
	b.c = cooling
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times during the cool-down", n)
	}
	b.c = c // no cool-down

	b.games["busy"] = &gameWorker{}
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times while the only slot is busy", n)
	}
	delete(b.games, "busy")

	for i := 0; i < 100; i++ {
		b.botGames.add(time.Now())
	}
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times past the daily limit", n)
	}
	b.botGames = dailyCounter{}

	time.Sleep(time.Millisecond) // past IdleTime
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != 1 {
		t.Fatalf("online bots listed %d times when idle, want 1", n)
	}
}

// The matchmaker challenges while a slot is free, not only when no game
// runs: with concurrency 2 and one game running it looks for a bot; it
// does not when the free slot is reserved for humans, when a queued
// challenge will take it, or while its own challenge is out.
func TestMatchmakerFillsFreeSlot(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	listed := 0
	try := func(what string, p ChallengePolicy, queued, out bool, want bool) {
		t.Helper()
		b := NewBot(h.client(), nil, Settings{Challenge: p, Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond}}, testsupport.Logger(t))
		b.me = lichess.Account{ID: botID, Username: botName}
		b.games["busy"] = &gameWorker{}
		if queued {
			b.queue.add(&lichess.Challenge{ID: "waiting", Challenger: lichess.ChallengeUser{ID: "human"}}, time.Now())
		}
		if out {
			b.mm.outID, b.mm.outTo, b.mm.outAt = "ours", "somebot", time.Now()
		}
		time.Sleep(time.Millisecond) // past IdleTime
		b.matchmakeOnce(ctx, b.Settings().Matchmaking)
		n := h.requests("GET /api/bot/online")
		if got := n > listed; got != want {
			t.Errorf("%s: online bots listed: %v, want %v", what, got, want)
		}
		listed = n
	}
	try("concurrency 2, one game", ChallengePolicy{MaxGames: 2}, false, false, true)
	try("concurrency 2, one game, 1 reserved for humans", ChallengePolicy{MaxGames: 2, ReservedForHumans: 1}, false, false, false)
	try("concurrency 3, one game, 1 reserved for humans", ChallengePolicy{MaxGames: 3, ReservedForHumans: 1}, false, false, true)
	try("concurrency 2, one game, one challenge queued", ChallengePolicy{MaxGames: 2}, true, false, false)
	try("concurrency 3, one game, one challenge queued", ChallengePolicy{MaxGames: 3}, true, false, true)
	try("concurrency 2, one game, our challenge out", ChallengePolicy{MaxGames: 2}, false, true, false)
}

// matchmaking.idle_time counts from the moment a real-time slot freed (a
// game ended), not from the moment the bot had no game at all.
func TestMatchmakerIdleTimeCountsFromFreedSlot(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	b := NewBot(h.client(), nil, Settings{Challenge: ChallengePolicy{MaxGames: 2}, Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Hour}}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.games["busy"] = &gameWorker{}
	b.idleFrom = time.Now().Add(-2 * time.Hour) // a slot free for two hours
	b.matchmakeOnce(ctx, b.Settings().Matchmaking)
	if n := h.requests("GET /api/bot/online"); n != 1 {
		t.Fatalf("online bots listed %d times with a slot free for 2 h (idle_time 1 h) and a game running, want 1", n)
	}
	b.idleFrom = time.Now() // a slot just freed
	b.matchmakeOnce(ctx, b.Settings().Matchmaking)
	if n := h.requests("GET /api/bot/online"); n != 1 {
		t.Fatalf("online bots listed %d times in all, want no new listing with a slot just freed", n)
	}
}

// The matchmaker reserves its slot under the lock that saw it free, before
// it lists bots and sends: meanwhile the queue does not give that slot to
// a waiting challenge (which would make one game more than concurrency),
// and the rules count the challenge being sent as a bot game to come. A
// round that sends nothing gives the slot back. The matchmaker's own
// daily check counts accepted bot challenges whose game has not started.
func TestMatchmakerReservesSlotWhileSending(t *testing.T) {
	now := time.Now()
	b := NewBot(nil, nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 2, MaxBotGamesPerDay: 1},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = now.Add(-time.Hour)
	b.games["busy"] = &gameWorker{}
	mm := b.Settings().Matchmaking

	if v := b.matchmakeView(now, mm); !v.reserved {
		t.Fatal("no slot reserved with concurrency 2 and one game")
	}
	human := &lichess.Challenge{ID: "h1", Challenger: lichess.ChallengeUser{ID: "human"}, Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}, Variant: lichess.Variant{Key: "standard"}}
	bot := &lichess.Challenge{ID: "b1", Challenger: lichess.ChallengeUser{ID: "otherbot", Title: "BOT"}, Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}, Variant: lichess.Variant{Key: "standard"}}
	b.mu.Lock()
	if reason, _ := b.rulesLocked(bot, now); reason == "" {
		t.Error("a bot challenge passes the daily cap of 1 while our challenge is being sent")
	}
	b.queue.add(human, now)
	if out := b.serveQueueLocked(now); len(out) != 0 {
		t.Errorf("the queue took the slot reserved by the matchmaker: %d answer(s)", len(out))
	}
	b.mu.Unlock()
	if v := b.matchmakeView(now, mm); v.reserved {
		t.Error("a second round reserved a slot while the first holds one")
	}

	b.sendingChallenge(false) // the round sent nothing
	b.mu.Lock()
	if reason, _ := b.rulesLocked(bot, now); reason != "" {
		t.Errorf("after the round gave its slot back a bot challenge is refused: %s", reason)
	}
	if out := b.serveQueueLocked(now); len(out) != 1 || out[0].ch.ID != "h1" {
		t.Errorf("after the round gave its slot back the queue answered %d, want h1 accepted", len(out))
	}
	b.mu.Unlock()

	// h1 is now an accepted (pending) human challenge: the only free slot
	// is taken. Make it a bot's and free a slot: the daily cap (1) counts it.
	delete(b.games, "busy")
	b.mu.Lock()
	b.pending["h1"] = pendingGame{at: now, user: "otherbot", bot: true}
	b.mu.Unlock()
	if v := b.matchmakeView(now, mm); v.reserved {
		t.Error("the matchmaker passed the daily cap of 1 with an accepted bot challenge pending")
	}
}

// A queued bot challenge takes a slot not reserved for humans before the
// matchmaker does; a queued human's may take a reserved one.
func TestMatchmakerFreeSlotsWithQueuedBots(t *testing.T) {
	for _, tc := range []struct {
		what                string
		max, reserved, busy int
		humans, bots        int
		want                int
	}{
		{"concurrency 3, 1 reserved, 1 game, a bot queued", 3, 1, 1, 0, 1, 0},
		{"concurrency 3, 1 reserved, 1 game, a human queued", 3, 1, 1, 1, 0, 1},
		{"concurrency 4, 1 reserved, 1 game, a bot queued", 4, 1, 1, 0, 1, 1},
		{"concurrency 4, 1 reserved, 1 game, a bot and a human queued", 4, 1, 1, 1, 1, 1},
		{"concurrency 4, 1 reserved, 1 game, two humans queued", 4, 1, 1, 2, 0, 1},
		{"concurrency 2, none reserved, 1 game, a bot queued", 2, 0, 1, 0, 1, 0},
	} {
		b := NewBot(nil, nil, Settings{Challenge: ChallengePolicy{MaxGames: tc.max, ReservedForHumans: tc.reserved}}, testsupport.Logger(t))
		for i := 0; i < tc.busy; i++ {
			b.games[fmt.Sprint("busy", i)] = &gameWorker{}
		}
		for i := 0; i < tc.humans; i++ {
			b.queue.add(&lichess.Challenge{ID: fmt.Sprint("h", i), Challenger: lichess.ChallengeUser{ID: fmt.Sprint("human", i)}}, time.Now())
		}
		for i := 0; i < tc.bots; i++ {
			b.queue.add(&lichess.Challenge{ID: fmt.Sprint("b", i), Challenger: lichess.ChallengeUser{ID: fmt.Sprint("bot", i), Title: "BOT"}}, time.Now())
		}
		b.mu.Lock()
		got := b.freeBotSlotsLocked()
		b.mu.Unlock()
		if got != tc.want {
			t.Errorf("%s: %d free for a bot game, want %d", tc.what, got, tc.want)
		}
	}
}

// matchmaking.idle_time counts from when the bot went from busy to idle: a
// real-time game that ends while every slot was taken restarts it; one that
// ends while a slot already sat free (concurrency 3, one game left) leaves
// it counting from when that slot freed, so games ending one after another
// never keep the free slot from being filled. Our own challenge out takes
// its slot: a game that ends beside it restarts the count. A
// correspondence game never does.
func TestIdleTimeCountsFromBusyToIdle(t *testing.T) {
	b := NewBot(nil, nil, Settings{Challenge: ChallengePolicy{MaxGames: 3, MaxBotGamesPerDay: 100}}, testsupport.Logger(t))
	start := time.Now().Add(-time.Hour)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range []string{"g1", "g2", "g3"} {
		b.games[id] = &gameWorker{}
	}
	b.idleFrom = start
	t1 := start.Add(10 * time.Minute)
	b.gameOverLocked("g1", false, t1) // every slot was taken
	if !b.idleFrom.Equal(t1) {
		t.Fatalf("after the first game of a full house ended: idle from %v, want %v", b.idleFrom, t1)
	}
	b.gameOverLocked("g2", false, t1.Add(5*time.Minute)) // a slot already sat free
	if !b.idleFrom.Equal(t1) {
		t.Fatalf("a game ending beside a free slot restarted idle_time: idle from %v, want %v", b.idleFrom, t1)
	}
	b.games["g4"] = &gameWorker{}
	b.mm.outID = "c1" // the last free slot is held by our challenge
	t2 := t1.Add(20 * time.Minute)
	b.gameOverLocked("g3", false, t2)
	if !b.idleFrom.Equal(t2) {
		t.Fatalf("a game ending while our challenge held the only other free slot: idle from %v, want %v", b.idleFrom, t2)
	}
	b.mm.outID = ""
	b.games["g5"], b.games["c"] = &gameWorker{}, &gameWorker{corr: true}
	b.games["g6"] = &gameWorker{}
	b.gameOverLocked("c", true, t2.Add(time.Minute))
	if !b.idleFrom.Equal(t2) {
		t.Fatalf("a correspondence game's end restarted idle_time: idle from %v", b.idleFrom)
	}
}

// pickKind draws the variant first, then a clock among that variant's own
// time controls (VariantTimeControls) or TimeControls, then rated or
// casual by Mode: random gives both.
func TestPickKindModeAndVariantClocks(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	rapid := TimeControlSetting{Base: 10 * time.Minute, Increment: 5 * time.Second}
	m := MatchmakingSettings{
		Variants:            []string{"standard", "chess960"},
		TimeControls:        []TimeControlSetting{blitz},
		VariantTimeControls: map[string][]TimeControlSetting{"chess960": {rapid}},
		Mode:                MatchRandom,
	}.withDefaults()
	seen := map[string]bool{}
	for range 400 {
		k, _ := m.pickKind(true, nil)
		want := blitz
		if k.variant == "chess960" {
			want = rapid
		}
		if k.tc != want {
			t.Fatalf("%s offered at %v, want %v", k.variant, k.tc, want)
		}
		seen[k.variant] = true
		seen[fmt.Sprint("rated=", k.rated)] = true
	}
	for _, s := range []string{"standard", "chess960", "rated=true", "rated=false"} {
		if !seen[s] {
			t.Errorf("400 draws never gave %s", s)
		}
	}
	for mode, rated := range map[string]bool{MatchRated: true, MatchCasual: false, "": false} {
		m.Mode = mode
		for range 50 {
			if k, _ := m.pickKind(true, nil); k.rated != rated {
				t.Fatalf("mode %q gave rated=%v", mode, k.rated)
			}
		}
	}
}

// The rating filters read the perf a challenge counts in: the speed's for
// standard chess, the variant's for a variant (a bot's blitz rating says
// little of its atomic).
func TestMatchmakerRatingFiltersPerVariant(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	user := func(id string, blitzR, atomicR int) lichess.User {
		return lichess.User{ID: id, Username: id, Perfs: map[string]lichess.Perf{"blitz": {Rating: blitzR}, "atomic": {Rating: atomicR}}}
	}
	bots := []lichess.User{user("strongblitz", 2500, 1500), user("strongatomic", 1500, 2500)}
	mm := MatchmakingSettings{MinRating: 2000}.withDefaults()
	me := lichess.Account{ID: botID, Perfs: map[string]lichess.Perf{"blitz": {Rating: 1500}, "atomic": {Rating: 2500}}}
	names := func(us []lichess.User) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	for _, tt := range []struct {
		variant string
		want    string
	}{{"standard", "strongblitz"}, {"fromPosition", "strongblitz"}, {"atomic", "strongatomic"}} {
		v := matchmakeView{me: me, kind: matchKind{variant: tt.variant, tc: blitz}}
		if got := names(v.candidates(bots, mm)); !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%s, min rating 2000: candidates %v, want [%s]", tt.variant, got, tt.want)
		}
	}
	// The difference to ours, in the same perf: our atomic is 2500.
	mm = MatchmakingSettings{MaxRatingDiff: 100}.withDefaults()
	v := matchmakeView{me: me, kind: matchKind{variant: "atomic", tc: blitz}}
	if got := names(v.candidates(bots, mm)); !slices.Equal(got, []string{"strongatomic"}) {
		t.Errorf("atomic, within 100 of our atomic rating: candidates %v, want [strongatomic]", got)
	}
}
