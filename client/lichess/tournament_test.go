package lichess

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// JoinArena sends the password, the team and pairMeAsap as the spec's form
// fields; ArenaInfo reads the arena's state; WithdrawArena pauses.
func TestArenaJoinWithdrawInfo(t *testing.T) {
	s := newServer(t)
	s.SetScopes(botName, ScopeBotPlay, ScopeTournamentWrite)
	id := s.CreateArena(lichesstest.ArenaParams{Name: "Bots", ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second,
		Minutes: 60, BotsAllowed: true, Password: "secretPW", Teams: []string{"bots-team"}})
	c := newTestClient(t, s.URL())
	ctx := context.Background()

	a, err := c.ArenaInfo(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != id || a.FullName != "Bots" || a.Clock.Limit != 180 || a.Clock.Increment != 2 || a.State() != ArenaCreated {
		t.Errorf("created arena: %+v (state %s)", a, a.State())
	}
	if err := c.JoinArena(ctx, id, JoinRequest{Password: "secretPW", Team: "bots-team", PairMeAsap: true}); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.Arena(id)
	if len(snap.Players) != 1 || !strings.EqualFold(snap.Players[0].Username, botName) || snap.Players[0].Team != "bots-team" {
		t.Fatalf("after the join: %+v", snap)
	}
	if err := s.StartArena(id); err != nil {
		t.Fatal(err)
	}
	if a, err := c.ArenaInfo(ctx, id); err != nil || a.State() != ArenaStarted {
		t.Errorf("started arena: %+v, %v", a, err)
	}
	if s.ArenaWaiting(id, botName) {
		t.Fatal("waits for a pairing without pairMeAsap since the start")
	}
	if err := c.JoinArena(ctx, id, JoinRequest{Password: "secretPW", Team: "bots-team", PairMeAsap: true}); err != nil {
		t.Fatal(err)
	}
	if !s.ArenaWaiting(id, botName) {
		t.Fatal("pairMeAsap=true was not sent")
	}
	if err := c.WithdrawArena(ctx, id); err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.Arena(id); !snap.Players[0].Paused || snap.Players[0].Withdrawals != 1 {
		t.Errorf("after the withdrawal: %+v", snap)
	}
	if err := s.FinishArena(id); err != nil {
		t.Fatal(err)
	}
	if a, err := c.ArenaInfo(ctx, id); err != nil || a.State() != ArenaFinished {
		t.Errorf("finished arena: %+v, %v", a, err)
	}
}

// A refused join is an *APIError with Lichess' reason and the operation;
// neither the token nor the password is in it. A 429 starts the join's
// cool-down: the next join fails at once, without a request.
func TestArenaJoinErrors(t *testing.T) {
	s := newServer(t)
	id := s.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "secretPW"})
	c := newTestClient(t, s.URL())
	ctx := context.Background()

	err := c.JoinArena(ctx, id, JoinRequest{Password: "secretPW"})
	if StatusCode(err) != http.StatusForbidden {
		t.Fatalf("join without tournament:write: %v, want HTTP 403", err)
	}
	s.SetScopes(botName, ScopeBotPlay, ScopeTournamentWrite)
	err = c.JoinArena(ctx, id, JoinRequest{Password: "wrongPW"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Message != "Wrong entry code" {
		t.Fatalf("wrong password: %v", err)
	}
	if !strings.Contains(err.Error(), "join tournament "+id) {
		t.Errorf("error does not say what was done: %v", err)
	}
	for _, secret := range []string{testToken, "wrongPW", "secretPW"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows a secret: %v", err)
		}
	}
	if err := c.WithdrawArena(ctx, "nosuchid"); StatusCode(err) != http.StatusNotFound {
		t.Errorf("withdraw from an unknown arena: %v, want HTTP 404", err)
	}

	s.Inject429("POST /api/tournament/*/join", 1, time.Hour)
	if err := c.JoinArena(ctx, id, JoinRequest{Password: "secretPW"}); !IsRateLimited(err) {
		t.Fatalf("429: %v", err)
	}
	before := len(s.RequestsMatching("POST /api/tournament/*/join"))
	if err := c.JoinArena(ctx, id, JoinRequest{Password: "secretPW"}); !errors.Is(err, ErrCoolingDown) {
		t.Fatalf("join inside the cool-down: %v, want ErrCoolingDown", err)
	}
	if n := len(s.RequestsMatching("POST /api/tournament/*/join")); n != before {
		t.Errorf("a join was sent inside the cool-down (%d requests, %d before)", n, before)
	}
	if c.Cooldown("tournament/join") <= 0 {
		t.Error("no cool-down for tournament/join")
	}
}

// State takes an arena for running only when Lichess says how long it
// runs (secondsToFinish): one at its start time that Lichess has not
// started yet (secondsToStart 0 or absent) is still created.
func TestArenaState(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{`{"id":"a","secondsToStart":120}`, ArenaCreated},
		{`{"id":"a","secondsToStart":0}`, ArenaCreated},
		{`{"id":"a"}`, ArenaCreated},
		{`{"id":"a","secondsToFinish":600}`, ArenaStarted},
		{`{"id":"a","secondsToFinish":600,"pairingsClosed":true}`, ArenaStarted},
		{`{"id":"a","isFinished":true}`, ArenaFinished},
	} {
		var a Arena
		if err := json.Unmarshal([]byte(tc.json), &a); err != nil {
			t.Fatal(err)
		}
		if got := a.State(); got != tc.want {
			t.Errorf("%s: state %s, want %s", tc.json, got, tc.want)
		}
	}
}

// TestTokenCreateURL: the token page with each scope ticked, in order.
func TestTokenCreateURL(t *testing.T) {
	for _, c := range []struct {
		scopes []string
		want   string
	}{
		{nil, "https://lichess.org/account/oauth/token/create"},
		{[]string{ScopeBotPlay}, "https://lichess.org/account/oauth/token/create?scopes[]=bot:play"},
		{[]string{ScopeBotPlay, ScopeTournamentWrite}, "https://lichess.org/account/oauth/token/create?scopes[]=bot:play&scopes[]=tournament:write"},
	} {
		if got := TokenCreateURL("https://lichess.org", c.scopes...); got != c.want {
			t.Errorf("TokenCreateURL(%q) = %q, want %q", c.scopes, got, c.want)
		}
	}
}
