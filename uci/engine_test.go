package uci

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

type fakeRun struct {
	*testsupport.FakeEngine
	cfg  ExternalConfig
	logs *testsupport.SyncBuffer
}

// fakeConfig returns an ExternalConfig that runs this test binary as a fake
// engine.
func fakeConfig(t *testing.T, mode string) *fakeRun {
	t.Helper()
	eng := testsupport.NewFakeEngine(t, mode)
	logs := &testsupport.SyncBuffer{}
	return &fakeRun{
		FakeEngine: eng,
		logs:       logs,
		cfg: ExternalConfig{
			Path:   eng.Path,
			Env:    eng.Env(),
			Logger: zerolog.New(logs).Level(zerolog.DebugLevel),
		},
	}
}

func (f *fakeRun) start(t *testing.T) *ExternalEngine {
	t.Helper()
	e, err := StartConfig(context.Background(), f.cfg)
	if err != nil {
		t.Fatalf("start fake engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// indexOf returns the position of the first line equal to want at or after
// from, or -1.
func indexOf(lines []string, want string, from int) int {
	for i := from; i < len(lines); i++ {
		if lines[i] == want {
			return i
		}
	}
	return -1
}

// assertInOrder checks that want appear in lines in this order.
func assertInOrder(t *testing.T, lines []string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := indexOf(lines, w, at)
		if i < 0 {
			t.Fatalf("engine did not receive %q (in order) among:\n%s", w, strings.Join(lines, "\n"))
		}
		at = i + 1
	}
}

func count(lines []string, want string) int {
	n := 0
	for _, l := range lines {
		if l == want {
			n++
		}
	}
	return n
}

// processGone checks that the process was reaped: Wait completed and the
// PID no longer exists (a zombie would still answer signal 0).
func processGone(t *testing.T, p *process) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("engine process %d not reaped", p.pid)
	}
	if p.cmd.ProcessState == nil {
		t.Fatalf("engine process %d: no ProcessState after reaping", p.pid)
	}
	if err := syscall.Kill(p.pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("engine process %d still exists after Close (kill 0: %v)", p.pid, err)
	}
}

func TestHandshakeAndOptions(t *testing.T) {
	f := fakeConfig(t, "normal")
	f.cfg.Options = map[string]string{
		"hash":        "32",   // case-insensitive name
		"Skill Level": " 5 ",  // name with a space, value trimmed
		"Clear Hash":  "",     // button
		"Ponder":      "TRUE", // check, canonicalised
		"style":       "risky",
		"SyzygyPath":  "/tmp/my tables",
	}
	e := f.start(t)
	if e.Name() != "Fake Engine 1.0" || e.Author() != "The Ponderosa Tests" {
		t.Errorf("id = %q by %q", e.Name(), e.Author())
	}
	if n := len(e.Options()); n != 7 {
		t.Errorf("got %d options, want 7: %+v", n, e.Options())
	}
	if err := e.NewGame(context.Background()); err != nil {
		t.Fatal(err)
	}
	cmds := f.Commands(t, false)
	if cmds[0] != "uci" {
		t.Errorf("first command %q, want uci", cmds[0])
	}
	// Options are sent sorted by the caller's names, with the engine's
	// spelling, before the first isready.
	assertInOrder(t, cmds,
		"uci",
		"setoption name Clear Hash",
		"setoption name Ponder value true",
		"setoption name Skill Level value 5",
		"setoption name SyzygyPath value /tmp/my tables",
		"setoption name Hash value 32",
		"setoption name Style value Risky",
		"isready",
		"ucinewgame",
		"isready")
}

func TestStartRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    map[string]string
		wantErr error
		wantMsg string
	}{
		{"unknown", map[string]string{"Contempt": "10"}, ErrUnknownOption, `"Contempt"`},
		{"spin out of range", map[string]string{"Threads": "64"}, ErrBadOptionValue, "[1, 8]"},
		{"spin not a number", map[string]string{"Hash": "lots"}, ErrBadOptionValue, "lots"},
		{"check not bool", map[string]string{"Ponder": "yes"}, ErrBadOptionValue, "true or false"},
		{"combo not a var", map[string]string{"Style": "Wild"}, ErrBadOptionValue, "Wild"},
		{"string with newline", map[string]string{"SyzygyPath": "a\nquit"}, ErrBadOptionValue, "line break"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeConfig(t, "normal")
			f.cfg.Options = tc.opts
			e, err := StartConfig(context.Background(), f.cfg)
			if err == nil {
				e.Close()
				t.Fatal("Start succeeded")
			}
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.wantErr, tc.wantMsg)
			}
			for _, c := range f.Commands(t, false) {
				if strings.HasPrefix(c, "setoption") {
					t.Errorf("sent %q despite the bad option", c)
				}
			}
		})
	}
}

func TestGoDepthAndNoLeakBetweenSearches(t *testing.T) {
	f := fakeConfig(t, "normal")
	e := f.start(t)
	ctx := context.Background()
	if err := e.Position("startpos", []string{"e2e4", "c7c5"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Go(ctx, GoLimits{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := ExternalResult{
		BestMove: "e2e4", PonderMove: "e7e5", Score: CP(30), Depth: 3, SelDepth: 5,
		Nodes: 3000, NPS: 100000, Time: 3 * time.Millisecond, PV: []string{"e2e4", "e7e5"},
	}
	if !equalResult(res, want) {
		t.Fatalf("result\n got %+v\nwant %+v", res, want)
	}
	// The fake prints "info depth 99 ... pv h2h4" after each bestmove; the
	// next search must not see it.
	res, err = e.Go(ctx, GoLimits{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "d2d4" || res.Depth != 2 || res.Score != CP(20) {
		t.Fatalf("second search got %+v, want d2d4 at depth 2 with cp 20", res)
	}
	assertInOrder(t, f.Commands(t, false),
		"position startpos moves e2e4 c7c5", "isready", "go depth 3",
		"position startpos moves e2e4 c7c5", "isready", "go depth 2")
}

func equalResult(a, b ExternalResult) bool {
	return a.BestMove == b.BestMove && a.PonderMove == b.PonderMove && a.Score == b.Score &&
		a.Depth == b.Depth && a.SelDepth == b.SelDepth && a.Nodes == b.Nodes && a.NPS == b.NPS &&
		a.Time == b.Time && strings.Join(a.PV, " ") == strings.Join(b.PV, " ") && a.Stopped == b.Stopped
}

func TestPosition(t *testing.T) {
	f := fakeConfig(t, "normal")
	e := f.start(t)
	for _, bad := range []struct {
		fen   string
		moves []string
	}{
		{"8/8/8 w", nil},
		{StartFEN + " extra", nil},
		{StartFEN + "\nquit", nil},
		{"", []string{"e2e4", "e7e9"}},
		{"", []string{"e2e4 e7e5"}},
	} {
		if err := e.Position(bad.fen, bad.moves); err == nil {
			t.Errorf("Position(%q, %q) accepted", bad.fen, bad.moves)
		}
	}
	if err := e.Position(StartFEN, []string{"g1f3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.NewGame(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); err != nil {
		t.Fatal(err)
	}
	// NewGame resets to the start position.
	assertInOrder(t, f.Commands(t, false), "position fen "+StartFEN+" moves g1f3", "go depth 1",
		"ucinewgame", "position startpos", "go depth 1")
}

func TestGoNoMoveAndBadMove(t *testing.T) {
	f := fakeConfig(t, "normal")
	e := f.start(t)
	if err := e.Position(testsupport.FoolsMateFEN, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); !errors.Is(err, ErrNoMove) {
		t.Fatalf("mated position: err = %v, want ErrNoMove", err)
	}
	// The engine is still usable.
	if err := e.Position("", nil); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Go(context.Background(), GoLimits{Depth: 1}); err != nil || res.BestMove != "d2d4" {
		t.Fatalf("after no-move: %+v, %v", res, err)
	}

	f2 := fakeConfig(t, "badmove")
	e2 := f2.start(t)
	if _, err := e2.Go(context.Background(), GoLimits{Depth: 1}); !errors.Is(err, ErrProtocol) {
		t.Fatalf("bestmove zz99: err = %v, want ErrProtocol", err)
	}
}

func TestGoDeadlineSendsStop(t *testing.T) {
	f := fakeConfig(t, "slow")
	e := f.start(t)
	res, err := e.Go(context.Background(), GoLimits{MoveTime: time.Hour, Deadline: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "e2e4" || !res.Stopped {
		t.Fatalf("got %+v, want e2e4 after a stop", res)
	}
	assertInOrder(t, f.Commands(t, false), "go movetime 3600000", "stop")
	if !e.Alive() {
		t.Fatal("engine died after a stop it answered")
	}
}

func TestGoContextCancelStops(t *testing.T) {
	f := fakeConfig(t, "slow")
	e := f.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the search is under way (begin records it just before
	// it sends "go"): a cancel that came during Go's isready, as a fixed
	// delay could on a loaded machine, would end Go before there is a
	// search to stop.
	go func() {
		defer cancel()
		for deadline := time.Now().Add(testsupport.WaitLimit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			e.mu.Lock()
			started := e.search != nil
			e.mu.Unlock()
			if started {
				return
			}
		}
	}()
	res, err := e.Go(ctx, GoLimits{Infinite: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.BestMove != "e2e4" {
		t.Fatalf("result after cancel %+v, want the engine's answer to stop", res)
	}
	assertInOrder(t, f.Commands(t, false), "go infinite", "stop")
	// The engine is free for the next search.
	if res, err := e.Go(context.Background(), GoLimits{Deadline: time.Millisecond}); err != nil || res.BestMove != "d2d4" {
		t.Fatalf("next search: %+v, %v", res, err)
	}
}

func TestHungEngineIsKilled(t *testing.T) {
	f := fakeConfig(t, "hang")
	f.cfg.Timeouts = Timeouts{StopGrace: 200 * time.Millisecond, Quit: 200 * time.Millisecond}
	e := f.start(t)
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	_, err := e.Go(context.Background(), GoLimits{Depth: 5, Deadline: 20 * time.Millisecond})
	if !errors.Is(err, ErrEngineUnresponsive) || !errors.Is(err, ErrEngineDied) {
		t.Fatalf("err = %v, want ErrEngineUnresponsive and ErrEngineDied", err)
	}
	processGone(t, p)
	if e.Alive() {
		t.Fatal("Alive after kill")
	}
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("Go on a dead engine: %v, want ErrEngineDied", err)
	}
	if err := e.NewGame(context.Background()); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("NewGame on a dead engine: %v, want ErrEngineDied", err)
	}
}

func TestCloseKillsEngineIgnoringQuit(t *testing.T) {
	f := fakeConfig(t, "hang")
	f.cfg.Timeouts = Timeouts{StopGrace: 5 * time.Second, Quit: 100 * time.Millisecond}
	e := f.start(t)
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	s, err := e.GoPonder(context.Background(), GoLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	processGone(t, p)
	if !p.killed.Load() {
		t.Error("engine ignoring quit was not killed")
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("search still pending after Close")
	}
	if _, err := s.Wait(context.Background()); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("pending search after Close: %v, want ErrEngineDied", err)
	}
	assertInOrder(t, f.Commands(t, false), "go ponder", "quit")
}

func TestCloseReaps(t *testing.T) {
	f := fakeConfig(t, "normal")
	f.cfg.Timeouts.Quit = 20 * time.Second // generous: a loaded machine must not make it kill
	e := f.start(t)
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	processGone(t, p)
	if p.killed.Load() {
		t.Error("a well-behaved engine was killed instead of quitting")
	}
	if p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit code %d", p.cmd.ProcessState.ExitCode())
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Go after Close: %v, want ErrClosed", err)
	}
	if err := e.Restart(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Restart after Close: %v, want ErrClosed", err)
	}
	assertInOrder(t, f.Commands(t, false), "quit")
	// Stderr went to the logger.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(f.logs.String(), "fake engine says hello on stderr") {
		if time.Now().After(deadline) {
			t.Fatalf("stderr not logged; log:\n%s", f.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLifetimeContextEndsEngine(t *testing.T) {
	f := fakeConfig(t, "normal")
	ctx, cancel := context.WithCancel(context.Background())
	e, err := StartConfig(ctx, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	cancel()
	processGone(t, p)
	if _, err := e.Go(context.Background(), GoLimits{Depth: 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Go after the lifetime ended: %v, want ErrClosed", err)
	}
}

func TestPonderHit(t *testing.T) {
	f := fakeConfig(t, "normal")
	e := f.start(t)
	ctx := context.Background()
	if err := e.Position("", []string{"e2e4", "e7e5"}); err != nil {
		t.Fatal(err)
	}
	s, err := e.GoPonder(ctx, GoLimits{WTime: time.Minute, BTime: time.Minute, Deadline: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Go(ctx, GoLimits{Depth: 1}); !errors.Is(err, ErrBusy) {
		t.Fatalf("Go while pondering: %v, want ErrBusy", err)
	}
	if err := e.NewGame(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("NewGame while pondering: %v, want ErrBusy", err)
	}
	if err := s.PonderHit(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "e2e4" || res.PonderMove != "e7e5" || res.Stopped {
		t.Fatalf("got %+v", res)
	}
	cmds := f.Commands(t, false)
	assertInOrder(t, cmds, "position startpos moves e2e4 e7e5", "isready", "go ponder wtime 60000 btime 60000", "ponderhit")
	if n := count(cmds, "stop"); n != 0 {
		t.Fatalf("sent stop %d times on a ponderhit search", n)
	}
	// A non-ponder search refuses PonderHit.
	s2, err := e.begin(ctx, GoLimits{Depth: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.PonderHit(); err == nil {
		t.Error("PonderHit on a normal search succeeded")
	}
	if _, err := s2.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPonderStopNoStrayBestmove(t *testing.T) {
	for _, mode := range []string{"normal", "slow"} {
		t.Run(mode, func(t *testing.T) {
			f := fakeConfig(t, mode)
			e := f.start(t)
			ctx := context.Background()
			s, err := e.GoPonder(ctx, GoLimits{WTime: time.Minute, BTime: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if res.BestMove != "e2e4" || !res.Stopped {
				t.Fatalf("drained ponder result %+v, want search 1's e2e4", res)
			}
			// PonderHit after the end is a no-op.
			if err := s.PonderHit(); err != nil {
				t.Fatal(err)
			}
			// The next search gets its own answer, not the ponder search's
			// bestmove nor its late info line.
			res, err = e.Go(ctx, GoLimits{Depth: 2, Deadline: 20 * time.Millisecond}) // slow needs the deadline
			if err != nil {
				t.Fatal(err)
			}
			if res.BestMove != "d2d4" || res.Depth == 99 {
				t.Fatalf("search after ponder-stop got %+v, want search 2's d2d4", res)
			}
			cmds := f.Commands(t, false)
			assertInOrder(t, cmds, "go ponder wtime 60000 btime 60000", "stop", "isready", "go depth 2")
			if n := count(cmds, "ponderhit"); n != 0 {
				t.Fatalf("sent ponderhit %d times after stop", n)
			}
		})
	}
}

func TestPonderContextCancel(t *testing.T) {
	f := fakeConfig(t, "normal")
	e := f.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := e.GoPonder(ctx, GoLimits{Infinite: true})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	<-s.Done()
	if _, err := s.Wait(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res, err := e.Go(context.Background(), GoLimits{Depth: 1}); err != nil || res.BestMove != "d2d4" {
		t.Fatalf("next search: %+v, %v", res, err)
	}
}

func TestCrashThenRestart(t *testing.T) {
	f := fakeConfig(t, "crash")
	e := f.start(t)
	ctx := context.Background()
	if err := e.Position("", []string{"d2d4"}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	_, err := e.Go(ctx, GoLimits{Depth: 4})
	if !errors.Is(err, ErrEngineDied) {
		t.Fatalf("err = %v, want ErrEngineDied", err)
	}
	if !strings.Contains(err.Error(), "exit status 3") && !strings.Contains(err.Error(), "stdout closed") {
		t.Errorf("error %q does not say how the engine died", err)
	}
	processGone(t, p)
	if _, err := e.GoPonder(ctx, GoLimits{}); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("GoPonder on a dead engine: %v", err)
	}
	if err := e.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.Alive() {
		t.Fatal("not alive after Restart")
	}
	res, err := e.Go(ctx, GoLimits{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "e2e4" { // the new process's first search
		t.Fatalf("after restart got %+v", res)
	}
	cmds := f.Commands(t, true)
	second := -1
	for i, c := range cmds {
		if strings.HasPrefix(c, "# start") {
			second = i
		}
	}
	if second <= 0 {
		t.Fatalf("no second engine process in log:\n%s", strings.Join(cmds, "\n"))
	}
	assertInOrder(t, cmds[second:], "uci", "ucinewgame", "isready", "position startpos moves d2d4", "go depth 2")
}

func TestRestartWhileSearching(t *testing.T) {
	f := fakeConfig(t, "slow")
	e := f.start(t)
	s, err := e.GoPonder(context.Background(), GoLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	res, err := e.Go(context.Background(), GoLimits{Deadline: time.Millisecond})
	if err != nil || res.BestMove != "e2e4" {
		t.Fatalf("after restart: %+v, %v", res, err)
	}
}

func TestGarbageOutput(t *testing.T) {
	f := fakeConfig(t, "garbage")
	e := f.start(t)
	if e.Name() != "Fake Engine 1.0" {
		t.Errorf("name %q", e.Name())
	}
	if _, ok := FindOption(e.Options(), "Broken"); ok {
		t.Error("kept a spin option without min/max")
	}
	if _, ok := FindOption(e.Options(), "Skill Level"); !ok {
		t.Error("lost a good option among garbage")
	}
	for i, want := range []string{"e2e4", "d2d4"} {
		res, err := e.Go(context.Background(), GoLimits{Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		_, reply := testsupport.FakeMove(i + 1)
		if res.BestMove != want || res.Depth != 3 || res.Score != CP(30) || strings.Join(res.PV, " ") != want+" "+reply {
			t.Fatalf("search %d: got %+v", i+1, res)
		}
	}
}

func TestHandshakeTimeout(t *testing.T) {
	f := fakeConfig(t, "mute")
	f.cfg.Timeouts = Timeouts{Handshake: 200 * time.Millisecond, Quit: 100 * time.Millisecond}
	_, err := StartConfig(context.Background(), f.cfg)
	if !errors.Is(err, ErrEngineUnresponsive) {
		t.Fatalf("err = %v, want ErrEngineUnresponsive", err)
	}
}

func TestStartMissingBinary(t *testing.T) {
	_, err := Start(context.Background(), filepath.Join(t.TempDir(), "no-such-engine"), nil, nil, zerolog.Nop())
	if err == nil || !strings.Contains(err.Error(), "no-such-engine") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartEngineThatExitsAtOnce(t *testing.T) {
	tru, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	_, err = Start(context.Background(), tru, nil, nil, zerolog.Nop())
	if !errors.Is(err, ErrEngineDied) {
		t.Fatalf("err = %v, want ErrEngineDied", err)
	}
}

// stockfishPath finds a real Stockfish, or skips.
func stockfishPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PONDEROSA_STOCKFISH"); p != "" {
		return p
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/games/stockfish"); err == nil {
		return "/usr/games/stockfish"
	}
	t.Skip("stockfish not installed (set PONDEROSA_STOCKFISH)")
	return ""
}

func TestStockfish(t *testing.T) {
	path := stockfishPath(t)
	ctx := context.Background()
	e, err := Start(ctx, path, nil, map[string]string{"Threads": "1", "Hash": "16", "ponder": "true"}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.mu.Lock()
	p := e.proc
	e.mu.Unlock()
	if !strings.Contains(e.Name(), "Stockfish") {
		t.Errorf("name %q", e.Name())
	}
	if err := e.NewGame(ctx); err != nil {
		t.Fatal(err)
	}
	// Mate in one: Qh5xf7#.
	if err := e.Position("", []string{"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Go(ctx, GoLimits{Depth: 6})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "h5f7" || res.Score.Kind != ScoreMate || res.Score.Value != 1 {
		t.Fatalf("mate in one: %+v", res)
	}
	// Ponder on the opponent's expected reply, then ponderhit.
	if err := e.Position("", []string{"e2e4"}); err != nil {
		t.Fatal(err)
	}
	res, err = e.Go(ctx, GoLimits{Depth: 6})
	if err != nil || res.PonderMove == "" {
		t.Fatalf("depth 6 from 1.e4: %+v, %v", res, err)
	}
	if err := e.Position("", []string{"e2e4", res.BestMove, res.PonderMove}); err != nil {
		t.Fatal(err)
	}
	s, err := e.GoPonder(ctx, GoLimits{WTime: 2 * time.Second, BTime: 2 * time.Second, Deadline: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PonderHit(); err != nil {
		t.Fatal(err)
	}
	hit, err := s.Wait(ctx)
	if err != nil || !IsMove(hit.BestMove) {
		t.Fatalf("after ponderhit: %+v, %v", hit, err)
	}
	// Ponder, then the opponent plays something else: stop and discard.
	s, err = e.GoPonder(ctx, GoLimits{WTime: 2 * time.Second, BTime: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	res, err = e.Go(ctx, GoLimits{MoveTime: 50 * time.Millisecond, Deadline: 5 * time.Second})
	if err != nil || !IsMove(res.BestMove) {
		t.Fatalf("after ponder stop: %+v, %v", res, err)
	}
	// Killed from outside: the driver notices and a restart goes on with
	// the same position.
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	processGone(t, p)
	if _, err := e.Go(ctx, GoLimits{Depth: 1}); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("Go on a killed Stockfish: %v", err)
	}
	if err := e.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	p = e.proc
	e.mu.Unlock()
	if res, err := e.Go(ctx, GoLimits{Depth: 4}); err != nil || !IsMove(res.BestMove) {
		t.Fatalf("after restart: %+v, %v", res, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	processGone(t, p)
}

// TestNoGoroutineLeak checks that every goroutine of the driver ends once
// engines are closed, whatever happened to them.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := context.Background()
	for _, mode := range []string{"normal", "crash", "hang", "garbage", "mute"} {
		f := fakeConfig(t, mode)
		f.cfg.Timeouts = Timeouts{StopGrace: 100 * time.Millisecond, Quit: 100 * time.Millisecond}
		if mode == "mute" {
			f.cfg.Timeouts.Handshake = 200 * time.Millisecond
		}
		e, err := StartConfig(ctx, f.cfg)
		if mode == "mute" {
			if err == nil {
				t.Fatal("mute engine started")
			}
			continue // the failed start must leave nothing behind either
		}
		if err != nil {
			t.Fatal(err)
		}
		e.Go(ctx, GoLimits{Depth: 2, Deadline: 20 * time.Millisecond})
		if mode == "crash" {
			if err := e.Restart(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if s, err := e.GoPonder(ctx, GoLimits{}); err == nil && mode != "hang" {
			s.Stop()
		}
		e.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDriverAgainstOwnServer runs the two halves of the package against each
// other: the driver talks to our Server (over the fake backend) in a child
// process.
func TestDriverAgainstOwnServer(t *testing.T) {
	f := fakeConfig(t, "server")
	f.cfg.Options = map[string]string{"hash": "64", "Clear Hash": ""}
	e := f.start(t)
	ctx := context.Background()
	if e.Name() != "Ponderosa Fake" || len(e.Options()) != 3 {
		t.Fatalf("id %q, options %+v", e.Name(), e.Options())
	}
	if err := e.NewGame(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Position("", []string{"e2e4"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Go(ctx, GoLimits{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "e2e4" || res.PonderMove != "e7e5" || res.Depth != 3 || res.Score != CP(3) || res.Stopped {
		t.Fatalf("go depth 3: %+v", res)
	}
	// Ponder, ponderhit: the fake backend ends a "go ponder movetime"
	// search on ponderhit.
	s, err := e.GoPonder(ctx, GoLimits{MoveTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PonderHit(); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Wait(ctx); err != nil || res.BestMove != "d2d4" || res.Stopped {
		t.Fatalf("after ponderhit: %+v, %v", res, err)
	}
	// Ponder, stop: the bestmove is drained, not left for the next search.
	s, err = e.GoPonder(ctx, GoLimits{MoveTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Stop(); err != nil || res.BestMove != "g1f3" {
		t.Fatalf("ponder stop: %+v, %v", res, err)
	}
	// An infinite search ends at the driver's deadline.
	if res, err := e.Go(ctx, GoLimits{Infinite: true, Deadline: 20 * time.Millisecond}); err != nil || res.BestMove != "c2c4" || !res.Stopped {
		t.Fatalf("infinite with deadline: %+v, %v", res, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	cmds := f.Commands(t, false)
	assertInOrder(t, cmds, "uci", "setoption name Clear Hash", "setoption name Hash value 64", "isready", "ucinewgame",
		"go depth 3", "go ponder movetime 1000", "ponderhit", "go ponder movetime 1000", "stop", "go infinite", "stop", "quit")
}

func TestSetOption(t *testing.T) {
	f := fakeConfig(t, "crash")
	f.cfg.Options = map[string]string{"Hash": "32"}
	e := f.start(t)
	ctx := context.Background()
	if err := e.SetOption(ctx, "ponder", "true"); err != nil {
		t.Fatal(err)
	}
	if err := e.SetOption(ctx, "Clear Hash", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.SetOption(ctx, "UCI_Chess960", "true"); !errors.Is(err, ErrUnknownOption) {
		t.Fatalf("unknown option: %v", err)
	}
	if err := e.SetOption(ctx, "Threads", "0"); !errors.Is(err, ErrBadOptionValue) {
		t.Fatalf("bad value: %v", err)
	}
	// The crash fake dies in its first search; after Restart the options
	// (configured, then set later; not the button) are set again.
	if _, err := e.Go(ctx, GoLimits{Depth: 1}); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("crash: %v", err)
	}
	if err := e.SetOption(ctx, "Hash", "64"); !errors.Is(err, ErrEngineDied) {
		t.Fatalf("SetOption on a dead engine: %v", err)
	}
	if err := e.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := e.GoPonder(ctx, GoLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetOption(ctx, "Hash", "64"); !errors.Is(err, ErrBusy) {
		t.Fatalf("SetOption during a search: %v", err)
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	cmds := f.Commands(t, true)
	assertInOrder(t, cmds, "setoption name Hash value 32", "isready", "setoption name Ponder value true", "isready",
		"setoption name Clear Hash", "isready", "go depth 1",
		"uci", "setoption name Hash value 32", "setoption name Ponder value true", "ucinewgame", "isready")
	if n := count(cmds, "setoption name Clear Hash"); n != 1 {
		t.Errorf("button pressed %d times, want once", n)
	}
	if n := count(cmds, "setoption name Threads value 0"); n != 0 {
		t.Error("bad value was sent")
	}
}
