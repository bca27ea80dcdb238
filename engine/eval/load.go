package eval

import "github.com/ponderosa-chess/ponderosa/engine/board"

// load copies what the evaluation reads out of p.
func (e *Evaluator) load(p *board.Position) {
	v := &e.v
	for c := board.White; c <= board.Black; c++ {
		for t := board.Pawn; t <= board.King; t++ {
			v.pcs[c][t] = p.Pieces(c, t)
		}
		v.occ[c] = p.Occupancy(c)
		v.ksq[c] = p.KingSquare(c)
	}
	v.all = v.occ[0] | v.occ[1]
	v.stm = p.SideToMove()
}
