package lichesstest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func newTestServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	opts = append([]Option{WithKeepAlive(20 * time.Millisecond), WithLog(t.Logf)}, opts...)
	s := New(opts...)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// ndStream reads an NDJSON stream line by line on a goroutine.
type ndStream struct {
	lines  chan string // every line, keep-alive empty lines included
	done   chan struct{}
	err    error // how the stream ended: nil for a clean EOF
	cancel context.CancelFunc
	status int
	header http.Header
}

func openStream(t *testing.T, base, token, path string) *ndStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open %s: %v", path, err)
	}
	st := &ndStream{lines: make(chan string, 1024), done: make(chan struct{}), cancel: cancel, status: resp.StatusCode, header: resp.Header}
	t.Cleanup(func() { cancel(); <-st.done })
	go func() {
		defer close(st.done)
		defer resp.Body.Close()
		defer close(st.lines)
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if !errors.Is(err, io.EOF) || line != "" {
					st.err = err
				}
				if errors.Is(err, io.EOF) && line != "" {
					st.err = io.ErrUnexpectedEOF
				}
				return
			}
			st.lines <- strings.TrimRight(line, "\n")
		}
	}()
	return st
}

// next returns the next non-empty line decoded, or nil when the stream
// ended.
func (st *ndStream) next(t *testing.T) map[string]any {
	t.Helper()
	timer := time.NewTimer(testsupport.WaitLimit)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-st.lines:
			if !ok {
				return nil
			}
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("bad NDJSON line %q: %v", l, err)
			}
			return m
		case <-timer.C:
			t.Fatal("no line on the stream")
			return nil
		}
	}
}

// nextOfType skips lines until one of type typ.
func (st *ndStream) nextOfType(t *testing.T, typ string) map[string]any {
	t.Helper()
	for {
		m := st.next(t)
		if m == nil {
			t.Fatalf("stream ended before a %q line", typ)
		}
		if m["type"] == typ {
			return m
		}
	}
}

// waitEnd waits for the stream to end and returns how.
func (st *ndStream) waitEnd(t *testing.T) error {
	t.Helper()
	for {
		select {
		case _, ok := <-st.lines:
			if !ok {
				<-st.done
				return st.err
			}
		case <-time.After(testsupport.WaitLimit):
			t.Fatal("stream did not end")
		}
	}
}

type apiResp struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func call(t *testing.T, method, base, token, path string, form url.Values) apiResp {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := apiResp{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

func post(t *testing.T, base, token, path string, form url.Values) apiResp {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return call(t, "POST", base, token, path, form)
}

func get(t *testing.T, base, token, path string) apiResp {
	t.Helper()
	return call(t, "GET", base, token, path, nil)
}

func wantStatus(t *testing.T, r apiResp, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (body %s)", r.status, status, r.raw)
	}
}

func str(m map[string]any, keys ...string) string {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

func num(m map[string]any, keys ...string) float64 {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return -1
		}
		v = mm[k]
	}
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return f
}

// stateOf returns the gameState of a gameFull or gameState line.
func stateOf(m map[string]any) map[string]any {
	if m["type"] == "gameFull" {
		st, _ := m["state"].(map[string]any)
		return st
	}
	return m
}

func plies(st map[string]any) int { return len(strings.Fields(str(st, "moves"))) }
