package tune

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Player chooses moves for self-play. Score is from the side to move's
// point of view in centipawns; mates are beyond ±MateThreshold.
type Player interface {
	BestMove(ctx context.Context, p *board.Position) (board.Move, int, error)
}

// MateThreshold: scores beyond it are treated as mate scores.
const MateThreshold = 20000

// GameOptions control one self-play game.
type GameOptions struct {
	RandomPlies   int // uniformly random legal moves at the start (before any search)
	MaxPlies      int // game adjudicated a draw at this length
	WinScore      int // |score| at or beyond this for WinPlies plies in a row ends the game
	WinPlies      int
	DrawScore     int // |score| at or below this for DrawPlies plies after DrawAfter ends the game as a draw
	DrawPlies     int
	DrawAfter     int
	SkipFirst     int // positions before this ply are not recorded
	RecordChecked bool
}

// DefaultGameOptions are sensible settings for data generation.
func DefaultGameOptions() GameOptions {
	return GameOptions{
		RandomPlies: 8, MaxPlies: 400,
		WinScore: 1000, WinPlies: 6,
		DrawScore: 8, DrawPlies: 20, DrawAfter: 80,
		SkipFirst: 12,
	}
}

// Game is the outcome of one self-play game.
type Game struct {
	FENs     []string // recorded quiet positions (PlayGame only)
	Scores   []int    // the player's search score for each, White's point of view
	Result   float64  // White's point of view
	Reason   string
	Plies    int
	Searched int // positions a player searched (after the random plies)
	Kept     int // positions recorded
}

// Keep receives each recorded position: p before the move, the move the
// player chose and its score from White's point of view. p belongs to the
// game: read it during the call, do not keep or change it.
type Keep func(p *board.Position, m board.Move, whiteScore int)

// PlayGame plays one game between white and black from start (which it
// does not modify). Recorded positions are those from ply o.SkipFirst on
// where the side to move is not in check (unless o.RecordChecked), the
// chosen move is quiet (no capture, no promotion) and the score is not a
// mate score; Game.FENs and Game.Scores hold them.
func PlayGame(ctx context.Context, start *board.Position, white, black Player, rng *rand.Rand, o GameOptions) (Game, error) {
	var fens []string
	var scores []int
	g, err := PlayGameKeep(ctx, start, white, black, rng, o, func(p *board.Position, _ board.Move, ws int) {
		fens = append(fens, p.FEN())
		scores = append(scores, ws)
	})
	g.FENs, g.Scores = fens, scores
	return g, err
}

// PlayGameKeep is PlayGame handing each recorded position to keep instead
// of collecting FENs (Game.FENs and Game.Scores stay nil). With the same
// rng state and deterministic players it plays the same game.
func PlayGameKeep(ctx context.Context, start *board.Position, white, black Player, rng *rand.Rand, o GameOptions, keep Keep) (Game, error) {
	p := start.Clone()
	var g Game
	var ml board.MoveList
	winRun, drawRun := 0, 0
	lastSign := 0
	for ply := 0; ; ply++ {
		g.Plies = ply
		p.GenerateLegal(&ml)
		if ml.N == 0 {
			if p.InCheck() {
				g.Result, g.Reason = resultFor(p.SideToMove().Other()), "checkmate"
			} else {
				g.Result, g.Reason = 0.5, "stalemate"
			}
			return g, nil
		}
		switch {
		case p.HalfmoveClock() >= 100:
			g.Result, g.Reason = 0.5, "fifty moves"
			return g, nil
		case p.RepetitionCount() >= 2:
			g.Result, g.Reason = 0.5, "threefold repetition"
			return g, nil
		case p.IsInsufficientMaterial():
			g.Result, g.Reason = 0.5, "insufficient material"
			return g, nil
		case ply >= o.MaxPlies:
			g.Result, g.Reason = 0.5, "length limit"
			return g, nil
		}
		if ply < o.RandomPlies {
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			continue
		}
		pl := white
		if p.SideToMove() == board.Black {
			pl = black
		}
		m, score, err := pl.BestMove(ctx, p)
		if err != nil {
			return g, fmt.Errorf("self-play ply %d: %w", ply, err)
		}
		if !ml.Contains(m) {
			return g, fmt.Errorf("self-play ply %d: player returned illegal move %v in %s", ply, m, p.FEN())
		}
		ws := score
		if p.SideToMove() == board.Black {
			ws = -score
		}
		g.Searched++
		if ply >= o.SkipFirst && (o.RecordChecked || !p.InCheck()) && !p.IsCapture(m) && !m.IsPromotion() && abs(score) < MateThreshold {
			keep(p, m, ws)
			g.Kept++
		}
		// Adjudication: both sides agree on a big score, or a long dead draw.
		sign := 0
		if ws >= o.WinScore {
			sign = 1
		} else if ws <= -o.WinScore {
			sign = -1
		}
		if sign != 0 && sign == lastSign {
			winRun++
		} else if sign != 0 {
			winRun = 1
		} else {
			winRun = 0
		}
		lastSign = sign
		if o.WinPlies > 0 && winRun >= o.WinPlies {
			g.Result, g.Reason = float64(sign+1)/2, "adjudicated win"
			return g, nil
		}
		if ply >= o.DrawAfter && abs(ws) <= o.DrawScore {
			drawRun++
		} else {
			drawRun = 0
		}
		if o.DrawPlies > 0 && drawRun >= o.DrawPlies {
			g.Result, g.Reason = 0.5, "adjudicated draw"
			return g, nil
		}
		p.MakeMove(m)
	}
}

func resultFor(winner board.Color) float64 {
	if winner == board.White {
		return 1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
