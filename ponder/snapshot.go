package ponder

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// Snapshot is what a viewer (the web view) sees of a Game at one moment:
// an immutable copy, made under the Game's lock, that shares nothing with
// the Game. Snapshots are published after each iteration of a search (the
// first MultiPV line), when a search ends, after each of our moves and
// when the position changes; Watch tells when.
type Snapshot struct {
	Version     uint64 // grows with every publication
	Generation  uint32 // the tree's generation; node refs of another one are stale
	StartFEN    string
	Chess960    bool
	FEN         string   // current position
	Moves       []string // UCI moves from StartFEN
	WhiteToMove bool
	Closed      bool

	// Search is the latest iteration of the running (or last) search.
	Search SearchView
	// Current is the node of the current position; RootMoves are its
	// children (the moves from the current position the tree knows),
	// best first by depth then score.
	Current   NodeView
	RootMoves []NodeView
	// LastMove are the figures of our latest decision (re-rooting: nodes
	// kept and fraction; the ponder prediction and whether it hit); Evals
	// are the scores of all our moves, for the evaluation graph.
	LastMove  MoveStats
	HasLast   bool
	Evals     []EvalPoint
	Pondering bool   // a background ponder search runs
	PonderOn  string // the predicted reply being pondered (UCI), "" if none
	TreeNodes int
	TreeBytes int
}

// SearchView is one iteration's figures, from the searched position's side
// to move.
type SearchView struct {
	Active    bool // a search runs
	Pondering bool // ... on the opponent's time
	Ply       int  // game moves up to the searched position
	Depth     int
	SelDepth  int
	Score     int // centipawns (or mate score)
	Mate      int // moves to mate: >0 the side to move mates
	Bound     string
	Nodes     uint64
	NPS       uint64
	Time      time.Duration
	PV        []string // UCI
}

// EvalPoint is the evaluation after one of our moves, from White's view.
type EvalPoint struct {
	Ply    int    // moves played before it
	Move   string // UCI
	Score  int    // centipawns from White's view (mate: ±(100000 - plies))
	Mate   int    // from White's view: >0 White mates
	Depth  int
	Source string
	// HasScore is false for moves chosen without a search (book,
	// tablebase, the only legal move): their Score means nothing.
	HasScore bool
}

// NodeView is one tree node as a viewer sees it. Score, Mate and Bound are
// from the view of the side that played Move (for the current position's
// node: of the side to move there).
type NodeView struct {
	Ref      string // for Expand; valid in this tree generation only
	Move     string // UCI move that leads here ("" for the current position)
	Score    int
	Mate     int
	Bound    string // exact, lower, upper, none
	Depth    int    // -1: never searched
	Nodes    uint64
	Visits   uint32
	Best     string // best reply from here (UCI), "" if unknown
	Children int
}

// ErrStaleRef is returned by Expand for a node of an earlier tree
// generation or a node that was freed since.
var ErrStaleRef = errors.New("ponder: stale node reference (the tree moved on; reload its root)")

// ErrBadRef is returned by Expand for a reference it cannot read.
var ErrBadRef = errors.New("ponder: malformed node reference")

// live is the latest iteration of the Game's searches (kept for Snapshot;
// the PV buffer is reused).
type live struct {
	active, pondering bool
	ply               int
	info              search.Info // PV points into pv
	pv                []board.Move
	seen              bool // an iteration was noted
}

// noteLive keeps inf (the first line of r's iteration) for snapshots. Called
// with g.mu held, per iteration.
func (g *Game) noteLive(r *run, inf search.Info) {
	g.live.active, g.live.pondering, g.live.ply = true, r.ponder && !r.converted, r.ply
	g.live.pv = append(g.live.pv[:0], inf.PV...)
	g.live.info = inf
	g.live.info.PV = g.live.pv
	g.live.seen = true
	g.publish()
}

// publish makes a new snapshot version visible to Watch. It never blocks:
// a watcher's channel is closed, not sent on. Called with g.mu held.
func (g *Game) publish() {
	g.version++
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

// newGeneration invalidates every node reference handed out (re-rooting, a
// new tree). Called with g.mu held.
func (g *Game) newGeneration() { g.gen++ }

// Watch returns the current snapshot version and a channel that is closed
// at the next publication. Waiting on it never slows the search: the Game
// only closes a channel.
func (g *Game) Watch() (uint64, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.version, g.changed
}

// Snapshot copies the Game's state for viewers under its lock. Its cost is
// the moves of the game and the children of the current position.
func (g *Game) Snapshot() Snapshot {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := Snapshot{
		Version:     g.version,
		Generation:  g.gen,
		StartFEN:    g.startFEN,
		Chess960:    g.chess960,
		FEN:         g.pos.FEN(),
		Moves:       append([]string(nil), g.uciMoves...),
		WhiteToMove: g.pos.SideToMove() == board.White,
		Closed:      g.closed,
		Pondering:   g.run != nil && g.run.background,
		TreeNodes:   g.tree.live,
		TreeBytes:   g.tree.live * NodeBytes,
	}
	if r := g.run; r != nil && r.background && r.strategy == PonderPredicted && g.pred != nil {
		s.PonderOn = moveString(g.pos, g.pred.move)
	}
	if l := &g.live; l.seen {
		inf := l.info
		s.Search = SearchView{Active: g.run != nil && l.active, Pondering: l.pondering, Ply: l.ply,
			Depth: inf.Depth, SelDepth: inf.SelDepth, Score: inf.Score, Mate: inf.Mate,
			Bound: boundName(inf.Bound), Nodes: inf.Nodes, NPS: inf.NPS, Time: inf.Time}
		s.Search.PV = make([]string, 0, len(l.pv))
		for _, m := range l.pv {
			s.Search.PV = append(s.Search.PV, m.UCI(g.chess960))
		}
	}
	if n := len(g.stats.PerMove); n > 0 {
		s.LastMove, s.HasLast = g.stats.PerMove[n-1], true
		s.Evals = make([]EvalPoint, 0, n)
		for _, ms := range g.stats.PerMove {
			s.Evals = append(s.Evals, evalPoint(ms))
		}
	}
	s.Current = g.nodeView(g.cur, false)
	s.RootMoves = g.childViews(g.cur)
	return s
}

// evalPoint turns our move's score (from our side) to White's view.
func evalPoint(ms MoveStats) EvalPoint {
	e := EvalPoint{Ply: ms.Ply, Move: ms.Move, Score: ms.Score, Mate: ms.Mate, Depth: ms.Depth,
		Source: ms.Source.String()}
	switch ms.Source {
	case FromBook, FromTablebase, FromForced:
	default:
		e.HasScore = true
	}
	if !ms.White {
		e.Score, e.Mate = -e.Score, -e.Mate
	}
	return e
}

// Ref formats a node reference: generation, index and serial.
func (g *Game) refString(i int32) string {
	return strconv.FormatUint(uint64(g.gen), 10) + "." + strconv.Itoa(int(i)) + "." +
		strconv.FormatUint(uint64(g.tree.pool[i].serial), 10)
}

func parseRef(s string) (gen uint32, r nodeRef, err error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return 0, r, fmt.Errorf("%w: %q", ErrBadRef, s)
	}
	var v [3]uint64
	for k, p := range parts {
		if v[k], err = strconv.ParseUint(p, 10, 32); err != nil {
			return 0, r, fmt.Errorf("%w: %q", ErrBadRef, s)
		}
	}
	if v[1] > 1<<31-1 {
		return 0, r, fmt.Errorf("%w: %q", ErrBadRef, s)
	}
	return uint32(v[0]), nodeRef{idx: int32(v[1]), serial: uint32(v[2])}, nil
}

// Expand returns the children of the node ref names (a Ref of a Snapshot
// or of an earlier Expand; "" is the current position), best first. It
// holds the Game's lock for a bounded time: the node's children, at most
// the legal moves of its position. A ref of an earlier tree generation, or of a node
// freed since, gives ErrStaleRef.
func (g *Game) Expand(ref string) ([]NodeView, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ref == "" {
		return g.childViews(g.cur), nil
	}
	gen, r, err := parseRef(ref)
	if err != nil {
		return nil, fmt.Errorf("expand: %w", err)
	}
	if gen != g.gen || !g.tree.valid(r) {
		return nil, fmt.Errorf("expand %s: %w", ref, ErrStaleRef)
	}
	return g.childViews(r.idx), nil
}

// childViews lists the children of node i, best first: deeper first, then
// the better score for the side to move at i. Its cost is bounded by the
// legal moves of the position.
func (g *Game) childViews(i int32) []NodeView {
	t := g.tree
	var out []NodeView
	for c := t.pool[i].child; c != nilNode; c = t.pool[c].next {
		out = append(out, g.nodeView(c, true))
	}
	sortViews(out)
	return out
}

func sortViews(v []NodeView) {
	// insertion sort: at most the legal moves, no allocation
	for a := 1; a < len(v); a++ {
		for b := a; b > 0 && viewLess(v[b], v[b-1]); b-- {
			v[b], v[b-1] = v[b-1], v[b]
		}
	}
}

func viewLess(x, y NodeView) bool {
	if (x.Depth >= 0) != (y.Depth >= 0) {
		return x.Depth >= 0
	}
	if x.Score != y.Score {
		return x.Score > y.Score
	}
	return x.Nodes > y.Nodes
}

// nodeView describes node i; for a child, its score is turned to the
// parent's view.
func (g *Game) nodeView(i int32, child bool) NodeView {
	n := &g.tree.pool[i]
	v := NodeView{Ref: g.refString(i), Depth: int(n.depth), Nodes: n.nodes, Visits: n.visits}
	score, bound := int(n.score), n.bound
	if child {
		v.Move = n.move.UCI(g.chess960)
		score, bound = -score, flipBound(bound)
	}
	if n.depth < 0 {
		score, bound = 0, search.BoundNone
	}
	v.Score, v.Bound, v.Mate = score, boundName(bound), search.MateMoves(score)
	if n.best != board.NoMove {
		v.Best = n.best.UCI(g.chess960)
	}
	for c := n.child; c != nilNode; c = g.tree.pool[c].next {
		v.Children++
	}
	return v
}

func boundName(b search.Bound) string {
	switch b {
	case search.BoundExact:
		return "exact"
	case search.BoundLower:
		return "lower"
	case search.BoundUpper:
		return "upper"
	}
	return "none"
}
