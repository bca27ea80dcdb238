package tune

import (
	"context"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Bootstrap is a deliberately small fixed-depth alpha-beta player (with a
// capture search at the leaves) used to make tuning data before the real
// search exists. It is not the engine's search.
type Bootstrap struct {
	Depth int
	q     *qSearcher
	lists [16]board.MoveList
}

// NewBootstrap returns a bootstrap player searching depth plies with the
// built-in weights.
func NewBootstrap(depth int) *Bootstrap {
	return &Bootstrap{Depth: depth, q: newQSearcher(eval.NewEvaluator())}
}

// NewBootstrapWith returns a bootstrap player that evaluates with w.
func NewBootstrapWith(depth int, w *eval.Weights) *Bootstrap {
	return &Bootstrap{Depth: depth, q: newQSearcher(eval.NewEvaluatorWith(w))}
}

// BestMove implements Player.
func (b *Bootstrap) BestMove(ctx context.Context, p *board.Position) (board.Move, int, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	ml := &b.lists[0]
	p.GenerateLegal(ml)
	orderMoves(p, ml)
	best, bestScore := board.Move(0), -infinity
	for i := 0; i < ml.N; i++ {
		p.MakeMove(ml.Moves[i])
		v := -b.ab(p, b.Depth-1, 1, -infinity, -bestScore)
		p.UnmakeMove()
		if v > bestScore || i == 0 {
			best, bestScore = ml.Moves[i], v
		}
	}
	return best, bestScore, nil
}

func (b *Bootstrap) ab(p *board.Position, depth, ply, alpha, beta int) int {
	if ply > 0 && (p.HalfmoveClock() >= 100 || p.IsRepetition(ply)) {
		return 0
	}
	if ply >= len(b.lists)-1 {
		return b.q.ev.Evaluate(p)
	}
	if depth <= 0 && !p.InCheck() {
		return b.q.search(p, alpha, beta, ply)
	}
	ml := &b.lists[ply]
	p.GenerateLegal(ml)
	if ml.N == 0 {
		if p.InCheck() {
			return -infinity + ply
		}
		return 0
	}
	orderMoves(p, ml)
	for i := 0; i < ml.N; i++ {
		p.MakeMove(ml.Moves[i])
		v := -b.ab(p, depth-1, ply+1, -beta, -alpha)
		p.UnmakeMove()
		if v > alpha {
			alpha = v
			if v >= beta {
				break
			}
		}
	}
	return alpha
}

// orderMoves puts noisy moves first, in MVV-LVA order.
func orderMoves(p *board.Position, ml *board.MoveList) {
	var keys [board.MaxMoves]int
	for i := 0; i < ml.N; i++ {
		m := ml.Moves[i]
		if p.IsNoisy(m) {
			victim := int(p.PieceOn(m.To()).Type())
			if m.IsPromotion() {
				victim += int(board.Queen)
			}
			keys[i] = 100 + victim*8 - int(p.MovedPiece(m).Type())
		}
	}
	for i := 1; i < ml.N; i++ {
		for j := i; j > 0 && keys[j] > keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
			ml.Moves[j], ml.Moves[j-1] = ml.Moves[j-1], ml.Moves[j]
		}
	}
}
