package train

import (
	"math"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// Target returns the training target of rec in the side to move's view:
//
//	lambda·sigmoid(score/scale) + (1 − lambda)·result
//
// where score is the record's search score and result the game's (1 win,
// ½ draw, 0 loss), both turned from White's view to the side to move's.
func Target(rec *nnuedata.Record, lambda, scale float64) float64 {
	score, res := float64(rec.Score()), rec.Result().White()
	if rec.SideToMove() == board.Black {
		score, res = -score, 1-res
	}
	return lambda*sigmoid(score/scale) + (1-lambda)*res
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// scratch is one goroutine's working memory for a position: the active
// features, the accumulators, the activations and their gradients. It is
// allocated once; forward and accumulate do not allocate.
type scratch struct {
	pcs         [32]nnuedata.PieceSquare
	fUs, fThem  [32]int
	k           int
	accUs, accT []float32 // accumulators, side to move and the other side
	hUs, hT     []float32 // activations
	dUs, dT     []float32 // loss gradient with respect to the accumulators
}

func newScratch(h int) *scratch {
	b := make([]float32, 6*h)
	return &scratch{
		accUs: b[0:h], accT: b[h : 2*h],
		hUs: b[2*h : 3*h], hT: b[3*h : 4*h],
		dUs: b[4*h : 5*h], dT: b[5*h : 6*h],
	}
}

// addRow adds src[:len(dst)] to dst.
func addRow(dst, src []float32) {
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, s := dst[i:i+8:i+8], src[i:i+8:i+8]
		d[0] += s[0]
		d[1] += s[1]
		d[2] += s[2]
		d[3] += s[3]
		d[4] += s[4]
		d[5] += s[5]
		d[6] += s[6]
		d[7] += s[7]
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// forward computes the output of n for rec, leaving the features,
// accumulators and activations in s.
func (s *scratch) forward(n *Net, rec *nnuedata.Record) float32 {
	h := n.H
	k := rec.Pieces(&s.pcs)
	us := rec.SideToMove()
	them := us.Other()
	for i := 0; i < k; i++ {
		s.fUs[i] = nnue.Feature(us, s.pcs[i].Piece, s.pcs[i].Square) * h
		s.fThem[i] = nnue.Feature(them, s.pcs[i].Piece, s.pcs[i].Square) * h
	}
	s.k = k
	b1 := n.P[n.offB1():n.offW2()]
	copy(s.accUs, b1)
	copy(s.accT, b1)
	w1 := n.P[:n.offB1()]
	for i := 0; i < k; i++ {
		addRow(s.accUs, w1[s.fUs[i]:])
		addRow(s.accT, w1[s.fThem[i]:])
	}
	w2 := n.P[n.offW2():n.offB2()]
	wUs, wT := w2[:h], w2[h:2*h]
	hUs, hT := s.hUs[:h], s.hT[:h]
	accUs, accT := s.accUs[:h], s.accT[:h]
	var out float32
	if n.Act == nnue.SCReLU {
		for j := range accUs {
			a := min(max(accUs[j], 0), 1)
			b := min(max(accT[j], 0), 1)
			hUs[j], hT[j] = a*a, b*b
			out += wUs[j]*hUs[j] + wT[j]*hT[j]
		}
	} else {
		for j := range accUs {
			a := min(max(accUs[j], 0), 1)
			b := min(max(accT[j], 0), 1)
			hUs[j], hT[j] = a, b
			out += wUs[j]*a + wT[j]*b
		}
	}
	return out + n.P[n.offB2()]
}

// accumulate runs rec forward and back: it adds the gradient of
// (sigmoid(output) − target)² with respect to every parameter to grad
// (laid out as n.P) and returns the squared error. Only the rows of the
// input weights of rec's active features are touched.
func (s *scratch) accumulate(n *Net, rec *nnuedata.Record, lambda, scale float64, grad []float32) float64 {
	out := s.forward(n, rec)
	p := sigmoid(float64(out))
	e := p - Target(rec, lambda, scale)
	g := float32(2 * e * p * (1 - p)) // d(e²)/d(output)

	h := n.H
	grad[n.offB2()] += g
	w2 := n.P[n.offW2():n.offB2()]
	wUs, wT := w2[:h], w2[h:2*h]
	gw2 := grad[n.offW2():n.offB2()]
	gUs, gT := gw2[:h], gw2[h:2*h]
	gb1 := grad[n.offB1():n.offW2()][:h]
	hUs, hT := s.hUs[:h], s.hT[:h]
	accUs, accT := s.accUs[:h], s.accT[:h]
	dUs, dT := s.dUs[:h], s.dT[:h]
	for j := range accUs {
		gUs[j] += g * hUs[j]
		gT[j] += g * hT[j]
	}
	// d activation / d accumulator: 0 outside (0, 1); 1 (CReLU) or 2x
	// (SCReLU) inside.
	if n.Act == nnue.SCReLU {
		for j := range accUs {
			var a, b float32
			if x := accUs[j]; x > 0 && x < 1 {
				a = 2 * x * g * wUs[j]
			}
			if x := accT[j]; x > 0 && x < 1 {
				b = 2 * x * g * wT[j]
			}
			dUs[j], dT[j] = a, b
			gb1[j] += a + b
		}
	} else {
		for j := range accUs {
			var a, b float32
			if x := accUs[j]; x > 0 && x < 1 {
				a = g * wUs[j]
			}
			if x := accT[j]; x > 0 && x < 1 {
				b = g * wT[j]
			}
			dUs[j], dT[j] = a, b
			gb1[j] += a + b
		}
	}
	gw1 := grad[:n.offB1()]
	for i := 0; i < s.k; i++ {
		addRow(gw1[s.fUs[i]:s.fUs[i]+h], dUs)
		addRow(gw1[s.fThem[i]:s.fThem[i]+h], dT)
	}
	return e * e
}

// loss returns the squared error of rec without gradients.
func (s *scratch) loss(n *Net, rec *nnuedata.Record, lambda, scale float64) float64 {
	e := sigmoid(float64(s.forward(n, rec))) - Target(rec, lambda, scale)
	return e * e
}
