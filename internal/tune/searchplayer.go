package tune

import (
	"context"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// SearchPlayer plays with the engine's real search (engine/search, built-in
// evaluation weights) under a fixed node or depth budget.
type SearchPlayer struct {
	e   *search.Engine
	lim search.Limits
}

// NewSearchPlayer returns a single-threaded search player; nodes and depth
// bound each move (zero means no bound of that kind; give at least one).
func NewSearchPlayer(nodes uint64, depth int, hashMB int) *SearchPlayer {
	return &SearchPlayer{
		e:   search.New(search.Options{Threads: 1, HashMB: hashMB}),
		lim: search.Limits{Nodes: nodes, Depth: depth},
	}
}

// BestMove implements Player.
func (s *SearchPlayer) BestMove(ctx context.Context, p *board.Position) (board.Move, int, error) {
	if s.lim.Nodes == 0 && s.lim.Depth == 0 {
		return 0, 0, fmt.Errorf("search player: no node or depth limit")
	}
	res := s.e.Search(ctx, p, s.lim, nil, nil)
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	score := res.Score
	switch {
	case res.Mate > 0:
		score = MateThreshold + 1000
	case res.Mate < 0:
		score = -MateThreshold - 1000
	}
	return res.BestMove, score, nil
}

// NewGame clears the search's memory between games.
func (s *SearchPlayer) NewGame() { s.e.NewGame() }
