package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

func TestReadLines(t *testing.T) {
	long := `{"type":"x","pad":"` + strings.Repeat("a", 40000) + `"}`
	for _, tc := range []struct {
		name  string
		in    string
		want  []string
		endIs error
	}{
		{"keep-alives", "\n\n{\"a\":1}\n\n\r\n{\"b\":2}\n\n", []string{`{"a":1}`, `{"b":2}`}, ErrStreamEnded},
		{"crlf", "{\"a\":1}\r\n", []string{`{"a":1}`}, ErrStreamEnded},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, ErrStreamEnded},
		{"cut short", "{\"a\":1}\n{\"b\":", []string{`{"a":1}`}, io.ErrUnexpectedEOF},
		{"long line", long + "\n{}\n", []string{long, `{}`}, ErrStreamEnded},
		{"empty", "", nil, ErrStreamEnded},
	} {
		for _, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			var got []string
			err := readLines(wrap(strings.NewReader(tc.in)), func(l []byte) error {
				got = append(got, string(l))
				return nil
			})
			if !errors.Is(err, tc.endIs) {
				t.Errorf("%s: err = %v, want %v", tc.name, err, tc.endIs)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("%s: lines = %.60q, want %.60q", tc.name, got, tc.want)
			}
		}
	}
	tooLong := strings.Repeat("x", maxLineBytes+10) + "\n"
	if err := readLines(strings.NewReader(tooLong), func([]byte) error { return nil }); err == nil || errors.Is(err, ErrStreamEnded) {
		t.Errorf("over-long line: err = %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if err := readLines(strings.NewReader("{}\n{}\n{}\n"), func([]byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("callback error: err = %v after %d lines", err, n)
	}
}

// A stream that goes silent is closed with ErrStreamIdle.
func TestStreamIdleDeadline(t *testing.T) {
	f := newFake(t)
	f.silentEvents = true
	c := f.client(t, WithStreamIdleTimeout(100*time.Millisecond))
	err := c.StreamEvents(context.Background(), func(Event) error { return nil })
	if !errors.Is(err, ErrStreamIdle) {
		t.Fatalf("StreamEvents on a silent stream: %v, want ErrStreamIdle", err)
	}
}

// Keep-alive lines keep a stream open past the idle timeout; unknown and
// malformed lines are skipped.
func TestStreamKeepAliveAndUnknown(t *testing.T) {
	f := newFake(t)
	f.keepAlive = 10 * time.Millisecond
	c := f.client(t, WithStreamIdleTimeout(time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []Event
	done := make(chan error, 1)
	go func() {
		done <- c.StreamEvents(ctx, func(ev Event) error {
			got = append(got, ev)
			if ev.Type == EventGameFinish {
				return io.EOF
			}
			return nil
		})
	}()
	waitFor(t, "event stream subscriber", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.evSubs) == 1 })
	time.Sleep(1300 * time.Millisecond) // longer than the idle timeout: only keep-alives flow
	f.sendEvent(`{"type":"somethingNew"}`)
	f.sendEvent(`{"broken json`)
	f.sendEvent(`{"type":"gameFinish","game":{"gameId":"g1","fullId":"g1xxxx","status":{"id":31,"name":"resign"}}}`)
	err := <-done
	if !errors.Is(err, io.EOF) {
		t.Fatalf("stream ended with %v, want the callback's error", err)
	}
	if len(got) != 1 || got[0].Game.GameID != "g1" {
		t.Fatalf("events = %+v, want only the gameFinish", got)
	}
}

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
	c := f.client(t, WithStreamIdleTimeout(150*time.Millisecond))
	pool := &playerPool{}
	b := NewBot(c, pool.factory, Settings{ReconnectMin: 10 * time.Millisecond}, testLogger(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	waitFor(t, "second event stream", func() bool { return opened.Load() >= 2 })
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
