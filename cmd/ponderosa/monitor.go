package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// streamMonitor watches the incoming-events stream from under the client's
// HTTP transport: it tells when the stream is first open (for READY=1),
// when it last showed life (bytes read, keep-alive lines included, or a
// reconnection attempt) for the watchdog, and when Lichess last answered
// on it (a 200 answer, or bytes read) for /healthz. It also keeps the last
// failure of any request (no answer, 5xx or 429), to say why a start
// failed.
//
// The two notions differ during a Lichess outage: the bot keeps trying to
// reconnect, so the watchdog (which would restart it, to no avail) is
// content, while /healthz says that no events come.
type streamMonitor struct {
	base http.RoundTripper
	now  func() time.Time // the clock; tests set it

	mu sync.Mutex
	// last is the last life for the watchdog: bytes read, an answer or a
	// reconnection attempt (the start before any).
	last time.Time
	// alive is the last answer of Lichess on the stream (a 200 answer or
	// bytes read); zero before any.
	alive     time.Time
	open      int
	streaming chan struct{} // closed once the event stream answered 200
	once      sync.Once
	// troubleKind (errUnavailable or errTempFail) and trouble describe the
	// last failed request.
	troubleKind error
	trouble     string
}

func newStreamMonitor(base http.RoundTripper) *streamMonitor {
	if base == nil {
		base = http.DefaultTransport
	}
	return &streamMonitor{base: base, now: time.Now, streaming: make(chan struct{}), last: time.Now()}
}

func isEventStream(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/api/stream/event")
}

// touch notes an attempt to open the stream: life for the watchdog.
func (m *streamMonitor) touch() {
	m.mu.Lock()
	m.last = m.now()
	m.mu.Unlock()
}

// answered notes an answer of Lichess on the stream: life for both.
func (m *streamMonitor) answered() {
	m.mu.Lock()
	m.last = m.now()
	m.alive = m.last
	m.mu.Unlock()
}

// RoundTrip implements http.RoundTripper.
func (m *streamMonitor) RoundTrip(r *http.Request) (*http.Response, error) {
	if !isEventStream(r) {
		resp, err := m.base.RoundTrip(r)
		m.noteTrouble(r, resp, err)
		return resp, err
	}
	m.touch()
	resp, err := m.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		m.noteTrouble(r, resp, err)
		return resp, err
	}
	m.once.Do(func() { close(m.streaming) })
	m.mu.Lock()
	m.open++
	m.mu.Unlock()
	m.answered()
	resp.Body = &monitoredBody{ReadCloser: resp.Body, m: m}
	return resp, nil
}

// noteTrouble records a request that got no answer, a server error or a
// rate limit. A request whose time ran out (the client's time limit of a
// request, or of the start-up) got no answer: Lichess is unreachable. Only
// a request the client cancelled (the bot stopping, a stream it closed) is
// no failure of Lichess.
func (m *streamMonitor) noteTrouble(r *http.Request, resp *http.Response, err error) {
	var kind error
	var what string
	switch {
	case err != nil:
		if errors.Is(r.Context().Err(), context.Canceled) {
			return // given up by the client, not a failure of Lichess
		}
		kind, what = errUnavailable, fmt.Sprintf("%s %s: %v", r.Method, r.URL.Path, err)
	case resp.StatusCode == http.StatusTooManyRequests:
		kind, what = errTempFail, fmt.Sprintf("%s %s: HTTP %d (rate limited)", r.Method, r.URL.Path, resp.StatusCode)
	case resp.StatusCode >= 500:
		kind, what = errUnavailable, fmt.Sprintf("%s %s: HTTP %d", r.Method, r.URL.Path, resp.StatusCode)
	default:
		return
	}
	m.mu.Lock()
	m.troubleKind, m.trouble = kind, what
	m.mu.Unlock()
}

// StartTrouble says why the bot is not connected: the kind of the last
// failed request (errUnavailable or errTempFail; errUnavailable when none
// failed) and what it was.
func (m *streamMonitor) StartTrouble() (kind error, what string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.troubleKind == nil {
		return errUnavailable, "no answer from Lichess"
	}
	return m.troubleKind, m.trouble
}

// Streaming is closed once the event stream has been opened.
func (m *streamMonitor) Streaming() <-chan struct{} { return m.streaming }

// Healthy reports whether the event stream showed life within window, a
// reconnection attempt included (for the watchdog).
func (m *streamMonitor) Healthy(window time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now().Sub(m.last) < window
}

// Alive is when Lichess last answered on the event stream (a 200 answer,
// or bytes read): reconnection attempts do not count. Zero before the
// stream first opened. For /healthz.
func (m *streamMonitor) Alive() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.alive
}

// LastActivity is when the event stream last showed life (the start,
// before it was first opened).
func (m *streamMonitor) LastActivity() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// Open is the number of event streams open now.
func (m *streamMonitor) Open() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open
}

type monitoredBody struct {
	io.ReadCloser
	m      *streamMonitor
	closed sync.Once
}

func (b *monitoredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.m.answered()
	}
	return n, err
}

func (b *monitoredBody) Close() error {
	b.closed.Do(func() {
		b.m.mu.Lock()
		b.m.open--
		b.m.mu.Unlock()
	})
	return b.ReadCloser.Close()
}
