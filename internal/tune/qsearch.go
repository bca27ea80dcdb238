package tune

import (
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

const infinity = 32000

// qSearcher is a small capture-only alpha-beta used to tell quiet
// positions from ones with a pending exchange, and by the bootstrap player.
type qSearcher struct {
	ev    *eval.Evaluator
	lists [64]board.MoveList
	nodes int64
}

func newQSearcher(ev *eval.Evaluator) *qSearcher { return &qSearcher{ev: ev} }

// search returns the capture-only value of p from the side to move's view.
func (q *qSearcher) search(p *board.Position, alpha, beta, ply int) int {
	q.nodes++
	stand := q.ev.Evaluate(p)
	if stand >= beta || ply >= len(q.lists)-1 {
		return stand
	}
	if stand > alpha {
		alpha = stand
	}
	ml := &q.lists[ply]
	p.GenerateCaptures(ml)
	orderCaptures(p, ml)
	for i := 0; i < ml.N; i++ {
		p.MakeMove(ml.Moves[i])
		v := -q.search(p, -beta, -alpha, ply+1)
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

// orderCaptures sorts captures most valuable victim first, least valuable
// attacker first among equals.
func orderCaptures(p *board.Position, ml *board.MoveList) {
	var keys [board.MaxMoves]int
	for i := 0; i < ml.N; i++ {
		m := ml.Moves[i]
		victim := int(p.PieceOn(m.To()).Type())
		if m.IsEnPassant() {
			victim = int(board.Pawn)
		}
		if m.IsPromotion() {
			victim += int(board.Queen)
		}
		keys[i] = victim*8 - int(p.MovedPiece(m).Type())
	}
	for i := 1; i < ml.N; i++ {
		for j := i; j > 0 && keys[j] > keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
			ml.Moves[j], ml.Moves[j-1] = ml.Moves[j-1], ml.Moves[j]
		}
	}
}
