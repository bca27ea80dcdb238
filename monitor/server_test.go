package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

func get(t *testing.T, h http.Handler, target string, header http.Header) (int, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// /healthz answers 200 while the event stream showed life within the
// window and 503, with a short JSON body, once it has been silent longer.
func TestHealthzStale(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var last time.Time // not connected yet
	s := New(Options{
		HealthWindow:   time.Minute,
		StreamActivity: func() time.Time { mu.Lock(); defer mu.Unlock(); return last },
		Now:            func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
	})
	code, body := get(t, s.Handler(), "/healthz", nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"not_connected"`) {
		t.Fatalf("before the stream opened: %d %s, want 503 not_connected", code, body)
	}
	mu.Lock()
	last = now.Add(-10 * time.Second)
	mu.Unlock()
	code, body = get(t, s.Handler(), "/healthz", nil)
	if code != http.StatusOK {
		t.Fatalf("fresh stream: %d %s, want 200", code, body)
	}
	var h Health
	if err := json.Unmarshal([]byte(body), &h); err != nil || h.Status != "ok" || h.StreamSilenceSeconds != 10 {
		t.Fatalf("fresh stream body %q (%v), want ok after 10 s of silence", body, err)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	code, body = get(t, s.Handler(), "/healthz", nil)
	if code != http.StatusServiceUnavailable {
		t.Fatalf("stale stream: %d %s, want 503", code, body)
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil || h.Status != "stale" || h.StreamSilenceSeconds != 70 || len(body) > 200 {
		t.Fatalf("stale stream body %q (%v), want a short stale answer", body, err)
	}
	// Life again: healthy again.
	mu.Lock()
	last = now
	mu.Unlock()
	if code, body := get(t, s.Handler(), "/healthz", nil); code != http.StatusOK {
		t.Fatalf("stream back: %d %s, want 200", code, body)
	}
}

// With an access token every request must carry it (header or query):
// 401 without or with a wrong one, 200 with it; the token is in no answer
// and in no log line.
func TestAccessToken(t *testing.T) {
	const tok = "web-Secret-0123456789abcdef"
	var logs bytes.Buffer
	m := NewMetrics("test")
	s := New(Options{AccessToken: tok, Metrics: m, Log: zerolog.New(&logs).Level(zerolog.TraceLevel)})
	s.Handle("GET /extra", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mounted") }))
	h := s.Handler()
	for _, path := range []string{"/healthz", "/metrics", "/extra"} {
		for _, tc := range []struct {
			target string
			header http.Header
			want   int
		}{
			{path, nil, http.StatusUnauthorized},
			{path + "?access_token=wrong", nil, http.StatusUnauthorized},
			{path, http.Header{"Authorization": {"Bearer " + tok[:len(tok)-1]}}, http.StatusUnauthorized},
			{path, http.Header{"Authorization": {"Basic " + tok}}, http.StatusUnauthorized},
			{path, http.Header{"Authorization": {"Bearer " + tok}}, http.StatusOK},
			{path, http.Header{"Authorization": {"bearer " + tok}}, http.StatusOK},
			{path + "?access_token=" + tok, nil, http.StatusOK},
		} {
			code, body := get(t, h, tc.target, tc.header)
			if code != tc.want {
				t.Errorf("%s %v: %d, want %d", tc.target, tc.header, code, tc.want)
			}
			if strings.Contains(body, tok) {
				t.Errorf("%s: the answer holds the token", tc.target)
			}
		}
	}
	if code, body := get(t, h, "/extra?access_token="+tok, nil); body != "mounted" {
		t.Errorf("mounted handler: %d %q", code, body)
	}
	if strings.Contains(logs.String(), tok) {
		t.Errorf("the log holds the token:\n%s", logs.String())
	}
}

// The server is read-only: other methods than GET and HEAD are refused.
func TestReadOnly(t *testing.T) {
	s := New(Options{Metrics: NewMetrics("test")})
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(method, "/metrics", strings.NewReader("x")))
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /metrics: %d, want 405", method, w.Code)
		}
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/healthz", nil))
	if w.Code != http.StatusOK {
		t.Errorf("HEAD /healthz: %d, want 200", w.Code)
	}
}

// Serve answers over TCP and returns nil once its context ends, with the
// listener closed.
func TestServeGracefulShutdown(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Metrics: NewMetrics("test")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Fatal("still answering after the shutdown")
	}
	if _, err := Listen(ln.Addr().String()); err != nil {
		t.Fatalf("the address is not free again: %v", err)
	}
}

// What the observers are told shows in the scrape, each family of ours
// after its HELP and TYPE lines.
func TestMetricsScrape(t *testing.T) {
	m := NewMetrics("v1.2.3")
	g := client.GameFacts{ID: "g1", Speed: "blitz", Variant: "standard"}
	m.GameStarted(g)
	m.MovePlayed(g, client.Choice{Move: "e2e4", Source: "search", Duration: 1500 * time.Millisecond,
		Engine: &client.EngineFacts{Predicted: true, PonderHit: true, PonderTop3: true, Rerooted: true, KeptFraction: 0.42, TreeBytes: 1000, HashBytes: 1 << 20}})
	m.MovePlayed(g, client.Choice{Move: "d2d4", Source: "book"})
	m.ChallengeAnswered(client.ChallengeDeclined, "variant")
	m.ChallengeAnswered(client.ChallengeAccepted, "")
	m.ChallengeAnswered(client.ChallengeQueued, "")
	m.StreamReconnect()
	m.RateLimited("move", 90*time.Second)
	m.CooldownRefused("bot/game/chat")
	var b bytes.Buffer
	if err := m.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE ponderosa_moves_total counter\nponderosa_moves_total 2\n",
		`ponderosa_moves_by_source_total{source="book"} 1`,
		`ponderosa_games_started_total{speed="blitz"} 1`,
		"ponderosa_games_running 1\n",
		"# TYPE ponderosa_move_think_seconds histogram\n",
		`ponderosa_move_think_seconds_bucket{le="2"} 1`,
		`ponderosa_move_think_seconds_bucket{le="1"} 0`,
		"ponderosa_ponder_hits_total 1\n", "ponderosa_ponder_top3_hits_total 1\n", "ponderosa_ponder_predictions_total 1\n",
		`ponderosa_tree_kept_fraction_bucket{le="0.5"} 1`,
		"ponderosa_tree_memory_bytes 1000\n", "ponderosa_hash_memory_bytes 1048576\n",
		`ponderosa_challenges_declined_total{reason="variant"} 1`,
		"ponderosa_challenges_accepted_total 1\n", "ponderosa_challenges_queued_total 1\n",
		"ponderosa_event_stream_reconnects_total 1\n",
		`ponderosa_lichess_rate_limited_total{endpoint="move"} 1`,
		`ponderosa_lichess_cooldown_seconds_total{endpoint="move"} 90`,
		`ponderosa_lichess_cooldown_refused_total{endpoint="bot/game/chat"} 1`,
		`ponderosa_build_info{version="v1.2.3"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	m.GameFinished(g, "win")
	b.Reset()
	if err := m.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{`ponderosa_games_finished_total{result="win",speed="blitz"} 1`, "ponderosa_games_running 0\n", "ponderosa_tree_memory_bytes 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("scrape after the end lacks %q", want)
		}
	}
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "ponderosa_") {
			t.Errorf("sample not named ponderosa_*: %q", line)
		}
	}
}

type fakeBot struct{ games []string }

func (f fakeBot) Games() []string                    { return f.games }
func (f fakeBot) BotGamesToday() (played, limit int) { return 30, 100 }

// With a bot, games running and the bot games of the day are read from it
// when scraped.
func TestMetricsReadTheBot(t *testing.T) {
	m := NewMetrics("test")
	m.SetBot(fakeBot{games: []string{"a", "b"}})
	m.MovePlayed(client.GameFacts{ID: "gone"}, client.Choice{Engine: &client.EngineFacts{TreeBytes: 500}})
	var b bytes.Buffer
	if err := m.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ponderosa_games_running 2\n", "ponderosa_bot_games_last_24h 30\n", "ponderosa_bot_games_left 70\n",
		"ponderosa_tree_memory_bytes 0\n"} { // "gone" is not played any more
		if !strings.Contains(b.String(), want) {
			t.Errorf("scrape lacks %q:\n%s", want, b.String())
		}
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{"": "unknown", "blitz": "blitz", `a"b\c` + "\n": "a_b_c_", "bot/game/chat": "bot/game/chat"} {
		if got := labelValue(in); got != want {
			t.Errorf("labelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// promtoolCheck runs `promtool check metrics` on text; the test is skipped
// when promtool is not installed (Debian package prometheus).
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	if !testsupport.PromtoolCheck(t, text) {
		t.Skip("promtool not installed (Debian: prometheus)")
	}
	if t.Failed() {
		t.FailNow()
	}
}

// The scrape passes promtool's checks (format and lint), with every kind
// of series present.
func TestMetricsPromtool(t *testing.T) {
	m := NewMetrics("v0.0.0-test")
	m.SetBot(fakeBot{games: []string{"g1"}})
	m.SetStreamSilence(func() time.Duration { return 3 * time.Second })
	g := client.GameFacts{ID: "g1", Speed: "bullet"}
	m.GameStarted(g)
	m.MovePlayed(g, client.Choice{Source: "ponder", Duration: time.Second, Engine: &client.EngineFacts{Rerooted: true, KeptFraction: 0.7}})
	m.GameFinished(g, "draw")
	m.ChallengeAnswered(client.ChallengeDeclined, "tooFast")
	m.ChallengeAnswered(client.ChallengeAccepted, "")
	m.RateLimited("challenge/create", time.Minute)
	m.CooldownRefused("challenge/create")
	m.StreamReconnect()
	var b bytes.Buffer
	if err := m.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	promtoolCheck(t, b.String())
}

// A move heard after its game's end (a post cut short by the end) does not
// bring the game's memory back.
func TestMetricsMoveAfterEnd(t *testing.T) {
	m := NewMetrics("test")
	g := client.GameFacts{ID: "g1", Speed: "blitz"}
	move := client.Choice{Engine: &client.EngineFacts{TreeBytes: 500, HashBytes: 64}}
	m.GameStarted(g)
	m.MovePlayed(g, move)
	if tree, hash := m.memory(); tree != 500 || hash != 64 {
		t.Fatalf("memory during the game %d/%d, want 500/64", tree, hash)
	}
	m.GameFinished(g, "win")
	m.MovePlayed(g, move)
	if tree, hash := m.memory(); tree != 0 || hash != 0 {
		t.Errorf("memory after the end %d/%d, want 0/0", tree, hash)
	}
}

// The Lichess tablebase's moves (online-tablebase) and the local tables'
// (tablebase) are counted under labels of their own: the sources are named
// as the online player (online.Tablebase.Name) and the built-in player
// (ponder.FromTablebase) name them.
func TestMetricsTablebaseSources(t *testing.T) {
	m := NewMetrics("v1")
	g := client.GameFacts{ID: "g1", Speed: "blitz", Variant: "standard"}
	m.GameStarted(g)
	onlineTB, localTB := (&online.Tablebase{}).Name(), ponder.FromTablebase.String()
	m.MovePlayed(g, client.Choice{Move: "e2e4", Source: onlineTB})
	m.MovePlayed(g, client.Choice{Move: "e7e5", Source: localTB})
	m.MovePlayed(g, client.Choice{Move: "d2d4", Source: localTB})
	var b bytes.Buffer
	if err := m.WritePrometheus(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`ponderosa_moves_by_source_total{source="online-tablebase"} 1`, `ponderosa_moves_by_source_total{source="tablebase"} 2`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("scrape lacks %s:\n%s", want, b.String())
		}
	}
}
