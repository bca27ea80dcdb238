package client

import (
	"context"
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
// the bot plays, or past the daily bot-game limit.
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
		t.Fatalf("online bots listed %d times while playing", n)
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
