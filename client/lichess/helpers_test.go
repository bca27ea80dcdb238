package lichess

import (
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The API's tests run against lichesstest, the fake Lichess server beside
// this package: one bot account (ours, with testToken) and a human
// opponent the tests drive directly.

const (
	testToken  = "lip_secretTOKEN123"
	botID      = "ponderosa"
	botName    = "Ponderosa"
	humanName  = "Alice"
	humanToken = "lip_aliceTOKEN456"
)

// newServer starts a lichesstest server with our bot and a human account.
func newServer(t *testing.T, opts ...lichesstest.Option) *lichesstest.Server {
	t.Helper()
	s := lichesstest.New(append([]lichesstest.Option{lichesstest.WithLog(t.Logf)}, opts...)...)
	s.AddAccount(botName, testToken, true, 2000)
	s.AddAccount(humanName, humanToken, false, 1500)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newTestClient returns a client of our bot for the server at baseURL.
func newTestClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithStreamIdleTimeout(2 * time.Second), WithLogger(testsupport.Logger(t))}, opts...)
	c, err := New(baseURL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startGame starts a 5+3 game of our bot (white) against the human and
// returns its id.
func startGame(t *testing.T, s *lichesstest.Server) string {
	t.Helper()
	id, err := s.Challenge(botName, humanName, lichesstest.ChallengeParams{
		ClockLimit: 5 * time.Minute, ClockIncrement: 3 * time.Second, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	return id
}

// requestCount is how many requests matching pattern (as in
// lichesstest.Server.RequestsMatching) the server received.
func requestCount(s *lichesstest.Server, pattern string) int {
	return len(s.RequestsMatching(pattern))
}

// awaitServer waits until cond holds (cond is checked after every change on
// the server) or fails the test after testsupport.WaitLimit.
func awaitServer(t *testing.T, s *lichesstest.Server, what string, cond func() bool) {
	t.Helper()
	if err := s.WaitFor(testsupport.Context(t), cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
