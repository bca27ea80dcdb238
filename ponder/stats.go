package ponder

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/logging"
)

// MoveStats are the numbers of one of our moves.
type MoveStats struct {
	Ply    int    // moves played before this decision
	Move   string // the move chosen (UCI)
	White  bool   // we played White
	Score  int    // the decision's score, centipawns from our side (mate score when mating)
	Mate   int    // moves to mate: >0 we mate
	Source Source
	// Re-rooting: the tree before the moves since our last decision were
	// committed, and how much of it the new root kept.
	TreeNodesBefore int
	KeptNodes       int // nodes at (and under) the new root that existed before
	KeptFraction    float64
	FreedNodes      int
	Irreversible    bool // the TT was aged out for an irreversible move
	// Pondering.
	DepthAtMove   int  // depth available on this position when it became ours (tree, TT or ponder search)
	Predicted     bool // we had predicted the opponent's move
	PonderHit     bool // ... and it was played
	PonderTop3    bool // the move played was among our top 3 predictions
	Pondered      time.Duration
	NodesAfterHit uint64 // nodes the converted ponder search spent after the hit
	// Time and search.
	Budget    Budget
	TimeUsed  time.Duration // on our clock
	TimeSaved time.Duration // Budget.Base − TimeUsed when the answer came from pondering or the tree
	Depth     int
	Nodes     uint64
	// Tree memory after the decision.
	TreeNodes int
	TreeBytes int
}

func (ms MoveStats) log(l zerolog.Logger) {
	l.Info().Int(logging.FieldPly, ms.Ply).Str("move", ms.Move).Str("source", ms.Source.String()).
		Int("depth", ms.Depth).Uint64("nodes", ms.Nodes).
		Int("kept_nodes", ms.KeptNodes).Float64("kept_fraction", ms.KeptFraction).Int("freed_nodes", ms.FreedNodes).
		Int("depth_at_move", ms.DepthAtMove).Bool("predicted", ms.Predicted).Bool("ponder_hit", ms.PonderHit).
		Bool("ponder_top3", ms.PonderTop3).Dur("pondered", ms.Pondered).Dur("time_used", ms.TimeUsed).
		Dur("time_saved", ms.TimeSaved).Dur("budget_base", ms.Budget.Base).Dur("budget_soft", ms.Budget.Soft).
		Int("tree_nodes", ms.TreeNodes).Int("tree_bytes", ms.TreeBytes).Bool("irreversible", ms.Irreversible).
		Msg("move stats")
}

// GameStats sum up a game.
type GameStats struct {
	Moves           int
	Predicted       int // moves where we had a prediction
	PonderHits      int
	PonderTop3      int
	AtOnce          int // answers without searching on our clock (ponder at once, tree, forced, book)
	SearchesStarted int
	SearchPanics    int // searches that panicked (recovered; see SearchPanic)
	TimeSaved       time.Duration
	KeptNodes       uint64
	FreedNodes      uint64
	TrimmedNodes    uint64 // freed by the memory cap
	MeanKeptFrac    float64
	TreeNodes       int // live nodes now
	FreeListNodes   int // released nodes waiting for reuse
	MaxTreeNodes    int
	TreeBytes       int
	NodeBytes       int
	PerMove         []MoveStats
}

func (gs *GameStats) add(ms MoveStats) {
	gs.Moves++
	if ms.Predicted {
		gs.Predicted++
	}
	if ms.PonderHit {
		gs.PonderHits++
	}
	if ms.PonderTop3 {
		gs.PonderTop3++
	}
	switch ms.Source {
	case FromPonderAtOnce, FromTree, FromForced, FromBook, FromTablebase:
		gs.AtOnce++
	}
	gs.TimeSaved += ms.TimeSaved
	gs.KeptNodes += uint64(ms.KeptNodes)
	gs.FreedNodes += uint64(ms.FreedNodes)
	gs.MeanKeptFrac += (ms.KeptFraction - gs.MeanKeptFrac) / float64(gs.Moves)
	gs.PerMove = append(gs.PerMove, ms)
}

// LastMove returns the statistics of the most recent decision, and false
// before the first one.
func (g *Game) LastMove() (MoveStats, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := len(g.stats.PerMove); n > 0 {
		return g.stats.PerMove[n-1], true
	}
	return MoveStats{}, false
}

// Stats returns a copy of the game's statistics so far.
func (g *Game) Stats() GameStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.stats
	s.PerMove = append([]MoveStats(nil), g.stats.PerMove...)
	s.TreeNodes, s.FreeListNodes = g.tree.live, g.tree.nFree
	s.MaxTreeNodes = max(s.MaxTreeNodes, g.tree.highWater)
	s.TrimmedNodes = g.tree.trimmedTotal
	s.TreeBytes = g.tree.live * NodeBytes
	s.NodeBytes = NodeBytes
	return s
}
