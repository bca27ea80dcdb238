package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// Inputs is the number of inputs per perspective.
const Inputs = nnue.Inputs

// Clip bounds every input weight, input bias and output weight after each
// optimiser step: |w| ≤ Clip. With QA = 255 an accumulator of the bias and
// 32 features stays within 33·1.98·255 = 16 662, well inside int16, and an
// output weight times QB = 64 within ±127.
const Clip = 1.98

// Net is the float network. Its parameters live in one slice P, laid out as
//
//	[0, Inputs·H)            input weights, feature f's H weights at f·H
//	[Inputs·H, Inputs·H+H)   input biases
//	[.., +2H)                output weights: the side to move's H, then the other side's H
//	last                     output bias
//
// so that the optimiser and the gradient buffers treat all of them alike.
type Net struct {
	H   int
	Act nnue.Activation
	P   []float32
}

// Offsets into P.
func (n *Net) offB1() int { return Inputs * n.H }
func (n *Net) offW2() int { return Inputs*n.H + n.H }
func (n *Net) offB2() int { return Inputs*n.H + 3*n.H }

// NumParams returns len(P) for hidden size h.
func NumParams(h int) int { return Inputs*h + 3*h + 1 }

// NewNet returns a net with random initial weights drawn from seed: input
// weights and biases uniform in ±1/√768, output weights uniform in
// ±1/√(2H), output bias 0.
func NewNet(h int, act nnue.Activation, seed uint64) (*Net, error) {
	if h < 1 || h > nnue.MaxHidden {
		return nil, fmt.Errorf("hidden size %d: want 1–%d", h, nnue.MaxHidden)
	}
	if act != nnue.CReLU && act != nnue.SCReLU {
		return nil, fmt.Errorf("unknown activation %v", act)
	}
	n := &Net{H: h, Act: act, P: make([]float32, NumParams(h))}
	rng := rand.New(rand.NewPCG(seed, 0x1417))
	a := 1 / math.Sqrt(Inputs)
	for i := 0; i < n.offW2(); i++ {
		n.P[i] = float32((2*rng.Float64() - 1) * a)
	}
	b := 1 / math.Sqrt(float64(2*h))
	for i := n.offW2(); i < n.offB2(); i++ {
		n.P[i] = float32((2*rng.Float64() - 1) * b)
	}
	return n, nil
}

// Evaluate returns the float network's output for p, from the side to
// move's point of view, in units of the sigmoid's argument: the engine's
// centipawns are this times the scale. It allocates (it is for tests and
// tools, not for training).
func (n *Net) Evaluate(p *board.Position) float64 {
	rec := nnuedata.Encode(p, 0, nnuedata.Draw)
	s := newScratch(n.H)
	return float64(s.forward(n, &rec))
}

// Quantise returns the net in the engine's integer format: input weights
// and biases round(x·qa) as int16, output weights round(x·qb) as int16,
// output bias round(x·qa·qb) as int32; scale is the centipawns per unit of
// output written into the header. It fails when a value does not fit or the
// result fails nnue.Net.Validate.
func (n *Net) Quantise(qa, qb, scale int) (*nnue.Net, error) {
	q := &nnue.Net{
		Hidden: n.H, Act: n.Act, QA: qa, QB: qb, Scale: scale,
		InputWeights:  make([]int16, Inputs*n.H),
		InputBiases:   make([]int16, n.H),
		OutputWeights: make([]int16, 2*n.H),
	}
	conv := func(dst []int16, src []float32, k float64, what string) error {
		for i, x := range src {
			v := math.Round(float64(x) * k)
			if v < math.MinInt16 || v > math.MaxInt16 {
				return fmt.Errorf("quantise: %s %d is %g, %g after scaling: out of int16", what, i, x, v)
			}
			dst[i] = int16(v)
		}
		return nil
	}
	if err := conv(q.InputWeights, n.P[:n.offB1()], float64(qa), "input weight"); err != nil {
		return nil, err
	}
	if err := conv(q.InputBiases, n.P[n.offB1():n.offW2()], float64(qa), "input bias"); err != nil {
		return nil, err
	}
	if err := conv(q.OutputWeights, n.P[n.offW2():n.offB2()], float64(qb), "output weight"); err != nil {
		return nil, err
	}
	b := math.Round(float64(n.P[n.offB2()]) * float64(qa) * float64(qb))
	if b < math.MinInt32 || b > math.MaxInt32 {
		return nil, fmt.Errorf("quantise: output bias %g out of int32", b)
	}
	q.OutputBias = int32(b)
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	return q, nil
}
