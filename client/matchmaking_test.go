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
	b.challengeSent("g1", "opp")
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
	b.challengeSent("g3", "opp")
	if b.mm.outID != "g3" || b.botGames.count(time.Now()) != 1 {
		t.Errorf("after g3 was sent: pending %q, bot games %d; want g3 pending, 1 counted", b.mm.outID, b.botGames.count(time.Now()))
	}
}
