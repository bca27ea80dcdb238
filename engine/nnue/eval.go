package nnue

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Features writes the active input features of perspective persp in p into
// out, one per piece in increasing square order, and returns how many.
func Features(p *board.Position, persp board.Color, out *[32]int) int {
	n := 0
	for b := p.Occupied(); b != 0 && n < len(out); b &= b - 1 {
		s := b.LSB()
		out[n] = Feature(persp, p.PieceOn(s), s)
		n++
	}
	return n
}

// Accumulator returns hidden unit j's accumulator for the given active
// features: the bias plus the features' weights (scale QA).
func (n *Net) Accumulator(features []int, j int) int64 {
	acc := int64(n.InputBiases[j])
	for _, f := range features {
		acc += int64(n.InputWeights[f*n.Hidden+j])
	}
	return acc
}

// Output returns the network's raw output for p from the side to move's
// point of view, in units of 1/(QA·QB):
//
//	a(x) = clamp(x, 0, QA) for CReLU, clamp(x, 0, QA)² for SCReLU
//	s    = Σ_j a(acc_us[j])·OutputWeights[j] + Σ_j a(acc_them[j])·OutputWeights[H+j]
//	out  = s + OutputBias          (CReLU)
//	out  = s/QA + OutputBias       (SCReLU; Go's integer division, truncating toward zero)
//
// where acc_us and acc_them are the accumulators of the side to move's
// features and the other side's. Everything is computed afresh in int64; it
// does not allocate.
func (n *Net) Output(p *board.Position) int64 {
	var fs [2][32]int
	us := p.SideToMove()
	k := Features(p, us, &fs[0])
	Features(p, us.Other(), &fs[1])
	qa := int64(n.QA)
	var s int64
	for side := 0; side < 2; side++ {
		for j := 0; j < n.Hidden; j++ {
			a := min(max(n.Accumulator(fs[side][:k], j), 0), qa)
			if n.Act == SCReLU {
				a *= a
			}
			s += a * int64(n.OutputWeights[side*n.Hidden+j])
		}
	}
	if n.Act == SCReLU {
		s /= qa
	}
	return s + int64(n.OutputBias)
}

// Evaluate returns the evaluation of p in centipawns from the side to move's
// point of view: Output(p)·Scale/(QA·QB), truncated toward zero. It is the
// reference the engine's incremental evaluation must equal.
func (n *Net) Evaluate(p *board.Position) int {
	return int(n.Output(p) * int64(n.Scale) / (int64(n.QA) * int64(n.QB)))
}
