package uci

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

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
	case !IsVariantMove(f[1]):
		return fmt.Errorf("%w: malformed move in %q", ErrProtocol, line)
	}
	r.BestMove = f[1]
	if len(f) >= 4 && f[2] == "ponder" && IsVariantMove(f[3]) && f[3] != "0000" {
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
//
// A panic here ends the engine's session: the process is killed (see
// process.crash) and the search ends with ErrEngineDied.
func (s *ExternalSearch) run(ctx context.Context) {
	var res ExternalResult
	var deadlineC, graceC <-chan time.Time
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	defer panics.Recover(func(e *panics.Error) {
		s.p.crash(e, "uci search reader")
		select {
		case <-s.done: // it had finished
		default:
			s.finish(res, fmt.Errorf("search: %w", s.p.diedErr()))
		}
	})
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
			if s.p.onLine != nil {
				s.p.onLine("search", line)
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
