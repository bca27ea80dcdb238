package nnue

import "math/rand/v2"

// RandomNet returns a net of h hidden neurons with random weights from
// seed, small enough for Validate: for tests and benchmarks of code that
// loads, searches or evaluates with a net.
func RandomNet(h int, act Activation, seed uint64) *Net {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := &Net{
		Hidden: h, Act: act, QA: 255, QB: 64, Scale: 400,
		InputWeights:  make([]int16, Inputs*h),
		InputBiases:   make([]int16, h),
		OutputWeights: make([]int16, 2*h),
		OutputBias:    int32(rng.IntN(20001) - 10000),
	}
	for i := range n.InputWeights {
		n.InputWeights[i] = int16(rng.IntN(161) - 80)
	}
	for i := range n.InputBiases {
		n.InputBiases[i] = int16(rng.IntN(301) - 100)
	}
	for i := range n.OutputWeights {
		n.OutputWeights[i] = int16(rng.IntN(257) - 128)
	}
	return n
}
