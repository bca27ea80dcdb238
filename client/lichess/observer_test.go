package lichess

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

type recordingObserver struct {
	mu      sync.Mutex
	limited []string
	cool    []time.Duration
	refused []string
}

func (o *recordingObserver) RateLimited(endpoint string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.limited = append(o.limited, endpoint)
	o.cool = append(o.cool, d)
}

func (o *recordingObserver) CooldownRefused(endpoint string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused = append(o.refused, endpoint)
}

// The observer hears of each 429 (with its cool-down) and of each request
// refused inside a cool-down, by endpoint family: a move's game id is not
// part of it.
func TestObserverRateLimits(t *testing.T) {
	s := newServer(t)
	g1 := startGame(t, s)
	s.Inject429("POST /api/bot/game/*/chat", 1, time.Hour)
	s.Inject429("POST /api/bot/game/*/move/*", 1, 2*time.Millisecond)
	o := &recordingObserver{}
	c := newTestClient(t, s.URL(), WithObserver(o))
	ctx := context.Background()
	if err := c.Chat(ctx, g1, RoomPlayer, "hello"); !IsRateLimited(err) {
		t.Fatalf("first chat: %v, want a 429", err)
	}
	if err := c.Chat(ctx, g1, RoomPlayer, "again"); !errors.Is(err, ErrCoolingDown) {
		t.Fatalf("chat inside the cool-down: %v, want ErrCoolingDown", err)
	}
	if err := c.Move(ctx, g1, "e2e4", false); !IsRateLimited(err) {
		t.Fatalf("move: %v, want a 429", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.limited) != 2 || o.limited[0] != "bot/game/chat" || o.limited[1] != "move" {
		t.Fatalf("rate limited endpoints %q, want [bot/game/chat move]", o.limited)
	}
	if o.cool[0] < 59*time.Minute {
		t.Fatalf("chat cool-down %v, want the Retry-After hour", o.cool[0])
	}
	if len(o.refused) != 1 || o.refused[0] != "bot/game/chat" {
		t.Fatalf("refused %q, want [bot/game/chat]", o.refused)
	}
}

func TestEndpointFamily(t *testing.T) {
	for key, want := range map[string]string{
		"move/abcd1234":    "move",
		"move/":            "move/",
		"challenge/create": "challenge/create",
		"bot/game/chat":    "bot/game/chat",
	} {
		if got := EndpointFamily(key); got != want {
			t.Errorf("EndpointFamily(%q) = %q, want %q", key, got, want)
		}
	}
}

type panickingObserver struct{}

func (panickingObserver) RateLimited(string, time.Duration) { panic("observer bug") }
func (panickingObserver) CooldownRefused(string)            { panic("observer bug") }

// A panicking observer does not stop a request: its panic is logged once
// per method, and the request's answer is the one it would have been.
func TestObserverPanicContained(t *testing.T) {
	s := newServer(t)
	g1 := startGame(t, s)
	s.Inject429("POST /api/bot/game/*/chat", 2, time.Hour)
	var logs bytes.Buffer
	c := newTestClient(t, s.URL(), WithObserver(panickingObserver{}), WithLogger(zerolog.New(&logs)))
	ctx := context.Background()
	if err := c.Chat(ctx, g1, RoomPlayer, "hello"); !IsRateLimited(err) {
		t.Fatalf("first chat: %v, want a 429", err)
	}
	for range 2 {
		if err := c.Chat(ctx, g1, RoomPlayer, "again"); !errors.Is(err, ErrCoolingDown) {
			t.Fatalf("chat inside the cool-down: %v, want ErrCoolingDown", err)
		}
	}
	for _, method := range []string{"RateLimited", "CooldownRefused"} {
		if n := strings.Count(logs.String(), "observer "+method+" panicked"); n != 1 {
			t.Errorf("%s's panic logged %d times, want once:\n%s", method, n, logs.String())
		}
	}
}
