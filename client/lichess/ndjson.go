package lichess

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// ErrStreamIdle is matched by the error of a stream closed because no byte
// arrived within the idle timeout (Lichess sends a keep-alive line every 7 s,
// so silence means a dead connection).
var ErrStreamIdle = errors.New("stream idle: no data within the read deadline")

// ErrStreamEnded is returned when the server closes a stream normally.
var ErrStreamEnded = errors.New("stream ended by the server")

// maxLineBytes bounds one NDJSON line; longer lines are an error.
const maxLineBytes = 1 << 20

// idleReader closes the stream (via cancel) when no byte arrives for idle.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
	mu    sync.Mutex
	fired bool
}

func newIdleReader(r io.Reader, idle time.Duration, cancel context.CancelFunc) *idleReader {
	ir := &idleReader{r: r, idle: idle}
	ir.timer = time.AfterFunc(idle, func() {
		ir.mu.Lock()
		ir.fired = true
		ir.mu.Unlock()
		cancel()
	})
	return ir
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.timer.Reset(ir.idle)
	}
	if err != nil && ir.timedOut() {
		return n, ErrStreamIdle
	}
	return n, err
}

func (ir *idleReader) timedOut() bool {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	return ir.fired
}

func (ir *idleReader) stop() { ir.timer.Stop() }

// readLines calls fn with each non-empty line of r (without the newline),
// skipping keep-alive empty lines. It copes with lines split over many
// reads. It returns fn's error, the read error, or ErrStreamEnded at EOF.
func readLines(r io.Reader, fn func(line []byte) error) error {
	br := bufio.NewReaderSize(r, 16<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > maxLineBytes {
				return fmt.Errorf("ndjson line longer than %d bytes", maxLineBytes)
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			if len(long)+len(chunk) > maxLineBytes {
				return fmt.Errorf("ndjson line longer than %d bytes", maxLineBytes)
			}
			long = append(long, chunk...)
			line, long = long, nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if err == io.EOF {
				// A final line without newline may be cut short; only a
				// complete JSON value counts.
				if !jsonComplete(t) {
					return io.ErrUnexpectedEOF
				}
			}
			if ferr := fn(t); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return ErrStreamEnded
		}
	}
}

// jsonComplete is a cheap check that a line ends a JSON object.
func jsonComplete(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '}' }

// stream opens an NDJSON endpoint and calls fn per line until the stream
// ends, fails, goes idle, ctx ends, or fn returns an error.
func (c *Client) stream(ctx context.Context, r request, fn func(line []byte) error) error {
	r.stream = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, rcancel, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer rcancel()
	defer resp.Body.Close()
	if r.opened != nil {
		r.opened()
	}
	ir := newIdleReader(resp.Body, c.idleTimeout, rcancel)
	defer ir.stop()
	err = readLines(ir, fn)
	switch {
	case ir.timedOut():
		return fmt.Errorf("%s: %w", r.op, ErrStreamIdle)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrStreamEnded):
		return err
	}
	return fmt.Errorf("%s: %w", r.op, err)
}
