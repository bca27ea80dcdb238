package lichess

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
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
	s := newServer(t, lichesstest.WithKeepAlive(time.Hour)) // no game, no challenge: silence
	c := newTestClient(t, s.URL(), WithStreamIdleTimeout(100*time.Millisecond))
	err := c.StreamEvents(context.Background(), func(Event) error { return nil })
	if !errors.Is(err, ErrStreamIdle) {
		t.Fatalf("StreamEvents on a silent stream: %v, want ErrStreamIdle", err)
	}
}

// Keep-alive lines keep a stream open past the idle timeout; unknown and
// malformed lines are skipped.
func TestStreamKeepAliveAndUnknown(t *testing.T) {
	s := newServer(t, lichesstest.WithKeepAlive(10*time.Millisecond))
	c := newTestClient(t, s.URL(), WithStreamIdleTimeout(time.Second))
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
	awaitServer(t, s, "event stream subscriber", func() bool { return s.EventStreamOpen(botName) })
	time.Sleep(1300 * time.Millisecond) // longer than the idle timeout: only keep-alives flow
	for _, line := range []string{
		`{"type":"somethingNew"}`,
		`{"broken json`,
		`{"type":"gameFinish","game":{"gameId":"g1","fullId":"g1xxxx","status":{"id":31,"name":"resign"}}}`,
	} {
		if !s.InjectEventLine(botName, line) {
			t.Fatalf("no event stream open for %s", line)
		}
	}
	err := <-done
	if !errors.Is(err, io.EOF) {
		t.Fatalf("stream ended with %v, want the callback's error", err)
	}
	if len(got) != 1 || got[0].Game.GameID != "g1" {
		t.Fatalf("events = %+v, want only the gameFinish", got)
	}
}

// StreamEventsOpened calls opened once the stream is open, though no event
// comes (a silent stream), and not when the stream is refused.
func TestStreamEventsOpened(t *testing.T) {
	s := newServer(t, lichesstest.WithKeepAlive(time.Hour))
	c := newTestClient(t, s.URL(), WithStreamIdleTimeout(100*time.Millisecond))
	opened := 0
	err := c.StreamEventsOpened(context.Background(), func() { opened++ }, func(Event) error { return nil })
	if !errors.Is(err, ErrStreamIdle) || opened != 1 {
		t.Fatalf("silent stream: err %v, opened %d times; want ErrStreamIdle after 1", err, opened)
	}
	s.InjectError("/api/stream/event", 1, 503)
	opened = 0
	if err := c.StreamEventsOpened(context.Background(), func() { opened++ }, func(Event) error { return nil }); err == nil || opened != 0 {
		t.Errorf("refused stream: err %v, opened %d times; want an error and 0", err, opened)
	}
}
