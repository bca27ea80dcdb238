package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// UCIOptions describe an external UCI engine.
type UCIOptions struct {
	Path    string
	Args    []string
	Dir     string            // working directory ("" inherits the daemon's)
	Options map[string]string // UCI options set after the handshake
	// Variant is the value of UCI_Variant for a per-variant engine (e.g.
	// "crazyhouse", "3check"), set at each NewGame; the engine must list
	// it. "" is a general engine: it plays standard chess, Chess960 and
	// games from a position (UCI_Variant "chess" when it has the option).
	Variant string
	// Ponder thinks on the opponent's time with "go ponder" and a real
	// "ponderhit" (only if the engine has the Ponder option).
	Ponder bool
	// Timeouts bound the waits on the engine (zero: the uci package's
	// defaults).
	Timeouts uci.Timeouts
	Logger   zerolog.Logger
}

// NewUCIPlayer returns a factory of players that choose moves with an
// external UCI engine: each player starts its own engine process, used for
// one game, and Close stops and reaps it.
//
// An engine that dies is handled in two ways: between moves (while
// pondering, or killed from outside) the next Position restarts it and the
// game goes on; during Think the error (wrapping uci.ErrEngineDied) goes to
// the worker, which plays a legal fallback move if no time is left, and
// otherwise closes this player and asks the factory for a fresh one.
func NewUCIPlayer(opts UCIOptions) PlayerFactory {
	return func(ctx context.Context) (Player, error) {
		e, err := uci.StartConfig(context.WithoutCancel(ctx), uci.ExternalConfig{
			Path: opts.Path, Args: opts.Args, Dir: opts.Dir, Options: opts.Options,
			Logger: opts.Logger, Timeouts: opts.Timeouts,
		})
		if err != nil {
			return nil, fmt.Errorf("uci player: %w", err)
		}
		return &uciPlayer{opts: opts, e: e, log: opts.Logger.With().Str("engine", e.Name()).Logger()}, nil
	}
}

// uciPlayer is one game of an external engine. Close may come from another
// goroutine while Think is abandoned: mu guards the fields and is never held
// while waiting for the engine.
type uciPlayer struct {
	opts UCIOptions
	e    *uci.ExternalEngine
	log  zerolog.Logger

	mu        sync.Mutex
	info      GameInfo
	ponderOK  bool     // the engine has the Ponder option and pondering is on
	moves     []string // the position last set by Position (what the engine searches next)
	last      uci.ExternalResult
	expect    []string            // after Think: the position, our move and the reply the engine expects
	lastClock MoveClock           // of the last Think, for Ponder
	pon       *uci.ExternalSearch // running "go ponder"
	ponMoves  []string            // the position it searches (ending with the expected reply)
	hit       bool                // Position matched ponMoves: Think sends ponderhit
}

func (p *uciPlayer) NewGame(ctx context.Context, gi GameInfo) error {
	p.stopPonder()
	if err := p.setVariant(ctx, gi); err != nil {
		return fmt.Errorf("uci player: %w", err)
	}
	_, hasPonder := uci.FindOption(p.e.Options(), "Ponder")
	if _, ok := uci.FindOption(p.e.Options(), "UCI_Chess960"); ok {
		if err := p.e.SetOption(ctx, "UCI_Chess960", fmt.Sprint(gi.Chess960)); err != nil {
			return fmt.Errorf("uci player: %w", err)
		}
	} else if gi.Chess960 {
		return fmt.Errorf("uci player: engine %s does not play Chess960 (no UCI_Chess960 option)", p.e.Name())
	}
	if hasPonder {
		if err := p.e.SetOption(ctx, "Ponder", fmt.Sprint(p.opts.Ponder)); err != nil {
			return fmt.Errorf("uci player: %w", err)
		}
	}
	if err := p.e.NewGame(ctx); err != nil {
		return fmt.Errorf("uci player: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.info = gi
	p.ponderOK = p.opts.Ponder && hasPonder
	p.moves, p.last, p.expect = nil, uci.ExternalResult{}, nil
	return nil
}

// setVariant sets the engine's UCI_Variant for the game: the per-variant
// engine's (UCIOptions.Variant), which it must list, or "chess" for a
// general engine that has the option. A general engine does not play a
// variant whose rules the worker does not know.
func (p *uciPlayer) setVariant(ctx context.Context, gi GameInfo) error {
	spec, has := uci.FindOption(p.e.Options(), "UCI_Variant")
	want := p.opts.Variant
	switch {
	case want == "" && !KnowsRules(gi.Variant):
		return fmt.Errorf("engine %s is not configured for %s: a per-variant engine plays it", p.e.Name(), gi.Variant)
	case want == "" && has && slices.Contains(spec.Vars, "chess"):
		want = "chess"
	case want == "":
		return nil
	case !has:
		return fmt.Errorf("engine %s cannot play %s: it has no UCI_Variant option", p.e.Name(), gi.Variant)
	case !slices.Contains(spec.Vars, want):
		return fmt.Errorf("engine %s cannot play %s: its UCI_Variant does not list %q", p.e.Name(), gi.Variant, want)
	}
	if err := p.e.SetOption(ctx, "UCI_Variant", want); err != nil {
		return fmt.Errorf("set UCI_Variant %s: %w", want, err)
	}
	return nil
}

// Position sets the moves played so far. A running ponder search on exactly
// this position is kept for Think (a ponder hit); any other is stopped. A
// dead engine is restarted here, so that a crash between moves costs no
// fallback move.
func (p *uciPlayer) Position(ctx context.Context, moves []string) error {
	p.mu.Lock()
	hit := p.pon != nil && slices.Equal(p.ponMoves, moves)
	p.hit = hit
	p.moves = append(p.moves[:0], moves...)
	fen := p.info.InitialFEN
	p.mu.Unlock()
	if !hit {
		p.stopPonder()
	}
	if !hit && !p.e.Alive() {
		p.log.Warn().Msg("uci engine died between moves; restarting it")
		if err := p.e.Restart(ctx); err != nil {
			return fmt.Errorf("uci player: %w", err)
		}
	}
	if err := p.e.Position(fen, moves); err != nil {
		return fmt.Errorf("uci player: %w", err)
	}
	return nil
}

// Think runs "go" with the clock situation (goLimits): the engine plans its
// own time from our clock reduced to the time left until the deadline.
func (p *uciPlayer) Think(ctx context.Context, c MoveClock) (Choice, error) {
	start := time.Now()
	ul, stopAt := goLimits(c, start)
	if !stopAt.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, stopAt)
		defer cancel()
	}

	p.mu.Lock()
	s, hit := p.pon, p.hit
	p.pon, p.ponMoves, p.hit = nil, nil, false
	p.lastClock = c
	p.mu.Unlock()

	var res uci.ExternalResult
	var err error
	if hit && s != nil {
		if err = s.PonderHit(); err == nil {
			res, err = s.Wait(ctx)
		}
		p.log.Debug().Bool("ponder_hit", true).Str("move", res.BestMove).Msg("uci ponder hit")
	} else {
		if s != nil {
			_, _ = s.Stop()
		}
		res, err = p.e.Go(ctx, ul)
	}
	if err != nil {
		// The deadline stopped the search: its best move so far is good.
		if res.BestMove != "" && errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, uci.ErrEngineDied) {
			err = nil
		} else {
			return Choice{}, fmt.Errorf("uci player: %w", err)
		}
	}
	p.mu.Lock()
	p.last, p.expect = res, nil
	if res.PonderMove != "" {
		p.expect = append(slices.Clone(p.moves), res.BestMove, res.PonderMove)
	}
	p.mu.Unlock()
	d := Choice{Move: res.BestMove, Depth: res.Depth, PV: res.PV, Nodes: uint64(max(res.Nodes, 0)), Duration: time.Since(start), Source: "search"}
	switch res.Score.Kind {
	case uci.ScoreCP:
		d.HasScore, d.ScoreCP = true, res.Score.Value
	case uci.ScoreMate:
		if res.Score.Value != 0 {
			d.HasScore, d.Mate = true, res.Score.Value
		}
	}
	return d, nil
}

// Ponder starts "go ponder" on the position last set (the one after our
// move) followed by the reply the engine expects, when that position ends
// with the move the engine chose and the engine named a reply.
func (p *uciPlayer) Ponder(ctx context.Context) error {
	p.mu.Lock()
	ok, last, c := p.ponderOK, p.last, p.lastClock
	var moves []string
	if n := len(p.expect); n > 0 && slices.Equal(p.moves, p.expect[:n-1]) {
		moves = slices.Clone(p.expect)
	}
	fen := p.info.InitialFEN
	white := p.info.White
	p.mu.Unlock()
	if !ok {
		return nil
	}
	if moves == nil {
		return errors.New("uci player: no expected reply to ponder on")
	}
	if err := p.e.Position(fen, moves); err != nil {
		return fmt.Errorf("uci player: ponder: %w", err)
	}
	// The clocks after the expected reply: ours lost this move's thinking
	// time and gained the increment; the opponent's is unknown, keep it.
	ul := uci.GoLimits{WTime: c.WTime, BTime: c.BTime, WInc: c.WInc, BInc: c.BInc}
	used := last.Time
	if white {
		ul.WTime = max(ul.WTime-used+ul.WInc, time.Millisecond)
	} else {
		ul.BTime = max(ul.BTime-used+ul.BInc, time.Millisecond)
	}
	s, err := p.e.GoPonder(ctx, ul)
	if err != nil {
		return fmt.Errorf("uci player: ponder: %w", err)
	}
	p.mu.Lock()
	p.pon, p.ponMoves, p.hit = s, moves, false
	p.mu.Unlock()
	return nil
}

// goLimits turns a clock situation into the limits of "go" at now: "go
// wtime … btime … winc … binc" with our clock reduced to the time left
// until the deadline (MoveClock.Clocks: the latency and the move overhead
// are off it), or "go movetime" for a fixed move time. The driver sends
// "stop" stopMargin before the deadline (GoLimits.Deadline); stopAt, half
// that margin before it, is when the player stops waiting for the answer
// to "stop" (zero without a deadline).
func goLimits(c MoveClock, now time.Time) (ul uci.GoLimits, stopAt time.Time) {
	if c.MoveTime > 0 {
		ul.MoveTime = c.MoveTime
	} else {
		wtime, btime := c.Clocks(now)
		// 0 would read as "no clock"; a flagged clock is 1 ms.
		ul = uci.GoLimits{WTime: max(wtime, time.Millisecond), BTime: max(btime, time.Millisecond), WInc: c.WInc, BInc: c.BInc}
	}
	if !c.Deadline.IsZero() {
		left := c.Left(now)
		ul.Deadline = max(left-stopMargin(left), time.Millisecond)
		stopAt = c.Deadline.Add(-stopMargin(left) / 2)
	}
	return ul, stopAt
}

// stopPonder stops and discards a running ponder search.
func (p *uciPlayer) stopPonder() {
	p.mu.Lock()
	s := p.pon
	p.pon, p.ponMoves, p.hit = nil, nil, false
	p.mu.Unlock()
	if s != nil {
		if _, err := s.Stop(); err != nil && !errors.Is(err, context.Canceled) {
			p.log.Debug().Err(err).Msg("stop ponder search")
		}
	}
}

func (p *uciPlayer) EndGame(ctx context.Context) error {
	p.stopPonder()
	return nil
}

// Close stops the engine ("quit", killed if need be) and reaps it.
func (p *uciPlayer) Close() error {
	p.stopPonder()
	return p.e.Close()
}
