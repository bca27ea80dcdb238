package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// The codes are those of sysexits(3), which service managers and the
// systemd units (RestartPreventExitStatus=64 77 78) know.
func TestExitCodeValues(t *testing.T) {
	for name, c := range map[string][2]int{
		"ok": {exitOK, 0}, "failure": {exitFailure, 1}, "EX_USAGE": {exitUsage, 64}, "EX_UNAVAILABLE": {exitUnavailable, 69},
		"EX_TEMPFAIL": {exitTempFail, 75}, "EX_CANTCREAT": {exitCantCreat, 73}, "EX_NOPERM": {exitNoPerm, 77}, "EX_CONFIG": {exitConfig, 78},
	} {
		if c[0] != c[1] {
			t.Errorf("%s is %d, want %d", name, c[0], c[1])
		}
	}
}

// exitCode maps each kind of error, however wrapped, to its code.
func TestExitCodeOfErrors(t *testing.T) {
	refused := &lichess.APIError{Op: "get account", StatusCode: http.StatusUnauthorized, LichessToken: true, Refused: true}
	for _, tc := range []struct {
		name string
		err  error
		code int
	}{
		{"nil", nil, exitOK},
		{"other", errors.New("boom"), exitFailure},
		{"config file", fmt.Errorf("%w x.yaml:\n%w", errConfig, errors.New("line 3: bad")), exitConfig},
		{"config-marked, text kept", configError{errors.New("token: no token")}, exitConfig},
		{"401", fmt.Errorf("check token: %w", refused), exitNoPerm},
		{"403 at the token check", fmt.Errorf("check token: %w (%w)", lichess.ErrTokenRefused, &lichess.APIError{StatusCode: 403}), exitNoPerm},
		{"missing scope", fmt.Errorf("check token: the token %w", lichess.ErrMissingScope), exitNoPerm},
		{"not a bot", fmt.Errorf("account x %w", lichess.ErrNotBot), exitNoPerm},
		{"unreachable", fmt.Errorf("%w: not connected", errUnavailable), exitUnavailable},
		{"state directory", kindError{err: errors.New("state directory /x: cannot write in it"), kind: errCantCreate}, exitCantCreat},
		{"temporary", fmt.Errorf("%w: rate limited", errTempFail), exitTempFail},
		{"5xx classified", classifyLichess(&lichess.APIError{StatusCode: 502}), exitUnavailable},
		{"no answer classified", classifyLichess(fmt.Errorf("get account: %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED})), exitUnavailable},
		{"429 classified", classifyLichess(&lichess.APIError{StatusCode: 429}), exitTempFail},
		{"401 classified stays refused", classifyLichess(refused), exitNoPerm},
		{"401 from another server", fmt.Errorf("opening explorer: %w", &lichess.APIError{StatusCode: http.StatusUnauthorized}), exitFailure},
		{"401 the account did not confirm", &lichess.APIError{StatusCode: http.StatusUnauthorized, LichessToken: true}, exitFailure},
		{"404 classified is no trouble", classifyLichess(&lichess.APIError{StatusCode: 404}), exitFailure},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.code)
		}
	}
	if got := classifyLichess(&lichess.APIError{Op: "get account", StatusCode: 502}).Error(); got != "get account: HTTP 502: Bad Gateway" {
		t.Errorf("classifyLichess changed the text: %q", got)
	}
}

// One test per exit code of `ponderosa run`, through the daemon against
// lichesstest: what it returns, mapped by exitCode (the command's exit
// code; runCmd returns exitCode(runDaemon(...))).
func TestRunExitCodes(t *testing.T) {
	token := map[string]string{"LICHESS_BOT_TOKEN": runBotToken}
	daemon := func(r *runEnv, env map[string]string, window time.Duration) error {
		return runDaemon(context.Background(), daemonOpts{configPath: r.cfgPath, getenv: func(k string) string { return env[k] },
			logOut: r.logs, signals: r.sigs, startWindow: window})
	}
	t.Run("64 usage", func(t *testing.T) {
		if code, _, stderr := runWith(t, nil, "run", "-bogus"); code != 64 || !strings.Contains(stderr, "usage: ponderosa run") {
			t.Errorf("code %d, stderr %q", code, stderr)
		}
	})
	t.Run("78 configuration", func(t *testing.T) {
		r := newRunEnv(t, true)
		for name, env := range map[string]map[string]string{"no token": {}, "bad token": {"LICHESS_BOT_TOKEN": "two words"}} {
			if err := daemon(r, env, 0); exitCode(err) != 78 {
				t.Errorf("%s: exit code %d for %v", name, exitCode(err), err)
			}
		}
		if code, _, _ := runWith(t, token, "run", "-config", writeConfig(t, "log: {level: loud}\n")); code != 78 {
			t.Errorf("bad file: code %d", code)
		}
	})
	t.Run("77 token refused, no scope, not a bot", func(t *testing.T) {
		r := newRunEnv(t, true)
		if code, _, stderr := runWith(t, map[string]string{"LICHESS_BOT_TOKEN": "lip_wrong"}, "run", "-config", r.cfgPath); code != 77 || !strings.Contains(stderr, "refused the token") {
			t.Errorf("unknown token: code %d, stderr %q", code, stderr)
		}
		r.srv.SetScopes(runBot, "board:play")
		if err := daemon(r, token, 0); exitCode(err) != 77 {
			t.Errorf("no bot:play: exit code %d for %v", exitCode(err), err)
		}
		// The account's answer without X-OAuth-Scopes, and the token test
		// not knowing the token: refused at once, not retried as if
		// Lichess were unreachable until the start window ends.
		r.srv.SetScopes(runBot, "bot:play")
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/api/token/test" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"` + runBotToken + `":null}`))
				return
			}
			rec := httptest.NewRecorder()
			r.srv.Handler().ServeHTTP(rec, req)
			for k, v := range rec.Header() {
				if k != "X-Oauth-Scopes" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}))
		defer proxy.Close()
		p := newRunEnv(t, true)
		p.cfgPath = writeConfig(t, runConfig(t, proxy.URL, ""))
		if err := daemon(p, token, time.Minute); exitCode(err) != 77 || !strings.Contains(err.Error(), "does not know it") {
			t.Errorf("token unknown to the token test: exit code %d for %v", exitCode(err), err)
		}
		h := newRunEnv(t, false)
		h.srv.SetScopes(runBot, "bot:play")
		if err := daemon(h, token, 0); exitCode(err) != 77 || !strings.Contains(err.Error(), "not a Bot account") {
			t.Errorf("not a bot: exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("73 state directory cannot be made", func(t *testing.T) {
		// A full disk or a read-only file system may mend: 73, which the
		// units restart, not 78. Here a file stands where the directory
		// should be.
		r := newRunEnv(t, true)
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r.cfgPath = writeConfig(t, strings.Replace(runConfig(t, r.srv.URL(), ""), "state_dir: state\n", "state_dir: "+filepath.Join(file, "state")+"\n", 1))
		if err := daemon(r, token, 0); exitCode(err) != 73 || !strings.Contains(err.Error(), "cannot create it") {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("69 Lichess unreachable at start-up", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.srv.Close() // nothing listens there now
		err := daemon(r, token, 300*time.Millisecond)
		if exitCode(err) != 69 || !strings.Contains(err.Error(), "not connected within 300ms") {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
		if !strings.Contains(r.logs.String(), "cannot connect to Lichess: giving up") {
			t.Errorf("logs:\n%s", r.logs)
		}
	})
	t.Run("69 Lichess hung at start-up", func(t *testing.T) {
		// Lichess accepts the connection and never answers. The start
		// window is one deadline from the daemon's start: the token check
		// counts against it, so the daemon gives up at the window, not
		// after the token check's request time-out (30 s here) plus the
		// window, which under systemd would outlast TimeoutStartSec.
		hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		defer hung.Close()
		r := newRunEnv(t, true)
		r.cfgPath = writeConfig(t, strings.Replace(runConfig(t, hung.URL, ""), "base_url: "+hung.URL+"\n", "base_url: "+hung.URL+"\n  request_timeout: 30s\n", 1))
		start := time.Now()
		err := daemon(r, token, 300*time.Millisecond)
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("gave up after %v, want about the 300ms window", took)
		}
		// The time-out of the token check is recorded as what failed.
		if exitCode(err) != 69 || !strings.Contains(err.Error(), "not connected within 300ms (last: GET /api/account: ") {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("69 Lichess failing (5xx) at start-up", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.srv.InjectError("GET /api/account", 1000, http.StatusBadGateway)
		// The window must outlast one answer even on a loaded machine:
		// the error names the last answer, so none must be cut short.
		if err := daemon(r, token, 2*time.Second); exitCode(err) != 69 || !strings.Contains(err.Error(), "HTTP 502") {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("75 rate limited at start-up", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.srv.Inject429("GET /api/account", 1000, time.Minute)
		if err := daemon(r, token, 2*time.Second); exitCode(err) != 75 || !strings.Contains(err.Error(), "rate limited") {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("1 other failure", func(t *testing.T) {
		// A 404 to the account: not Lichess's API there, nothing to wait for.
		r := newRunEnv(t, true)
		r.srv.InjectError("GET /api/account", 1000, http.StatusNotFound)
		if err := daemon(r, token, 0); exitCode(err) != 1 {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
	t.Run("0 clean stop", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.start(nil)
		r.sigs <- syscall.SIGTERM
		if err := r.wait(); exitCode(err) != 0 {
			t.Errorf("exit code %d for %v", exitCode(err), err)
		}
	})
}

// A token revoked while the daemon runs ends it with 77, promptly, not
// with endless reconnects: whether the bot notices on its next request in
// a game (its move gets 401) or when its event stream reconnects.
func TestRunTokenRevokedMidRun(t *testing.T) {
	t.Run("during a game", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.start(nil)
		id := r.challenge("alice")
		r.waitPlies(id, 2)
		r.srv.RevokeToken(runBotToken)
		err := r.wait()
		if exitCode(err) != 77 || !errors.Is(err, lichess.ErrTokenRefused) || strings.Contains(err.Error(), runBotToken) {
			t.Fatalf("exit code %d for %v", exitCode(err), err)
		}
		if logs := r.logs.String(); !strings.Contains(logs, "games in progress cannot be played without it") || !strings.Contains(logs, id) {
			t.Errorf("no log naming the game left:\n%s", logs)
		}
		if n := len(r.srv.RequestsMatching("GET /api/stream/event")); n != 1 {
			t.Errorf("event stream opened %d times, want once", n)
		}
	})
	t.Run("event stream reconnect", func(t *testing.T) {
		r := newRunEnv(t, true)
		r.start(nil)
		r.srv.RevokeToken(runBotToken)
		r.srv.DropEventStream(runBot)
		err := r.wait()
		if exitCode(err) != 77 {
			t.Fatalf("exit code %d for %v", exitCode(err), err)
		}
		// The first request after the drop (the list of games to rejoin,
		// or the stream itself) gets the 401: no reconnect after it.
		if n := len(r.srv.RequestsMatching("GET /api/stream/event")); n > 2 {
			t.Errorf("event stream asked %d times, want at most twice (open, then refused)", n)
		}
	})
}

// check-config -online asks lichesstest about the token: a good one is
// OK (0); one without bot:play, a revoked one (401) and a non-bot account
// are refused (77); Lichess unreachable is 69. No case says "config OK"
// and then fails.
func TestCheckConfigOnline(t *testing.T) {
	r := newRunEnv(t, true)
	r.srv.AddAccount("Human", "lip_human", false, 1500)
	r.srv.SetScopes("Human", "bot:play")
	r.srv.AddAccount("NoScope", "lip_noscope", true, 1500)
	r.srv.SetScopes("NoScope", "board:play", "challenge:read")
	r.srv.AddAccount("Revoked", "lip_revoked", true, 1500)
	r.srv.RevokeToken("lip_revoked")
	cfg := writeConfig(t, "lichess:\n  base_url: "+r.srv.URL()+"\n")
	closed := newRunEnv(t, true)
	closed.srv.Close()
	down := writeConfig(t, "lichess:\n  base_url: "+closed.srv.URL()+"\n  request_timeout: 2s\n")
	for _, tc := range []struct {
		name, token, cfg string
		code             int
		out              string
	}{
		{"good token", runBotToken, cfg, 0, "token accepted by " + r.srv.URL() + " for Bot account " + runBot + " (scopes "},
		{"no bot:play", "lip_noscope", cfg, 77, "NOT OK: Lichess at " + r.srv.URL() + ": the token lacks the bot:play scope"},
		{"revoked", "lip_revoked", cfg, 77, "the token is refused (revoked, expired or mistyped)"},
		{"not a bot", "lip_human", cfg, 77, "the account is not a Bot account"},
		{"unreachable", runBotToken, down, 69, "cannot reach Lichess"},
		{"no token", "", cfg, 78, "-online needs the token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			if tc.token != "" {
				env["LICHESS_BOT_TOKEN"] = tc.token
			}
			code, stdout, stderr := runWith(t, env, "check-config", "-online", "-config", tc.cfg)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.out) {
				t.Errorf("code %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.out, stdout, stderr)
			}
			if (code == 0) != strings.Contains(stdout, "config OK") {
				t.Errorf("code %d with stdout:\n%s", code, stdout)
			}
			if tc.token != "" && strings.Contains(stdout+stderr, tc.token) {
				t.Error("the token was shown")
			}
		})
	}
	// Without -online Lichess is not asked.
	before := len(r.srv.RequestsMatching("GET /api/account"))
	if code, _, _ := runWith(t, map[string]string{"LICHESS_BOT_TOKEN": "lip_revoked"}, "check-config", "-config", cfg); code != 0 {
		t.Errorf("offline check of a revoked token: code %d", code)
	}
	if n := len(r.srv.RequestsMatching("GET /api/account")); n != before {
		t.Errorf("offline check asked Lichess %d times", n-before)
	}
}

// The units do not restart on the codes a restart cannot mend (64, 77, 78),
// and do restart on the transient ones (69, 73, 75, 1).
func TestUnitsRestartPrevent(t *testing.T) {
	for _, unit := range []string{"ponderosa.service", "ponderosa@.service"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", unit))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "RestartPreventExitStatus="); ok {
				got = append(got, v)
			}
		}
		want := fmt.Sprintf("%d %d %d", exitUsage, exitNoPerm, exitConfig)
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: RestartPreventExitStatus=%q, want %q (not %d, %d, %d)", unit, got, want, exitUnavailable, exitCantCreat, exitTempFail)
		}
	}
}
