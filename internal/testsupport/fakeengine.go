package testsupport

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The environment of a fake engine process (see NewFakeEngine).
const (
	fakeModeEnv = "PONDEROSA_FAKE_UCI"      // set: the test binary is a fake engine in this mode
	fakeDirEnv  = "PONDEROSA_FAKE_UCI_DIR"  // its folder: the command log and markers
	fakeDieEnv  = "PONDEROSA_FAKE_UCI_DIE"  // legal mode: "go" or "ponder", the search to die in once
	commandLog  = "commands.log"            // in the folder: every line the engines received
	crashMarker = "crashed"                 // in the folder: a crash engine has crashed
	deathMarker = "died"                    // in the folder: a legal engine died as DieOnce asked
	startPrefix = "# start"                 // the first line of each engine in the command log
	exitCrashed = 3                         // the exit status of an engine that dies on purpose
	fakeName    = "id name Fake Engine 1.0" // the scripted engines' name
)

// FoolsMateFEN is a position where White is checkmated: the scripted
// engines answer "bestmove (none)" in it.
const FoolsMateFEN = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"

// FakeMove returns the answer of a scripted engine's search n (1, 2, 3, …,
// cycling through five): its best move and ponder move, so that a test can
// tell which search a bestmove belongs to.
func FakeMove(n int) (best, ponder string) {
	moves := [...][2]string{
		{"e2e4", "e7e5"},
		{"d2d4", "d7d5"},
		{"g1f3", "g8f6"},
		{"c2c4", "c7c5"},
		{"b1c3", "b8c6"},
	}
	m := moves[(n-1)%len(moves)]
	return m[0], m[1]
}

// A Mode is a fake engine of a package's own (see Main): it reads UCI
// commands from in, answers on out, and returns the process's exit status.
type Mode func(in io.Reader, out io.Writer) int

// Main is the TestMain of a package whose tests start fake engines: run
// with a FakeEngine's environment, the test binary is that engine (one of
// the modes of the package doc, or of modes) and exits; otherwise it runs
// the tests. It does not return.
func Main(m *testing.M, modes map[string]Mode) {
	mode := os.Getenv(fakeModeEnv)
	if mode == "" {
		os.Exit(m.Run())
	}
	var log *os.File
	if dir := os.Getenv(fakeDirEnv); dir != "" {
		lf, err := os.OpenFile(filepath.Join(dir, commandLog), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake engine:", err)
			os.Exit(2)
		}
		fmt.Fprintf(lf, "%s pid %d mode %s\n", startPrefix, os.Getpid(), mode)
		log = lf
	}
	run, ok := modes[mode]
	if !ok && mode == "variant" {
		run, ok = variantEngine, true
	}
	if ok {
		var in io.Reader = os.Stdin
		if log != nil {
			in = io.TeeReader(os.Stdin, log)
		}
		os.Exit(run(in, os.Stdout))
	}
	os.Exit(runFakeEngine(mode, log))
}

// FakeEngine describes fake engines to start: this test binary run again
// in a mode (see Main), with a folder of its own. Engines started from one
// FakeEngine share its command log and markers.
type FakeEngine struct {
	Path string // the test binary
	Dir  string // the folder of the command log and markers
	vars []string
}

// NewFakeEngine returns a FakeEngine in mode with a new temporary folder.
// Start it with Path and Env, or with Setenv and code that starts Path.
func NewFakeEngine(t testing.TB, mode string) *FakeEngine {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("fake engine: the test binary: %v", err)
	}
	dir := t.TempDir()
	return &FakeEngine{Path: exe, Dir: dir, vars: []string{
		fakeModeEnv + "=" + mode,
		fakeDirEnv + "=" + dir,
		// A -race binary sleeps 1 s at exit by default; a fake engine
		// must quit promptly.
		"GORACE=atexit_sleep_ms=0",
	}}
}

// Env returns the environment of the engine process: the test's, and the
// fake's variables.
func (f *FakeEngine) Env() []string { return append(os.Environ(), f.vars...) }

// Setenv puts the fake's variables into the test's environment
// (t.Setenv), for engines started by code that passes its environment on.
func (f *FakeEngine) Setenv(t *testing.T) {
	for _, v := range f.vars {
		k, val, _ := strings.Cut(v, "=")
		t.Setenv(k, val)
	}
}

// DieOnce makes the first legal-mode engine that starts a search of this
// kind ("go" or "ponder") exit in it with status 3, as a crashing engine
// would; later searches and engines play on. It returns the path of a
// file that exists once an engine has died so.
func (f *FakeEngine) DieOnce(search string) string {
	f.vars = append(f.vars, fakeDieEnv+"="+search)
	return filepath.Join(f.Dir, deathMarker)
}

// Commands returns the lines the engines received, in order, without the
// "# start pid N mode M" line each engine writes first unless keepMarkers.
func (f *FakeEngine) Commands(t testing.TB, keepMarkers bool) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.Dir, commandLog))
	if err != nil {
		t.Fatalf("read fake engine log: %v", err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(l, startPrefix) && !keepMarkers {
			continue
		}
		out = append(out, l)
	}
	return out
}

// fakeEngine is a running fake engine (the test binary in a mode).
type fakeEngine struct {
	mode     string
	out      *bufio.Writer
	log      *os.File // the command log, or nil
	searches int
	fen      string
	crash    bool
	legal    *legalGame // legal mode
}

func runFakeEngine(mode string, log *os.File) int {
	f := &fakeEngine{mode: mode, out: bufio.NewWriter(os.Stdout), log: log}
	switch mode {
	case "normal", "slow", "hang", "garbage", "badmove", "mute":
	case "crash":
		marker := filepath.Join(os.Getenv(fakeDirEnv), crashMarker)
		if _, err := os.Stat(marker); err == nil {
			f.mode = "normal"
		} else {
			f.crash = true
			os.WriteFile(marker, []byte("1"), 0o644)
		}
	case "legal":
		f.legal = newLegalGame(os.Getenv(fakeDieEnv), filepath.Join(os.Getenv(fakeDirEnv), deathMarker))
	default:
		fmt.Fprintf(os.Stderr, "fake engine: no mode %q\n", mode)
		return 2
	}
	fmt.Fprintln(os.Stderr, "fake engine says hello on stderr")
	in := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			in <- sc.Text()
		}
		close(in)
	}()
	for line := range in {
		if f.handle(line, in) {
			return 0
		}
	}
	return 0
}

func (f *fakeEngine) say(lines ...string) {
	for _, l := range lines {
		f.out.WriteString(l)
		f.out.WriteByte('\n')
	}
	f.out.Flush()
}

func (f *fakeEngine) record(line string) {
	if f.log != nil {
		fmt.Fprintln(f.log, line)
	}
}

// handle answers one command outside a search; true means exit.
func (f *fakeEngine) handle(line string, in <-chan string) bool {
	f.record(line)
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	switch fields[0] {
	case "uci":
		switch f.mode {
		case "mute":
			return false
		case "legal":
			f.say(fakeName, "id author The Ponderosa Tests",
				"option name Hash type spin default 16 min 1 max 1024",
				"option name Ponder type check default false",
				"option name UCI_Chess960 type check default false",
				"uciok")
			return false
		case "garbage":
			f.say("Fake Engine by nobody, ready to confuse", "", "   ", "\x00\x01\xff binary", "option", "option name", "option name Broken type spin default 3")
		}
		f.say(fakeName, "id author The Ponderosa Tests",
			"option name Hash type spin default 16 min 1 max 1024",
			"option name Threads type spin default 1 min 1 max 8",
			"option name Ponder type check default false",
			"option name Skill Level type spin default 20 min 0 max 20",
			"option name Clear Hash type button",
			"option name Style type combo default Normal var Solid var Normal var Risky",
			"option name SyzygyPath type string default <empty>")
		if f.mode == "garbage" {
			f.say("id name", "uciokay", strings.Repeat("x", 100_000))
		}
		f.say("uciok")
	case "isready":
		f.say("readyok")
	case "position":
		if f.legal != nil {
			f.legal.position(fields[1:])
			return false
		}
		f.fen = ""
		if len(fields) >= 8 && fields[1] == "fen" {
			f.fen = strings.Join(fields[2:8], " ")
		}
	case "go":
		if f.legal != nil {
			return f.legal.search(f, fields[1:], in)
		}
		return f.search(fields[1:], in)
	case "quit":
		return f.mode != "hang"
	}
	return false
}

func intArg(args []string, key string) int {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == key {
			n, _ := strconv.Atoi(args[i+1])
			return n
		}
	}
	return 0
}

func hasArg(args []string, key string) bool {
	for _, a := range args {
		if a == key {
			return true
		}
	}
	return false
}

// search runs one search of a scripted mode; true means exit.
func (f *fakeEngine) search(args []string, in <-chan string) bool {
	f.searches++
	best, reply := FakeMove(f.searches)
	ponder, infinite := hasArg(args, "ponder"), hasArg(args, "infinite")
	depth := intArg(args, "depth")
	if depth == 0 {
		depth = 3
	}
	if f.crash {
		f.say("info depth 1 score cp 10 pv " + best)
		os.Exit(exitCrashed)
	}
	if f.mode == "garbage" {
		f.say("info depth banana score cp pv",
			"info string bestmove a1a1 ponder h7h8",
			"bestmoves are overrated",
			"info depth 1 score mate",
			"info score cp 99999999999999999999 depth 2",
			"\xff\xfe\xfd",
			strings.Repeat("info ", 30_000),
			"info pv zz9 ponder",
			"readyok")
	}
	for d := 1; d <= depth; d++ {
		f.say(fmt.Sprintf("info depth %d seldepth %d multipv 1 score cp %d nodes %d nps 100000 time %d pv %s %s",
			d, d+2, 10*d, 1000*d, d, best, reply),
			fmt.Sprintf("info depth %d multipv 2 score cp -500 pv a2a3", d),
			"info string thinking hard")
	}
	// When does this search end on its own?
	wait := !ponder && !infinite && f.mode == "normal" || f.mode == "garbage" || f.mode == "badmove"
	var timer <-chan time.Time
	if wait {
		if mt := intArg(args, "movetime"); mt > 0 {
			timer = time.After(time.Duration(min(mt, 50)) * time.Millisecond)
		} else {
			timer = time.After(0)
		}
	}
	for {
		select {
		case line, ok := <-in:
			if !ok {
				if f.mode == "hang" {
					time.Sleep(time.Hour)
				}
				return true
			}
			f.record(line)
			switch strings.TrimSpace(line) {
			case "isready":
				f.say("readyok")
			case "quit":
				if f.mode != "hang" {
					return true
				}
			case "stop":
				if f.mode != "hang" {
					f.bestmove(best, reply)
					return false
				}
			case "ponderhit":
				ponder = false
				if f.mode == "normal" && !infinite {
					timer = time.After(0)
				}
			}
		case <-timer:
			f.bestmove(best, reply)
			return false
		}
	}
}

func (f *fakeEngine) bestmove(best, reply string) {
	switch {
	case f.fen == FoolsMateFEN:
		f.say("bestmove (none)")
	case f.mode == "badmove":
		f.say("bestmove zz99")
	default:
		f.say("bestmove " + best + " ponder " + reply)
	}
	// Late output after bestmove: must never leak into the next search.
	f.say("info depth 99 seldepth 99 score cp 12345 nodes 1 pv h2h4")
}
