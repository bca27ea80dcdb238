package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

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
