package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The run tests start the daemon in-process against lichesstest. The engine
// is "external": this test binary run as a tiny UCI engine (TestMain, the
// legal mode of testsupport's fake engine) that plays the first legal move
// at once, so games go as fast as the house player moves. The built-in
// engine plays in TestDemo.

func TestMain(m *testing.M) {
	runKillDaemonIfAsked() // the daemon of TestDaemonSIGKILLLosesNoFinishedGame
	testsupport.Main(m, nil)
}

const (
	runBot      = "Ponderosa"
	runBotToken = "lip_runSecretToken"
)

type runEnv struct {
	t       *testing.T
	srv     *lichesstest.Server
	cfgPath string
	logs    *testsupport.SyncBuffer
	logOut  io.Writer // the daemon's stderr when set (logs otherwise)
	sigs    chan os.Signal
	reloads chan error
	ctx     context.Context // bounds the test's waits
	cancel  context.CancelFunc
	done    chan error
	bot     *client.Bot
	// httpAddr receives the HTTP server's address (http.listen) when set.
	httpAddr chan net.Addr
}

// runConfig is a configuration for the test server; extra is appended.
// The state directory is "state" beside the file (made by the daemon),
// with the PGNs in its folder "games".
func runConfig(t *testing.T, url, extra string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`state_dir: state
lichess:
  base_url: %s
engine:
  type: external
  external:
    path: %s
game:
  greeting: {player: ""}
  goodbye: {player: ""}
  pgn_dir: games
log:
  level: debug
  format: json
%s`, url, exe, extra)
}

func newRunEnv(t *testing.T, bot bool) *runEnv {
	t.Helper()
	testsupport.NewFakeEngine(t, "legal").Setenv(t) // for the engine processes (children)
	srv := lichesstest.NewStarted(lichesstest.WithKeepAlive(50*time.Millisecond), lichesstest.WithChallengeTTL(0))
	t.Cleanup(srv.Close)
	srv.AddAccount(runBot, runBotToken, bot, 2000)
	for _, h := range []string{"alice", "bob"} {
		srv.AddAccount(h, "tok-"+h, false, 1800)
		if err := srv.SetHousePlayer(h, lichesstest.HouseOptions{ThinkTime: 20 * time.Millisecond, Strategy: lichesstest.HouseRandom}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testsupport.Context(t)
	return &runEnv{t: t, srv: srv, cfgPath: writeConfig(t, runConfig(t, srv.URL(), "")), logs: &testsupport.SyncBuffer{},
		sigs: make(chan os.Signal, 4), reloads: make(chan error, 4), ctx: ctx}
}

// start runs the daemon and waits until it is ready.
func (r *runEnv) start(getenv map[string]string) {
	r.t.Helper()
	if getenv == nil {
		getenv = map[string]string{"LICHESS_BOT_TOKEN": runBotToken}
	}
	dctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done = make(chan error, 1)
	ready := make(chan *client.Bot, 1)
	go func() {
		r.done <- runDaemon(dctx, daemonOpts{
			configPath: r.cfgPath,
			getenv:     func(k string) string { return getenv[k] },
			logOut:     r.logOutput(),
			signals:    r.sigs,
			onReady:    func(b *client.Bot) { ready <- b },
			onReload:   func(err error) { r.reloads <- err },
			onHTTP: func(a net.Addr) {
				if r.httpAddr != nil {
					r.httpAddr <- a
				}
			},
		})
	}()
	r.t.Cleanup(func() {
		cancel()
		select {
		case r.sigs <- syscall.SIGTERM:
		default:
		}
	})
	select {
	case r.bot = <-ready:
	case err := <-r.done:
		r.t.Fatalf("daemon stopped at start: %v\nlogs:\n%s", err, r.logs)
	case <-r.ctx.Done():
		r.t.Fatalf("daemon not ready\nlogs:\n%s", r.logs)
	}
}

func (r *runEnv) logOutput() io.Writer {
	if r.logOut != nil {
		return r.logOut
	}
	return r.logs
}

func (r *runEnv) wait() error {
	r.t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-r.ctx.Done():
		r.t.Fatalf("daemon did not stop\nlogs:\n%s", r.logs)
		return nil
	}
}

func (r *runEnv) waitPlies(id string, n int) lichesstest.GameSnapshot {
	r.t.Helper()
	if err := r.srv.WaitFor(r.ctx, func() bool { g, _ := r.srv.Game(id); return len(g.Moves) >= n || g.Finished }); err != nil {
		r.t.Fatalf("game %s: %v\nlogs:\n%s", id, err, r.logs)
	}
	g, _ := r.srv.Game(id)
	return g
}

func (r *runEnv) waitLog(s string) {
	r.t.Helper()
	for !strings.Contains(r.logs.String(), s) {
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("log never said %q:\n%s", s, r.logs)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (r *runEnv) challenge(from string) string {
	r.t.Helper()
	id, err := r.srv.Challenge(from, runBot, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute, ClockIncrement: 3 * time.Second, Color: "random"})
	if err != nil {
		r.t.Fatal(err)
	}
	return id
}

// The whole life of the daemon: a game, a bad and a good reload during
// it, a stop that drains (declining new challenges) and ends when the game
// ends.
func TestRunDaemonPlaysReloadsAndDrains(t *testing.T) {
	r := newRunEnv(t, true)
	r.start(nil)
	id := r.challenge("alice")
	r.waitPlies(id, 4)

	// A broken file is refused and the old configuration stays.
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(), "challenge:\n  concurency: 2\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sigs <- syscall.SIGHUP
	if err := <-r.reloads; err == nil || !strings.Contains(err.Error(), "concurency") {
		t.Fatalf("bad reload: %v", err)
	}
	if got := r.bot.Settings().Challenge.MaxGames; got != 1 {
		t.Errorf("after a failed reload MaxGames = %d, want 1", got)
	}
	// A good one applies to new games; the running game goes on.
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(), "challenge:\n  concurrency: 2\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sigs <- syscall.SIGHUP
	if err := <-r.reloads; err != nil {
		t.Fatalf("reload: %v", err)
	}
	if got := r.bot.Settings().Challenge.MaxGames; got != 2 {
		t.Errorf("after reload MaxGames = %d, want 2", got)
	}
	g := r.waitPlies(id, 4)
	r.waitPlies(id, len(g.Moves)+2)
	if g, _ := r.srv.Game(id); g.Finished {
		t.Fatalf("game ended during the reload: %s", g.Status)
	}

	// Stop (as SIGTERM): no new game, the running one goes on.
	r.cancel()
	r.waitLog("stopping: no new games")
	late := r.challenge("bob")
	if err := r.srv.WaitFor(r.ctx, func() bool { st, _ := r.srv.ChallengeStatus(late); return st == "declined" }); err != nil {
		t.Fatalf("challenge during the drain: %v", err)
	}
	if _, reason := r.srv.ChallengeStatus(late); reason != lichess.DeclineLater {
		t.Errorf("declined with %q, want %q", reason, lichess.DeclineLater)
	}
	g = r.waitPlies(id, 0)
	r.waitPlies(id, len(g.Moves)+2)
	select {
	case err := <-r.done:
		t.Fatalf("daemon stopped with a game running: %v", err)
	default:
	}
	// The game ends: the daemon exits cleanly.
	if err := r.srv.Resign(id, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := r.wait(); err != nil {
		t.Fatalf("runDaemon: %v", err)
	}
	g, _ = r.srv.Game(id)
	if g.Status != "resign" {
		t.Errorf("game status %q", g.Status)
	}
	logs := r.logs.String()
	for _, want := range []string{"configuration NOT reloaded", "configuration reloaded", "all games finished", "ponderosa stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q", want)
		}
	}
	if strings.Contains(logs, runBotToken) {
		t.Error("the token is in the logs")
	}
	if n := r.srv.Stats().IllegalMoves; n != 0 {
		t.Errorf("%d moves refused", n)
	}
	// The daemon made the state directory beside the config (state_dir:
	// state), closed to others, and saved the game's PGN in its folder
	// games (pgn_dir: games).
	stateDir := filepath.Join(filepath.Dir(r.cfgPath), "state")
	if fi, err := os.Stat(stateDir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o027 != 0 {
		t.Errorf("state directory %s: %v, %v", stateDir, fi, err)
	}
	if pgn, err := os.ReadFile(filepath.Join(stateDir, "games", id+".pgn")); err != nil || !strings.Contains(string(pgn), `[Result "`) {
		t.Errorf("game record: %v\n%s", err, pgn)
	}
	if !strings.Contains(logs, stateDir) {
		t.Errorf("the start log does not name the state directory %s", stateDir)
	}
}

// A second stop signal ends at once; the running game is left on Lichess,
// not resigned, and the log says so.
func TestRunDaemonSecondSignal(t *testing.T) {
	r := newRunEnv(t, true)
	r.start(nil)
	id := r.challenge("alice")
	r.waitPlies(id, 2)
	r.sigs <- syscall.SIGTERM
	r.waitLog("stopping: no new games")
	r.sigs <- syscall.SIGINT
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	if g, _ := r.srv.Game(id); g.Finished {
		t.Errorf("game ended (%s); it should be left running", g.Status)
	}
	if !strings.Contains(r.logs.String(), "second stop signal") || !strings.Contains(r.logs.String(), id) {
		t.Errorf("no log of the games left:\n%s", r.logs)
	}
}

// When the grace period is over, games still running are resigned (or
// aborted), each logged.
func TestRunDaemonGraceOver(t *testing.T) {
	r := newRunEnv(t, true)
	r.cfgPath = writeConfig(t, runConfig(t, r.srv.URL(), "shutdown:\n  grace_period: 0s\n"))
	r.start(nil)
	id := r.challenge("alice")
	r.waitPlies(id, 4)
	r.sigs <- syscall.SIGTERM
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	g, _ := r.srv.Game(id)
	if !g.Finished || g.Status != "resign" || g.Winner == "" {
		t.Errorf("game after the grace period: finished %v, status %q, winner %q", g.Finished, g.Status, g.Winner)
	}
	if logs := r.logs.String(); !strings.Contains(logs, "grace period over: aborting or resigning") || !strings.Contains(logs, "game resigned at shutdown") {
		t.Errorf("no log of the resignation:\n%s", r.logs)
	}
}

func TestRunDaemonStartErrors(t *testing.T) {
	tests := []struct {
		name   string
		bot    bool
		scopes []string
		env    map[string]string
		want   string
	}{
		{name: "no token", bot: true, env: map[string]string{}, want: "no Lichess token"},
		{name: "unknown token", bot: true, env: map[string]string{"LICHESS_BOT_TOKEN": "lip_wrong"}, want: "refused the token"},
		{name: "no bot:play scope", bot: true, scopes: []string{"board:play"}, want: "lacks the bot:play scope"},
		{name: "not a bot", bot: false, scopes: []string{"bot:play"}, want: "ponderosa upgrade -confirm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunEnv(t, tt.bot)
			if tt.scopes != nil {
				r.srv.SetScopes(runBot, tt.scopes...)
			}
			env := tt.env
			if env == nil {
				env = map[string]string{"LICHESS_BOT_TOKEN": runBotToken}
			}
			err := runDaemon(context.Background(), daemonOpts{configPath: r.cfgPath, getenv: func(k string) string { return env[k] },
				logOut: r.logs, signals: r.sigs})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if strings.Contains(err.Error()+r.logs.String(), runBotToken) {
				t.Error("the token was shown")
			}
		})
	}
}

// A state directory that cannot be made stops the daemon at start, with
// an error naming it. ("state" is a link to a path below a file: the
// configuration check sees nothing there, creating it fails.)
func TestRunDaemonStateDirError(t *testing.T) {
	r := newRunEnv(t, true)
	dir := filepath.Dir(r.cfgPath)
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "file", "sub"), filepath.Join(dir, "state")); err != nil {
		t.Fatal(err)
	}
	err := runDaemon(context.Background(), daemonOpts{configPath: r.cfgPath, logOut: r.logs, signals: r.sigs,
		getenv: func(k string) string { return map[string]string{"LICHESS_BOT_TOKEN": runBotToken}[k] }})
	if want := "state directory " + filepath.Join(dir, "state") + ": cannot create it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one saying %q", err, want)
	}
}

func TestRunCommandErrors(t *testing.T) {
	bad := writeConfig(t, "challenge:\n  concurrency: 0\n  incremnt: 3\n")
	code, _, stderr := runWith(t, nil, "run", "-config", bad)
	if code != exitConfig || !strings.Contains(stderr, `line 3: unknown key "incremnt"`) || !strings.Contains(stderr, "challenge.concurrency") {
		t.Errorf("malformed config: code %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runWith(t, nil, "run", "-config", bad+".missing")
	if code != exitConfig || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing config: code %d, stderr:\n%s", code, stderr)
	}
	if code, _, _ := runWith(t, nil, "run", "stray"); code != exitUsage {
		t.Errorf("stray argument: code %d", code)
	}
}

// Under systemd: READY=1 once the event stream is open, STOPPING=1 when a
// stop begins.
func TestRunDaemonNotifiesSystemd(t *testing.T) {
	conn := notifySocket(t)
	r := newRunEnv(t, true)
	r.start(nil)
	if got := receive(t, conn); got != "READY=1\nSTATUS=connected as "+runBot {
		t.Errorf("first notification %q", got)
	}
	r.sigs <- syscall.SIGTERM
	if got := receive(t, conn); !strings.HasPrefix(got, "STOPPING=1\nSTATUS=stopping") {
		t.Errorf("on SIGTERM %q", got)
	}
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
}

// Lichess unreachable at start (a 502 from a proxy): the daemon does not
// give up; it is ready once Lichess answers.
func TestRunDaemonLichessDownAtStart(t *testing.T) {
	r := newRunEnv(t, true)
	r.srv.InjectError("GET /api/account", 2, 502)
	r.start(nil)
	if !strings.Contains(r.logs.String(), "cannot check the token now") {
		t.Errorf("no warning about the failed check:\n%s", r.logs)
	}
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
}

// A stop while Lichess is still unreachable ends at once.
func TestRunDaemonStopBeforeConnecting(t *testing.T) {
	r := newRunEnv(t, true)
	r.srv.InjectError("GET /api/account", 1000, 503)
	done := make(chan error, 1)
	go func() {
		done <- runDaemon(context.Background(), daemonOpts{configPath: r.cfgPath, logOut: r.logs, signals: r.sigs,
			getenv: func(k string) string { return map[string]string{"LICHESS_BOT_TOKEN": runBotToken}[k] }})
	}()
	r.waitLog("cannot check the token now")
	r.sigs <- syscall.SIGHUP
	r.sigs <- syscall.SIGTERM
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-r.ctx.Done():
		t.Fatalf("no stop before connecting:\n%s", r.logs)
	}
	if !strings.Contains(r.logs.String(), "stopping before connecting") {
		t.Errorf("logs:\n%s", r.logs)
	}
}
