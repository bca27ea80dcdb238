package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
	"github.com/ponderosa-chess/ponderosa/logging"
)

// OnlineSource is one online knowledge source of the online player, with
// the rules of when it is asked.
type OnlineSource struct {
	Source online.Source
	// Timeout bounds one question (<= 0: 2 s). All the sources of a move
	// share one budget, half of the time left until the move's deadline
	// when the first is asked: a question gets the least of its timeout
	// and what is left of that budget, and a source left with less than
	// onlineMinAsk is not asked. A source's time comes off our clock (our
	// engine starts only once the sources missed), but our engine always
	// has at least the other half.
	Timeout time.Duration
	// MinTime is the least time on our clock (MoveClock.WTime or BTime:
	// before the clocks run, the whole clock, not the first-move
	// expiration) for the source to be asked: on a shorter clock our own
	// engine moves.
	MinTime time.Duration
	// MaxMisses stops asking the source for the rest of the game after
	// this many misses in a row (no move, a failure, a move that is not
	// legal); 0: never stop.
	MaxMisses int
	// Skip, when set, leaves the source out in the positions it reports
	// (a skip, no miss): the Lichess tablebase in a position that the
	// built-in engine's local Syzygy tables hold (their move is played at
	// once, and costs no request).
	Skip func(online.Position) bool
}

// OnlineOptions configure NewOnlinePlayer.
type OnlineOptions struct {
	// Sources are asked in this order, before our own engine; the first
	// legal move one of them gives is played.
	Sources []OnlineSource
	// Logger is the bot's logger; each game logs through a child with the
	// game's fields.
	Logger zerolog.Logger
}

// NewOnlinePlayer returns a factory of players that ask online knowledge
// sources (the Lichess tablebase, cloud evaluation and opening explorer,
// chessdb: package online) for each of our moves before the player made by
// inner, in standard chess and in games from a position, and in Chess960
// those that serve it (online.Chess960Source: the tablebase, the cloud
// evaluation). A source is
// skipped when it does not apply to the position, when our clock holds
// less than its MinTime, when too little of the move's online budget (half
// the time left until the deadline) is left, inside a rate-limit cool-down
// of its service, or once it has missed MaxMisses times in a row in the
// game; a skip is no miss. Its answer is taken only if it is a legal move;
// anything else (a timeout, an HTTP error, an answer that cannot be read,
// an illegal move, no move) is a miss, and the next source, and at last
// the inner player, decides: an online source never costs a move, and
// the sources together take at most half the time left, leaving the other
// half to the inner player. The inner player is told every position as
// usual, so its game tree follows the moves it did not choose. With no
// source, it returns inner itself.
func NewOnlinePlayer(inner PlayerFactory, opts OnlineOptions) PlayerFactory {
	if len(opts.Sources) == 0 {
		return inner
	}
	return func(ctx context.Context) (Player, error) {
		p, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		return &onlinePlayer{inner: p, opts: opts, log: opts.Logger}, nil
	}
}

// onlinePlayer asks the online sources, then its inner player. The worker
// calls it from one goroutine at a time, but a Think it gave up on may
// still run when the next Position comes: mu guards the fields.
type onlinePlayer struct {
	inner Player
	opts  OnlineOptions

	mu     sync.Mutex
	info   GameInfo
	moves  []string
	misses []int // by source, in a row
	log    zerolog.Logger
}

func (p *onlinePlayer) NewGame(ctx context.Context, gi GameInfo) error {
	p.mu.Lock()
	p.info, p.moves = gi, nil
	p.misses = make([]int, len(p.opts.Sources))
	p.log = logging.ForGame(p.opts.Logger, gi.ID, gi.Opponent)
	p.mu.Unlock()
	return p.inner.NewGame(ctx, gi)
}

func (p *onlinePlayer) Position(ctx context.Context, moves []string) error {
	p.mu.Lock()
	p.moves = slices.Clone(moves)
	p.mu.Unlock()
	return p.inner.Position(ctx, moves)
}

// onlineVariant reports whether the online sources know the game's
// variant: standard chess, games from a position and Chess960 (chess960:
// then only the sources that serve it are asked; see servesGame).
func onlineVariant(gi GameInfo) (known, chess960 bool) {
	switch gi.Variant {
	case "", "standard", "fromPosition":
		return true, gi.Chess960
	case "chess960":
		return true, true
	}
	return false, false
}

// servesGame reports whether s is asked in a game: in Chess960 only a
// source that serves it (online.Chess960Source).
func servesGame(s online.Source, chess960 bool) bool {
	if !chess960 {
		return true
	}
	c, ok := s.(online.Chess960Source)
	return ok && c.ServesChess960()
}

func (p *onlinePlayer) Think(ctx context.Context, c MoveClock) (Choice, error) {
	if d, ok := p.ask(ctx, c); ok {
		// Our own engine does not think on this move: stop its pondering
		// (a ponder search of the position before would run on).
		if ps, ok := p.inner.(ponderStopper); ok {
			ps.stopPonder()
		}
		return d, nil
	}
	if ctx.Err() != nil {
		return Choice{}, ctx.Err()
	}
	return p.inner.Think(ctx, c)
}

// onlineMinAsk is the least time a question to a source gets: with less
// of the move's online budget left, the source is skipped (no miss).
const onlineMinAsk = 50 * time.Millisecond

// plyBounded is a Source that applies only up to some ply of the game
// (the opening explorer's max_ply): the online player asks it before it
// replays the game into a board.
type plyBounded interface {
	AppliesAtPly(ply int) bool
}

// coolingDown reports whether err is a refusal inside a rate-limit
// cool-down of the source's service (no request was sent): the source is
// skipped for the move, which is no miss.
func coolingDown(err error) bool {
	return errors.Is(err, lichess.ErrCoolingDown) || errors.Is(err, online.ErrCoolingDown)
}

// ourClock is our clock as MoveClock holds it (as received; before the
// clocks run it does not run either), less the time since start once it
// runs; without one (0), the time left until the deadline.
func ourClock(c MoveClock, start, now time.Time) time.Duration {
	clk := c.BTime
	if c.White {
		clk = c.WTime
	}
	if clk <= 0 {
		return c.Left(now)
	}
	if c.Running {
		clk -= now.Sub(start)
	}
	return clk
}

// ask asks the sources in order and returns the first legal move one
// gives. The sources share one budget: half of the time left until the
// deadline when ask starts.
func (p *onlinePlayer) ask(ctx context.Context, c MoveClock) (Choice, bool) {
	p.mu.Lock()
	info, moves, log := p.info, p.moves, p.log
	p.mu.Unlock()
	known, chess960 := onlineVariant(info)
	if !known {
		return Choice{}, false
	}
	start := time.Now()
	var onlineEnd time.Time // zero: no deadline, each source has its timeout
	if !c.Deadline.IsZero() {
		onlineEnd = start.Add(c.Left(start) / 2)
	}
	// The cheap rules first: only the sources they leave need the board.
	var cands []int
	for i, s := range p.opts.Sources {
		p.mu.Lock()
		misses := 0
		if i < len(p.misses) {
			misses = p.misses[i]
		}
		p.mu.Unlock()
		if s.MaxMisses > 0 && misses >= s.MaxMisses {
			continue
		}
		if !servesGame(s.Source, chess960) {
			continue
		}
		if pb, ok := s.Source.(plyBounded); ok && !pb.AppliesAtPly(len(moves)) {
			continue
		}
		cands = append(cands, i)
	}
	if len(cands) == 0 {
		return Choice{}, false
	}
	var b board
	for _, i := range cands {
		s := p.opts.Sources[i]
		name := s.Source.Name()
		now := time.Now()
		if !c.Deadline.IsZero() {
			if clk := ourClock(c, start, now); clk < s.MinTime {
				log.Debug().Str("source", name).Dur("clock", clk).Dur("min_time", s.MinTime).Msg("online source skipped: too little time on our clock")
				continue
			}
		}
		timeout := s.Timeout
		if timeout <= 0 {
			timeout = 2 * time.Second
		}
		if !onlineEnd.IsZero() {
			if timeout = min(timeout, onlineEnd.Sub(now)); timeout < onlineMinAsk {
				log.Debug().Str("source", name).Dur("budget_left", max(timeout, 0)).Msg("online source skipped: the move's online time is spent")
				continue
			}
		}
		if b == nil {
			// The board follows the same Chess960 flag as the questions:
			// a game from a position flagged Chess960 castles as one.
			variant := info.Variant
			if chess960 {
				variant = "chess960"
			}
			var err error
			if b, err = newBoard(variant, info.InitialFEN, moves); err != nil {
				log.Warn().Err(err).Msg("online sources: cannot replay the game")
				return Choice{}, false
			}
		}
		pos := online.Position{FEN: b.FEN(), Ply: len(moves), Chess960: chess960}
		if !s.Source.Applies(pos) {
			continue
		}
		if s.Skip != nil && s.Skip(pos) {
			log.Debug().Str("source", name).Msg("online source skipped: our own knowledge covers the position")
			continue
		}
		m, err := askSource(ctx, s.Source, pos, timeout)
		if err == nil {
			var canon string
			if canon, err = b.Legal(m.UCI); err == nil {
				m.UCI = canon
			} else {
				err = fmt.Errorf("%s answered %q, not a legal move: %w", name, m.UCI, err)
			}
		}
		if ctx.Err() != nil {
			return Choice{}, false
		}
		if err != nil && coolingDown(err) {
			log.Debug().Err(err).Str("source", name).Msg("online source skipped: its service is cooling down after a rate limit")
			continue
		}
		if err != nil {
			misses := 0
			p.mu.Lock()
			if i < len(p.misses) {
				p.misses[i]++
				misses = p.misses[i]
			}
			p.mu.Unlock()
			ev := log.Debug()
			if !errors.Is(err, online.ErrNoMove) {
				ev = log.Info()
			}
			ev = ev.Err(err).Str("source", name).Int("misses", misses).Dur("used", time.Since(now))
			if s.MaxMisses > 0 && misses >= s.MaxMisses {
				ev.Msg("online source missed: not asked again in this game")
			} else {
				ev.Msg("online source missed")
			}
			continue
		}
		p.mu.Lock()
		if i < len(p.misses) {
			p.misses[i] = 0
		}
		p.mu.Unlock()
		used := time.Since(now)
		log.Debug().Str("source", name).Str("move", m.UCI).Str("note", m.Note).Dur("used", used).Msg("online move")
		d := Choice{Move: m.UCI, Source: name, Note: m.Note, ScoreCP: m.ScoreCP, Mate: m.Mate, HasScore: m.HasScore,
			Depth: m.Depth, PV: []string{m.UCI}, Duration: used}
		if m.HasWDL {
			d.TB = TBResult{Known: true, WDL: m.WDL, Source: name}
		}
		return d, true
	}
	return Choice{}, false
}

// askSource asks s within timeout, and returns by then even if the source
// does not.
func askSource(ctx context.Context, s online.Source, pos online.Position, timeout time.Duration) (online.Move, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type out struct {
		m   online.Move
		err error
	}
	ch := make(chan out, 1)
	go func() {
		defer panics.Recover(func(e *panics.Error) { ch <- out{err: fmt.Errorf("%s: %w", s.Name(), e)} })
		m, err := s.Move(ctx, pos)
		ch <- out{m, err}
	}()
	select {
	case o := <-ch:
		return o.m, o.err
	case <-ctx.Done():
		return online.Move{}, fmt.Errorf("%s: no answer within %v: %w", s.Name(), timeout, ctx.Err())
	}
}

func (p *onlinePlayer) Ponder(ctx context.Context) error { return p.inner.Ponder(ctx) }

func (p *onlinePlayer) EndGame(ctx context.Context) error { return p.inner.EndGame(ctx) }

func (p *onlinePlayer) Close() error { return p.inner.Close() }

// GameResult implements ResultTaker for the inner player, when it takes
// results.
func (p *onlinePlayer) GameResult(result string) {
	if rt, ok := p.inner.(ResultTaker); ok {
		rt.GameResult(result)
	}
}

func (p *onlinePlayer) stopPonder() {
	if ps, ok := p.inner.(ponderStopper); ok {
		ps.stopPonder()
	}
}

// ponderStopper is a player that can stop its pondering without a Think,
// for a move chosen elsewhere (an online source).
type ponderStopper interface {
	stopPonder()
}
