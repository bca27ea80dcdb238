package uci

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a scripted UCI engine: started with
// PONDEROSA_FAKE_UCI=<mode> it speaks UCI on stdin/stdout instead of running
// tests. Every line it receives is appended to the file named by
// PONDEROSA_FAKE_UCI_LOG, so tests can check what the driver sent.
//
// Modes:
//
//	normal   answers promptly; "go depth N" gives N info lines then bestmove;
//	         ponder and infinite searches wait for ponderhit/stop
//	slow     ignores its limits: only "stop" ends a search
//	hang     never answers bestmove and ignores stop and quit
//	crash    the first process started with a given state dir exits in the
//	         middle of its first search; later ones behave normally
//	garbage  mixes junk into everything it says, then behaves normally
//	badmove  answers "bestmove zz99"
//	mute     reads but never answers "uci"
//	server   our own Server over the fakeBackend of server_test.go
const (
	fakeModeEnv  = "PONDEROSA_FAKE_UCI"
	fakeLogEnv   = "PONDEROSA_FAKE_UCI_LOG"
	fakeStateEnv = "PONDEROSA_FAKE_UCI_STATE"
)

// fakeMoves are the answers of search 1, 2, 3, ... (cycling), so a test can
// tell which search a bestmove belongs to.
var fakeMoves = [][2]string{
	{"e2e4", "e7e5"},
	{"d2d4", "d7d5"},
	{"g1f3", "g8f6"},
	{"c2c4", "c7c5"},
	{"b1c3", "b8c6"},
}

// foolsMateFEN is a position where White is checkmated: the fake answers
// "bestmove (none)".
const foolsMateFEN = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeEnv); mode != "" {
		os.Exit(runFakeEngine(mode))
	}
	os.Exit(m.Run())
}

type fakeEngine struct {
	mode     string
	out      *bufio.Writer
	log      *os.File
	searches int
	fen      string
	crash    bool
}

func runFakeEngine(mode string) int {
	f := &fakeEngine{mode: mode, out: bufio.NewWriter(os.Stdout)}
	if p := os.Getenv(fakeLogEnv); p != "" {
		lf, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake engine:", err)
			return 2
		}
		f.log = lf
		fmt.Fprintf(lf, "# start pid %d mode %s\n", os.Getpid(), mode)
	}
	if mode == "server" {
		// Our own front end over the fake backend of server_test.go.
		var in io.Reader = os.Stdin
		if f.log != nil {
			in = io.TeeReader(os.Stdin, f.log)
		}
		srv := NewServer("Ponderosa Fake", "The Ponderosa Tests", newFakeBackend())
		if err := srv.Run(context.Background(), in, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fake server:", err)
			return 1
		}
		return 0
	}
	if mode == "crash" {
		marker := filepath.Join(os.Getenv(fakeStateEnv), "crashed")
		if _, err := os.Stat(marker); err == nil {
			f.mode = "normal"
		} else {
			f.crash = true
			os.WriteFile(marker, []byte("1"), 0o644)
		}
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
		if f.mode == "mute" {
			return false
		}
		if f.mode == "garbage" {
			f.say("Fake Engine by nobody, ready to confuse", "", "   ", "\x00\x01\xff binary", "option", "option name", "option name Broken type spin default 3")
		}
		f.say("id name Fake Engine 1.0", "id author The Ponderosa Tests",
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
		f.fen = ""
		if len(fields) >= 8 && fields[1] == "fen" {
			f.fen = strings.Join(fields[2:8], " ")
		}
	case "go":
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

// search runs one search; true means exit.
func (f *fakeEngine) search(args []string, in <-chan string) bool {
	f.searches++
	pair := fakeMoves[(f.searches-1)%len(fakeMoves)]
	ponder, infinite := hasArg(args, "ponder"), hasArg(args, "infinite")
	depth := intArg(args, "depth")
	if depth == 0 {
		depth = 3
	}
	if f.crash {
		f.say("info depth 1 score cp 10 pv " + pair[0])
		os.Exit(3)
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
			d, d+2, 10*d, 1000*d, d, pair[0], pair[1]),
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
					f.bestmove(pair)
					return false
				}
			case "ponderhit":
				ponder = false
				if f.mode == "normal" && !infinite {
					timer = time.After(0)
				}
			}
		case <-timer:
			f.bestmove(pair)
			return false
		}
	}
}

func (f *fakeEngine) bestmove(pair [2]string) {
	switch {
	case f.fen == foolsMateFEN:
		f.say("bestmove (none)")
	case f.mode == "badmove":
		f.say("bestmove zz99")
	default:
		f.say("bestmove " + pair[0] + " ponder " + pair[1])
	}
	// Late output after bestmove: must never leak into the next search.
	f.say("info depth 99 seldepth 99 score cp 12345 nodes 1 pv h2h4")
}
