package uci

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Errors of the driver. Match them with errors.Is; the returned errors wrap
// them with what was being done.
var (
	// ErrEngineDied: the engine process exited, closed its output, or was
	// killed by the driver. Call Restart to go on.
	ErrEngineDied = errors.New("uci engine died")
	// ErrEngineUnresponsive: the engine did not answer in time and was
	// killed. Errors carrying it also carry ErrEngineDied.
	ErrEngineUnresponsive = errors.New("uci engine unresponsive")
	// ErrBusy: a search is still running on this engine.
	ErrBusy = errors.New("uci engine busy with a search")
	// ErrClosed: Close was called, or the engine's lifetime context ended.
	ErrClosed = errors.New("uci engine closed")
	// ErrProtocol: the engine said something that breaks the protocol
	// (e.g. "bestmove" with a malformed move).
	ErrProtocol = errors.New("uci protocol violation")
	// ErrNoMove: the engine answered "bestmove (none)" or "bestmove 0000":
	// it has no legal move in the position.
	ErrNoMove = errors.New("uci engine has no move")
)

// Timeouts bound the driver's waits on the engine. Zero fields take the
// defaults given.
type Timeouts struct {
	Handshake time.Duration // "uci" to "uciok"; default 10s
	Ready     time.Duration // "isready" to "readyok"; default 30s (hash allocation, network loading)
	StopGrace time.Duration // "stop" to "bestmove" before the engine is killed; default 2s
	Quit      time.Duration // "quit" to process exit before the engine is killed; default 1s
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Handshake <= 0 {
		t.Handshake = 10 * time.Second
	}
	if t.Ready <= 0 {
		t.Ready = 30 * time.Second
	}
	if t.StopGrace <= 0 {
		t.StopGrace = 2 * time.Second
	}
	if t.Quit <= 0 {
		t.Quit = time.Second
	}
	return t
}

// ExternalConfig describes an external engine to run.
type ExternalConfig struct {
	Path    string
	Args    []string
	Dir     string            // working directory; "" is the daemon's
	Env     []string          // environment; nil is the daemon's
	Options map[string]string // set after the handshake; names are case-insensitive
	Logger  zerolog.Logger
	Timeouts

	// onLine, when set, is called by the readers of the engine's output
	// with each line they read: reader "stdout" (the process's output pump)
	// or "search" (the reader of a running search). Tests set it to inject
	// a panic into a reader goroutine.
	onLine func(reader, line string)
}

// ExternalEngine drives one external UCI engine process (the driver). Its
// methods are safe for concurrent use, but the engine runs one search at a
// time: while a search is running (until its bestmove was read), NewGame,
// Go and GoPonder fail with ErrBusy.
type ExternalEngine struct {
	cfg  ExternalConfig
	life context.Context
	log  zerolog.Logger

	opMu sync.Mutex // serializes operations that talk to the engine

	mu      sync.Mutex // guards the fields below
	proc    *process
	search  *ExternalSearch
	closed  bool
	name    string
	author  string
	options []OptionSpec
	fen     string // "" is the start position
	moves   []string
	setOpts map[string]string // set by SetOption, by advertised name
}

// Start starts the engine at path with args, performs the UCI handshake and
// sets opts (names checked against the options the engine advertises).
//
// Like exec.CommandContext, ctx bounds the life of the engine process: when
// it is done the engine is sent "quit", killed if need be, and reaped. The
// handshake is bounded by the default timeouts.
func Start(ctx context.Context, path string, args []string, opts map[string]string, logger zerolog.Logger) (*ExternalEngine, error) {
	return StartConfig(ctx, ExternalConfig{Path: path, Args: args, Options: opts, Logger: logger})
}

// StartConfig is Start with every setting.
func StartConfig(ctx context.Context, cfg ExternalConfig) (*ExternalEngine, error) {
	cfg.Timeouts = cfg.Timeouts.withDefaults()
	e := &ExternalEngine{cfg: cfg, life: ctx, log: cfg.Logger}
	st, err := e.launch(ctx, false)
	if err != nil {
		return nil, err
	}
	e.install(st)
	return e, nil
}

func (e *ExternalEngine) install(st launched) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.proc = st.p
	e.name, e.author, e.options = st.name, st.author, st.options
	e.log = e.cfg.Logger.With().Str("engine", st.name).Logger()
}

// current returns the live process, or why there is none.
func (e *ExternalEngine) current() (*process, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if err := e.life.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if e.search != nil {
		return nil, ErrBusy
	}
	if e.proc == nil || !e.proc.alive() {
		return nil, fmt.Errorf("%w; restart it", ErrEngineDied)
	}
	return e.proc, nil
}

// Name is the engine's "id name".
func (e *ExternalEngine) Name() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.name
}

// Author is the engine's "id author".
func (e *ExternalEngine) Author() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.author
}

// Options returns the options the engine advertised.
func (e *ExternalEngine) Options() []OptionSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]OptionSpec(nil), e.options...)
}

// Alive reports whether the engine process is running.
func (e *ExternalEngine) Alive() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.closed && e.proc != nil && e.proc.alive()
}

// NewGame tells the engine a new game starts ("ucinewgame", then waits for
// "readyok") and resets the position to the start position.
func (e *ExternalEngine) NewGame(ctx context.Context) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	p, err := e.current()
	if err != nil {
		return fmt.Errorf("new game: %w", err)
	}
	e.mu.Lock()
	e.fen, e.moves = "", nil
	e.mu.Unlock()
	if err := p.write("ucinewgame"); err != nil {
		return fmt.Errorf("new game: %w", err)
	}
	if err := e.sync(ctx, p); err != nil {
		return fmt.Errorf("new game: %w", err)
	}
	return nil
}

// Position sets the position for the next search: fen ("" or "startpos"
// for the start position, which is the variant's own start when the engine
// plays a variant) and the moves played from it, in UCI notation (variant
// moves too: drops and king promotions, see IsVariantMove).
// It is sent to the engine with each search (so a restarted engine gets it
// too).
func (e *ExternalEngine) Position(fen string, moves []string) error {
	fen = strings.TrimSpace(fen)
	if fen == "startpos" {
		fen = ""
	}
	if fen != "" {
		if n := len(strings.Fields(fen)); n < 4 || n > 6 || strings.ContainsAny(fen, "\r\n") {
			return fmt.Errorf("position: malformed FEN %q", fen)
		}
	}
	for _, m := range moves {
		if !IsVariantMove(m) {
			return fmt.Errorf("position: malformed move %q", m)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fen, e.moves = fen, append([]string(nil), moves...)
	return nil
}

func positionCommand(fen string, moves []string) string {
	var b strings.Builder
	if fen == "" {
		b.WriteString("position startpos")
	} else {
		b.WriteString("position fen ")
		b.WriteString(fen)
	}
	if len(moves) > 0 {
		b.WriteString(" moves")
		for _, m := range moves {
			b.WriteByte(' ')
			b.WriteString(m)
		}
	}
	return b.String()
}

// Restart replaces the engine process with a new one (stopping a running
// search, killing the old process if need be, always reaping it), redoes the
// handshake and options, and sends "ucinewgame". The position set by
// Position is kept, so a game can go on.
func (e *ExternalEngine) Restart(ctx context.Context) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return fmt.Errorf("restart engine: %w", ErrClosed)
	}
	old, s := e.proc, e.search
	e.mu.Unlock()
	if old != nil {
		old.shutdown(e.cfg.Timeouts.Quit)
	}
	if s != nil {
		<-s.done // ends at once: the process is gone
	}
	st, err := e.launch(ctx, true)
	if err != nil {
		return fmt.Errorf("restart engine: %w", err)
	}
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		st.p.shutdown(e.cfg.Timeouts.Quit)
		return fmt.Errorf("restart engine: %w", ErrClosed)
	}
	e.install(st)
	e.log.Info().Msg("uci engine restarted")
	return nil
}

// Close ends the engine: a running search is abandoned, "quit" is sent, the
// process is killed if it does not exit within the quit timeout, and it is
// always reaped before Close returns. Close is idempotent.
func (e *ExternalEngine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	p, s := e.proc, e.search
	e.mu.Unlock()
	if p != nil {
		p.shutdown(e.cfg.Timeouts.Quit)
	}
	if s != nil {
		<-s.done
	}
	return nil
}
