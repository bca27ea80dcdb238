package client

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/logging"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// BuiltinOptions configure the built-in engine player.
type BuiltinOptions struct {
	// HashMB is the transposition table of one game, in MiB (<1: 16).
	HashMB int
	// Threads is the most search threads of one search (<1: 1).
	Threads int
	// CPU is the thread budget that all the games' searches share,
	// thinking and pondering together (ponder.CPUShare): a game that must
	// move takes threads from games that only ponder. nil: NewBuiltinPlayer
	// makes one of runtime.NumCPU() threads for its games. Give the same
	// one to the factories that replace each other (a reloaded
	// configuration), so that old and new games share it too.
	CPU *ponder.CPUShare
	// TreeMB caps the persistent search tree of one game, in MiB (<1: 4).
	TreeMB int
	// Ponder thinks on the opponent's time.
	Ponder bool
	// Net is the evaluation network (nil: the hand-crafted evaluation),
	// shared by all games.
	Net *nnue.Net
	// VarietyCP plays a random move among those within this many
	// centipawns of the best (0: always the best).
	VarietyCP int
	// Seed seeds the variety choice; 0 takes one from the clock.
	Seed int64
	// Books are the opening books by variant, "standard" (which also
	// serves fromPosition games) and "chess960", asked in order before each
	// search (ponder.Options.Books); BookOptions says how a move is chosen.
	// Books are read-only and shared by all games.
	Books       map[string][]*book.Book
	BookOptions book.Options
	// Tablebase (nil: none) holds the Syzygy tables probed before each
	// search (ponder.Options.Tablebase), shared by all games;
	// TablebaseIgnore50 leaves the fifty-move counter out of their choice.
	Tablebase         *syzygy.Tablebase
	TablebaseIgnore50 bool
	// TablebaseProbeDepth and TablebaseProbeLimit set the search's probes
	// (ponder.Options).
	TablebaseProbeDepth int
	TablebaseProbeLimit int
	// Memory (nil: none) is the learning memory shared by all games
	// (ponder.Options.Memory), each recording under its Lichess game id;
	// the game's result is told to it (GameResult). It is not refreshed
	// as games start: the bot's own writes keep a store.Memory's copy
	// exact, and reloading it (up to 100k rows) would cost each game.
	Memory ponder.Memory
	// MaxDepth, when > 0, caps the search of each of our moves at this
	// depth in plies: a weaker, faster player (the demo, tests).
	MaxDepth int
	// Logger is the bot's logger; each game logs through a child with the
	// game's fields (one "move stats" line per move of ours).
	Logger zerolog.Logger
}

// NewBuiltinPlayer returns a factory of players that choose moves with
// ponderosa's own engine: one ponder.Game (search engine, transposition
// table and persistent tree) per game, kept for the whole game, pondering
// on the opponent's time when asked. The searches of all its games share
// opts.CPU.
func NewBuiltinPlayer(opts BuiltinOptions) PlayerFactory {
	if opts.CPU == nil {
		opts.CPU = ponder.NewCPUShare(runtime.NumCPU())
	}
	return func(ctx context.Context) (Player, error) {
		return &builtinPlayer{opts: opts}, nil
	}
}

// builtinPlayer is one game of the built-in engine. The worker calls it
// from one goroutine at a time, but Close may come from another one while a
// Think is abandoned: mu guards the fields, never held while searching.
type builtinPlayer struct {
	opts BuiltinOptions

	mu       sync.Mutex
	g        *ponder.Game
	log      zerolog.Logger
	startFEN string
	chess960 bool
	closed   bool
	thinking sync.WaitGroup // Think calls in flight (Close waits for them)
}

func (p *builtinPlayer) game() (*ponder.Game, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("builtin player closed")
	}
	if p.g == nil {
		return nil, errors.New("builtin player: no game started")
	}
	return p.g, nil
}

func (p *builtinPlayer) NewGame(ctx context.Context, gi GameInfo) error {
	if !KnowsRules(gi.Variant) {
		return fmt.Errorf("builtin player: the built-in engine does not play %s", gi.Variant)
	}
	seed := p.opts.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	log := logging.ForGame(p.opts.Logger, gi.ID, gi.Opponent)
	g := ponder.NewGame(ponder.Options{
		HashMB:    p.opts.HashMB,
		Threads:   p.opts.Threads,
		CPU:       p.opts.CPU,
		TreeMB:    p.opts.TreeMB,
		Ponder:    p.opts.Ponder,
		VarietyCP: p.opts.VarietyCP,
		Net:       p.opts.Net,
		Seed:      seed,
		Logger:    log,
		// Opening books: those of the game's variant.
		Books:       p.opts.Books[bookVariant(gi)],
		BookOptions: p.opts.BookOptions,
		// Endgame tablebases, shared.
		Tablebase:           p.opts.Tablebase,
		TablebaseIgnore50:   p.opts.TablebaseIgnore50,
		TablebaseProbeDepth: p.opts.TablebaseProbeDepth,
		TablebaseProbeLimit: p.opts.TablebaseProbeLimit,
		// The learning memory, shared.
		Memory:     p.opts.Memory,
		MemoryGame: gi.ID,
		// The worker's deadline already leaves the move overhead and the
		// measured latency: our clock given to Think is what is left.
		MoveOverhead: 0,
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		g.Close()
		return errors.New("builtin player closed")
	}
	if p.g != nil {
		p.g.Close()
	}
	p.g, p.log = g, log
	p.startFEN, p.chess960 = gi.InitialFEN, gi.Chess960
	if err := g.SetPosition(p.startFEN, p.chess960, nil); err != nil {
		return fmt.Errorf("builtin player: start position: %w", err)
	}
	return nil
}

// bookVariant is the key of engine.book.files whose books serve gi:
// chess960 for Chess960 games, standard for the others.
func bookVariant(gi GameInfo) string {
	if gi.Chess960 || gi.Variant == "chess960" {
		return "chess960"
	}
	return "standard"
}

// Position sets the moves played so far. A ponder search that searched this
// very position is kept running: the next Think turns it into our move's
// search (a ponder hit); any other ponder search is stopped by Think, its
// work kept in the tree and the transposition table.
func (p *builtinPlayer) Position(ctx context.Context, moves []string) error {
	g, err := p.game()
	if err != nil {
		return err
	}
	p.mu.Lock()
	fen, c960 := p.startFEN, p.chess960
	p.mu.Unlock()
	if err := g.SetPosition(fen, c960, moves); err != nil {
		return fmt.Errorf("builtin player: set position: %w", err)
	}
	return nil
}

// Think decides our move with ponder, which owns the budget (PlanMove):
// it sees our clock as the time left until the deadline, or the fixed move
// time when the clock situation has one.
func (p *builtinPlayer) Think(ctx context.Context, c MoveClock) (Choice, error) {
	p.mu.Lock()
	g := p.g
	switch {
	case p.closed:
		p.mu.Unlock()
		return Choice{}, errors.New("builtin player closed")
	case g == nil:
		p.mu.Unlock()
		return Choice{}, errors.New("builtin player: no game started")
	}
	p.thinking.Add(1) // under mu: Close sets closed under mu before it waits
	p.mu.Unlock()
	defer p.thinking.Done()
	pl, stopAt := builtinLimits(c, p.opts.MaxDepth, time.Now())
	if !stopAt.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, stopAt)
		defer cancel()
	}
	d, err := g.Think(ctx, pl, nil)
	if err != nil {
		return Choice{}, fmt.Errorf("builtin player: %w", err)
	}
	if d.NoMove || d.UCI == "" {
		return Choice{}, errors.New("builtin player: no legal move in this position")
	}
	out := Choice{Move: d.UCI, Depth: d.Depth, PV: d.PV, Nodes: d.Nodes, Duration: d.Time, Source: d.Source.String()}
	if ms, ok := g.LastMove(); ok {
		out.Engine = &EngineFacts{Predicted: ms.Predicted, PonderHit: ms.PonderHit, PonderTop3: ms.PonderTop3,
			Rerooted: ms.TreeNodesBefore > 0, KeptFraction: ms.KeptFraction,
			TreeBytes: int64(ms.TreeBytes), HashBytes: int64(g.Engine().TT().SizeMB()) << 20}
	}
	if d.Source != ponder.FromForced && d.Source != ponder.FromBook && d.Source != ponder.FromTablebase { // no search, no score
		out.HasScore = true
		out.Mate = d.Mate
		if d.Mate == 0 {
			out.ScoreCP = d.Score
		}
	}
	if d.TB.Known {
		// The local tables hold the position: the draw and resign rules
		// (game.draw.tablebase, game.resign.tablebase) use their result.
		out.TB = TBResult{Known: true, WDL: int(d.TB.WDL), Source: "syzygy"}
	}
	return out, nil
}

// Ponder thinks on the opponent's time, in the position set by the last
// Position (the one after our move), until the next Position, Think or
// EndGame.
func (p *builtinPlayer) Ponder(ctx context.Context) error {
	if !p.opts.Ponder {
		return nil
	}
	g, err := p.game()
	if err != nil {
		return err
	}
	g.StartPonder(ctx)
	return nil
}

// stopPonder stops a ponder search (a move was chosen without Think).
func (p *builtinPlayer) stopPonder() {
	if g, err := p.game(); err == nil {
		_ = g.StopPonder()
	}
}

func (p *builtinPlayer) EndGame(ctx context.Context) error {
	g, err := p.game()
	if err != nil {
		return nil
	}
	return g.StopPonder()
}

// GameResult implements ResultTaker: the learning memory (if any) hears
// the result (win, loss, draw; others are not told).
func (p *builtinPlayer) GameResult(result string) {
	g, err := p.game()
	if err != nil {
		return
	}
	switch result {
	case resultWin:
		g.GameOver(ponder.ResultWin)
	case resultLoss:
		g.GameOver(ponder.ResultLoss)
	case resultDraw:
		g.GameOver(ponder.ResultDraw)
	}
}

// builtinLimits turns a clock situation into ponder's limits at now: both
// clocks and increments, ours reduced to the time left until the deadline
// (MoveClock.Clocks), the fixed move time if any, and the depth cap.
// stopAt is when the search is stopped at the latest: the deadline less
// stopMargin (zero without a deadline).
func builtinLimits(c MoveClock, maxDepth int, now time.Time) (lim ponder.ThinkLimits, stopAt time.Time) {
	wtime, btime := c.Clocks(now)
	lim = ponder.ThinkLimits{WTime: wtime, BTime: btime, WInc: c.WInc, BInc: c.BInc, MoveTime: c.MoveTime, Depth: maxDepth}
	if !c.Deadline.IsZero() {
		stopAt = c.Deadline.Add(-stopMargin(c.Left(now)))
	}
	return lim, stopAt
}

// Close stops any search and frees the game's tree and table. It logs the
// game's pondering summary through the game logger. A Think abandoned by
// the worker (past its deadline) is stopped and waited for, briefly, so
// that the game is not closed under it.
// PonderGame returns the ponder.Game of the game being played (nil before
// NewGame and after Close), for viewers such as the web view, which use
// only its Snapshot, Watch and Expand. See PonderGamer.
func (p *builtinPlayer) PonderGame() *ponder.Game {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.g
}

func (p *builtinPlayer) Close() error {
	p.mu.Lock()
	g := p.g
	p.g, p.closed = nil, true
	p.mu.Unlock()
	if g == nil {
		return nil
	}
	g.Stop()
	done := make(chan struct{})
	go func() { p.thinking.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.log.Warn().Msg("builtin player: a search did not stop within 5s; closing anyway")
	}
	g.Close()
	return nil
}
