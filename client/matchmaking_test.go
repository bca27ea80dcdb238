package client

import (
	"context"
	"testing"
	"time"
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
// the bot plays, or past the daily bot-game limit.
func TestMatchmakerHoldsBack(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	b := NewBot(c, nil, Settings{Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond}}, testLogger(t))
	b.me = Account{ID: botID, Username: botName}
	mm := b.Settings().Matchmaking
	ctx := context.Background()

	c.cooldowns.start("challenge/create", "3600", time.Now())
	b.matchmakeOnce(ctx, mm)
	if n := f.requestCount("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times during the cool-down", n)
	}
	c.cooldowns.until = map[string]time.Time{}

	b.games["busy"] = &game{}
	b.matchmakeOnce(ctx, mm)
	if n := f.requestCount("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times while playing", n)
	}
	delete(b.games, "busy")

	for i := 0; i < 100; i++ {
		b.botGames.add(time.Now())
	}
	b.matchmakeOnce(ctx, mm)
	if n := f.requestCount("GET /api/bot/online"); n != 0 {
		t.Fatalf("online bots listed %d times past the daily limit", n)
	}
	b.botGames = dailyCounter{}

	time.Sleep(time.Millisecond) // past IdleTime
	b.matchmakeOnce(ctx, mm)
	if n := f.requestCount("GET /api/bot/online"); n != 1 {
		t.Fatalf("online bots listed %d times when idle, want 1", n)
	}
}
