package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

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

// TestCancelAnswered: no error and a 4xx but 429 are Lichess' answer to a
// cancel; the network, a 5xx and a 429 are not.
func TestCancelAnswered(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, true},
		{&lichess.APIError{StatusCode: 404}, true},
		{&lichess.APIError{StatusCode: 400}, true},
		{fmt.Errorf("cancel: %w", &lichess.APIError{StatusCode: 404}), true},
		{&lichess.APIError{StatusCode: 429}, false},
		{&lichess.APIError{StatusCode: 502}, false},
		{errors.New("connection reset"), false},
	} {
		if got := cancelAnswered(c.err); got != c.want {
			t.Errorf("cancelAnswered(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
