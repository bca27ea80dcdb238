package lichess

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// ListChallenges returns the open challenges to us and from us, and only
// the open ones.
func TestListChallenges(t *testing.T) {
	s := newServer(t)
	in, err := s.Challenge(humanName, botName, lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Rated: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Challenge(botName, humanName, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := s.Challenge(humanName, botName, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeclineChallenge(gone, DeclineLater); err != nil {
		t.Fatal(err)
	}
	l, err := newTestClient(t, s.URL()).ListChallenges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.In) != 1 || len(l.Out) != 1 {
		t.Fatalf("list: %d in, %d out, want 1 and 1: %+v", len(l.In), len(l.Out), l)
	}
	c := l.In[0]
	if c.ID != in || c.Direction != "in" || c.Challenger.Name != humanName || c.Challenger.Rating != 1500 ||
		!c.Rated || c.Speed != "blitz" || c.TimeControl.Limit != 180 || c.TimeControl.Increment != 2 || c.Variant.Key != "standard" {
		t.Errorf("incoming challenge %+v", c)
	}
	if l.Out[0].ID != out || l.Out[0].Direction != "out" {
		t.Errorf("outgoing challenge %+v", l.Out[0])
	}
}

// A malformed answer is an error that names the operation; entries without
// an id are left out; an empty answer is an empty list.
func TestListChallengesBadAnswers(t *testing.T) {
	var body atomic.Pointer[string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(*body.Load()))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	for _, tc := range []struct {
		name, body string
		in         int
		fail       bool
	}{
		{"not JSON", `<html>`, 0, true},
		{"wrong shape", `{"in": 3}`, 0, true},
		{"empty object", `{}`, 0, false},
		{"no id", `{"in": [{"challenger": {"id": "a"}}, {"id": "x1"}], "out": [{}]}`, 1, false},
	} {
		body.Store(&tc.body)
		l, err := c.ListChallenges(context.Background())
		if tc.fail {
			if err == nil {
				t.Errorf("%s: no error, list %+v", tc.name, l)
			} else if !strings.Contains(err.Error(), "list challenges") {
				t.Errorf("%s: error %q does not name the operation", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(l.In) != tc.in || len(l.Out) != 0 {
			t.Errorf("%s: %d in, %d out, want %d and 0", tc.name, len(l.In), len(l.Out), tc.in)
		}
	}
}
