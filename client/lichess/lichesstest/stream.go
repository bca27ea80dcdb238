package lichesstest

import (
	"net/http"
	"sync"
	"time"
)

// subscriber is one open NDJSON stream. Lines are queued without bound (a
// slow reader never makes the server drop an event) and written by the
// handler goroutine that owns the connection.
type subscriber struct {
	mu       sync.Mutex
	queue    [][]byte
	finished bool // write what is queued, then end the response cleanly
	notify   chan struct{}
	dropped  chan struct{} // closed: cut the connection without a clean end
	dropOnce sync.Once
}

func newSubscriber() *subscriber {
	return &subscriber{notify: make(chan struct{}, 1), dropped: make(chan struct{})}
}

func (sb *subscriber) signal() {
	select {
	case sb.notify <- struct{}{}:
	default:
	}
}

// push queues one line (without its trailing newline).
func (sb *subscriber) push(line []byte) {
	sb.mu.Lock()
	if !sb.finished {
		sb.queue = append(sb.queue, line)
	}
	sb.mu.Unlock()
	sb.signal()
}

// finish ends the stream cleanly after the queued lines are written.
func (sb *subscriber) finish() {
	sb.mu.Lock()
	sb.finished = true
	sb.mu.Unlock()
	sb.signal()
}

// drop cuts the connection abruptly, as a network failure or a server
// restart would.
func (sb *subscriber) drop() {
	sb.dropOnce.Do(func() { close(sb.dropped) })
}

func (sb *subscriber) take() ([][]byte, bool) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	q := sb.queue
	sb.queue = nil
	return q, sb.finished
}

// serveStream writes sb's lines to w as NDJSON until the stream finishes, is
// dropped, or the client goes away. An empty line is written every
// keepAlive. onEnd runs when the handler returns (to unregister sb).
func serveStream(w http.ResponseWriter, r *http.Request, sb *subscriber, keepAlive time.Duration, onEnd func()) {
	defer onEnd()
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	for {
		lines, finished := sb.take()
		if len(lines) > 0 {
			// Lines are shared between subscribers: copy, never append.
			var buf []byte
			for _, l := range lines {
				buf = append(buf, l...)
				buf = append(buf, '\n')
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		if len(lines) > 0 && flusher != nil {
			flusher.Flush()
		}
		if finished {
			// Lines pushed after finish are discarded by push.
			return
		}
		select {
		case <-sb.notify:
		case <-ticker.C:
			if _, err := w.Write([]byte("\n")); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		case <-sb.dropped:
			// Abort the connection without the terminating chunk, so
			// the client sees an unexpected EOF, not a clean end.
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		}
	}
}
