package ponder

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/logging"
)

// Strategy says what to search on the opponent's time.
type Strategy int

const (
	// PonderPredicted (classic pondering) searches the position after the
	// predicted reply (the second move of our PV) in ponder mode; a ponder
	// hit converts that very search into our move's search.
	PonderPredicted Strategy = iota
	// PonderOpponent searches the position with the opponent to move,
	// which fills the tree and the TT for all replies; when the opponent
	// moves, a new search starts from what is there (or the tree answers at
	// once when the reply's node is deep enough).
	PonderOpponent
)

func (s Strategy) String() string {
	switch s {
	case PonderPredicted:
		return "predicted"
	case PonderOpponent:
		return "opponent"
	}
	return fmt.Sprintf("strategy(%d)", int(s))
}

// Options configure a Game.
type Options struct {
	HashMB       int           // transposition table (per game); <1 means 16
	Threads      int           // search threads; <1 means 1
	TreeMB       int           // memory cap for the tree's nodes; <1 means 4
	TreeNodes    int           // cap in nodes; overrides TreeMB when > 0 (tests, tuning)
	MoveOverhead time.Duration // reserved per move for lag
	Ponder       bool          // think on the opponent's time (StartPonder)
	Strategy     Strategy
	// PonderDepth and PonderNodes cap a background ponder search (0: no
	// cap). A capped search waits for the opponent's move; a hit that needs
	// more then starts a new search.
	PonderDepth int
	PonderNodes uint64
	// VarietyCP > 0 plays a random root move among those whose exact score
	// is within VarietyCP centipawns of the best (never when mating or
	// being mated). The search then finds VarietyLines lines (default 3).
	VarietyCP    int
	VarietyLines int
	Seed         int64 // seeds the Game's own RNG (variety)
	// IrreversibleAge is how many TT generations are skipped after an
	// irreversible move (capture, pawn move, lost castling right), so the
	// entries of positions that can no longer occur are replaced first.
	// 0 means the default (3); negative turns it off.
	IrreversibleAge int
	Logger          zerolog.Logger // the game's logger (zero value: silent)
}

// Limits of one Think, as a front end receives them (UCI "go" or a Lichess
// clock). Zero values mean "no limit".
type Limits struct {
	WTime, BTime time.Duration
	WInc, BInc   time.Duration
	MovesToGo    int
	MoveTime     time.Duration
	Depth        int
	Nodes        uint64
	Mate         int
	Infinite     bool
	SearchMoves  []string // UCI moves; illegal ones are an error
	MultiPV      int
	// Ponder is UCI "go ponder": the current position already ends with
	// the predicted reply. Think searches it in ponder mode and blocks
	// until PonderHit (then these limits apply, pondered time counted by
	// the budget rule) or Stop.
	Ponder bool
}

// Source tells where a decision came from.
type Source int

const (
	FromSearch       Source = iota // a search started for this move
	FromPonder                     // a ponder search converted on a hit (went on searching)
	FromPonderAtOnce               // a ponder hit deep enough: replied at once
	FromTree                       // the tree already held a deep enough result
	FromForced                     // the only legal move
)

func (s Source) String() string {
	return [...]string{"search", "ponder", "ponder-at-once", "tree", "forced"}[s]
}

// Decision is the answer of Think.
type Decision struct {
	Move      board.Move
	UCI       string
	Ponder    board.Move // expected reply (NoMove if unknown)
	PonderUCI string
	Score     int // centipawns from the side to move's view (or mate score)
	Mate      int
	Depth     int
	Nodes     uint64 // nodes of the search that produced the move
	Time      time.Duration
	PV        []string
	Source    Source
	Budget    Budget
	RootMoves []search.RootMove
	NoMove    bool // the position has no legal move (game over)
}

// ErrClosed is returned by every call after Close.
var ErrClosed = errors.New("ponder: game closed")

// ErrBusy is returned when a call needs the engine while Think runs.
var ErrBusy = errors.New("ponder: a search is running")

// run is one engine search (normal, UCI ponder or background ponder).
type run struct {
	node       nodeRef
	pos        *board.Position // position searched (private copy)
	rec        *board.Position // copy for recording PVs into the tree
	ply        int             // number of game moves up to pos
	background bool            // started by StartPonder
	ponder     bool            // started in ponder mode
	strategy   Strategy
	start      time.Time
	done       chan struct{}
	cancel     context.CancelFunc
	res        search.Result

	// guarded by Game.mu
	converted  bool // ponder search turned into our move's search (or a normal search)
	immediate  bool
	stopAsked  bool
	hitAt      time.Time
	lim        Limits
	budget     Budget
	timer      *time.Timer
	depth      int // last completed depth
	lastNodes  uint64
	nodesAtHit uint64
	lastBest   board.Move
	stable     int
	info       func(search.Info)
	userMPV    int
}

// prediction is what we expected the opponent to play at ply.
type prediction struct {
	ply  int
	move board.Move
	top3 []board.Move
}

// Game owns one engine (search.Engine with its TT) and one tree for one
// game. Its methods are safe for concurrent use (a UCI front end calls
// PonderHit and Stop while Think runs).
type Game struct {
	opts Options
	log  zerolog.Logger
	eng  *search.Engine
	rng  *rand.Rand

	mu       sync.Mutex
	closed   bool
	tree     *tree
	startFEN string
	chess960 bool
	moves    []board.Move
	uciMoves []string
	irrev    []bool // irrev[i]: moves[i] was irreversible
	rootPly  int    // the tree root is the position after moves[:rootPly]
	agedPly  int    // irreversible moves up to here were aged out of the TT
	// the predicted reply aged out when pondering on it started
	agedPredPly  int
	agedPredMove board.Move
	cur          int32 // node of the current position (descendant of the root)
	pos          *board.Position
	run          *run
	pred         *prediction
	depths       depthClock
	pending      MoveStats // stats gathered for the move being decided
	stats        GameStats
	searches     int // engine searches started
}

// NewGame returns a Game at the standard start position.
func NewGame(opts Options) *Game {
	if opts.TreeMB < 1 {
		opts.TreeMB = 4
	}
	if opts.VarietyLines < 2 {
		opts.VarietyLines = 3
	}
	if opts.IrreversibleAge == 0 {
		opts.IrreversibleAge = 3
	}
	capNodes := opts.TreeNodes
	if capNodes <= 0 {
		capNodes = opts.TreeMB * 1024 * 1024 / NodeBytes
	}
	g := &Game{
		opts: opts,
		log:  opts.Logger,
		eng:  search.New(search.Options{Threads: opts.Threads, HashMB: opts.HashMB}),
		rng:  rand.New(rand.NewSource(opts.Seed)),
		tree: newTree(capNodes),
	}
	g.tree.protect = g.protected
	g.stats.NodeBytes = NodeBytes
	if err := g.setPosition(board.StartFEN, false, nil); err != nil {
		panic(err) // the start position always parses
	}
	return g
}

// Engine exposes the game's engine (TT probes, options).
func (g *Game) Engine() *search.Engine { return g.eng }

// protected lists the nodes the trimmer keeps: the current position and the
// node of the running search. Called with g.mu held.
func (g *Game) protected() []int32 {
	p := []int32{g.cur}
	if g.run != nil && g.tree.valid(g.run.node) {
		p = append(p, g.run.node.idx)
	}
	return p
}

// SetPosition sets the game's position: startFEN ("" or "startpos" for the
// standard start) and the moves played since, in UCI notation. When it
// extends the current game (same start, the moves of the tree root as a
// prefix) the tree is kept and walked down; the re-rooting (which frees
// the other branches) is deferred to the next Think or PonderHit, so a
// pondered subtree survives a speculative "position … moves … ponder".
// Otherwise the tree starts over (the TT is kept; call NewGame to clear
// it).
func (g *Game) SetPosition(startFEN string, chess960 bool, moves []string) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	if g.run != nil && !g.run.background {
		g.mu.Unlock()
		return ErrBusy
	}
	g.mu.Unlock()
	if startFEN == "" || startFEN == "startpos" {
		startFEN = board.StartFEN
	}
	return g.setPosition(startFEN, chess960, moves)
}

// Play appends one move (ours or the opponent's, UCI notation) to the game.
func (g *Game) Play(move string) error {
	g.mu.Lock()
	fen, c960 := g.startFEN, g.chess960
	moves := append(append([]string(nil), g.uciMoves...), move)
	g.mu.Unlock()
	return g.SetPosition(fen, c960, moves)
}

func (g *Game) setPosition(startFEN string, chess960 bool, moves []string) error {
	pos, err := board.ParseFEN(startFEN)
	if err != nil {
		return fmt.Errorf("set position: %w", err)
	}
	pos.SetChess960(chess960)
	ms := make([]board.Move, 0, len(moves))
	irrev := make([]bool, 0, len(moves))
	norm := make([]string, 0, len(moves))
	for i, s := range moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return fmt.Errorf("set position: move %d (%s): %w", i+1, s, err)
		}
		irrev = append(irrev, irreversible(pos, m))
		ms = append(ms, m)
		norm = append(norm, pos.MoveToUCI(m))
		pos.MakeMove(m)
	}

	g.mu.Lock()
	extends := g.pos != nil && startFEN == g.startFEN && chess960 == g.chess960 && len(ms) >= g.rootPly
	if extends {
		for i := 0; i < g.rootPly; i++ {
			if ms[i] != g.moves[i] {
				extends = false
				break
			}
		}
	}
	var stale *run
	if !extends && g.run != nil {
		stale = g.run
		stale.stopAsked = true
	}
	g.mu.Unlock()
	if stale != nil {
		stale.cancel()
		<-stale.done
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if g.run == stale {
		g.run = nil
	}
	if extends {
		// Irreversible moves were aged out only along the old line.
		for i := g.rootPly; i < g.agedPly; i++ {
			if i >= len(ms) || i >= len(g.moves) || ms[i] != g.moves[i] {
				g.agedPly = i
				break
			}
		}
	}
	g.moves, g.uciMoves, g.irrev, g.pos = ms, norm, irrev, pos
	if !extends {
		g.startFEN, g.chess960 = startFEN, chess960
		g.tree.reset(pos.Key())
		g.rootPly, g.agedPly = len(ms), len(ms)
		g.cur = g.tree.root
		g.pred = nil
		return nil
	}
	// Walk from the root along the new moves (creating nodes as needed).
	p, err := board.ParseFEN(startFEN)
	if err != nil {
		return err
	}
	p.SetChess960(chess960)
	for _, m := range ms[:g.rootPly] {
		p.MakeMove(m)
	}
	cur := g.tree.root
	for _, m := range ms[g.rootPly:] {
		p.MakeMove(m)
		c := g.tree.ensureChild(cur, m, p.Key())
		if c == nilNode {
			return fmt.Errorf("set position: tree full")
		}
		cur = c
	}
	g.cur = cur
	return nil
}

// irreversible reports whether m (legal in p) makes every earlier position
// unreachable: a capture, a pawn move or a change of castling rights.
func irreversible(p *board.Position, m board.Move) bool {
	if p.IsCapture(m) || p.MovedPiece(m).Type() == board.Pawn {
		return true
	}
	before := p.CastlingRights()
	p.MakeMove(m)
	after := p.CastlingRights()
	p.UnmakeMove()
	return before != after
}

// commit re-roots the tree at the current position, releasing every other
// branch, and fills the move's stats. Called with g.mu held.
func (g *Game) commit() {
	ms := &g.pending
	t := g.tree
	before := t.live
	kept := t.subtreeSize(g.cur)
	freed := t.reroot(g.cur)
	ms.TreeNodesBefore = before
	ms.KeptNodes = kept
	if before > 0 {
		ms.KeptFraction = float64(kept) / float64(before)
	}
	ms.FreedNodes += freed
	if g.pred != nil && g.pred.ply >= g.rootPly && g.pred.ply < len(g.moves) {
		actual := g.moves[g.pred.ply]
		ms.Predicted = true
		ms.PonderHit = actual == g.pred.move
		for _, m := range g.pred.top3 {
			if m == actual {
				ms.PonderTop3 = true
			}
		}
		g.pred = nil
	}
	g.rootPly = len(g.moves)
}

// ageTT skips TT generations when an irreversible move lies between the
// last aged ply and the position about to be searched (ply moves, plus
// extra when the predicted reply is irreversible). Called with g.mu held.
func (g *Game) ageTT(ply int, extra bool) {
	if g.opts.IrreversibleAge < 0 {
		return
	}
	any := extra
	for i := g.agedPly; i < ply && i < len(g.irrev); i++ {
		if i == g.agedPredPly && g.moves[i] == g.agedPredMove {
			continue // aged when pondering started on it
		}
		any = any || g.irrev[i]
	}
	if ply > g.agedPly {
		g.agedPly = ply
	}
	if any {
		g.eng.TT().AgeOut(g.opts.IrreversibleAge)
		g.pending.Irreversible = true
	}
}

// NewGame clears the TT, the tree and the statistics, and sets the start
// position (UCI "ucinewgame").
func (g *Game) NewGame() error {
	if err := g.StopPonder(); err != nil {
		return err
	}
	g.mu.Lock()
	if g.run != nil {
		g.mu.Unlock()
		return ErrBusy
	}
	g.eng.NewGame()
	g.stats = GameStats{NodeBytes: NodeBytes}
	g.pending = MoveStats{}
	g.depths = depthClock{}
	g.pos = nil
	g.mu.Unlock()
	return g.setPosition(board.StartFEN, false, nil)
}

// Close ends the game: it stops any search and frees the tree.
func (g *Game) Close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	r := g.run
	if r != nil {
		r.stopAsked = true
	}
	g.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
	g.mu.Lock()
	g.run = nil
	g.tree = newTree(minTreeNodes)
	g.tree.reset(0)
	g.cur = g.tree.root
	g.mu.Unlock()
	g.log.Info().Int("moves", g.stats.Moves).Int("ponder_hits", g.stats.PonderHits).
		Int("predicted", g.stats.Predicted).Dur("time_saved", g.stats.TimeSaved).Msg("game closed")
}

// Stop ends the running search (Think returns its best move so far) and a
// background ponder search.
func (g *Game) Stop() {
	g.mu.Lock()
	if g.run != nil {
		g.run.stopAsked = true
		g.run.cancel()
	}
	g.mu.Unlock()
}

// StopPonder stops a background ponder search (the game ended, or the front
// end wants the engine) and keeps what it learnt in the tree and TT.
func (g *Game) StopPonder() error {
	g.mu.Lock()
	r := g.run
	if r == nil || !r.background {
		g.mu.Unlock()
		return nil
	}
	r.stopAsked = true
	g.mu.Unlock()
	r.cancel()
	<-r.done
	g.mu.Lock()
	if g.run == r {
		g.run = nil
	}
	g.mu.Unlock()
	return nil
}

// Pondering reports whether a background ponder search runs.
func (g *Game) Pondering() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.run != nil && g.run.background
}

// Searches is the number of engine searches this Game started.
func (g *Game) Searches() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.searches
}

// startRun launches r's search on its own goroutine. Called with g.mu held.
func (g *Game) startRun(ctx context.Context, r *run, slim search.Limits) {
	r.start = time.Now()
	r.done = make(chan struct{})
	// Runs are stopped by cancelling their own context (r.cancel; set
	// r.stopAsked first). Unlike Engine.Stop, whose flag the next Search
	// clears when it starts, a cancellation persists, so a stop given
	// before the goroutine enters Engine.Search is not lost. The caller's
	// context is watched here so that r.stopAsked is set when it ends.
	runCtx, cancelRun := context.WithCancel(context.Background())
	r.cancel = cancelRun
	stopAfter := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		if g.run == r {
			r.stopAsked = true
			r.cancel()
		}
		g.mu.Unlock()
	})
	g.run = r
	g.searches++
	g.stats.SearchesStarted++
	pos := r.pos.Clone()
	go func() {
		defer stopAfter()
		defer cancelRun()
		res := g.eng.Search(runCtx, pos, slim, func(inf search.Info) { g.onInfo(r, inf) })
		g.mu.Lock()
		r.res = res
		if r.timer != nil {
			r.timer.Stop()
		}
		if !g.closed {
			g.recordResult(r, res)
		}
		g.mu.Unlock()
		close(r.done)
	}()
}

// onInfo runs on the search goroutine after each iteration: it records the
// line into the tree and applies our time budget (soft stop).
func (g *Game) onInfo(r *run, inf search.Info) {
	g.mu.Lock()
	if g.closed {
		// A stop given before this search entered Engine.Search was
		// cleared by it: repeat it, or Close would wait forever.
		g.eng.Stop()
		g.mu.Unlock()
		return
	}
	if r.converted && r.ponder {
		// Re-issue the hit: one given before the search goroutine entered
		// Engine.Search was cleared by it. Our limits carry no clock, so
		// the engine's own hit time does not matter.
		g.eng.PonderHit()
	}
	if r.stopAsked {
		g.eng.Stop() // in case it came before the search started
	}
	if inf.Bound == search.BoundExact {
		g.recordLine(r, inf)
		if inf.MultiPV == 1 {
			r.depth = inf.Depth
			r.lastNodes = inf.Nodes
			g.depths.record(inf.Depth, inf.Time)
			if len(inf.PV) > 0 {
				if inf.PV[0] == r.lastBest {
					r.stable++
				} else {
					r.stable, r.lastBest = 0, inf.PV[0]
				}
			}
			g.checkSoft(r, inf)
		}
	}
	report := r.info
	mpv := r.userMPV
	g.mu.Unlock()
	if report != nil && inf.MultiPV <= max(mpv, 1) {
		report(inf)
	}
}

// checkSoft stops a converted search when our budget says so. Called with
// g.mu held.
func (g *Game) checkSoft(r *run, inf search.Info) {
	if !r.converted || r.stopAsked {
		return
	}
	stop := false
	if r.lim.Depth > 0 && inf.Depth >= r.lim.Depth {
		stop = true
	}
	if r.lim.Nodes > 0 && inf.Nodes-r.nodesAtHit >= r.lim.Nodes {
		stop = true
	}
	if b := r.budget; b.Timed && (inf.Depth >= 4 || r.ponder) {
		// Stability: a best move that keeps its place lets us stop earlier
		// (0.75 of Soft when stable for 6+ iterations, 1.25 just after a change).
		scale := 1.25 - 0.1*float64(min(r.stable, 5))
		soft := min(time.Duration(float64(b.Soft)*scale), b.Hard)
		if time.Since(r.hitAt) >= soft {
			stop = true
		}
	}
	if stop {
		r.stopAsked = true
		r.cancel()
	}
}

// recordLine writes one finished line (search root + PV) into the tree.
// Called with g.mu held.
func (g *Game) recordLine(r *run, inf search.Info) {
	if !g.tree.valid(r.node) || len(inf.PV) == 0 {
		return
	}
	if inf.MultiPV == 1 {
		g.tree.update(r.node.idx, inf.Score, search.BoundExact, inf.Depth, inf.PV[0])
		g.tree.pool[r.node.idx].nodes = inf.Nodes
	}
	g.recordPath(r, inf.PV, inf.Score, search.BoundExact, inf.Depth, 0)
}

// recordPath stores pv below the run's node: the node after pv[k] gets the
// score from its side to move's view, depth-(k+1), and pv[k+1] as best.
// rootNodes, when non-zero, is stored as the nodes spent on pv[0].
func (g *Game) recordPath(r *run, pv []board.Move, score int, bound search.Bound, depth int, rootNodes uint64) {
	t := g.tree
	i := r.node.idx
	p := r.rec
	made := 0
	for k, m := range pv {
		if m == board.NoMove || !p.IsLegal(m) {
			break
		}
		p.MakeMove(m)
		made++
		c := t.ensureChild(i, m, p.Key())
		if c == nilNode || !t.valid(r.node) {
			break
		}
		ply := k + 1
		s, b := search.ScoreToTT(score, ply), bound
		if ply%2 == 1 {
			s = -s
			b = flipBound(b)
		}
		best := board.NoMove
		if k+1 < len(pv) {
			best = pv[k+1]
		}
		t.update(c, s, b, max(depth-ply, 0), best)
		if k == 0 && rootNodes > 0 {
			t.pool[c].nodes = rootNodes
		}
		i = c
	}
	for ; made > 0; made-- {
		p.UnmakeMove()
	}
}

func flipBound(b search.Bound) search.Bound {
	switch b {
	case search.BoundLower:
		return search.BoundUpper
	case search.BoundUpper:
		return search.BoundLower
	}
	return b
}

// recordResult stores the root-move statistics of a finished search as
// children of the run's node, each with its PV below. Called with g.mu held.
func (g *Game) recordResult(r *run, res search.Result) {
	if !g.tree.valid(r.node) {
		return
	}
	if res.Depth > 0 && res.BestMove != board.NoMove {
		g.tree.update(r.node.idx, res.Score, search.BoundExact, res.Depth, res.BestMove)
		g.tree.pool[r.node.idx].nodes = res.Nodes
	}
	for _, rm := range res.RootMoves {
		if rm.Depth <= 0 {
			continue
		}
		pv := rm.PV
		if len(pv) == 0 || pv[0] != rm.Move {
			pv = []board.Move{rm.Move}
		}
		g.recordPath(r, pv, rm.Score, rm.Bound, rm.Depth, max(rm.Nodes, 1))
	}
}

// searchLimits translates our limits to the engine's (time is ours: the
// budget is applied by onInfo and a hard timer, so no clock goes down).
func (g *Game) searchLimits(lim Limits, pos *board.Position) (search.Limits, error) {
	sl := search.Limits{Depth: lim.Depth, Nodes: lim.Nodes, Mate: lim.Mate, Infinite: lim.Infinite,
		MultiPV: max(lim.MultiPV, 1)}
	if g.opts.VarietyCP > 0 {
		sl.MultiPV = max(sl.MultiPV, g.opts.VarietyLines)
	}
	for _, s := range lim.SearchMoves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return sl, fmt.Errorf("searchmoves: %w", err)
		}
		sl.SearchMoves = append(sl.SearchMoves, m)
	}
	return sl, nil
}

// armHard starts the hard-limit timer of a converted run. Called with g.mu held.
func (g *Game) armHard(r *run) {
	if !r.budget.Timed {
		return
	}
	r.timer = time.AfterFunc(r.budget.Hard, func() {
		g.mu.Lock()
		if g.run == r {
			r.stopAsked = true
			r.cancel()
		}
		g.mu.Unlock()
	})
}

// convert turns r (a ponder search on the current position) into the search
// for our move under lim: the budget counts the pondered time by the rule
// of PlanMove, and when the ponder search is already as deep as this
// move's budget would reach, it is stopped at once. Called with g.mu held.
func (g *Game) convert(r *run, lim Limits) {
	now := time.Now()
	pondered := now.Sub(r.start)
	b := PlanMove(lim, g.pos.SideToMove() == board.White, g.opts.MoveOverhead, pondered)
	r.converted, r.hitAt, r.lim, r.budget = true, now, lim, b
	r.nodesAtHit = max(r.lastNodes, g.eng.Nodes())
	g.pending.Pondered = pondered
	g.pending.DepthAtMove = max(g.pending.DepthAtMove, r.depth)
	immediate := false
	if lim.Depth > 0 && r.depth >= lim.Depth {
		immediate = true
	}
	if b.Timed && !lim.Infinite {
		if reach := g.depths.reachable(b.Base, 0); reach > 0 && r.depth >= reach {
			immediate = true
		}
		if b.Soft <= MinThink {
			immediate = true
		}
	}
	r.immediate = immediate
	g.eng.PonderHit()
	if immediate {
		r.stopAsked = true
		r.cancel()
		return
	}
	g.armHard(r)
}

// PonderHit tells a UCI "go ponder" search that the predicted move was
// played: the search goes on as our move's search. Harmless otherwise.
func (g *Game) PonderHit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.run
	if r == nil || r.background || !r.ponder || r.converted {
		return
	}
	g.commit()
	g.ageTT(len(g.moves), false)
	g.convert(r, r.lim)
}

// StartPonder starts thinking on the opponent's time after our move (the
// current position has the opponent to move) and returns at once. It does
// nothing when pondering is off, a search runs, or the game is over.
func (g *Game) StartPonder(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || !g.opts.Ponder || g.run != nil {
		return
	}
	pos := g.pos
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	if ml.N == 0 || pos.IsInsufficientMaterial() || pos.HalfmoveClock() >= 100 {
		return
	}
	pred := g.predict(pos, &ml)
	strategy := g.opts.Strategy
	if pred.move == board.NoMove {
		strategy = PonderOpponent
	}
	g.pred = &pred
	r := &run{background: true, ponder: true, strategy: strategy}
	node := g.cur
	rp := pos.Clone()
	ply := len(g.moves)
	if strategy == PonderPredicted {
		g.ageTT(ply, irreversible(rp, pred.move))
		g.agedPredPly, g.agedPredMove = ply, pred.move
		rp.MakeMove(pred.move)
		node = g.tree.ensureChild(g.cur, pred.move, rp.Key())
		if node == nilNode {
			return
		}
		ply++
		// a game-ending prediction leaves nothing to search
		var rl board.MoveList
		rp.GenerateLegal(&rl)
		if rl.N == 0 {
			return
		}
	} else {
		g.ageTT(ply, false)
	}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(node), rp, rp.Clone(), ply
	sl := search.Limits{Ponder: true, Depth: g.opts.PonderDepth, Nodes: g.opts.PonderNodes}
	if g.opts.VarietyCP > 0 {
		sl.MultiPV = g.opts.VarietyLines
	}
	g.startRun(ctx, r, sl)
	g.log.Debug().Int(logging.FieldPly, len(g.moves)).Str("strategy", strategy.String()).
		Str("predicted", moveString(pos, pred.move)).Msg("ponder start")
}

// predict chooses the expected reply in pos (the opponent to move): the
// best reply stored at the current node (our PV's second move), else the TT
// move; top3 ranks the replies known to the tree and the TT.
func (g *Game) predict(pos *board.Position, ml *board.MoveList) prediction {
	pr := prediction{ply: len(g.moves)}
	n := &g.tree.pool[g.cur]
	if n.best != board.NoMove && ml.Contains(n.best) {
		pr.move = n.best
	} else if e, ok := g.eng.Probe(pos.Key()); ok && e.Move != board.NoMove && ml.Contains(e.Move) {
		pr.move = e.Move
	}
	// Rank replies by what is known of them: value for the opponent
	// (negated score of the child position), deeper knowledge first.
	type known struct {
		m     board.Move
		depth int
		val   int
	}
	var ks []known
	p := pos.Clone()
	for _, m := range ml.Moves[:ml.N] {
		k := known{m: m, depth: -1}
		if c := g.tree.findChild(g.cur, m); c != nilNode && g.tree.pool[c].depth >= 0 {
			k.depth, k.val = int(g.tree.pool[c].depth), -int(g.tree.pool[c].score)
		} else {
			p.MakeMove(m)
			if e, ok := g.eng.Probe(p.Key()); ok && e.Bound != search.BoundNone {
				k.depth, k.val = e.Depth, -e.Score
			}
			p.UnmakeMove()
		}
		if k.depth >= 0 {
			ks = append(ks, k)
		}
	}
	if pr.move != board.NoMove {
		pr.top3 = append(pr.top3, pr.move)
	}
	for len(pr.top3) < 3 && len(ks) > 0 {
		bi := 0
		for i := range ks {
			if ks[i].val > ks[bi].val {
				bi = i
			}
		}
		if ks[bi].m != pr.move {
			pr.top3 = append(pr.top3, ks[bi].m)
		}
		ks = append(ks[:bi], ks[bi+1:]...)
	}
	return pr
}

func moveString(p *board.Position, m board.Move) string {
	if m == board.NoMove {
		return ""
	}
	return p.MoveToUCI(m)
}

// Think decides our move in the current position under lim, calling info
// (if not nil) after each iteration. In order: a running background ponder
// search on this very position (a ponder hit) is converted — or answers at
// once when deep enough; any other ponder search is stopped (its work stays
// in the tree and TT); a timed game with a single legal move, or a tree
// node already deeper than the budget reaches, answers without searching;
// otherwise a new search runs. With lim.Ponder it is UCI "go ponder".
func (g *Game) Think(ctx context.Context, lim Limits, info func(search.Info)) (Decision, error) {
	start := time.Now()
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return Decision{}, ErrClosed
	}
	if g.run != nil && !g.run.background {
		g.mu.Unlock()
		return Decision{}, ErrBusy
	}
	white := g.pos.SideToMove() == board.White
	slim, err := g.searchLimits(lim, g.pos)
	if err != nil {
		g.mu.Unlock()
		return Decision{}, fmt.Errorf("think: %w", err)
	}
	var ml board.MoveList
	g.pos.GenerateLegal(&ml)
	if ml.N == 0 {
		g.mu.Unlock()
		_ = g.StopPonder()
		return Decision{NoMove: true}, nil
	}

	if lim.Ponder {
		return g.thinkPonder(ctx, lim, slim, info)
	}

	g.pending.Ply = len(g.moves)
	var carried *Budget // budget left by a converted ponder search that stopped at its cap
	if r := g.run; r != nil {
		if r.strategy == PonderPredicted && g.tree.valid(r.node) && r.node.idx == g.cur && r.ply == len(g.moves) {
			// Ponder hit: the running search already searches this position.
			g.commit()
			g.ageTT(len(g.moves), false)
			r.background = false
			r.info, r.userMPV = info, max(lim.MultiPV, 1)
			g.convert(r, lim)
			d, again := g.awaitConverted(ctx, r, lim)
			if !again {
				return d, nil
			}
			// The ponder search stopped at its cap with budget left: search
			// on with what is left of the converted budget.
			left := r.budget
			spent := time.Since(r.hitAt)
			left.Soft = max(left.Soft-spent, MinThink)
			left.Hard = max(left.Hard-spent, MinThink)
			carried = &left
		} else {
			r.stopAsked = true
			g.mu.Unlock()
			r.cancel()
			<-r.done
			g.mu.Lock()
			if g.run == r {
				g.run = nil
			}
		}
	}
	g.commit()
	g.ageTT(len(g.moves), false)
	n := &g.tree.pool[g.cur]
	depthHere := int(n.depth)
	if e, ok := g.eng.Probe(g.pos.Key()); ok && e.Depth > depthHere {
		depthHere = e.Depth
	}
	g.pending.DepthAtMove = max(g.pending.DepthAtMove, depthHere)
	b := PlanMove(lim, white, g.opts.MoveOverhead, 0)
	if carried != nil {
		b = *carried
	}

	if b.Timed && lim.MoveTime == 0 && ml.N == 1 {
		d := Decision{Move: ml.Moves[0], Source: FromForced, Budget: b}
		d.Ponder = g.tree.pool[g.cur].best
		if c := g.tree.findChild(g.cur, ml.Moves[0]); c != nilNode {
			d.Ponder = g.tree.pool[c].best
		}
		return g.finish(d, start, nil), nil
	}
	if b.Timed && lim.MoveTime == 0 && len(lim.SearchMoves) == 0 && lim.MultiPV <= 1 && g.opts.VarietyCP == 0 &&
		n.depth > 0 && n.bound == search.BoundExact && n.best != board.NoMove && ml.Contains(n.best) {
		if reach := g.depths.reachable(b.Base, 0); reach > 0 && int(n.depth) >= reach {
			d := Decision{Move: n.best, Source: FromTree, Budget: b, Score: int(n.score), Depth: int(n.depth),
				Mate: search.MateMoves(int(n.score))}
			if c := g.tree.findChild(g.cur, n.best); c != nilNode {
				d.Ponder = g.tree.pool[c].best
			}
			return g.finish(d, start, nil), nil
		}
	}

	r := &run{strategy: PonderPredicted, converted: true, lim: lim, budget: b, info: info, userMPV: max(lim.MultiPV, 1)}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	g.startRun(ctx, r, slim)
	r.hitAt = r.start
	g.armHard(r)
	g.mu.Unlock()
	<-r.done
	g.mu.Lock()
	if g.run == r {
		g.run = nil
	}
	d := g.fromResult(r.res, FromSearch, b)
	return g.finish(d, start, &r.res), nil
}

// awaitConverted waits for a converted ponder search. It is called with
// g.mu held and returns with it released, unless again is true (the search
// ended at its own cap with budget left), when it returns with g.mu held.
func (g *Game) awaitConverted(ctx context.Context, r *run, lim Limits) (Decision, bool) {
	g.mu.Unlock()
	stopCtx := context.AfterFunc(ctx, func() { g.Stop() })
	<-r.done
	stopCtx()
	g.mu.Lock()
	if g.run == r {
		g.run = nil
	}
	res := r.res
	g.pending.NodesAfterHit = res.Nodes - min(res.Nodes, r.nodesAtHit)
	leftover := !r.stopAsked && !lim.Infinite && r.budget.Timed && time.Since(r.hitAt) < r.budget.Soft
	if lim.Depth > 0 && res.Depth < lim.Depth && !r.stopAsked {
		leftover = true
	}
	if leftover {
		return Decision{}, true
	}
	src := FromPonder
	if r.immediate {
		src = FromPonderAtOnce
	}
	d := g.fromResult(res, src, r.budget)
	d = g.finish(d, r.hitAt, &res)
	return d, false
}

// thinkPonder is UCI "go ponder": search the current position (ending with
// the predicted reply) in ponder mode until PonderHit or Stop. Called with
// g.mu held; returns with it released.
func (g *Game) thinkPonder(ctx context.Context, lim Limits, slim search.Limits, info func(search.Info)) (Decision, error) {
	g.pending.Ply = len(g.moves)
	g.ageTT(len(g.moves), false)
	if n := len(g.moves); n > 0 {
		g.pred = &prediction{ply: n - 1, move: g.moves[n-1], top3: []board.Move{g.moves[n-1]}}
	}
	r := &run{ponder: true, strategy: PonderPredicted, lim: lim, info: info, userMPV: max(lim.MultiPV, 1)}
	r.node, r.pos, r.rec, r.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	slim.Ponder = true
	g.startRun(ctx, r, slim)
	g.mu.Unlock()
	stopCtx := context.AfterFunc(ctx, func() { g.Stop() })
	<-r.done
	stopCtx()
	g.mu.Lock()
	if !r.converted {
		// stopped while pondering: report the move, record nothing as ours
		if g.run == r {
			g.run = nil
		}
		d := g.fromResult(r.res, FromPonder, Budget{})
		g.moveStrings(&d)
		d.Time = time.Since(r.start)
		g.mu.Unlock()
		return d, nil
	}
	d, again := g.awaitConverted(ctx, r, lim)
	if !again {
		return d, nil
	}
	b := r.budget
	b.Soft = max(b.Soft-time.Since(r.hitAt), MinThink)
	nr := &run{strategy: PonderPredicted, converted: true, lim: lim, budget: b, info: info, userMPV: max(lim.MultiPV, 1)}
	nr.node, nr.pos, nr.rec, nr.ply = g.tree.ref(g.cur), g.pos.Clone(), g.pos.Clone(), len(g.moves)
	slim.Ponder = false
	g.startRun(ctx, nr, slim)
	nr.hitAt = nr.start
	g.armHard(nr)
	g.mu.Unlock()
	<-nr.done
	g.mu.Lock()
	if g.run == nr {
		g.run = nil
	}
	d = g.fromResult(nr.res, FromPonder, b)
	return g.finish(d, r.hitAt, &nr.res), nil
}

// fromResult builds a decision from a search result, applying variety.
// Called with g.mu held.
func (g *Game) fromResult(res search.Result, src Source, b Budget) Decision {
	d := Decision{Move: res.BestMove, Ponder: res.PonderMove, Score: res.Score, Mate: res.Mate, Depth: res.Depth,
		Nodes: res.Nodes, Source: src, Budget: b, RootMoves: res.RootMoves}
	for _, m := range res.PV {
		d.PV = append(d.PV, g.pos.MoveToUCI(m))
	}
	if pick, ok := g.vary(res); ok && pick.Move != res.BestMove {
		d.Move, d.Score, d.Mate = pick.Move, pick.Score, search.MateMoves(pick.Score)
		d.Ponder = board.NoMove
		if len(pick.PV) > 1 {
			d.Ponder = pick.PV[1]
		}
		d.PV = d.PV[:0]
		for _, m := range pick.PV {
			d.PV = append(d.PV, g.pos.MoveToUCI(m))
		}
	}
	return d
}

// vary picks a root move within VarietyCP of the best exact score with the
// Game's RNG. ok is false when variety is off or does not apply.
func (g *Game) vary(res search.Result) (search.RootMove, bool) {
	if g.opts.VarietyCP <= 0 || len(res.RootMoves) < 2 {
		return search.RootMove{}, false
	}
	best := res.RootMoves[0]
	if best.Bound != search.BoundExact || abs(best.Score) >= search.MateInMaxPly {
		return search.RootMove{}, false
	}
	var cands []search.RootMove
	for _, rm := range res.RootMoves {
		if rm.Bound == search.BoundExact && rm.Depth >= best.Depth && abs(rm.Score) < search.MateInMaxPly &&
			rm.Score >= best.Score-g.opts.VarietyCP {
			cands = append(cands, rm)
		}
	}
	if len(cands) == 0 {
		return search.RootMove{}, false
	}
	return cands[g.rng.Intn(len(cands))], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// moveStrings fills the UCI strings of d (dropping an illegal ponder move).
// Called with g.mu held.
func (g *Game) moveStrings(d *Decision) {
	d.UCI = moveString(g.pos, d.Move)
	if d.Ponder != board.NoMove && d.Move != board.NoMove {
		p := g.pos.Clone()
		p.MakeMove(d.Move)
		if p.IsLegal(d.Ponder) {
			d.PonderUCI = p.MoveToUCI(d.Ponder)
		} else {
			d.Ponder = board.NoMove
		}
	}
}

// finish completes a decision: UCI strings, timing, stats and the log line;
// it remembers the expected reply. Called with g.mu held; releases it.
func (g *Game) finish(d Decision, start time.Time, res *search.Result) Decision {
	defer g.mu.Unlock()
	g.moveStrings(&d)
	d.Time = time.Since(start)
	ms := g.pending
	g.pending = MoveStats{}
	ms.Ply = len(g.moves)
	ms.Move = d.UCI
	ms.Source = d.Source
	ms.Budget = d.Budget
	ms.Depth = d.Depth
	ms.Nodes = d.Nodes
	ms.TimeUsed = d.Time
	if d.Source != FromSearch && d.Budget.Timed && d.Budget.Base > d.Time {
		ms.TimeSaved = d.Budget.Base - d.Time
	}
	ms.TreeNodes = g.tree.live
	ms.TreeBytes = g.tree.live * NodeBytes
	g.stats.add(ms)
	g.stats.TreeNodes, g.stats.FreeListNodes = g.tree.live, g.tree.nFree
	g.stats.MaxTreeNodes = max(g.stats.MaxTreeNodes, g.tree.highWater)
	g.stats.TrimmedNodes = g.tree.trimmedTotal
	g.stats.TreeBytes = g.tree.live * NodeBytes
	ms.log(g.log)
	return d
}
