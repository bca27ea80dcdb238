package uci

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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

// launched is a freshly started, handshaken process.
type launched struct {
	p       *process
	name    string
	author  string
	options []OptionSpec
}

// launch starts a process, runs the handshake and sets the options. On
// error the process is shut down and reaped.
func (e *ExternalEngine) launch(ctx context.Context, newGame bool) (launched, error) {
	if err := e.life.Err(); err != nil {
		return launched{}, fmt.Errorf("start engine %s: %w: %w", e.cfg.Path, ErrClosed, err)
	}
	p, err := startProcess(e.life, &e.cfg, e.log)
	if err != nil {
		return launched{}, err
	}
	st := launched{p: p}
	fail := func(what string, err error) (launched, error) {
		p.shutdown(e.cfg.Timeouts.Quit)
		return launched{}, fmt.Errorf("start engine %s: %s: %w", e.cfg.Path, what, err)
	}
	if err := p.write("uci"); err != nil {
		return fail("handshake", err)
	}
	err = e.readUntil(ctx, p, e.cfg.Timeouts.Handshake, "uciok", func(line string) bool {
		f := strings.Fields(line)
		if len(f) == 0 {
			return false
		}
		switch f[0] {
		case "uciok":
			return true
		case "id":
			if len(f) >= 3 && f[1] == "name" {
				st.name = restAfterToken(line, 1)
			} else if len(f) >= 3 && f[1] == "author" {
				st.author = restAfterToken(line, 1)
			}
		case "option":
			o, err := ParseOption(line)
			if err != nil {
				e.log.Warn().Err(err).Msg("ignoring malformed option line")
				return false
			}
			st.options = append(st.options, o)
		}
		return false
	})
	if err != nil {
		return fail("handshake", err)
	}
	for _, cmd := range e.optionCommands(st.options) {
		if cmd.err != nil {
			return fail("set options", cmd.err)
		}
		if err := p.write(cmd.line); err != nil {
			return fail("set options", err)
		}
	}
	if newGame {
		if err := p.write("ucinewgame"); err != nil {
			return fail("new game", err)
		}
	}
	if err := e.sync(ctx, p); err != nil {
		return fail("isready", err)
	}
	return st, nil
}

type optionCommand struct {
	line string
	err  error
}

// optionCommands validates the configured options, then those set later
// with SetOption, against the advertised specs, each group in a stable
// (sorted by name) order.
func (e *ExternalEngine) optionCommands(specs []OptionSpec) []optionCommand {
	e.mu.Lock()
	later := maps.Clone(e.setOpts)
	e.mu.Unlock()
	var out []optionCommand
	for _, opts := range []map[string]string{e.cfg.Options, later} {
		for _, n := range slices.Sorted(maps.Keys(opts)) {
			line, err := optionLine(specs, n, opts[n])
			if err != nil {
				return append(out, optionCommand{err: err})
			}
			out = append(out, optionCommand{line: line})
		}
	}
	return out
}

// optionLine validates one option and returns its setoption line.
func optionLine(specs []OptionSpec, name, value string) (string, error) {
	o, ok := FindOption(specs, name)
	if !ok {
		known := make([]string, len(specs))
		for i, s := range specs {
			known[i] = s.Name
		}
		return "", fmt.Errorf("%w %q (the engine has: %s)", ErrUnknownOption, name, strings.Join(known, ", "))
	}
	v, err := o.Validate(value)
	if err != nil {
		return "", err
	}
	return setOptionCommand(o, v), nil
}

// SetOption sets an option while no search runs (e.g. UCI_Chess960 or
// Ponder before a game) and waits for the engine to be ready. The name is
// checked against the advertised options. Options other than buttons are
// remembered and set again after a Restart.
func (e *ExternalEngine) SetOption(ctx context.Context, name, value string) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	p, err := e.current()
	if err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	e.mu.Lock()
	specs := e.options
	e.mu.Unlock()
	line, err := optionLine(specs, name, value)
	if err != nil {
		return fmt.Errorf("set option: %w", err)
	}
	if err := p.write(line); err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	if o, _ := FindOption(specs, name); o.Type != OptionButton {
		e.mu.Lock()
		if e.setOpts == nil {
			e.setOpts = make(map[string]string)
		}
		e.setOpts[o.Name] = value
		e.mu.Unlock()
	}
	if err := e.sync(ctx, p); err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	return nil
}

func (e *ExternalEngine) install(st launched) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.proc = st.p
	e.name, e.author, e.options = st.name, st.author, st.options
	e.log = e.cfg.Logger.With().Str("engine", st.name).Logger()
}

// readUntil hands lines to fn until fn returns true. It fails when the
// engine dies, when timeout passes (the engine is then killed) or when ctx is
// done.
func (e *ExternalEngine) readUntil(ctx context.Context, p *process, timeout time.Duration, what string, fn func(string) bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return fmt.Errorf("wait for %s: %w", what, p.diedErr())
			}
			if fn(line) {
				return nil
			}
		case <-t.C:
			p.kill()
			return fmt.Errorf("wait for %s: no answer in %v: %w: %w", what, timeout, ErrEngineUnresponsive, ErrEngineDied)
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, ctx.Err())
		}
	}
}

// sync sends "isready" and reads up to the matching "readyok", discarding
// everything before it. The engine answers in order, so whatever an earlier
// search printed late (after its bestmove) is behind us afterwards.
func (e *ExternalEngine) sync(ctx context.Context, p *process) error {
	if err := p.write("isready"); err != nil {
		return err
	}
	p.readyDebt++
	return e.readUntil(ctx, p, e.cfg.Timeouts.Ready, "readyok", func(line string) bool {
		f := strings.Fields(line)
		if len(f) == 0 {
			return false
		}
		switch f[0] {
		case "readyok":
			p.readyDebt--
			return p.readyDebt == 0
		case "bestmove":
			e.log.Warn().Str("line", line).Msg("discarding stray bestmove")
		}
		return false
	})
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
// for the start position) and the moves played from it, in UCI notation.
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
		if !IsMove(m) {
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

// Go searches the current position and returns the engine's move. The search
// ends at the engine's own limits, at l.Deadline (the driver sends "stop"),
// or when ctx is done (then the error wraps ctx.Err() and the ExternalResult
// holds whatever the engine answered to "stop"). An engine that does not answer
// "stop" within the grace period is killed: the error wraps
// ErrEngineUnresponsive and ErrEngineDied, and the caller plays a fallback
// and calls Restart.
func (e *ExternalEngine) Go(ctx context.Context, l GoLimits) (ExternalResult, error) {
	if l.Ponder {
		return ExternalResult{}, errors.New("go: GoLimits.Ponder set; use GoPonder")
	}
	s, err := e.begin(ctx, l, false)
	if err != nil {
		return ExternalResult{}, err
	}
	return s.Wait(ctx)
}

// GoPonder starts "go ponder" with limits l (the clock limits that apply
// after ponderhit) on the current position, which should end with the move
// the engine expects the opponent to play. It returns at once. The search
// lives until PonderHit+Wait, Stop, or until ctx is done. l.Deadline counts
// from the ponderhit.
func (e *ExternalEngine) GoPonder(ctx context.Context, l GoLimits) (*ExternalSearch, error) {
	return e.begin(ctx, l, true)
}

func (e *ExternalEngine) begin(ctx context.Context, l GoLimits, ponder bool) (*ExternalSearch, error) {
	what := "go"
	if ponder {
		what = "go ponder"
	}
	e.opMu.Lock()
	defer e.opMu.Unlock()
	p, err := e.current()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	e.mu.Lock()
	pos := positionCommand(e.fen, e.moves)
	e.mu.Unlock()
	if err := p.write(pos); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := e.sync(ctx, p); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	l.Ponder = ponder
	s := &ExternalSearch{
		e:       e,
		p:       p,
		limits:  l,
		ponder:  ponder,
		grace:   e.cfg.Timeouts.StopGrace,
		log:     e.log,
		hitReq:  make(chan struct{}, 1),
		stopReq: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	e.mu.Lock()
	e.search = s
	e.mu.Unlock()
	if err := p.write(l.Command()); err != nil {
		err = fmt.Errorf("%s: %w", what, err)
		s.finish(ExternalResult{}, err) // frees the engine and releases Close
		return nil, err
	}
	go s.run(ctx)
	return s, nil
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

// ExternalResult is the outcome of a search of an external engine.
type ExternalResult struct {
	BestMove   string
	PonderMove string // from "bestmove ... ponder", else the second PV move; may be ""
	Score      Score  // the last score of the main line (multipv 1)
	Depth      int
	SelDepth   int
	Nodes      int64
	NPS        int64
	Time       time.Duration
	PV         []string
	// Stopped is true when the driver sent "stop" (deadline, Stop, or
	// context), false when the engine ended the search on its own limits.
	Stopped bool
}

// merge folds one info line into r. Lines for secondary PVs (multipv > 1)
// are ignored.
func (r *ExternalResult) merge(in Info) {
	if in.MultiPV > 1 {
		return
	}
	if in.Depth > 0 {
		r.Depth = in.Depth
	}
	if in.SelDepth > 0 {
		r.SelDepth = in.SelDepth
	}
	if in.Score.Kind != ScoreNone {
		r.Score = in.Score
	}
	if len(in.PV) > 0 {
		r.PV = in.PV
	}
	if in.Nodes > 0 {
		r.Nodes = in.Nodes
	}
	if in.NPS > 0 {
		r.NPS = in.NPS
	}
	if in.Time > 0 {
		r.Time = in.Time
	}
}

// setBest reads a "bestmove <move> [ponder <move>]" line.
func (r *ExternalResult) setBest(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("%w: %q has no move", ErrProtocol, line)
	}
	switch {
	case f[1] == "(none)" || f[1] == "0000":
		return ErrNoMove
	case !IsMove(f[1]):
		return fmt.Errorf("%w: malformed move in %q", ErrProtocol, line)
	}
	r.BestMove = f[1]
	if len(f) >= 4 && f[2] == "ponder" && IsMove(f[3]) && f[3] != "0000" {
		r.PonderMove = f[3]
	} else if len(r.PV) >= 2 && r.PV[0] == r.BestMove {
		r.PonderMove = r.PV[1]
	}
	return nil
}

// ExternalSearch is a running search of an external engine, started by
// GoPonder (or inside Go). Every search is read up to its own "bestmove" by
// the driver, whatever the caller does, so a bestmove is never attributed
// to a later search.
type ExternalSearch struct {
	e       *ExternalEngine
	p       *process
	limits  GoLimits
	ponder  bool
	grace   time.Duration
	log     zerolog.Logger
	hitReq  chan struct{}
	stopReq chan struct{}

	mu       sync.Mutex
	progress ExternalResult

	done chan struct{}
	res  ExternalResult // valid after done
	err  error          // valid after done
}

// Done is closed when the search has ended (bestmove read, or engine dead).
func (s *ExternalSearch) Done() <-chan struct{} { return s.done }

// Progress returns what the info lines said so far.
func (s *ExternalSearch) Progress() ExternalResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.progress
	r.PV = append([]string(nil), r.PV...)
	return r
}

// PonderHit tells the engine that the opponent played the expected move: the
// ponder search becomes a normal search under its limits (and
// GoLimits.Deadline starts counting). Then call Wait. On a search that has
// already ended PonderHit does nothing.
func (s *ExternalSearch) PonderHit() error {
	if !s.ponder {
		return errors.New("ponderhit: not a ponder search")
	}
	select {
	case <-s.done:
	case s.hitReq <- struct{}{}:
	default: // already requested
	}
	return nil
}

func (s *ExternalSearch) requestStop() {
	select {
	case s.stopReq <- struct{}{}:
	default:
	}
}

// Stop stops the search and returns once its bestmove was read (the caller
// of a ponder search discards it). An engine that does not answer within
// the stop grace period is killed.
func (s *ExternalSearch) Stop() (ExternalResult, error) {
	s.requestStop()
	<-s.done
	return s.res, s.err
}

// Wait waits for the search's bestmove. When ctx is done first, the search
// is stopped and the error wraps ctx.Err().
func (s *ExternalSearch) Wait(ctx context.Context) (ExternalResult, error) {
	select {
	case <-s.done: // an available result wins over a done ctx
		return s.res, s.err
	default:
	}
	select {
	case <-s.done:
		return s.res, s.err
	case <-ctx.Done():
		s.requestStop()
		<-s.done
		if s.err != nil {
			return s.res, s.err
		}
		return s.res, fmt.Errorf("wait for bestmove: %w", ctx.Err())
	}
}

// run reads the engine's output for this search up to its bestmove, and
// sends ponderhit and stop as asked. It is the only reader of the process
// output while the search lives.
func (s *ExternalSearch) run(ctx context.Context) {
	var res ExternalResult
	var deadlineC, graceC <-chan time.Time
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	after := func(d time.Duration) <-chan time.Time {
		t := time.NewTimer(d)
		timers = append(timers, t)
		return t.C
	}
	if !s.ponder && s.limits.Deadline > 0 {
		deadlineC = after(s.limits.Deadline)
	}
	pondering := s.ponder
	stopSent := false
	var cause error
	ctxDone := ctx.Done()
	stop := func(why string) {
		if stopSent {
			return
		}
		stopSent = true
		res.Stopped = true
		s.log.Debug().Str("why", why).Msg("stopping uci search")
		graceC = after(s.grace)
		if err := s.p.write("stop"); err != nil {
			s.log.Debug().Err(err).Msg("send stop")
		}
	}
	for {
		select {
		case line, ok := <-s.p.lines:
			if !ok {
				s.finish(res, fmt.Errorf("search: %w", s.p.diedErr()))
				return
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "bestmove":
				err := res.setBest(line)
				if err != nil {
					err = fmt.Errorf("search: %w", err)
				} else if cause != nil {
					err = fmt.Errorf("search: %w", cause)
				}
				s.finish(res, err)
				return
			case "info":
				if in, ok := ParseInfo(line); ok {
					res.merge(in)
					s.mu.Lock()
					s.progress = res
					s.mu.Unlock()
				}
			default:
				s.log.Debug().Str("line", line).Msg("ignoring engine output")
			}
		case <-s.hitReq:
			if pondering && !stopSent {
				pondering = false
				if err := s.p.write("ponderhit"); err != nil {
					s.log.Debug().Err(err).Msg("send ponderhit")
				}
				if s.limits.Deadline > 0 {
					deadlineC = after(s.limits.Deadline)
				}
			}
		case <-s.stopReq:
			stop("requested")
		case <-ctxDone:
			ctxDone = nil
			cause = ctx.Err()
			stop("context done")
		case <-deadlineC:
			deadlineC = nil
			stop("deadline")
		case <-graceC:
			s.p.kill()
			s.finish(res, fmt.Errorf("search: no bestmove %v after stop: %w: %w", s.grace, ErrEngineUnresponsive, ErrEngineDied))
			return
		}
	}
}

// finish records the outcome. The engine is free again before done closes,
// so a caller returning from Wait can start the next search at once.
func (s *ExternalSearch) finish(res ExternalResult, err error) {
	s.e.mu.Lock()
	if s.e.search == s {
		s.e.search = nil
	}
	s.e.mu.Unlock()
	s.res, s.err = res, err
	close(s.done)
}
