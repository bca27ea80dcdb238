package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

const runHTTPToken = "http-Access-0123456789abcdef"

// scrape GETs path from the daemon's HTTP server with the access token
// (token "" sends none).
func scrape(t *testing.T, addr net.Addr, path, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr.String()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// getOK GETs url and returns its body; any answer but 200 fails t.
func getOK(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

var movesTotalRE = regexp.MustCompile(`(?m)^ponderosa_moves_total (\d+)$`)

func movesTotal(t *testing.T, body string) int {
	t.Helper()
	m := movesTotalRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no ponderosa_moves_total in:\n%s", body)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// With http.listen the daemon serves /metrics and /healthz while it
// plays: two scrapes during a game see the move counter grow; the access
// token is asked; neither the Lichess token nor the access token is in
// any answer or in the log.
func TestRunServesMetricsDuringGame(t *testing.T) {
	r := newRunEnv(t, true)
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(),
		"http:\n  listen: \"127.0.0.1:0\"\n  access_token: \""+runHTTPToken+"\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.httpAddr = make(chan net.Addr, 1)
	r.start(nil)
	addr := <-r.httpAddr
	id := r.challenge("alice")
	g := r.waitPlies(id, 4)

	code, first := scrape(t, addr, "/metrics", runHTTPToken)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, first)
	}
	before := movesTotal(t, first)
	r.waitPlies(id, len(g.Moves)+4)
	_, second := scrape(t, addr, "/metrics", runHTTPToken)
	after := movesTotal(t, second)
	if before < 1 || after <= before {
		t.Errorf("ponderosa_moves_total %d then %d: want it to grow during the game", before, after)
	}
	for _, want := range []string{"ponderosa_games_running 1\n", "ponderosa_challenges_accepted_total 1\n", "ponderosa_bot_games_left "} {
		if !strings.Contains(second, want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	code, health := scrape(t, addr, "/healthz", runHTTPToken)
	if code != http.StatusOK || !strings.Contains(health, `"status":"ok"`) {
		t.Errorf("/healthz during a game: %d %s", code, health)
	}
	var bodies []string
	for _, path := range []string{"/metrics", "/healthz", "/", "/metrics?access_token=nope"} {
		code, body := scrape(t, addr, path, "")
		if code != http.StatusUnauthorized {
			t.Errorf("%s without the access token: %d, want 401", path, code)
		}
		bodies = append(bodies, body)
	}
	if code, _ := scrape(t, addr, "/metrics?access_token="+runHTTPToken, ""); code != http.StatusOK {
		t.Errorf("/metrics?access_token=: %d, want 200", code)
	}
	// The live view: the page with the token, its running game in the
	// API; its static files (no data) without it, as a browser loads them.
	code, page := scrape(t, addr, "/?access_token="+runHTTPToken, "")
	if code != http.StatusOK || !strings.Contains(page, "<html") {
		t.Errorf("/ with the token: %d %.200s", code, page)
	}
	code, list := scrape(t, addr, "/api/games", runHTTPToken)
	if code != http.StatusOK || !strings.Contains(list, id) {
		t.Errorf("/api/games during game %s: %d %.300s", id, code, list)
	}
	if code, js := scrape(t, addr, "/assets/app.js", ""); code != http.StatusOK || !strings.Contains(js, "withToken") {
		t.Errorf("/assets/app.js without the token: %d, want 200 and the script", code)
	}
	if code, _ := scrape(t, addr, "/api/games", ""); code != http.StatusUnauthorized {
		t.Errorf("/api/games without the token: %d, want 401", code)
	}
	bodies = append(bodies, page, list)
	for _, b := range append(bodies, first, second, health) {
		if strings.Contains(b, runBotToken) || strings.Contains(b, runHTTPToken) {
			t.Fatalf("an answer holds a token:\n%s", b)
		}
	}
	if logs := r.logs.String(); strings.Contains(logs, runHTTPToken) || strings.Contains(logs, runBotToken) {
		t.Error("the log holds a token")
	}
	if !strings.Contains(r.logs.String(), "http: serving /healthz and /metrics") {
		t.Error("the log does not say where the server listens")
	}
	promtoolCheck(t, second)

	// The server stops with the daemon.
	if err := r.srv.Resign(id, "alice"); err != nil {
		t.Fatal(err)
	}
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatalf("runDaemon: %v", err)
	}
	if _, err := net.Dial("tcp", addr.String()); err == nil {
		t.Error("the HTTP server still answers after the daemon stopped")
	}
}

// A server reachable from other machines without an access token is
// warned about in the log at start.
func TestRunWarnsHTTPBeyondLoopback(t *testing.T) {
	r := newRunEnv(t, true)
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(), "http:\n  listen: \":0\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.httpAddr = make(chan net.Addr, 1)
	r.start(nil)
	<-r.httpAddr
	r.waitLog("ANYONE WHO CAN REACH IT")
}

// promtoolCheck runs `promtool check metrics` on text; skipped when
// promtool is not installed (Debian package prometheus).
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	if !testsupport.PromtoolCheck(t, text) {
		t.Log("promtool not installed (Debian: prometheus): metrics not linted")
	}
}

// A bind that fails (here: the port is held) is a temporary failure,
// exit 75, which systemd restarts: at boot an address may not be
// assigned yet, or a port still held.
func TestRunHTTPBindFailsTemporarily(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r := newRunEnv(t, true)
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(), "http:\n  listen: \""+held.Addr().String()+"\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runDaemon(context.Background(), daemonOpts{configPath: r.cfgPath, logOut: r.logs, signals: r.sigs,
		getenv: func(k string) string { return map[string]string{"LICHESS_BOT_TOKEN": runBotToken}[k] }})
	if err == nil || !strings.Contains(err.Error(), "http.listen") {
		t.Fatalf("error %v, want one naming http.listen", err)
	}
	if code := exitCode(err); code != exitTempFail {
		t.Errorf("exit code %d for %v, want %d (temporary failure)", code, err, exitTempFail)
	}
}
