package client

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The event stream of a Bot is reopened after the read deadline, and games
// are rejoined after the reconnect.
func TestBotReconnectsIdleEventStream(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(4))
	// First connection: answered, then silent (a dead link).
	h.srv.InjectSilence("GET /api/stream/event", 1)
	pool := &playerPool{}
	_, stop := h.runBot(Settings{ReconnectMin: 10 * time.Millisecond}, pool, lichess.WithStreamIdleTimeout(150*time.Millisecond))
	testsupport.WaitFor(t, "second event stream", func() bool { return h.requests("GET /api/stream/event") >= 2 })
	// A game started now arrives over the new stream and is played.
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	h.waitOver(id)
	stop()
	if n := h.requests("GET /api/account/playing"); n < 2 {
		t.Errorf("games in progress listed %d times, want at start and after the reconnect", n)
	}
}
