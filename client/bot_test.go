package client

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The event stream of a Bot is reopened after the read deadline, and games
// are rejoined after the reconnect.
func TestBotReconnectsIdleEventStream(t *testing.T) {
	f := newFake(t)
	var opened atomic.Int32
	f.intercept = func(r *http.Request) (int, http.Header, string, bool) {
		if r.URL.Path == "/api/stream/event" {
			if opened.Add(1) == 1 {
				// First connection: silent (a dead link).
				f.mu.Lock()
				f.silentEvents = true
				f.mu.Unlock()
			} else {
				f.mu.Lock()
				f.silentEvents = false
				f.mu.Unlock()
			}
		}
		return 0, nil, "", false
	}
	f.keepAlive = 20 * time.Millisecond
	c := f.client(t, lichess.WithStreamIdleTimeout(150*time.Millisecond))
	pool := &playerPool{}
	b := NewBot(c, pool.factory, Settings{ReconnectMin: 10 * time.Millisecond}, testsupport.Logger(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	testsupport.WaitFor(t, "second event stream", func() bool { return opened.Load() >= 2 })
	// A game started now arrives over the new stream and is played.
	f.addGame("late1", true, func(g *fakeGame) { g.resignAfter = 4 })
	f.sendEvent(`{"type":"gameStart","game":{"gameId":"late1","fullId":"late1xxxx","opponent":{"id":"opponent","username":"opponent"}}}`)
	f.waitLocked(t, "game late1 over", func() bool { return f.games["late1"].status != "started" })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.requestCount("GET /api/account/playing"); n < 2 {
		t.Errorf("games in progress listed %d times, want at start and after the reconnect", n)
	}
}
