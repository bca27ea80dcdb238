package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/monitor"
)

func TestUpgrade(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("NewBot", "lip_newbot", false, 1500)
	srv.SetScopes("NewBot", "bot:play")
	cfg := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\n")
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_newbot"}

	code, stdout, stderr := runWith(t, env, "upgrade", "-config", cfg)
	if code != exitUsage || !strings.Contains(stderr, "NOT upgraded") || !strings.Contains(stderr, "-confirm") || !strings.Contains(stderr, "NewBot") {
		t.Fatalf("without -confirm: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if srv.IsBot("NewBot") {
		t.Fatal("upgraded without -confirm")
	}
	code, stdout, stderr = runWith(t, env, "upgrade", "-confirm", "-config", cfg)
	if code != 0 || !strings.Contains(stdout, "NewBot is now a Bot account") {
		t.Fatalf("with -confirm: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !srv.IsBot("NewBot") {
		t.Fatal("not upgraded")
	}
	code, stdout, _ = runWith(t, env, "upgrade", "-confirm", "-config", cfg)
	if code != 0 || !strings.Contains(stdout, "already a Bot account") {
		t.Errorf("second upgrade: code %d, %s", code, stdout)
	}
	if strings.Contains(stdout+stderr, "lip_newbot") {
		t.Error("the token was printed")
	}
	if code, _, stderr := runWith(t, nil, "upgrade", "-confirm", "-config", cfg); code != exitConfig || !strings.Contains(stderr, "no Lichess token") {
		t.Errorf("no token: code %d, %s", code, stderr)
	}
}

// The demo plays a whole game between two bots with the built-in engine
// (depth-capped to keep the test short) and ends with a legal PGN.
func TestDemo(t *testing.T) {
	tc, err := config.ParseTimeControl("1+0")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	snap, err := runDemo(ctx, &out, demoOpts{tc: tc, movesLimit: 6, depth: 3, hashMB: 4, ponder: true})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	if !snap.Finished || snap.Status == "aborted" {
		t.Fatalf("game not finished: %s\n%s", snap.Status, out.String())
	}
	res := pgnResult(snap)
	if !slices.Contains([]string{"1-0", "0-1", "1/2-1/2"}, res) {
		t.Fatalf("result %q", res)
	}
	if len(snap.Moves) < 12 {
		t.Errorf("only %d plies before the move limit of 6", len(snap.Moves))
	}
	// The printed PGN is legal chess and has the game's moves and result.
	text := out.String()
	i := strings.Index(text, "[Event")
	if i < 0 {
		t.Fatalf("no PGN in the output:\n%s", text)
	}
	pgn, err := chess.PGN(strings.NewReader(text[i:]))
	if err != nil {
		t.Fatalf("PGN does not parse: %v\n%s", err, text[i:])
	}
	g := chess.NewGame(pgn)
	if n := len(g.Moves()); n != len(snap.Moves) {
		t.Errorf("PGN has %d moves, the game %d", n, len(snap.Moves))
	}
	if g.Outcome().String() != res {
		t.Errorf("PGN outcome %s, want %s", g.Outcome(), res)
	}
	for _, want := range []string{"challenges", "1. ", "white 1:00.0", "Result: " + res, "move limit (6) reached"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// Every move line but forced ones shows an evaluation and a depth.
	if n := strings.Count(text, "depth "); n < len(snap.Moves)/2 {
		t.Errorf("only %d moves with an evaluation:\n%s", n, text)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{{"-tc", "0.25+0"}, {"-tc", "fast"}, {"extra"}} {
		if code, _, _ := runWith(t, nil, append([]string{"demo"}, args...)...); code != exitUsage {
			t.Errorf("demo %v: code %d, want 2", args, code)
		}
	}
}

func TestStreamMonitor(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/stream/event" {
			w.Write([]byte("\n"))
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer hs.Close()
	m := newStreamMonitor(nil)
	c := &http.Client{Transport: m}
	resp, err := c.Get(hs.URL + "/api/account")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-m.Streaming():
		t.Fatal("streaming after another request")
	default:
	}
	resp, err = c.Get(hs.URL + "/api/stream/event")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Streaming():
	default:
		t.Fatal("not streaming after the event stream opened")
	}
	if m.Open() != 1 {
		t.Errorf("open %d", m.Open())
	}
	buf := make([]byte, 8)
	resp.Body.Read(buf)
	resp.Body.Close()
	resp.Body.Close()
	if m.Open() != 0 {
		t.Errorf("open %d after close", m.Open())
	}
	if !m.Healthy(time.Hour) {
		t.Error("not healthy right after a read")
	}
	if m.Healthy(0) {
		t.Error("healthy with an empty window")
	}
}

// The monitor's start trouble is the last failure: a request whose time
// ran out is Lichess unreachable (errUnavailable), even after a rate limit
// (so a hung Lichess after an old 429 exits 69, not 75); a request the
// client cancelled is no failure of Lichess and changes nothing.
func TestStreamMonitorTrouble(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/account/playing" {
			<-r.Context().Done() // hangs
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer hs.Close()
	m := newStreamMonitor(nil)
	c := &http.Client{Transport: m}
	get := func(ctx context.Context, path string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	if kind, what := m.StartTrouble(); kind != errUnavailable || what != "no answer from Lichess" {
		t.Errorf("before any request: %v, %q", kind, what)
	}
	get(context.Background(), "/api/account")
	if kind, what := m.StartTrouble(); kind != errTempFail || !strings.Contains(what, "GET /api/account: HTTP 429") {
		t.Errorf("after a 429: %v, %q", kind, what)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	get(ctx, "/api/account/playing")
	if kind, _ := m.StartTrouble(); kind != errTempFail {
		t.Errorf("a request the client cancelled counted: %v", kind)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	get(ctx, "/api/account/playing")
	if kind, what := m.StartTrouble(); kind != errUnavailable || !strings.Contains(what, "GET /api/account/playing") || !strings.Contains(what, "deadline exceeded") {
		t.Errorf("after a request timed out: %v, %q", kind, what)
	}
}

// During a Lichess outage the bot keeps trying to reconnect: the watchdog
// sees life in the attempts (a restart would not mend Lichess), /healthz
// does not: it counts only Lichess' answers on the stream (a 200, bytes
// read).
func TestStreamMonitorHealthzOutage(t *testing.T) {
	var mu sync.Mutex
	down := false
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Write([]byte("\n"))
	}))
	defer hs.Close()
	m := newStreamMonitor(nil)
	m.now = clock
	c := &http.Client{Transport: m}
	srv := monitor.New(monitor.Options{StreamActivity: m.Alive, HealthWindow: time.Minute, Now: clock})
	healthz := func() int {
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return w.Code
	}
	if code := healthz(); code != http.StatusServiceUnavailable || !m.Alive().IsZero() {
		t.Fatalf("/healthz before the stream opened: %d (alive %v), want 503", code, m.Alive())
	}
	resp, err := c.Get(hs.URL + "/api/stream/event")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if code := healthz(); code != http.StatusOK {
		t.Fatalf("/healthz with the stream answering: %d, want 200", code)
	}
	// Lichess goes down; two minutes later the bot tries again.
	mu.Lock()
	down = true
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	resp, err = c.Get(hs.URL + "/api/stream/event")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !m.Healthy(time.Minute) {
		t.Error("watchdog: not healthy right after a reconnection attempt (it would restart the bot for a Lichess outage)")
	}
	if code := healthz(); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz two minutes into an outage: %d, want 503", code)
	}
	// Lichess is back.
	mu.Lock()
	down = false
	mu.Unlock()
	resp, err = c.Get(hs.URL + "/api/stream/event")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := healthz(); code != http.StatusOK {
		t.Errorf("/healthz with Lichess back: %d, want 200", code)
	}
}
