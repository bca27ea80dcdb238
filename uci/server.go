package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// GoParams is what a Backend gets for one search.
type GoParams struct {
	GoLimits
	// PonderHit is closed when the GUI sends "ponderhit" (nil unless
	// GoLimits.Ponder). A ponder search ignores its time limits until then;
	// after it, it searches under GoLimits as if started at that moment.
	PonderHit <-chan struct{}
	// Received is when the "go" command was read, for time management.
	Received time.Time
}

// Backend is the engine behind a Server. The Server calls it from one
// goroutine at a time, except that the info callback passed to Go may be
// called from whatever goroutine the search runs on.
type Backend interface {
	// NewGame prepares for a new game ("ucinewgame").
	NewGame()
	// SetOption sets an option; an unknown option or a bad value is an
	// error, which the GUI sees as "info string error: ...".
	SetOption(name, value string) error
	// SetPosition sets the position from a FEN (StartFEN for startpos) and
	// moves in UCI notation; a bad FEN or illegal move is an error.
	SetPosition(fen string, moves []string) error
	// Go searches until its limits are reached or ctx is cancelled ("stop",
	// "quit"), reporting progress through info (never after Go returned;
	// info is safe for concurrent use), and returns the best move
	// and the expected reply ("" if none). best is "" only when there is no
	// legal move. Go must return promptly once ctx is cancelled, with a
	// legal move even if ctx was cancelled before it started (the protocol
	// wants a bestmove after every go).
	Go(ctx context.Context, p GoParams, info func(Info)) (best, ponder string)
	// Perft writes a perft count for depth ("go perft N").
	Perft(depth int, out io.Writer) error
	// Bench runs the built-in benchmark ("bench").
	Bench(out io.Writer) error
	// Options lists the options announced in reply to "uci". It may be
	// called while Go runs.
	Options() []OptionSpec
}

// Displayer is implemented by a Backend that can print its position ("d").
type Displayer interface {
	Display(out io.Writer) error
}

// PanicRecoverer is implemented by a Backend that can go on after its Go
// panicked (the Server recovers the panic on the search goroutine and logs
// it). AfterPanic drops whatever the broken search may have left (the
// EngineBackend makes a fresh game at the same position) and returns a
// legal move of the current position ("" when there is none): the Server
// answers it as the search's bestmove.
type PanicRecoverer interface {
	AfterPanic() (fallback string)
}

// Server makes a Backend a UCI engine: it reads GUI commands, drives the
// Backend and writes the replies. "go" runs in its own goroutine, so "stop",
// "ponderhit" and "isready" are handled during a search.
type Server struct {
	Name    string // "id name"
	Author  string // "id author"
	Backend Backend
	Logger  zerolog.Logger
}

// NewServer returns a Server for b.
func NewServer(name, author string, b Backend) *Server {
	return &Server{Name: name, Author: author, Backend: b}
}

// Run speaks UCI on in and out until "quit", the end of in, or ctx is done;
// "go perft", "bench" and "d" run in the loop itself (they block it until
// done);
// a running search is stopped (and its bestmove written) first. It returns
// nil after "quit" or end of input, ctx.Err() when ctx ends it, or the
// error that made reading or writing fail. Run does not close in; a read
// blocked on it is left to end when in is closed.
func (s *Server) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := &session{srv: s, b: s.Backend, out: out, log: s.Logger}
	lines := make(chan string)
	readDone := make(chan error, 1)
	quitReader := make(chan struct{})
	defer close(quitReader)
	go func() {
		defer panics.Recover(func(e *panics.Error) {
			panics.Log(s.Logger, e, "uci input reader panicked")
			readDone <- fmt.Errorf("input reader: %w", e)
			close(lines)
		})
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(br)
			if err == nil || line != "" {
				select {
				case lines <- line:
				case <-quitReader:
					return
				}
			}
			if err != nil {
				readDone <- err
				close(lines)
				return
			}
		}
	}()
	defer ss.stopSearch()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				if err := <-readDone; !errors.Is(err, io.EOF) {
					return fmt.Errorf("read uci input: %w", err)
				}
				return nil
			}
			if ss.handle(ctx, line) {
				return nil
			}
			if err := ss.writeErr(); err != nil {
				return err
			}
		}
	}
}

// session is the state of one Run.
type session struct {
	srv *Server
	b   Backend
	log zerolog.Logger

	wmu  sync.Mutex
	out  io.Writer
	werr error

	search *activeSearch // the last search started; nil before any
}

// activeSearch is one "go" running in its goroutine.
type activeSearch struct {
	cancel   context.CancelFunc
	hit      chan struct{} // closed on ponderhit
	stopped  chan struct{} // closed on stop/quit
	hitOnce  sync.Once
	stopOnce sync.Once
	// finished is closed just before the bestmove is written: a GUI that
	// has seen the bestmove may send the next command at once.
	finished chan struct{}
	done     chan struct{} // closed after the bestmove was written
}

// println writes one line; after a write error all output is dropped and
// Run ends.
func (ss *session) println(line string) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if ss.werr != nil {
		return
	}
	if _, err := io.WriteString(ss.out, line+"\n"); err != nil {
		ss.werr = fmt.Errorf("write uci output: %w", err)
	}
}

func (ss *session) writeErr() error {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	return ss.werr
}

// Write lets Perft, Bench and Display write through the same lock.
func (ss *session) Write(p []byte) (int, error) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if ss.werr != nil {
		return 0, ss.werr
	}
	n, err := ss.out.Write(p)
	if err != nil {
		ss.werr = fmt.Errorf("write uci output: %w", err)
	}
	return n, err
}

func (ss *session) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ss.log.Debug().Str("error", msg).Msg("uci command failed")
	ss.println(Info{Text: "error: " + msg}.String())
}

// searching reports whether a search is still running (bestmove not yet
// written).
func (ss *session) searching() bool {
	if ss.search == nil {
		return false
	}
	select {
	case <-ss.search.finished:
		return false
	default:
		return true
	}
}

// handle runs one input line; true means quit.
func (ss *session) handle(ctx context.Context, line string) bool {
	cmd, err := ParseCommand(line)
	if err != nil {
		ss.errorf("%v", err)
		return false
	}
	if cmd == nil {
		return false
	}
	busy := func() bool {
		if ss.searching() {
			ss.errorf("%s: a search is running; send stop first", strings.Fields(cmd.String())[0])
			return true
		}
		return false
	}
	switch c := cmd.(type) {
	case CmdUCI:
		ss.println("id name " + oneLine(ss.srv.Name))
		ss.println("id author " + oneLine(ss.srv.Author))
		for _, o := range ss.b.Options() {
			ss.println(o.String())
		}
		ss.println("uciok")
	case CmdIsReady:
		ss.println("readyok")
	case CmdDebug, CmdRegister:
	case CmdNewGame:
		if !busy() {
			ss.b.NewGame()
		}
	case CmdSetOption:
		if !busy() {
			if err := ss.b.SetOption(c.Name, c.Value); err != nil {
				ss.errorf("setoption %s: %v", c.Name, err)
			}
		}
	case CmdPosition:
		if !busy() {
			if err := ss.b.SetPosition(c.FEN, c.Moves); err != nil {
				ss.errorf("position: %v", err)
			}
		}
	case CmdGo:
		if !busy() {
			ss.startSearch(ctx, c.Limits)
		}
	case CmdPerft:
		if !busy() {
			if err := ss.b.Perft(c.Depth, ss); err != nil {
				ss.errorf("perft: %v", err)
			}
		}
	case CmdBench:
		if !busy() {
			if err := ss.b.Bench(ss); err != nil {
				ss.errorf("bench: %v", err)
			}
		}
	case CmdDisplay:
		d, ok := ss.b.(Displayer)
		if !ok {
			ss.errorf("d: not supported")
		} else if !busy() {
			if err := d.Display(ss); err != nil {
				ss.errorf("d: %v", err)
			}
		}
	case CmdPonderHit:
		if ss.searching() {
			s := ss.search
			s.hitOnce.Do(func() { close(s.hit) })
		}
	case CmdStop:
		ss.stopSearch()
	case CmdQuit:
		return true
	default:
		ss.errorf("%s: not supported", cmd.String())
	}
	return false
}

// startSearch runs the Backend's search in a goroutine. The bestmove is
// written when the search has returned and, for "go infinite", "stop" came,
// or, for "go ponder", "ponderhit" or "stop" came: a search that ends early
// waits for them, as the protocol requires.
func (ss *session) startSearch(ctx context.Context, l GoLimits) {
	if prev := ss.search; prev != nil {
		<-prev.done // finished already; its bestmove is being written
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &activeSearch{
		cancel:   cancel,
		hit:      make(chan struct{}),
		stopped:  make(chan struct{}),
		finished: make(chan struct{}),
		done:     make(chan struct{}),
	}
	p := GoParams{GoLimits: l, Received: time.Now()}
	if l.Ponder {
		p.PonderHit = s.hit
	}
	ss.search = s
	go func() {
		defer close(s.done)
		defer cancel()
		best, ponder := ss.goRecovering(sctx, p)
		switch {
		case l.Infinite:
			<-s.stopped
		case l.Ponder:
			select {
			case <-s.hit:
			case <-s.stopped:
			}
		}
		line := "bestmove "
		if best == "" {
			line += "(none)"
		} else {
			line += best
			if ponder != "" {
				line += " ponder " + ponder
			}
		}
		close(s.finished)
		ss.println(line)
	}()
}

// goRecovering runs the Backend's search on the search goroutine. A panic
// there ends neither the session nor the process: it is logged with its
// stack, the GUI gets an "info string error" line, and the search answers
// the fallback move of a PanicRecoverer ("(none)" for another Backend).
func (ss *session) goRecovering(ctx context.Context, p GoParams) (best, ponder string) {
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(ss.log, e, "uci search panicked; answering a fallback move")
		ss.println(Info{Text: "error: search panicked: " + oneLine(fmt.Sprint(e.Value))}.String())
		best, ponder = "", ""
		if r, ok := ss.b.(PanicRecoverer); ok {
			best = r.AfterPanic()
		}
	})
	return ss.b.Go(ctx, p, func(in Info) { ss.println(in.String()) })
}

// stopSearch stops the running search, if any, and waits until its bestmove
// is written.
func (ss *session) stopSearch() {
	s := ss.search
	if s == nil {
		return
	}
	s.stopOnce.Do(func() {
		close(s.stopped)
		s.cancel()
	})
	<-s.done
}
