package lichesstest

import (
	"testing"
	"time"
)

// Server.CancelChallenge withdraws an open challenge for its challenger:
// the destination gets challengeCanceled, the challenge can no longer be
// accepted, and a second cancel is an error.
func TestServerCancelChallenge(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", false, 1500)
	evMe := openStream(t, s.URL(), "tme", "/api/stream/event")
	id, err := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	evMe.nextOfType(t, "challenge")
	if err := s.CancelChallenge(id); err != nil {
		t.Fatal(err)
	}
	c := evMe.nextOfType(t, "challengeCanceled")
	if str(c, "challenge", "id") != id || str(c, "challenge", "status") != "canceled" {
		t.Fatalf("canceled event %v", c)
	}
	if st, _ := s.ChallengeStatus(id); st != "canceled" {
		t.Errorf("status %q, want canceled", st)
	}
	wantStatus(t, post(t, s.URL(), "tme", "/api/challenge/"+id+"/accept", nil), 404)
	if err := s.CancelChallenge(id); err == nil {
		t.Error("a second cancel succeeded")
	}
	if err := s.CancelChallenge("nosuch"); err == nil {
		t.Error("cancelling an unknown challenge succeeded")
	}
}

// GET /api/challenge takes the challenge:read scope only, as on Lichess: a
// bot token with bot:play alone gets 403.
func TestListChallengesScope(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	wantStatus(t, get(t, s.URL(), "tme", "/api/challenge"), 200)
	s.SetScopes("me", ScopeBotPlay)
	r := get(t, s.URL(), "tme", "/api/challenge")
	wantStatus(t, r, 403)
	if got := r.header.Get("X-Accepted-OAuth-Scopes"); got != ScopeChallengeRead {
		t.Errorf("X-Accepted-OAuth-Scopes %q, want %q", got, ScopeChallengeRead)
	}
}
