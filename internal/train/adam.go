package train

import (
	"fmt"
	"math"
)

// Adam's constants (Kingma & Ba's defaults).
const (
	Beta1   = 0.9
	Beta2   = 0.999
	Epsilon = 1e-8
)

// adam holds the optimiser's moments, one per parameter, and the number of
// steps taken.
type adam struct {
	m, v []float32
	t    uint64
}

func newAdam(n int) *adam { return &adam{m: make([]float32, n), v: make([]float32, n)} }

// update applies one Adam step with learning rate lr to params[lo:hi]
// given their gradients g[lo:hi], then clips the parameters in [lo,
// min(hi, clipEnd)) to ±Clip. t is the step number (1 for the first).
func (a *adam) update(params, g []float32, lo, hi, clipEnd int, lr float64, t uint64) {
	c1 := 1 - math.Pow(Beta1, float64(t))
	c2 := 1 - math.Pow(Beta2, float64(t))
	step := float32(lr * math.Sqrt(c2) / c1) // bias corrections folded into the step size
	eps := float32(Epsilon * math.Sqrt(c2))  // so that ε applies to the corrected v
	m, v := a.m[lo:hi], a.v[lo:hi]
	p, g := params[lo:hi], g[lo:hi]
	for i := range p {
		gi := g[i]
		m[i] = Beta1*m[i] + (1-Beta1)*gi
		v[i] = Beta2*v[i] + (1-Beta2)*gi*gi
		x := p[i] - step*m[i]/(float32(math.Sqrt(float64(v[i])))+eps)
		if lo+i < clipEnd {
			x = min(max(x, -Clip), Clip)
		}
		p[i] = x
	}
}

// Schedule gives the learning rate of each batch.
type Schedule struct {
	Kind  string  // "cosine" or "step"
	LR    float64 // the first rate
	End   float64 // cosine: the last rate
	Every int     // step: epochs between decays
	Gamma float64 // step: factor of each decay
}

// Validate checks the schedule's fields.
func (s Schedule) Validate() error {
	switch {
	case !(s.LR > 0):
		return fmt.Errorf("learning rate %g: want > 0", s.LR)
	case s.Kind == "cosine" && !(s.End >= 0 && s.End <= s.LR):
		return fmt.Errorf("cosine end rate %g: want 0 ≤ end ≤ %g", s.End, s.LR)
	case s.Kind == "step" && (s.Every < 1 || !(s.Gamma > 0 && s.Gamma <= 1)):
		return fmt.Errorf("step decay every %d epochs by %g: want ≥ 1 and 0 < gamma ≤ 1", s.Every, s.Gamma)
	case s.Kind != "cosine" && s.Kind != "step":
		return fmt.Errorf("schedule %q: want cosine or step", s.Kind)
	}
	return nil
}

// Rate returns the learning rate of batch b (0-based) of epoch e (0-based)
// in a run of epochs epochs of perEpoch batches each:
//
//	cosine: End + (LR − End)·(1 + cos(π·i/N))/2, i = e·perEpoch + b, N = epochs·perEpoch
//	step:   LR · Gamma^⌊e/Every⌋
func (s Schedule) Rate(e, b, epochs, perEpoch int) float64 {
	if s.Kind == "step" {
		return s.LR * math.Pow(s.Gamma, float64(e/s.Every))
	}
	i, n := float64(e*perEpoch+b), float64(epochs*perEpoch)
	if n <= 0 || i >= n {
		return s.End
	}
	return s.End + (s.LR-s.End)*(1+math.Cos(math.Pi*i/n))/2
}
