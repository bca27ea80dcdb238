package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// uciEngine speaks UCI text with one engine: ponderosa's own in this
// process (uci.Server over a uci.EngineBackend, what `ponderosa uci`
// runs) or a program started with the argument "uci".
type uciEngine struct {
	name  string
	in    io.WriteCloser
	lines chan line // closed when the engine's output ends
	wait  func() error
}

// line is one line of the engine's output and when it was read.
type line struct {
	text string
	at   time.Time
}

// startInProcess runs ponderosa's UCI front end in this process, over
// pipes, as `ponderosa uci` does over stdin and stdout.
func startInProcess(ctx context.Context, name string) *uciEngine {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := uci.NewEngineBackend()
	srv := uci.NewServer("ponderosa (learnspeed)", "the ponderosa authors", b)
	ended := make(chan error, 1)
	go func() {
		err := srv.Run(ctx, inR, outW)
		b.Close() // what the learning memory queued is written
		_ = outW.Close()
		_ = inR.Close()
		ended <- err
	}()
	return newEngine(ctx, name, inW, outR, func() error {
		// The output is no longer read (Ctrl-C may have ended the reader
		// early): the server's writes fail rather than block.
		_ = outR.Close()
		return <-ended
	})
}

// startProgram starts the program path with the argument "uci".
func startProgram(ctx context.Context, name, path string) (*uciEngine, error) {
	cmd := exec.CommandContext(ctx, path, "uci")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, path, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, path, err)
	}
	return newEngine(ctx, name, in, out, cmd.Wait), nil
}

func newEngine(ctx context.Context, name string, in io.WriteCloser, out io.Reader, wait func() error) *uciEngine {
	e := &uciEngine{name: name, in: in, lines: make(chan line, 256), wait: wait}
	go func() {
		defer close(e.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case e.lines <- line{text: sc.Text(), at: time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return e
}

// send writes one command.
func (e *uciEngine) send(cmd string) error {
	if _, err := io.WriteString(e.in, cmd+"\n"); err != nil {
		return fmt.Errorf("%s: send %q: %w", e.name, cmd, err)
	}
	return nil
}

// next reads the next line; an "info string error" line is an error.
func (e *uciEngine) next(ctx context.Context) (line, error) {
	select {
	case l, ok := <-e.lines:
		if !ok {
			return line{}, fmt.Errorf("%s: the engine's output ended", e.name)
		}
		if in, ok := uci.ParseInfo(l.text); ok && strings.HasPrefix(in.Text, "error") {
			return l, fmt.Errorf("%s: %s", e.name, in.Text)
		}
		return l, nil
	case <-ctx.Done():
		return line{}, fmt.Errorf("%s: %w", e.name, ctx.Err())
	}
}

// waitFor reads lines until one that is word or starts with word and a
// space.
func (e *uciEngine) waitFor(ctx context.Context, word string) (line, error) {
	for {
		l, err := e.next(ctx)
		if err != nil {
			return l, fmt.Errorf("waiting for %s: %w", word, err)
		}
		if l.text == word || strings.HasPrefix(l.text, word+" ") {
			return l, nil
		}
	}
}

// setup does the handshake and sets the options, in order; an option the
// engine refuses is an error.
func (e *uciEngine) setup(ctx context.Context, opts [][2]string) error {
	if err := e.send("uci"); err != nil {
		return err
	}
	if _, err := e.waitFor(ctx, "uciok"); err != nil {
		return err
	}
	for _, o := range opts {
		if err := e.send("setoption name " + o[0] + " value " + o[1]); err != nil {
			return err
		}
	}
	return e.ready(ctx)
}

// ready sends isready and waits for readyok.
func (e *uciEngine) ready(ctx context.Context) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	_, err := e.waitFor(ctx, "readyok")
	return err
}

// newGame sends ucinewgame and waits until the engine is ready.
func (e *uciEngine) newGame(ctx context.Context) error {
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.ready(ctx)
}

// searched is what a search answered: the move, and the figures of the
// first completed iteration of the depth asked for or more (else of its
// last completed one).
type searched struct {
	best  string
	depth int
	time  time.Duration // the engine's own "time" on that line
	wall  time.Duration // from "go" written to that line read
	nodes int64
	score string
	// iters are the completed iterations (see addIteration); endTime and
	// endNodes the last info line's time and nodes, endWall from "go" to
	// "bestmove".
	iters    []iteration
	endTime  time.Duration
	endWall  time.Duration
	endNodes int64
}

// search sets the position and runs goCmd until bestmove. depth is the
// depth whose completion is timed (0: none, the last iteration's figures).
func (e *uciEngine) search(ctx context.Context, fen string, moves []string, goCmd string, depth int) (searched, error) {
	if err := e.send(positionCommand(fen, moves)); err != nil {
		return searched{}, err
	}
	sent := time.Now()
	if err := e.send(goCmd); err != nil {
		return searched{}, err
	}
	var s searched
	reached := false
	for {
		l, err := e.next(ctx)
		if err != nil {
			return s, fmt.Errorf("%s: %w", goCmd, err)
		}
		if f := strings.Fields(l.text); len(f) >= 2 && f[0] == "bestmove" {
			if f[1] == "(none)" || f[1] == "0000" {
				return s, fmt.Errorf("%s: %s: no move", e.name, goCmd)
			}
			s.best, s.endWall = f[1], l.at.Sub(sent)
			return s, nil
		}
		in, ok := uci.ParseInfo(l.text)
		if ok && (in.Time > 0 || in.Nodes > 0) {
			s.endTime, s.endNodes = max(s.endTime, in.Time), max(s.endNodes, in.Nodes)
		}
		if ok && in.Depth >= 1 && len(in.PV) > 0 && in.Score.Bound == uci.BoundExact && in.Score.Kind != uci.ScoreNone {
			s.iters = addIteration(s.iters, iteration{Depth: in.Depth, Time: in.Time, Wall: l.at.Sub(sent), Nodes: in.Nodes})
		}
		// A completed iteration: an exact score and a PV (the bounds of an
		// aspiration window and the final line of a decision are not).
		if !ok || reached || in.Depth < 1 || len(in.PV) == 0 || in.Score.Bound != uci.BoundExact || in.Score.Kind == uci.ScoreNone {
			continue
		}
		s.depth, s.time, s.wall, s.nodes, s.score = in.Depth, in.Time, l.at.Sub(sent), in.Nodes, in.Score.String()
		reached = depth > 0 && in.Depth >= depth
	}
}

// positionCommand is the "position" command of fen and moves.
func positionCommand(fen string, moves []string) string {
	cmd := "position fen " + fen
	if fen == uci.StartFEN {
		cmd = "position startpos"
	}
	if len(moves) > 0 {
		cmd += " moves " + strings.Join(moves, " ")
	}
	return cmd
}

// close sends quit and waits for the engine to end (an in-process one
// has written its learning memory then).
func (e *uciEngine) close() error {
	err := e.send("quit")
	err = errors.Join(err, e.in.Close())
	for range e.lines {
	}
	if werr := e.wait(); werr != nil {
		err = errors.Join(err, fmt.Errorf("%s: %w", e.name, werr))
	}
	return err
}
