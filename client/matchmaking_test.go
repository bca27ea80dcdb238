package client

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
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

// A game of our challenge that started, and even ended, before
// CreateChallenge's answer came back still counts as a bot game, and does
// not leave the challenge pending (which would hold a slot until its
// timeout and never count the game).
func TestChallengeGameOverBeforeItsIDCameBack(t *testing.T) {
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	b.sendingChallenge(true)
	b.mu.Lock()
	if b.mm.onGameStart("g1") {
		t.Error("a game with no challenge of ours pending counted at its start")
	}
	b.mu.Unlock()
	// The game ran and ended (it is no longer in b.games); now the answer.
	b.challengeSent(context.Background(), "g1", "opp", matchKind{})
	if n := b.botGames.count(time.Now()); n != 1 {
		t.Errorf("bot games counted: %d, want 1", n)
	}
	if b.mm.outID != "" {
		t.Errorf("challenge %s left pending after its game", b.mm.outID)
	}
	// A game that started while nothing was being sent is not taken for
	// ours later.
	b.mu.Lock()
	b.mm.onGameStart("g2")
	b.mu.Unlock()
	b.challengeSent(context.Background(), "g3", "opp", matchKind{})
	if b.mm.outID != "g3" || b.botGames.count(time.Now()) != 1 {
		t.Errorf("after g3 was sent: pending %q, bot games %d; want g3 pending, 1 counted", b.mm.outID, b.botGames.count(time.Now()))
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

// Lichess' 429 for the daily bot-game limit (ratelimit.key bot.vsBot.day)
// pauses matchmaking until the oldest bot game of the last 24 hours ages
// out; its 400 for an opponent who has played too many games today skips
// that opponent (remembered as a decline "capped", in the store too) and
// leaves the others.
func TestMatchmakerDailyBotGameCaps(t *testing.T) {
	h := newHarness(t)
	h.srv.AddAccount("CappedBot", "lip_capped", true, 2000)
	if err := h.srv.SetHousePlayer("CappedBot", lichesstest.HouseOptions{IgnoreChallenges: true}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := newMemStore()
	b := NewBot(h.client(), nil, Settings{Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond}}, testsupport.Logger(t))
	b.SetStore(st)
	b.me = lichess.Account{ID: botID, Username: botName}
	time.Sleep(time.Millisecond) // past IdleTime
	mm := b.Settings().Matchmaking

	// The opponent is capped: skipped, and remembered.
	h.srv.InjectAnswer("POST /api/challenge/*", 1, http.StatusBadRequest, lichesstest.OpponentCappedBody)
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("POST /api/challenge/cappedbot"); n != 1 {
		t.Fatalf("challenges to CappedBot: %d, want 1", n)
	}
	b.mu.Lock()
	until := b.mm.skipUntil["cappedbot"]
	b.mu.Unlock()
	if want := time.Date(2099, 1, 2, 3, 4, 5, 678e6, time.UTC); !until.Equal(want) {
		t.Fatalf("a capped opponent is skipped until %v, want %v (the date Lichess named)", until, want)
	}
	select {
	case op := <-b.storeC:
		if err := op.f(ctx, st); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("the capped opponent was not handed to the store")
	}
	if d, _ := st.DeclinesSince(ctx, time.Time{}); len(d) != 1 || d[0].Opponent != "cappedbot" || d[0].Reason != DeclineCapped {
		t.Fatalf("decline history %+v, want cappedbot %q", d, DeclineCapped)
	}
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("POST /api/challenge/cappedbot"); n != 1 {
		t.Fatalf("challenges to CappedBot: %d, want still 1 (skipped)", n)
	}

	// Our own daily limit: the pause lasts the ratelimit.seconds of the
	// answer (5400 s), not until the oldest game of the last 24 hours
	// (23 h old here) ages out, in about an hour, which is the guess when
	// the answer carries no seconds.
	b.mu.Lock()
	clear(b.mm.declined)
	clear(b.mm.skipUntil)
	b.mu.Unlock()
	oldest := time.Now().Add(-23 * time.Hour)
	b.botGames.add(oldest)
	h.srv.InjectAnswer("POST /api/challenge/*", 1, http.StatusTooManyRequests, lichesstest.BotDayLimitBody)
	fresh := h.client() // no cool-down left by the 429 above to hide the next round
	b.c = fresh
	before := time.Now()
	b.matchmakeOnce(ctx, mm)
	after := time.Now()
	b.mu.Lock()
	until = b.mm.dayLimitUntil
	b.mu.Unlock()
	if until.Before(before.Add(5400*time.Second)) || until.After(after.Add(5400*time.Second)) {
		t.Fatalf("paused until %v, want 5400 s after the answer (its ratelimit.seconds)", until)
	}
	now := time.Now()
	b.botDayLimitReached(now, 0) // an answer without seconds
	b.mu.Lock()
	until = b.mm.dayLimitUntil
	b.mu.Unlock()
	if want := oldest.Add(24 * time.Hour); !until.Equal(want) {
		t.Fatalf("without seconds: paused until %v, want %v (the oldest bot game ages out)", until, want)
	}
	b.mu.Lock()
	b.botGames = dailyCounter{}
	b.mu.Unlock()
	b.botDayLimitReached(now, 0)
	b.mu.Lock()
	until = b.mm.dayLimitUntil
	b.mu.Unlock()
	if want := now.Add(dayLimitProbe); !until.Equal(want) {
		t.Fatalf("without seconds or known games: paused until %v, want %v", until, want)
	}
	b.c = h.client()
	listed := h.requests("GET /api/bot/online")
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != listed {
		t.Fatalf("online bots listed during the daily-limit pause")
	}
	b.mu.Lock()
	b.mm.dayLimitUntil = time.Now().Add(-time.Second) // the oldest game aged out
	b.mu.Unlock()
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("GET /api/bot/online"); n != listed+1 {
		t.Fatalf("online bots listed %d times after the pause, want %d", n, listed+1)
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

// A capped opponent whose answer names no date ahead is skipped for the
// decline cool-down.
func TestMatchmakerCappedWithoutDate(t *testing.T) {
	b := NewBot(nil, nil, Settings{Matchmaking: MatchmakingSettings{DeclineCooldown: 2 * time.Hour}}, testsupport.Logger(t))
	now := time.Now()
	err := &lichess.APIError{StatusCode: http.StatusBadRequest, Message: "X played 100 games against other bots today, please wait until soon to challenge them."}
	b.opponentCapped(lichess.User{ID: "X", Username: "X"}, matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute}}, err, now)
	b.mu.Lock()
	defer b.mu.Unlock()
	if at, ok := b.mm.declined["x"]; !ok || !at.Equal(now) {
		t.Errorf("capped opponent without a date: declined at %v (%v), want now (the cool-down)", at, ok)
	}
	if _, ok := b.mm.skipUntil["x"]; ok {
		t.Error("capped opponent without a date given a skip date")
	}
}

// A challenge whose CreateChallenge answer comes back after Drain began
// is not recorded (Drain has already cancelled what was out) but
// cancelled at once.
func TestMatchmakerDrainWhileSending(t *testing.T) {
	h := newHarness(t)
	b := NewBot(h.client(), nil, Settings{}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.sendingChallenge(true)
	if err := b.Drain(testsupport.Context(t)); err != nil {
		t.Fatal(err)
	}
	b.challengeSent(context.Background(), "late1", "somebot", matchKind{})
	b.mu.Lock()
	out, sending := b.mm.outID, b.mm.sending
	b.mu.Unlock()
	if out != "" || sending {
		t.Errorf("after draining: challenge %q recorded, sending %v; want none", out, sending)
	}
	deadline := time.Now().Add(30 * time.Second) // generous: the cancel runs in the background
	for h.requests("POST /api/challenge/late1/cancel") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("our challenge sent while draining was never cancelled")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Closes of our challenges are remembered (early) only while one is being
// sent, and forgotten when the sending ends: the map does not grow.
func TestMatchmakerEarlyClosesBounded(t *testing.T) {
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	closed := func(id string) {
		b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeCanceled, Challenge: &lichess.Challenge{ID: id, Challenger: lichess.ChallengeUser{ID: botID}}})
	}
	closed("old1")
	if n := len(b.mm.early); n != 0 {
		t.Errorf("a close with nothing being sent remembered: %d", n)
	}
	b.sendingChallenge(true)
	closed("c1")
	if !b.mm.early["c1"] {
		t.Fatal("a close while sending not remembered")
	}
	b.challengeSent(context.Background(), "c1", "opp", matchKind{})
	if b.mm.outID != "" || len(b.mm.early) != 0 {
		t.Errorf("after the closed challenge came back: pending %q, early %d; want none, 0", b.mm.outID, len(b.mm.early))
	}
	b.sendingChallenge(true)
	closed("c2")
	b.sendingChallenge(false) // the round sent nothing after all
	if n := len(b.mm.early); n != 0 {
		t.Errorf("early holds %d after the sending ended, want 0", n)
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

// The block lasts while block_after_declines counted declines are within
// the window: it ends when the oldest of the last N ages out, not the
// window's length after the last decline; "later" and "capped" do not
// count.
func TestBlockListEnd(t *testing.T) {
	now := time.Now()
	day := 24 * time.Hour
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	mm := MatchmakingSettings{BlockAfterDeclines: 3, BlockFor: 7 * day}
	blitz := matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	b.mm.history = []DeclineRecord{
		{Opponent: "a", Reason: "generic", At: now.Add(-6 * day)},
		{Opponent: "a", Reason: "later", At: now.Add(-5 * day)},
		{Opponent: "a", Reason: "tooFast", At: now.Add(-4 * day), Speed: "blitz"},
		{Opponent: "a", Reason: DeclineCapped, At: now.Add(-3 * day)},
		{Opponent: "a", Reason: "generic", At: now.Add(-time.Hour)},
		{Opponent: "b", Reason: "generic", At: now.Add(-2 * day)},
		{Opponent: "b", Reason: "later", At: now.Add(-day)},
		{Opponent: "b", Reason: "generic", At: now.Add(-time.Hour)},
	}
	b.mu.Lock()
	got := b.blockedLocked(now, mm, blitz)
	b.mu.Unlock()
	if want := now.Add(day); len(got) != 1 || !got["a"].Equal(want) {
		t.Errorf("blocked %v, want only a until %v (its oldest counted decline ages out)", got, want)
	}
	b.mu.Lock()
	got = b.blockedLocked(now.Add(day+time.Second), mm, blitz)
	b.mu.Unlock()
	if len(got) != 0 {
		t.Errorf("blocked %v after the oldest counted decline aged out, want none", got)
	}
}

// The pause after Lichess' 429 for the daily bot-game limit is kept in the
// store: a bot started again within it (a restart) sends no challenge
// until it ends, and one started after it is not paused.
func TestDayLimitPauseSurvivesRestart(t *testing.T) {
	mem := newMemStore()
	settings := Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond},
	}
	newBot := func() *Bot {
		b := NewBot(nil, nil, settings, testsupport.Logger(t))
		b.me = lichess.Account{ID: botID, Username: botName}
		b.SetStore(mem)
		return b
	}
	now := time.Now()
	first := newBot()
	first.botDayLimitReached(now, 3600)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	first.storeWriter(done, mem) // what the writer has queued reaches the store
	if got := mem.pauses[PauseBotDayLimit]; !got.Equal(now.Add(time.Hour)) {
		t.Fatalf("stored pause %v, want %v", got, now.Add(time.Hour))
	}

	second := newBot() // the restart
	second.loadState(context.Background())
	second.idleFrom = now.Add(-time.Hour)
	mm := second.Settings().Matchmaking
	second.mu.Lock()
	until := second.mm.dayLimitUntil
	second.mu.Unlock()
	if !until.Equal(now.Add(time.Hour)) {
		t.Fatalf("after the restart: paused until %v, want %v", until, now.Add(time.Hour))
	}
	if v := second.matchmakeView(now.Add(time.Minute), mm); v.reserved {
		t.Fatal("the restarted bot would challenge within the daily-limit pause")
	}
	if v := second.matchmakeView(now.Add(time.Hour+time.Second), mm); !v.reserved {
		t.Fatal("the restarted bot would not challenge after the pause")
	}

	mem.pauses[PauseBotDayLimit] = now.Add(-time.Minute) // over before the start
	third := newBot()
	third.loadState(context.Background())
	third.mu.Lock()
	until = third.mm.dayLimitUntil
	third.mu.Unlock()
	if !until.IsZero() {
		t.Errorf("a pause over before the start was taken up: until %v", until)
	}
}

// Our challenge unanswered past its timeout stays pending (holding its
// slot and counted as a bot game to come) until its cancel answers: a
// game that starts from it while the cancel fails is still ours, counted
// as a bot game. A cancel that answers for good (here a 404: gone)
// forgets it and frees the slot; one that keeps failing is forgotten
// after staleGiveUp.
func TestStaleChallengePendingUntilCancelAnswers(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends c3's background cancel
	b := NewBot(h.client(), nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond, ChallengeTimeout: time.Second},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = time.Now().Add(-time.Hour)
	mm := b.Settings().Matchmaking
	out := func(id string, at time.Time) {
		b.mu.Lock()
		b.mm.outID, b.mm.outTo, b.mm.outAt = id, "otherbot", at
		b.mu.Unlock()
	}
	pending := func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.matchPendingLocked() && b.botGamesLocked(time.Now()) == 1
	}

	out("c1", time.Now().Add(-time.Minute)) // stale
	h.srv.InjectError("POST /api/challenge/c1/cancel", 100, http.StatusBadGateway)
	b.matchmakeOnce(ctx, mm)
	if n := h.requests("POST /api/challenge/c1/cancel"); n == 0 {
		t.Fatal("the stale challenge was not cancelled")
	}
	if !pending() {
		t.Fatal("the stale challenge was forgotten while its cancel failed")
	}
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Fatalf("the matchmaker looked for another bot (%d) while its stale challenge may still start a game", n)
	}
	b.mu.Lock()
	counted := b.mm.onGameStart("c1") // Lichess started its game meanwhile
	b.mu.Unlock()
	if !counted {
		t.Fatal("the game of our stale challenge, started before the cancel answered, is not taken for ours")
	}

	out("c2", time.Now().Add(-time.Minute))
	b.matchmakeOnce(ctx, mm) // lichesstest knows no c2: 404, gone for good
	if b.mm.outID != "" {
		t.Fatalf("challenge %q still pending after its cancel answered 404", b.mm.outID)
	}
	b.mu.Lock()
	counted = b.mm.onGameStart("c2") // it was accepted just before the cancel
	b.mu.Unlock()
	if !counted {
		t.Fatal("the game of our stale challenge whose cancel Lichess refused is not taken for ours")
	}

	out("c3", time.Now().Add(-time.Second-staleGiveUp-time.Minute)) // its cancel has failed for long
	h.srv.InjectError("POST /api/challenge/c3/cancel", 100, http.StatusBadGateway)
	b.matchmakeOnce(ctx, mm)
	if b.mm.outID != "" {
		t.Fatalf("challenge %q still pending past staleGiveUp", b.mm.outID)
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
		k := m.pickKind()
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
			if k := m.pickKind(); k.rated != rated {
				t.Fatalf("mode %q gave rated=%v", mode, k.rated)
			}
		}
	}
}

// Declines are remembered per kind of challenge (lichess-bot's
// challenge_filter: fine): a reason about the speed, the variant or the
// mode blocks that kind only (tooFast also the faster speeds, tooSlow the
// slower), a reason about the bot blocks it for every kind, and the
// declines recorded before the kinds were (no kind) block no kind.
func TestDeclinesPerKind(t *testing.T) {
	now := time.Now()
	day := 24 * time.Hour
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	mm := MatchmakingSettings{BlockAfterDeclines: 3, BlockFor: 7 * day}.withDefaults()
	kind := func(variant string, base time.Duration, rated bool) matchKind {
		return matchKind{variant: variant, tc: TimeControlSetting{Base: base}, rated: rated}
	}
	bullet, blitz, rapid := kind("standard", time.Minute, true), kind("standard", 5*time.Minute, true), kind("standard", 15*time.Minute, true)
	classical := kind("standard", 60*time.Minute, true)
	chess960, casual := kind("chess960", 5*time.Minute, true), kind("standard", 5*time.Minute, false)
	three := func(opp, reason, variant, speed, mode string) {
		for i := range 3 {
			b.mm.history = append(b.mm.history, DeclineRecord{Opponent: opp, Reason: reason, At: now.Add(-time.Duration(3-i) * day),
				Variant: variant, Speed: speed, Mode: mode})
		}
	}
	three("fast", lichess.DeclineTooFast, "standard", "blitz", MatchRated)
	three("slow", lichess.DeclineTooSlow, "standard", "rapid", MatchRated)
	three("novariant", lichess.DeclineVariant, "chess960", "blitz", MatchRated)
	three("unrated", lichess.DeclineRated, "standard", "blitz", MatchRated)
	three("rude", lichess.DeclineGeneric, "standard", "blitz", MatchRated)
	three("nobots", lichess.DeclineNoBot, "chess960", "rapid", MatchCasual)
	three("migrated", lichess.DeclineTooFast, "", "", "") // recorded before the kinds
	b.mm.history = append(b.mm.history,
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineGeneric, At: now.Add(-3 * day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineGeneric, At: now.Add(-2 * day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineTimeControl, At: now.Add(-day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
	)
	slices.SortStableFunc(b.mm.history, func(x, y DeclineRecord) int { return x.At.Compare(y.At) })
	for _, tc := range []struct {
		what string
		k    matchKind
		want []string
	}{
		{"blitz", blitz, []string{"fast", "mixed", "nobots", "rude", "unrated"}},
		{"bullet (faster than a tooFast blitz)", bullet, []string{"fast", "nobots", "rude", "unrated"}},
		{"rapid", rapid, []string{"nobots", "rude", "slow", "unrated"}},
		{"classical (slower than a tooSlow rapid)", classical, []string{"nobots", "rude", "slow", "unrated"}},
		{"chess960 blitz", chess960, []string{"fast", "mixed", "nobots", "novariant", "rude", "unrated"}},
		{"casual blitz", casual, []string{"fast", "mixed", "nobots", "rude"}},
	} {
		b.mu.Lock()
		got := slices.Sorted(maps.Keys(b.blockedLocked(now, mm, tc.k)))
		b.mu.Unlock()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: blocked %v, want %v", tc.what, got, tc.want)
		}
	}
}

// newDeclineKindBot is the bot of the tests of declines per kind: rated
// matchmaking in blitz, one game at a time, idle for an hour; blitz and
// rapid are the two kinds they compare.
func newDeclineKindBot(t *testing.T) (b *Bot, blitz, rapid TimeControlSetting) {
	t.Helper()
	blitz = TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	rapid = TimeControlSetting{Base: 15 * time.Minute, Increment: 10 * time.Second}
	b = NewBot(nil, nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond, TimeControls: []TimeControlSetting{blitz}, Mode: MatchRated},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = time.Now().Add(-time.Hour)
	return b, blitz, rapid
}

// declineHistory is a copy of b's decline history.
func declineHistory(b *Bot) []DeclineRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.mm.history)
}

// declinedFor is the set of opponents cooling down for time control tc,
// as a matchmaking round would see it (it must reserve the slot).
func declinedFor(t *testing.T, b *Bot, tc TimeControlSetting) map[string]bool {
	t.Helper()
	mm := b.Settings().Matchmaking
	mm.TimeControls = []TimeControlSetting{tc}
	v := b.matchmakeView(time.Now(), mm)
	b.sendingChallenge(false)
	if !v.reserved {
		t.Fatal("no slot reserved")
	}
	return v.declined
}

// A decline event of our challenge is recorded with its kind; a reason
// about the bot cools the bot down for every kind, one about the kind for
// that kind only.
func TestDeclineCooldownPerKind(t *testing.T) {
	b, blitz, rapid := newDeclineKindBot(t)
	decline := func(opp, reason string) {
		b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
			ID: "c-" + opp, Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: opp, Name: opp},
			Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", Rated: true, DeclineReasonKey: reason}})
	}
	decline("fastbot", lichess.DeclineTooFast)
	decline("rudebot", lichess.DeclineGeneric)
	h := declineHistory(b)
	if len(h) != 2 || h[0].Variant != "standard" || h[0].Speed != "blitz" || h[0].Mode != MatchRated || h[0].Reason != lichess.DeclineTooFast {
		t.Fatalf("history %+v, want the declines with their kind", h)
	}
	if d := declinedFor(t, b, blitz); !d["fastbot"] || !d["rudebot"] {
		t.Errorf("blitz: cooling down %v, want fastbot and rudebot", d)
	}
	if d := declinedFor(t, b, rapid); d["fastbot"] || !d["rudebot"] {
		t.Errorf("rapid: cooling down %v, want rudebot only (fastbot found blitz too fast)", d)
	}
}

// Our challenge given up after staleGiveUp (its cancel kept failing) may
// still be open: its slot is freed, but its cancel is tried on in the
// background, and a game that starts from it later is ours, counted as a
// bot game.
func TestGivenUpChallengeStillOurs(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends the background cancel
	b := NewBot(h.client(), nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond, ChallengeTimeout: time.Second},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	mm := b.Settings().Matchmaking
	b.mu.Lock()
	b.mm.outID, b.mm.outTo, b.mm.outAt = "c4", "otherbot", time.Now().Add(-time.Second-staleGiveUp-time.Minute)
	b.mu.Unlock()
	h.srv.InjectError("POST /api/challenge/c4/cancel", 100, http.StatusBadGateway)
	b.matchmakeOnce(ctx, mm)
	b.mu.Lock()
	out := b.mm.outID
	b.mu.Unlock()
	if out != "" {
		t.Fatalf("challenge %q still pending past staleGiveUp", out)
	}
	h.waitFor("the background cancel", func() bool { return h.requests("POST /api/challenge/c4/cancel") > 0 })
	b.mu.Lock()
	counted := b.mm.onGameStart("c4") // accepted at last
	b.mu.Unlock()
	if !counted {
		t.Fatal("the game of our given-up challenge is not taken for ours")
	}
	b.mu.Lock()
	again := b.mm.onGameStart("c4")
	b.mu.Unlock()
	if again {
		t.Error("the game of our given-up challenge taken for ours twice")
	}
}

// A reload that turns matchmaking off while our challenge is out: the
// matchmaker still cancels it once stale and frees its slot.
func TestStaleChallengeClearedWithMatchmakingOff(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	b := NewBot(h.client(), nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: false, CheckEvery: time.Millisecond, ChallengeTimeout: time.Second},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.mu.Lock()
	b.mm.outID, b.mm.outTo, b.mm.outAt = "c5", "otherbot", time.Now().Add(-time.Minute)
	b.mu.Unlock()
	go func() { defer close(done); b.matchmaker(ctx) }()
	h.waitFor("the cancel of the stale challenge", func() bool { return h.requests("POST /api/challenge/c5/cancel") > 0 })
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		out := b.mm.outID
		b.mu.Unlock()
		if out == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("challenge %q still pending with matchmaking off", out)
		}
		time.Sleep(time.Millisecond)
	}
	if n := h.requests("GET /api/bot/online"); n != 0 {
		t.Errorf("matchmaking off, yet online bots listed %d times", n)
	}
}

// A decline event that lacks the challenge's speed and variant: the kind
// is the one we sent, so a reason about the kind cools that kind down;
// when we know no kind (not our challenge out), the bot is cooled down
// for every kind, as before the kinds.
func TestDeclineWithoutKind(t *testing.T) {
	b, blitz, rapid := newDeclineKindBot(t)
	bare := func(id, opp, reason string) {
		b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
			ID: id, Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: opp, Name: opp},
			DeclineReasonKey: reason}})
	}
	b.sendingChallenge(true)
	b.challengeSent(context.Background(), "c-ours", "fastbot", matchKind{variant: "standard", tc: blitz, rated: true})
	bare("c-ours", "fastbot", lichess.DeclineTooFast)
	bare("c-other", "slowbot", lichess.DeclineTooSlow) // not the challenge out: kind unknown
	h := declineHistory(b)
	if len(h) != 2 || h[0].Variant != "standard" || h[0].Speed != "blitz" || h[0].Mode != MatchRated {
		t.Fatalf("history %+v, want the decline of our challenge with the kind we sent", h)
	}
	if d := declinedFor(t, b, blitz); !d["fastbot"] || !d["slowbot"] {
		t.Errorf("blitz: cooling down %v, want fastbot (blitz too fast) and slowbot (kind unknown)", d)
	}
	if d := declinedFor(t, b, rapid); d["fastbot"] || !d["slowbot"] {
		t.Errorf("rapid: cooling down %v, want slowbot only", d)
	}
}

// The daily-limit pause is at most 24 hours from now (Lichess counts a
// sliding 24 hours): when Lichess' answer names more, and when the store
// holds more (damaged, or written under a wrong clock).
func TestDayLimitPauseAtMost24Hours(t *testing.T) {
	mem := newMemStore()
	newBot := func() *Bot {
		b := NewBot(nil, nil, Settings{Matchmaking: MatchmakingSettings{Enabled: true}}, testsupport.Logger(t))
		b.SetStore(mem)
		return b
	}
	now := time.Now()
	b := newBot()
	b.botDayLimitReached(now, 10*24*3600)
	b.mu.Lock()
	until := b.mm.dayLimitUntil
	b.mu.Unlock()
	if !until.Equal(now.Add(24 * time.Hour)) {
		t.Errorf("paused until %v after a 10-day ratelimit.seconds, want %v", until, now.Add(24*time.Hour))
	}
	if err := mem.SetPause(context.Background(), PauseBotDayLimit, time.Now().Add(365*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	second := newBot()
	before := time.Now()
	second.loadState(context.Background())
	second.mu.Lock()
	until = second.mm.dayLimitUntil
	second.mu.Unlock()
	if until.After(time.Now().Add(24*time.Hour)) || until.Before(before.Add(24*time.Hour)) {
		t.Errorf("a stored pause a year ahead taken up until %v, want 24 hours from the start", until)
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

// A decline with reason "standard" says "I only play standard": it
// refuses every variant, not only the one declined, and never standard.
func TestDeclineStandardRefusesEveryVariant(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	d := DeclineRecord{Opponent: "stdonly", Reason: lichess.DeclineStandard, Variant: "atomic", Speed: "blitz", Mode: MatchRated}
	for variant, want := range map[string]bool{"atomic": true, "chess960": true, "crazyhouse": true, "standard": false} {
		if got := d.refuses(matchKind{variant: variant, tc: blitz, rated: true}); got != want {
			t.Errorf("standard-only decline of atomic refuses %s: %v, want %v", variant, got, want)
		}
	}
	// Recorded before the kinds (no variant): the reason still says it.
	d.Variant = ""
	if !d.refuses(matchKind{variant: "horde", tc: blitz}) || d.refuses(matchKind{variant: "standard", tc: blitz}) {
		t.Error("a standard-only decline with no kind recorded: want every variant refused, standard not")
	}
	// "variant" keeps to the variant declined.
	v := DeclineRecord{Opponent: "noatomic", Reason: lichess.DeclineVariant, Variant: "atomic"}
	if !v.refuses(matchKind{variant: "atomic", tc: blitz}) || v.refuses(matchKind{variant: "chess960", tc: blitz}) {
		t.Error("a variant decline of atomic: want atomic refused, chess960 not")
	}
}

// A cancel that Lichess answers 200 may have aborted the game of our
// challenge, accepted meanwhile: the start of that game, coming after the
// answer, is still taken for ours (counted as a bot game).
func TestStaleCancelAnsweredOKKeepsTheGameOurs(t *testing.T) {
	b := NewBot(nil, nil, Settings{Challenge: ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100}}, testsupport.Logger(t))
	b.mu.Lock()
	b.mm.outID, b.mm.outTo, b.mm.outAt = "c6", "otherbot", time.Now().Add(-time.Minute)
	b.mu.Unlock()
	b.staleCancelAnswered("c6", nil)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mm.outID != "" {
		t.Fatalf("challenge %q still pending after its cancel answered 200", b.mm.outID)
	}
	if !b.mm.onGameStart("c6") {
		t.Error("the game the cancel aborted, started after the answer, is not taken for ours")
	}
}

// The blocks logged are forgotten once over: the map does not grow for
// good.
func TestBlockLoggedForgetsEndedBlocks(t *testing.T) {
	b := NewBot(nil, nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond},
	}, testsupport.Logger(t))
	b.idleFrom = time.Now().Add(-time.Hour)
	now := time.Now()
	b.mu.Lock()
	b.mm.blockLogged = map[string]time.Time{"oldbot standard blitz casual": now.Add(-time.Minute), "newbot standard blitz casual": now.Add(time.Hour)}
	b.mu.Unlock()
	if v := b.matchmakeView(now, b.Settings().Matchmaking); !v.reserved {
		t.Fatal("no slot reserved")
	}
	b.sendingChallenge(false)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.mm.blockLogged["oldbot standard blitz casual"]; ok {
		t.Error("a block logged whose end has passed is still kept")
	}
	if _, ok := b.mm.blockLogged["newbot standard blitz casual"]; !ok {
		t.Error("a block logged that still holds was dropped (it would be logged again)")
	}
}
