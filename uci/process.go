package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

const (
	// maxLineLen bounds one line read from an engine; the rest of a longer
	// line is dropped.
	maxLineLen = 64 << 10
	// writeTimeout bounds one write to the engine's stdin. A pipe write
	// blocks only when the engine stopped reading and 64 KiB are queued.
	writeTimeout = 5 * time.Second
	// drainAfterExit is how long the reader may keep draining stdout after
	// the process was reaped (a grandchild could hold the pipe open).
	drainAfterExit = 500 * time.Millisecond
)

// process is one running engine process with its pipes. Its goroutines
// always reap it: wait() calls cmd.Wait exactly once, and kill() is safe to
// call at any time, from any goroutine, any number of times.
type process struct {
	cmd *exec.Cmd
	pid int
	log zerolog.Logger

	wmu   sync.Mutex
	stdin *os.File

	lines      chan string   // stdout lines; closed at EOF
	readerDone chan struct{} // closed when the stdout reader returned
	exited     chan struct{} // closed after cmd.Wait returned: reaped
	discarded  chan struct{} // closed when nobody will read lines again
	discardOne sync.Once
	waitErr    error // valid after exited is closed
	gone       atomic.Bool
	killed     atomic.Bool
	// crashed is the panic of a goroutine of the driver that made it kill
	// the process (a reader's): the session ends with ErrEngineDied.
	crashed atomic.Pointer[panics.Error]
	onLine  func(reader, line string) // ExternalConfig.onLine

	stopLife func() bool

	// readyDebt counts "isready" sent and not yet answered; only touched
	// under ExternalEngine.opMu (or before the ExternalEngine exists).
	readyDebt int
}

// startProcess starts path with args. The process lives until it exits, is
// shut down, or life is done (then it is sent "quit" and killed after
// quitGrace).
func startProcess(life context.Context, cfg *ExternalConfig, log zerolog.Logger) (*process, error) {
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	setProcAttr(cmd)

	// Our own pipes (rather than StdoutPipe) so that cmd.Wait never waits
	// on copying goroutines and reaping cannot be held up by the pipes.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start engine %s: %w", cfg.Path, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("start engine %s: %w", cfg.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("start engine %s: %w", cfg.Path, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start engine %s: %w", cfg.Path, err)
	}
	closeAll(inR, outW, errW) // the child's ends

	p := &process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		log:        log.With().Int("engine_pid", cmd.Process.Pid).Logger(),
		stdin:      inW,
		lines:      make(chan string, 256),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
		discarded:  make(chan struct{}),
		onLine:     cfg.onLine,
	}
	grace := cfg.Timeouts.Quit
	p.stopLife = context.AfterFunc(life, func() { p.shutdown(grace) })
	errDone := make(chan struct{})
	go p.readStdout(outR)
	go p.readStderr(errR, errDone)
	go p.wait(outR, errR, errDone)
	p.log.Debug().Str("path", cfg.Path).Msg("uci engine started")
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// readLine reads one line of at most maxLineLen bytes; the rest of a longer
// line is discarded. It strips the line ending.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf) < maxLineLen {
			room := maxLineLen - len(buf)
			if len(chunk) > room {
				buf = append(buf, chunk[:room]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		n := len(buf)
		for n > 0 && (buf[n-1] == '\n' || buf[n-1] == '\r') {
			n--
		}
		return string(buf[:n]), err
	}
}

// crash ends the engine's session after a panic e of one of the driver's
// goroutines: it is logged with its stack and the process is killed, so
// that every wait on it ends with ErrEngineDied (naming the panic) and the
// caller goes on as after a crash of the engine (a fallback move, Restart).
func (p *process) crash(e *panics.Error, where string) {
	panics.Log(p.log, e, where+" panicked: engine session ended")
	p.crashed.CompareAndSwap(nil, e)
	p.kill()
}

func (p *process) readStdout(r *os.File) {
	defer close(p.readerDone)
	defer close(p.lines)
	defer p.gone.Store(true)
	defer panics.Recover(func(e *panics.Error) { p.crash(e, "uci stdout reader") })
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := readLine(br)
		if err == nil || line != "" {
			p.log.Trace().Str("recv", line).Msg("uci")
			if p.onLine != nil {
				p.onLine("stdout", line)
			}
			select {
			case p.lines <- line:
			case <-p.discarded:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.log.Debug().Err(err).Msg("read engine stdout")
			}
			return
		}
	}
}

func (p *process) readStderr(r *os.File, done chan<- struct{}) {
	defer close(done)
	// Nobody would drain stderr any more: end the session.
	defer panics.Recover(func(e *panics.Error) { p.crash(e, "uci stderr reader") })
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := readLine(br)
		if line != "" {
			p.log.Warn().Str("stderr", line).Msg("uci engine stderr")
		}
		if err != nil {
			return
		}
	}
}

// wait reaps the process, then makes sure the readers end.
func (p *process) wait(outR, errR *os.File, errDone <-chan struct{}) {
	reaped := false
	defer panics.Recover(func(e *panics.Error) {
		panics.Log(p.log, e, "uci engine reaper panicked")
		if !reaped { // waits on exited must end
			p.gone.Store(true)
			close(p.exited)
		}
	})
	err := p.cmd.Wait()
	p.waitErr = err
	p.gone.Store(true)
	close(p.exited)
	reaped = true
	p.stopLife()
	ev := p.log.Debug()
	if err != nil && !p.killed.Load() {
		ev = p.log.Warn()
	}
	ev.AnErr("exit", err).Bool("killed", p.killed.Load()).Msg("uci engine exited")
	t := time.NewTimer(drainAfterExit)
	defer t.Stop()
	select {
	case <-p.readerDone:
	case <-t.C:
	}
	outR.Close() // unblocks a reader held up by a grandchild's open pipe
	select {
	case <-errDone:
	case <-t.C:
	}
	errR.Close()
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
}

// alive reports whether the process still runs and its stdout is open.
func (p *process) alive() bool { return !p.gone.Load() }

// write sends one command line.
func (p *process) write(line string) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if !p.alive() {
		return p.diedErr()
	}
	p.log.Trace().Str("send", line).Msg("uci")
	_ = p.stdin.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.kill()
			return fmt.Errorf("send %q: engine does not read its input: %w: %w", line, ErrEngineUnresponsive, ErrEngineDied)
		}
		return fmt.Errorf("send %q: %w (%v)", line, ErrEngineDied, err)
	}
	return nil
}

// kill kills the process (if it still runs). Reaping is done by wait().
func (p *process) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.killed.Store(true)
	p.discard() // nobody reads a killed engine's output
	// os.Process.Kill is safe against PID reuse: after Wait it fails with
	// "process already finished".
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		p.log.Debug().Err(err).Msg("kill uci engine")
	}
}

// discard tells the stdout reader that nobody reads lines any more.
func (p *process) discard() { p.discardOne.Do(func() { close(p.discarded) }) }

// shutdown sends "quit", waits up to grace for the process to exit, kills it
// otherwise, and returns once it is reaped.
func (p *process) shutdown(grace time.Duration) {
	select {
	case <-p.exited:
	default:
		if err := p.write("quit"); err == nil {
			t := time.NewTimer(grace)
			select {
			case <-p.exited:
			case <-t.C:
				p.log.Warn().Dur("grace", grace).Msg("uci engine ignored quit; killing it")
			}
			t.Stop()
		}
		p.kill()
		<-p.exited
	}
	p.discard()
}

// diedErr describes the death of the process for errors.
func (p *process) diedErr() error {
	if e := p.crashed.Load(); e != nil {
		return fmt.Errorf("%w (the driver killed it: %w)", ErrEngineDied, e)
	}
	// The reader may see EOF a moment before Wait returns: give the exit
	// status a short chance to be known, for a better message.
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-p.exited:
		if p.killed.Load() {
			return fmt.Errorf("%w (killed)", ErrEngineDied)
		}
		if p.waitErr != nil {
			return fmt.Errorf("%w (%v)", ErrEngineDied, p.waitErr)
		}
		return fmt.Errorf("%w (exited)", ErrEngineDied)
	case <-t.C:
		return fmt.Errorf("%w (stdout closed)", ErrEngineDied)
	}
}
