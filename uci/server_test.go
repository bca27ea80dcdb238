package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// fakeBackend simulates a search engine for the Server tests.
//
// Go reports one info line per depth. With GoLimits.Depth > 0 it returns
// right after (a search ending "early", even when pondering or infinite).
// Otherwise it runs until ctx is cancelled, or, for a ponder search with a
// MoveTime, until ponderhit.
type fakeBackend struct {
	mu       sync.Mutex
	calls    []string
	params   []GoParams
	searches int
	best     string // if set, overrides the computed best move
	noMove   bool
	returned chan GoParams // gets the params each time Go returns
	ctxDone  chan bool     // gets whether ctx was cancelled when Go returned
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{returned: make(chan GoParams, 16), ctxDone: make(chan bool, 16)}
}

func (f *fakeBackend) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) NewGame() { f.record("newgame") }

func (f *fakeBackend) SetOption(name, value string) error {
	if name != "Hash" && name != "Clear Hash" && name != "Book File" {
		return fmt.Errorf("no option %q", name)
	}
	f.record("setoption " + name + "=" + value)
	return nil
}

func (f *fakeBackend) SetPosition(fen string, moves []string) error {
	if strings.Contains(fen, "K") == false {
		return errors.New("no white king")
	}
	f.record("position " + fen + " | " + strings.Join(moves, " "))
	return nil
}

func (f *fakeBackend) Go(ctx context.Context, p GoParams, info func(Info)) (string, string) {
	f.mu.Lock()
	f.searches++
	n := f.searches
	f.params = append(f.params, p)
	f.mu.Unlock()
	best, reply := testsupport.FakeMove(n)
	defer func() {
		select { // (never blocks: the fake also serves long sessions)
		case f.ctxDone <- ctx.Err() != nil:
		default:
		}
		select {
		case f.returned <- p:
		default:
		}
	}()
	depth := max(p.Depth, 1)
	for d := 1; d <= depth; d++ {
		info(Info{Depth: d, SelDepth: d + 1, Score: CP(d), Nodes: int64(d * 100), Time: time.Duration(d) * time.Millisecond,
			PV: []string{best, reply}})
	}
	if p.Depth == 0 {
		switch {
		case p.Ponder && p.MoveTime > 0:
			select {
			case <-p.PonderHit:
			case <-ctx.Done():
			}
		default:
			<-ctx.Done()
		}
	}
	if f.noMove {
		return "", ""
	}
	return best, reply
}

func (f *fakeBackend) Perft(depth int, out io.Writer) error {
	if depth > 5 {
		return errors.New("too deep for the fake")
	}
	_, err := fmt.Fprintf(out, "perft %d nodes %d\n", depth, 20*depth)
	return err
}

func (f *fakeBackend) Bench(out io.Writer) error {
	_, err := fmt.Fprintln(out, "bench: 12345 nodes 678 nps")
	return err
}

func (f *fakeBackend) Options() []OptionSpec {
	return []OptionSpec{
		{Name: "Hash", Type: OptionSpin, Default: "16", Min: 1, Max: 1024},
		{Name: "Clear Hash", Type: OptionButton},
		{Name: "Book File", Type: OptionString},
	}
}

func (f *fakeBackend) Display(out io.Writer) error {
	calls := f.Calls()
	if len(calls) == 0 {
		return errors.New("nothing set yet")
	}
	_, err := fmt.Fprintln(out, "board: "+calls[len(calls)-1])
	return err
}

// uciConn is a GUI talking to a Server under test.
type uciConn struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	runErr chan error
	cancel context.CancelFunc
}

func startServer(t *testing.T, b Backend) *uciConn {
	t.Helper()
	return startServerWith(t, NewServer("Ponderosa Test", "The Tests", b))
}

// startServerWith runs srv (its Backend, Logger) as startServer does.
func startServerWith(t *testing.T, srv *Server) *uciConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &uciConn{t: t, in: inW, lines: make(chan string, 1000), runErr: make(chan error, 1), cancel: cancel}
	go func() {
		c.runErr <- srv.Run(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		inR.Close()
	})
	return c
}

func (c *uciConn) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatalf("send %q: %v", l, err)
		}
	}
}

// until returns the output lines up to and including the first for which
// match is true. It fails the test if the output ends or nothing matches
// for a long time (a hang).
func (c *uciConn) until(what string, match func(string) bool) []string {
	c.t.Helper()
	var got []string
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("output ended waiting for %s; got:\n%s", what, strings.Join(got, "\n"))
			}
			got = append(got, l)
			if match(l) {
				return got
			}
		case <-timeout:
			c.t.Fatalf("no %s after 20s; got:\n%s", what, strings.Join(got, "\n"))
		}
	}
}

func (c *uciConn) untilLine(want string) []string {
	c.t.Helper()
	return c.until(fmt.Sprintf("%q", want), func(l string) bool { return l == want })
}

func (c *uciConn) untilPrefix(p string) []string {
	c.t.Helper()
	return c.until(fmt.Sprintf("line starting %q", p), func(l string) bool { return strings.HasPrefix(l, p) })
}

func (c *uciConn) waitRun() error {
	c.t.Helper()
	select {
	case err := <-c.runErr:
		return err
	case <-time.After(20 * time.Second):
		c.t.Fatal("Run did not return")
		return nil
	}
}

func hasPrefix(lines []string, p string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

func waitReturned(t *testing.T, b *fakeBackend) GoParams {
	t.Helper()
	select {
	case p := <-b.returned:
		return p
	case <-time.After(20 * time.Second):
		t.Fatal("backend Go did not return")
		return GoParams{}
	}
}

func TestServerHandshake(t *testing.T) {
	c := startServer(t, newFakeBackend())
	c.send("uci")
	got := c.untilLine("uciok")
	want := []string{
		"id name Ponderosa Test",
		"id author The Tests",
		"option name Hash type spin default 16 min 1 max 1024",
		"option name Clear Hash type button",
		"option name Book File type string default <empty>",
		"uciok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("uci reply:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c.send("debug on", "isready")
	if got := c.untilLine("readyok"); len(got) != 1 {
		t.Fatalf("extra output before readyok: %q", got)
	}
}

func TestServerGo(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("ucinewgame", "position startpos moves e2e4 e7e5", "go wtime 1000 btime 2000 winc 10 binc 20 depth 2")
	got := c.untilPrefix("bestmove")
	want := []string{
		"info depth 1 seldepth 2 score cp 1 nodes 100 time 1 pv e2e4 e7e5",
		"info depth 2 seldepth 3 score cp 2 nodes 200 time 2 pv e2e4 e7e5",
		"bestmove e2e4 ponder e7e5",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p := waitReturned(t, b)
	wantL := GoLimits{WTime: time.Second, BTime: 2 * time.Second, WInc: 10 * time.Millisecond, BInc: 20 * time.Millisecond, Depth: 2}
	if p.GoLimits.Command() != wantL.Command() || p.PonderHit != nil || p.Received.IsZero() {
		t.Errorf("backend got %+v, want limits %+v", p, wantL)
	}
	calls := b.Calls()
	if strings.Join(calls, "\n") != "newgame\nposition "+StartFEN+" | e2e4 e7e5" {
		t.Errorf("backend calls %q", calls)
	}
	// No legal move.
	b.noMove = true
	c.send("go depth 1")
	if got := c.untilPrefix("bestmove"); got[len(got)-1] != "bestmove (none)" {
		t.Fatalf("no-move search ended with %q", got[len(got)-1])
	}
}

func TestServerPonderHoldsEarlyBestmove(t *testing.T) {
	for _, end := range []string{"ponderhit", "stop"} {
		t.Run(end, func(t *testing.T) {
			b := newFakeBackend()
			c := startServer(t, b)
			c.send("position startpos moves e2e4", "go ponder depth 2 wtime 1000 btime 1000")
			p := waitReturned(t, b) // the backend's search is over...
			if !p.Ponder || p.PonderHit == nil {
				t.Fatalf("backend got %+v, want a ponder search with a ponderhit channel", p)
			}
			time.Sleep(20 * time.Millisecond) // (give a wrong bestmove time to show up)
			c.send("isready")
			got := c.untilLine("readyok")
			if hasPrefix(got, "bestmove") {
				t.Fatalf("bestmove before %s:\n%s", end, strings.Join(got, "\n"))
			}
			c.send(end)
			got = c.untilPrefix("bestmove")
			if got[len(got)-1] != "bestmove e2e4 ponder e7e5" {
				t.Fatalf("got %q", got)
			}
			// Exactly one bestmove: the next search's output starts clean.
			c.send("go depth 1")
			got = c.untilPrefix("bestmove")
			if got[len(got)-1] != "bestmove d2d4 ponder d7d5" || len(got) != 2 {
				t.Fatalf("next search output %q", got)
			}
		})
	}
}

func TestServerPonderHitReachesSearch(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go ponder movetime 1000")
	c.untilPrefix("info depth 1")
	// isready is answered while the search runs (it cannot end before the
	// ponderhit).
	c.send("isready")
	got := c.untilLine("readyok")
	if hasPrefix(got, "bestmove") {
		t.Fatalf("bestmove before ponderhit: %q", got)
	}
	c.send("ponderhit")
	got = c.untilPrefix("bestmove")
	if got[len(got)-1] != "bestmove e2e4 ponder e7e5" {
		t.Fatalf("got %q", got)
	}
	if cancelled := <-b.ctxDone; cancelled {
		t.Error("search was cancelled instead of ending on ponderhit")
	}
}

func TestServerInfiniteWaitsForStop(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go infinite depth 1") // ends early: bestmove must wait for stop
	waitReturned(t, b)
	time.Sleep(20 * time.Millisecond)
	c.send("ponderhit", "isready") // ponderhit does not release an infinite search
	if got := c.untilLine("readyok"); hasPrefix(got, "bestmove") {
		t.Fatalf("bestmove before stop: %q", got)
	}
	c.send("stop")
	if got := c.untilPrefix("bestmove"); got[len(got)-1] != "bestmove e2e4 ponder e7e5" {
		t.Fatalf("got %q", got)
	}
}

func TestServerStopCancelsSearch(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go")
	c.untilPrefix("info depth 1")
	c.send("stop")
	c.untilPrefix("bestmove")
	if cancelled := <-b.ctxDone; !cancelled {
		t.Error("stop did not cancel the search context")
	}
	c.send("stop", "isready") // stop without a search: nothing happens
	if got := c.untilLine("readyok"); len(got) != 1 {
		t.Fatalf("output after idle stop: %q", got)
	}
}

func TestServerBusy(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go infinite")
	c.untilPrefix("info depth 1")
	c.send("position startpos", "ucinewgame", "setoption name Hash value 1", "go depth 1", "go perft 1", "bench", "isready")
	got := c.untilLine("readyok")
	want := []string{
		"info string error: position: a search is running; send stop first",
		"info string error: ucinewgame: a search is running; send stop first",
		"info string error: setoption: a search is running; send stop first",
		"info string error: go: a search is running; send stop first",
		"info string error: go: a search is running; send stop first",
		"info string error: bench: a search is running; send stop first",
		"readyok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if calls := b.Calls(); len(calls) != 0 {
		t.Fatalf("backend called during a search: %q", calls)
	}
	c.send("stop")
	c.untilPrefix("bestmove")
	c.send("position startpos", "isready")
	c.untilLine("readyok")
	if calls := b.Calls(); len(calls) != 1 {
		t.Fatalf("position after stop not applied: %q", calls)
	}
}

func TestServerErrors(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send(
		"hello world",
		"go depth x",
		"go depth 3 depht 4",
		"position fen 8/8/8/8 w - - 0 1",
		"position fen 8/8/8/8/8/8/8/8 w - - 0 1",
		"position startpos moves e2e4 e7e9",
		"setoption name Contempt value 10",
		"setoption name Hash value 64",
		"setoption name Book File value  my book.bin ",
		"\x00\xff\xfe garbage \x01",
		strings.Repeat("x", 200_000),
		"go perft 9",
		"go perft 2",
		"bench",
		"d",
		"",
		"isready",
	)
	got := c.untilLine("readyok")
	want := []string{
		`info string error: unknown command "hello"`,
		`info string error: go: depth "x" is not an integer`,
		`info string error: go: unknown parameter "depht"`,
		`info string error: position: FEN board "8/8/8/8" has 4 ranks, want 8`,
		`info string error: position: no white king`,
		`info string error: position: malformed move "e7e9"`,
		`info string error: setoption Contempt: no option "Contempt"`,
		`info string error: unknown command "\x00\xff\xfe"`,
		`info string error: unknown command "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."`,
		`info string error: perft: too deep for the fake`,
		`perft 2 nodes 40`,
		`bench: 12345 nodes 678 nps`,
		`board: setoption Book File=my book.bin`,
		`readyok`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if calls := b.Calls(); strings.Join(calls, "|") != "setoption Hash=64|setoption Book File=my book.bin" {
		t.Fatalf("backend calls %q", calls)
	}
}

func TestServerQuitStopsSearch(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go infinite")
	c.untilPrefix("info depth 1")
	c.send("quit")
	if err := c.waitRun(); err != nil {
		t.Fatalf("Run after quit: %v", err)
	}
	if cancelled := <-b.ctxDone; !cancelled {
		t.Error("quit did not cancel the search")
	}
	c.untilPrefix("bestmove")
}

func TestServerEndOfInput(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go ponder")
	c.untilPrefix("info depth 1")
	c.in.Close()
	if err := c.waitRun(); err != nil {
		t.Fatalf("Run at end of input: %v", err)
	}
	if cancelled := <-b.ctxDone; !cancelled {
		t.Error("end of input did not cancel the search")
	}
}

func TestServerContextCancel(t *testing.T) {
	b := newFakeBackend()
	c := startServer(t, b)
	c.send("go infinite")
	c.untilPrefix("info depth 1")
	c.cancel()
	if err := c.waitRun(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v, want context.Canceled", err)
	}
	if cancelled := <-b.ctxDone; !cancelled {
		t.Error("search not cancelled")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("GUI went away") }

func TestServerWriteError(t *testing.T) {
	srv := NewServer("x", "y", newFakeBackend())
	err := srv.Run(context.Background(), strings.NewReader("uci\nisready\n"), failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "GUI went away") {
		t.Fatalf("Run = %v, want the write error", err)
	}
}

func TestServerNoDisplayer(t *testing.T) {
	var out strings.Builder
	srv := NewServer("x", "y", struct{ Backend }{newFakeBackend()}) // hides Display
	if err := srv.Run(context.Background(), strings.NewReader("d\n"), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "info string error: d: not supported\n" {
		t.Fatalf("got %q", out.String())
	}
}

// FuzzServer feeds arbitrary scripts to a Server: it must never panic or
// hang, must end at the end of input, and must answer every search it
// started with exactly one bestmove.
func FuzzServer(f *testing.F) {
	for _, s := range []string{
		"uci\nisready\nposition startpos moves e2e4\ngo depth 3\n",
		"go ponder depth 2\nponderhit\ngo infinite\nisready\nstop\n",
		"go ponder movetime 100\nposition startpos\nponderhit\ngo\nquit\ngo\n",
		"setoption name Hash value 3\nd\ngo perft 2\nbench\ngo perft 9\n",
		"go infinite depth 1\nponderhit\nstop\nstop\ngo ponder\n",
		"\x00\nhello\r\nposition fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		b := newFakeBackend()
		var out testsupport.SyncBuffer
		srv := NewServer("fuzz", "fuzz", b)
		done := make(chan error, 1)
		go func() { done <- srv.Run(context.Background(), strings.NewReader(script), &out) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Run hangs on %q", script)
		}
		bestmoves := 0
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "bestmove ") {
				bestmoves++
			}
		}
		b.mu.Lock()
		searches := b.searches
		b.mu.Unlock()
		if bestmoves != searches {
			t.Fatalf("%d searches but %d bestmoves for %q; output:\n%s", searches, bestmoves, script, out.String())
		}
	})
}
