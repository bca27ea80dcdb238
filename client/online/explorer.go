package online

import (
	"context"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Ways the explorer's moves are ranked.
const (
	SortGames = "games" // the move played most
	SortScore = "score" // the move scoring best for the side to move
)

// Explorer asks the Lichess opening explorer (the masters or the lichess
// database) and plays, among the moves played in at least MinGames games,
// the one played most (SortGames) or the one that scored best for the
// side to move (SortScore: wins plus half the draws, over the games).
// MaxPly > 0 stops asking after that many plies of the game.
type Explorer struct {
	Client   *lichess.Client
	BaseURL  string // the explorer server ("" for lichess.DefaultExplorerURL)
	Database string // lichess.ExplorerMasters or lichess.ExplorerLichess
	Sort     string // SortGames or SortScore
	MinGames int
	MaxPly   int
	Speeds   []string // the lichess database only
	Ratings  []int    // the lichess database only
}

func (e *Explorer) Name() string { return "explorer" }

func (e *Explorer) Applies(p Position) bool { return e.AppliesAtPly(p.Ply) }

func (e *Explorer) Move(ctx context.Context, p Position) (Move, error) {
	ans, err := e.Client.Explorer(ctx, lichess.ExplorerQuery{Base: e.BaseURL, Database: e.Database, FEN: p.FEN,
		Speeds: e.Speeds, Ratings: e.Ratings})
	if err != nil {
		return Move{}, err
	}
	white := p.WhiteToMove()
	score := func(m lichess.ExplorerMove) float64 {
		win := m.White
		if !white {
			win = m.Black
		}
		return (float64(win) + float64(m.Draws)/2) / float64(m.Games())
	}
	var best *lichess.ExplorerMove
	for i := range ans.Moves {
		m := &ans.Moves[i]
		if m.UCI == "" || m.Games() < max(e.MinGames, 1) {
			continue
		}
		switch {
		case best == nil:
			best = m
		case e.Sort == SortScore && score(*m) > score(*best):
			best = m
		case e.Sort != SortScore && m.Games() > best.Games():
			best = m
		}
	}
	if best == nil {
		return Move{}, fmt.Errorf("opening explorer: %w (no move with %d games or more)", ErrNoMove, max(e.MinGames, 1))
	}
	return Move{UCI: best.UCI, Note: fmt.Sprintf("%s: %d games, %.0f%%", e.Database, best.Games(), 100*score(*best))}, nil
}

// AppliesAtPly reports whether the explorer is asked at ply (MaxPly): the
// online player checks it before it replays the game into a board.
func (e *Explorer) AppliesAtPly(ply int) bool { return e.MaxPly <= 0 || ply < e.MaxPly }
