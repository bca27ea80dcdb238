// Package search finds the best move of a position: iterative deepening
// principal-variation search with aspiration windows, quiescence, the usual
// pruning and reductions, a lock-free transposition table shared by several
// threads (lazy SMP), and clock-based time management.
//
// An Engine keeps its transposition table across the searches of a game
// (call NewGame between games). One Search runs at a time per Engine.
//
// Each search is stopped only through what its caller hands to that one
// search: its context, and optionally its own Signals (Stop, and PonderHit
// for a ponder search). Both persist: a stop or hit given before the search
// starts is honoured when it starts, and since every search gets a new
// context or Signals, nothing aimed at one search can reach the next. The
// Engine itself has no stop or ponder-hit state.
package search

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// Options configure an Engine.
type Options struct {
	Threads      int           // search threads (lazy SMP); <1 means 1
	HashMB       int           // transposition table size; <1 means 16
	MoveOverhead time.Duration // subtracted from the clock for lag (not from a fixed MoveTime)
	// Net is the evaluation network (engine/nnue); nil means the
	// hand-crafted evaluation (engine/eval), the default.
	Net *nnue.Net
}

// Limits say when a search stops. Zero values mean "no limit"; with no
// limit at all (and no clock), the search is infinite until stopped.
type Limits struct {
	Depth    int           // maximum depth in plies
	Nodes    uint64        // node budget (all threads; checked every ~1k nodes)
	MoveTime time.Duration // fixed time for this move, used whole (no overhead taken off, no early stop)
	Infinite bool          // search until stopped (Signals.Stop or the context)
	Mate     int           // stop once a mate in this many moves is found

	// Clock play. Used when WTime or BTime is set; the side to move's clock
	// decides.
	WTime, BTime time.Duration
	WInc, BInc   time.Duration
	MovesToGo    int

	// SearchMoves restricts the root to these moves (illegal ones ignored;
	// if none is legal, all moves are searched).
	SearchMoves []board.Move
	// MultiPV is the number of best root moves to find, each with its own
	// principal variation (<1 means 1).
	MultiPV int
	// Known, when set, is what an earlier search found for this root: an
	// exact score at a depth, and its best move (the per-game tree's
	// learning memory hands it over). Depth 1 is still searched (so that
	// there is a move of this search to play); then the known result
	// stands as the iteration of depth Known.Depth (at most the depth
	// before the limit: a depth limit's own depth is always searched, so
	// that "go depth N" is never answered by the memory alone and the
	// known move is checked at least once): its move goes first with the known score, the info callback
	// is told that depth, score and move, and iterative deepening goes on
	// at the next depth with the aspiration window round the known score.
	// Stopped before that next iteration completes, the search plays the
	// known move (or a move the next iteration proved better). Ignored
	// when that depth is below 2, when the move is not among the root moves (illegal,
	// or left out by SearchMoves), when the score is not within the mate
	// scores, with MultiPV above 1, and with Mate (a known mate would
	// answer "go mate N" after depth 1). nil (the default) searches every
	// depth.
	Known *KnownRoot

	// Ponder starts the search in ponder mode: no time limit until the
	// search's Signals.PonderHit, which turns it into a normal search with
	// these limits. The clock budget is measured from the PonderHit moment
	// unless PonderTimeFromStart is set. A ponder search without Signals
	// ends only when its context does.
	Ponder              bool
	PonderTimeFromStart bool

	// Tablebase, when set, is probed for WDL inside the search (not at the
	// root) right after a capture or pawn move, in positions of at most
	// TablebaseLimit pieces (0: as many as its largest table) that have no
	// castling rights, at depth TablebaseDepth or more (positions with
	// fewer pieces than the limit at any depth, and every position when
	// the limit is 0 or beyond the largest table, as in Stockfish). A win
	// or loss is scored
	// TBWin less (or more) the ply; a draw, and with
	// TablebaseRule50 a cursed win or blessed loss, 0. Info.TBHits counts
	// the probes that answered.
	Tablebase       *syzygy.Tablebase
	TablebaseDepth  int
	TablebaseLimit  int
	TablebaseRule50 bool
}

// KnownRoot is a root result found earlier (Limits.Known): Score, exact,
// from the side to move's view, at Depth, with best move Move.
type KnownRoot struct {
	Depth int
	Score int
	Move  board.Move
}

// TBWin is the score of a tablebase win at the root; at ply p it is
// TBWin - p. Tablebase wins have their own range, [TBWinInMaxPly, TBWin],
// below every mate score and above every evaluation (the evaluation is
// clamped below TBWinInMaxPly); like mate scores they count from the root,
// and the transposition table stores them relative to the node (see
// ScoreToTT).
const (
	TBWin         = MateInMaxPly - 1
	TBWinInMaxPly = TBWin - MaxPly // scores >= this are "we win by the tables" (or mate)
)

// Signals are the caller's handle on one search: Stop ends it, PonderHit
// turns it from pondering into a normal search. Make a new one for every
// search (the zero value is ready to use) and pass it to Search; either
// call may come from any goroutine, before the search starts, while it
// runs or after it ended. A call is never lost (the search honours it when
// it starts) and never reaches another search. The search reads them
// every 1024 nodes (two atomic loads, no allocation).
type Signals struct {
	stop atomic.Bool
	hit  atomic.Int64 // UnixNano of the first PonderHit; 0 before it
	// threads is 1 + the number of the engine's threads this search may
	// run (SetThreads); 0, the zero value, means all of them.
	threads atomic.Int32

	// changed is closed (and dropped, for the next waiter to make anew)
	// at each call of Stop, PonderHit or SetThreads: paused threads and a
	// search waiting for its stop or hit block on it instead of polling.
	// nil while nobody waits.
	mu      sync.Mutex
	changed chan struct{}
}

// SetThreads lets the search run on at most n of the engine's threads
// (n < 1: none, the search pauses); the zero Signals lets it run on all
// of them. It may be called at any time, also while the search runs: a
// thread numbered n or above pauses at its next check (every 1024 nodes,
// and before each iteration) until SetThreads lets it run again or the
// search is stopped. The main thread pauses only once it has completed
// depth 1, so that a search stopped while paused still has a searched
// move; while paused it keeps watching the search's time and node limits.
// A paused thread takes no CPU: it sleeps until SetThreads, Stop,
// PonderHit, the end of the search or (the main thread) its deadline
// wakes it. A CPU budget shared by several engines (package ponder) uses
// it to hand threads from one search to another.
func (s *Signals) SetThreads(n int) {
	s.threads.Store(int32(max(n, 0)) + 1)
	s.wake()
}

// mayRun reports whether thread id may search now.
func (s *Signals) mayRun(id int) bool {
	v := s.threads.Load()
	return v == 0 || int32(id) < v-1
}

// Stop ends the search as soon as possible; Search then returns the best
// move found so far (a legal move even when the stop came first).
func (s *Signals) Stop() {
	s.stop.Store(true)
	s.wake()
}

// Stopped reports whether Stop was called (not whether the search ended).
func (s *Signals) Stopped() bool { return s.stop.Load() }

// PonderHit turns a ponder search into a normal search under the limits it
// was started with, its clock starting now (the first call counts).
func (s *Signals) PonderHit() {
	if s.hit.CompareAndSwap(0, time.Now().UnixNano()) {
		s.wake()
	}
}

// changes returns a channel that is closed at the next change of s (wake).
// A waiter takes it before it looks at the state it waits on, so that a
// change made after that look is not lost: it closes the channel taken.
func (s *Signals) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// wake tells whoever waits on changes to look again.
func (s *Signals) wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// Info reports one completed iteration (or an aspiration failure, with Bound
// telling which side failed) of one MultiPV line.
type Info struct {
	Depth    int
	SelDepth int
	MultiPV  int   // 1-based line index
	Score    int   // centipawns from the side to move's view (or mate score)
	Mate     int   // moves to mate: >0 we mate, <0 we are mated, 0 no mate
	Bound    Bound // BoundExact, BoundLower (fail high) or BoundUpper (fail low)
	Nodes    uint64
	NPS      uint64        // Nodes per second of Time less Paused
	Time     time.Duration // since the search started
	// Paused is the part of Time the search spent paused with no thread
	// (Signals.SetThreads below 1, after depth 1): Time less Paused is the
	// time it searched.
	Paused time.Duration
	// KnownDepth is the depth whose iteration this search takes from
	// Limits.Known (0 when it searches every depth: no Known, or one it
	// ignores), the same in every Info of the search, depth 1's included.
	KnownDepth int
	Hashfull   int    // permille
	TBHits     uint64 // tablebase probes that answered (all threads)
	PV         []board.Move
}

// RootMove holds what the last search learned about one root move.
type RootMove struct {
	Move     board.Move
	Score    int   // from the side to move's view
	Bound    Bound // BoundExact, or BoundUpper when the move only failed low
	Depth    int   // depth of the iteration that last searched it
	SelDepth int
	Nodes    uint64 // nodes the main thread spent under this move (whole search)
	PV       []board.Move
}

// Result is the outcome of a search.
type Result struct {
	BestMove   board.Move // NoMove only when the position has no legal move
	PonderMove board.Move // expected reply (second PV move, or from the TT), may be NoMove
	Score      int
	Mate       int
	Depth      int
	SelDepth   int
	Nodes      uint64
	Time       time.Duration
	PV         []board.Move
	// RootMoves lists every searched root move, best first.
	RootMoves []RootMove
}

// Engine is a reusable searcher: it owns the transposition table and the
// per-thread state (history tables, evaluators, stacks).
type Engine struct {
	mu      sync.Mutex // one Search at a time; guards opts and threads
	opts    Options
	tt      *TT
	threads []*thread

	feat features // search features (all on; tests switch some off to measure them)

	nodesPub atomic.Uint64

	// liveHelpers counts the helper goroutines of this Engine's search that
	// have not yet finished (helperGroup.start); tests read it to check
	// that no helper is left running.
	liveHelpers atomic.Int32
}

// New returns an Engine with the given options.
func New(opts Options) *Engine {
	if opts.Threads < 1 {
		opts.Threads = 1
	}
	if opts.HashMB < 1 {
		opts.HashMB = 16
	}
	if opts.MoveOverhead < 0 {
		opts.MoveOverhead = 0
	}
	e := &Engine{opts: opts, tt: NewTT(opts.HashMB)}
	e.setThreads(opts.Threads)
	return e
}

func (e *Engine) setThreads(n int) {
	for len(e.threads) < n {
		e.threads = append(e.threads, newThread(e, len(e.threads)))
	}
	e.threads = e.threads[:n]
	e.opts.Threads = n
}

// SetThreads changes the number of search threads (waits for a running search).
func (e *Engine) SetThreads(n int) {
	if n < 1 {
		n = 1
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setThreads(n)
}

// SetHashMB resizes (and clears) the transposition table.
func (e *Engine) SetHashMB(mb int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tt.Resize(mb)
	e.opts.HashMB = e.tt.SizeMB()
}

// SetMoveOverhead sets the time reserved per move for lag.
func (e *Engine) SetMoveOverhead(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d < 0 {
		d = 0
	}
	e.opts.MoveOverhead = d
}

// SetNet makes n the evaluation of the following searches (nil: the
// hand-crafted evaluation) and clears the threads' evaluation caches. The
// net is shared by the threads and must not be changed afterwards.
func (e *Engine) SetNet(n *nnue.Net) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opts.Net = n
	for _, t := range e.threads {
		t.setNet(n)
	}
}

// Options returns the current options.
func (e *Engine) Options() Options {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opts
}

// NewGame clears the transposition table and all learned move-ordering
// statistics.
func (e *Engine) NewGame() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tt.Clear()
	for _, t := range e.threads {
		t.clearHistory()
	}
}

// TT gives direct access to the shared transposition table (the per-game
// tree seeds and peeks it). Stored scores are relative to the stored node.
func (e *Engine) TT() *TT { return e.tt }

// Probe looks a position key up in the transposition table.
func (e *Engine) Probe(key uint64) (TTEntry, bool) { return e.tt.Probe(key) }

// Nodes returns the node count of the running (or last) search, updated
// every few thousand nodes.
func (e *Engine) Nodes() uint64 { return e.nodesPub.Load() }

// Search searches pos (which is not modified; its move history is used for
// repetition detection) under lim, calling report (if not nil) from the
// search goroutine after each iteration. sig (may be nil) is this search's
// own Signals. It returns when a limit is reached, ctx is done or sig.Stop
// is called; in Infinite or ponder mode it does not return before one of
// the last two (or sig.PonderHit followed by the limits), even when the
// search is complete. A panic in any of its threads stops the others and
// goes on from Search on the caller's goroutine (a helper thread's as a
// *ThreadPanic); call Reset before searching again.
func (e *Engine) Search(ctx context.Context, pos *board.Position, lim Limits, sig *Signals, report func(Info)) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	start := time.Now()
	e.nodesPub.Store(0)
	e.tt.NewSearch()

	ctl := newControl(e, pos, lim, sig, start)
	// The context's end raises this search's own stop flag; a late call of
	// the function can only touch this search's control.
	if ctx.Err() != nil {
		ctl.halt()
	}
	defer context.AfterFunc(ctx, ctl.halt)()
	main := e.threads[0]
	for _, t := range e.threads {
		t.prepare(pos, ctl)
	}
	if len(main.rootMoves) == 0 {
		res := Result{Time: time.Since(start)}
		if pos.InCheck() {
			res.Score, res.Mate = -MateScore, 0
		}
		ctl.waitIfInfinite()
		return res
	}

	// A panic of a helper stops the search and goes on from here (see
	// ThreadPanic); one of the main thread leaves no helper running.
	var helpers helperGroup
	defer helpers.join(ctl)
	for _, t := range e.threads[1:] {
		helpers.start(t, ctl)
	}
	main.report = report
	main.iterate()
	main.report = nil
	ctl.waitIfInfinite()
	ctl.halt()
	helpers.wait()

	return e.bestThread().result(start)
}

// bestThread picks the thread whose best move the threads vote for, each
// vote weighted by how deep that thread got and how good its score is
// (lazy SMP); with one thread, or in MultiPV mode, it is the main thread.
func (e *Engine) bestThread() *thread {
	main := e.threads[0]
	if len(e.threads) == 1 || main.ctl.multiPV > 1 {
		return main
	}
	minScore := Infinity
	for _, t := range e.threads {
		if t.completedDepth > 0 {
			minScore = min(minScore, t.rootMoves[0].score)
		}
	}
	votes := map[board.Move]int{}
	for _, t := range e.threads {
		if t.completedDepth > 0 {
			votes[t.rootMoves[0].move] += (t.rootMoves[0].score - minScore + 14) * t.completedDepth
		}
	}
	best := main
	for _, t := range e.threads[1:] {
		if t.completedDepth == 0 {
			continue
		}
		bs, ts := best.rootMoves[0].score, t.rootMoves[0].score
		switch {
		case bs >= TBWinInMaxPly || ts >= TBWinInMaxPly:
			if ts > bs { // the shortest mate (or tablebase win) wins
				best = t
			}
		case ts > -TBWinInMaxPly && votes[t.rootMoves[0].move] > votes[best.rootMoves[0].move]:
			best = t
		}
	}
	return best
}

// waitIfInfinite blocks while the search must not return on its own:
// infinite mode until stopped, ponder mode until stopped or hit.
func (c *control) waitIfInfinite() {
	for {
		changed := c.sig.changes() // before the look: see Signals.changes
		if c.stopped() || (!c.lim.Infinite && !c.pondering()) {
			return
		}
		select {
		case <-changed: // Stop or PonderHit (or SetThreads: look again)
		case <-c.done: // the context
		}
	}
}

// control holds the limits and the stop state of one search, shared by its
// threads (the main thread alone decides about time). It is made anew for
// every search, so nothing in it outlives its search.
type control struct {
	stop        atomic.Bool   // raised (halt) by the context, a limit, or the end of the main thread
	done        chan struct{} // closed when stop is raised, for those that sleep (pause)
	sig         *Signals      // the caller's; never nil (own when the caller gave none)
	ownSig      Signals
	lim         Limits
	start       time.Time
	paused      time.Duration // the main thread's sleep in pause so far (Info.Paused); only it reads and writes it
	timed       bool          // a clock or movetime budget applies
	budget      timeBudget
	maxDepth    int
	searchMoves []board.Move
	multiPV     int
}

func newControl(e *Engine, pos *board.Position, lim Limits, sig *Signals, start time.Time) *control {
	c := &control{done: make(chan struct{}), sig: sig, lim: lim, start: start, maxDepth: MaxPly - 1, multiPV: max(lim.MultiPV, 1)}
	if c.sig == nil {
		c.sig = &c.ownSig
	}
	if lim.Depth > 0 && lim.Depth < c.maxDepth {
		c.maxDepth = lim.Depth
	}
	c.searchMoves = lim.SearchMoves
	if lim.Infinite {
		return c
	}
	remaining, inc := lim.WTime, lim.WInc
	if pos.SideToMove() == board.Black {
		remaining, inc = lim.BTime, lim.BInc
	}
	switch {
	case lim.MoveTime > 0:
		c.timed = true
		c.budget = movetimeBudget(lim.MoveTime)
	case lim.WTime > 0 || lim.BTime > 0:
		c.timed = true
		c.budget = allocate(Clock{Remaining: remaining, Increment: inc, MovesToGo: lim.MovesToGo}, e.opts.MoveOverhead)
	}
	return c
}

// halt raises the search's stop flag and wakes the threads that sleep
// (the first call; later ones do nothing). A control built without
// newControl (a literal in a test) has no done channel: only the flag is
// raised.
func (c *control) halt() {
	if c.stop.CompareAndSwap(false, true) && c.done != nil {
		close(c.done)
	}
}

// stopped reports whether the search must end: its context is done, its
// caller called Stop, or a limit was reached.
func (c *control) stopped() bool { return c.stop.Load() || c.sig.stop.Load() }

// pondering reports whether this is a ponder search not yet hit.
func (c *control) pondering() bool { return c.lim.Ponder && c.sig.hit.Load() == 0 }

// elapsed is the time counted against the budget: from the start, or from
// PonderHit for a ponder search (unless PonderTimeFromStart). A hit given
// before the search started counts from the hit: our clock ran since then.
func (c *control) elapsed(now time.Time) time.Duration {
	if c.lim.Ponder && !c.lim.PonderTimeFromStart {
		if hit := c.sig.hit.Load(); hit != 0 {
			return now.Sub(time.Unix(0, hit))
		}
	}
	return now.Sub(c.start)
}

// timeUp reports whether the hard limit has passed.
func (c *control) timeUp() bool {
	left, ok := c.hardLeft(time.Now())
	return ok && left <= 0
}

// hardLeft is the time left until the hard limit, and whether one
// applies now (not while pondering, nor without a clock or movetime).
func (c *control) hardLeft(now time.Time) (time.Duration, bool) {
	if !c.timed || c.pondering() {
		return 0, false
	}
	return c.budget.hard - c.elapsed(now), true
}

// softUp reports whether an iteration should not be started: no time is
// left until the soft limit scaled by scale (softLeft; never for scale 0,
// which no caller passes: softScale gives at least 0.4).
func (c *control) softUp(scale float64) bool {
	left, ok := c.softLeft(time.Now(), scale)
	return ok && left <= 0
}

// softLeft is the time left until the soft limit scaled by scale (see
// softUp); false when there is no such limit (untimed, pondering, or scale
// 0: no soft limit checked).
func (c *control) softLeft(now time.Time, scale float64) (time.Duration, bool) {
	if scale == 0 || !c.timed || c.pondering() {
		return 0, false
	}
	return c.budget.scaledSoft(scale) - c.elapsed(now), true
}

// MateMoves converts a score to moves-to-mate (0 when it is no mate score).
func MateMoves(score int) int {
	switch {
	case score >= MateInMaxPly:
		return (MateScore - score + 1) / 2
	case score <= -MateInMaxPly:
		return -(MateScore + score) / 2
	}
	return 0
}

// features switch individual search techniques, so tests and measurements
// can see what each is worth. The zero value (everything on) is what
// engines use.
type features struct {
	noRFP, noRazor, noNull, noIIR, noSingular, noLMP, noFutility, noSEEPrune, noLMR, noCheckExt, noDelta, noAspiration, noQChecks bool

	// checkNet (tests): every evaluation with the network bypasses the
	// evaluation cache and is compared with the reference Net.Evaluate;
	// the thread counts the comparisons and the differences.
	checkNet bool
}
