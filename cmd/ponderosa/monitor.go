package main

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// streamMonitor watches the incoming-events stream from under the client's
// HTTP transport: it tells when the stream is first open (for READY=1) and
// when it last showed life (bytes read, keep-alive lines included, or a
// reconnection attempt), for the watchdog.
type streamMonitor struct {
	base http.RoundTripper

	mu        sync.Mutex
	last      time.Time
	open      int
	streaming chan struct{} // closed once the event stream answered 200
	once      sync.Once
}

func newStreamMonitor(base http.RoundTripper) *streamMonitor {
	if base == nil {
		base = http.DefaultTransport
	}
	return &streamMonitor{base: base, streaming: make(chan struct{}), last: time.Now()}
}

func isEventStream(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/api/stream/event")
}

func (m *streamMonitor) touch() {
	m.mu.Lock()
	m.last = time.Now()
	m.mu.Unlock()
}

// RoundTrip implements http.RoundTripper.
func (m *streamMonitor) RoundTrip(r *http.Request) (*http.Response, error) {
	if !isEventStream(r) {
		return m.base.RoundTrip(r)
	}
	m.touch()
	resp, err := m.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	m.once.Do(func() { close(m.streaming) })
	m.mu.Lock()
	m.open++
	m.last = time.Now()
	m.mu.Unlock()
	resp.Body = &monitoredBody{ReadCloser: resp.Body, m: m}
	return resp, nil
}

// Streaming is closed once the event stream has been opened.
func (m *streamMonitor) Streaming() <-chan struct{} { return m.streaming }

// Healthy reports whether the event stream showed life within window.
func (m *streamMonitor) Healthy(window time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return time.Since(m.last) < window
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
		b.m.touch()
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
