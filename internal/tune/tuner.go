package tune

import (
	"context"
	"math"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Params are the weights as floats: [i][0] middlegame, [i][1] endgame.
type Params [eval.NumParams][2]float64

// FromWeights converts packed weights to floats.
func FromWeights(w *eval.Weights) *Params {
	var p Params
	for i, s := range w {
		p[i] = [2]float64{float64(s.MG()), float64(s.EG())}
	}
	return &p
}

// Weights rounds the parameters to packed integer weights.
func (p *Params) Weights() eval.Weights {
	var w eval.Weights
	for i, v := range p {
		w[i] = eval.S(int(math.Round(v[0])), int(math.Round(v[1])))
	}
	return w
}

// evalOf returns the evaluation (White's view) of position i, and the
// king-danger totals of White and Black.
func (s *Set) evalOf(i int, p *Params) (float64, [2]float64) {
	var mg, eg float64
	for _, e := range s.entries[s.start[i]:s.start[i+1]] {
		c := float64(e.coef)
		mg += c * p[e.idx][0]
		eg += c * p[e.idx][1]
	}
	var dz [2]float64
	kd := s.kd[i*2*eval.NumKD : (i+1)*2*eval.NumKD]
	for c := 0; c < 2; c++ {
		d := 0.0
		for j, f := range kd[c*eval.NumKD : (c+1)*eval.NumKD] {
			if f != 0 {
				d += float64(f) * p[eval.IdxKDanger+j][0]
			}
		}
		dz[c] = d
		if d > 0 {
			sign := 1 - 2*float64(c)
			mg += sign * d * d / eval.KingDangerMG
			eg += sign * d / eval.KingDangerEG
		}
	}
	return mg*float64(s.mgMul[i]) + eg*float64(s.egMul[i]), dz
}

// sigmoid maps a centipawn score to an expected result with scale k.
func sigmoid(k, cp float64) float64 { return 1 / (1 + math.Pow(10, -k*cp/400)) }

// Loss returns the mean squared error between sigmoid(k·eval) and the
// results, using threads goroutines.
func (s *Set) Loss(p *Params, k float64, threads int) float64 {
	sums := make([]float64, threads)
	s.parallel(threads, func(t, lo, hi int) {
		var sum float64
		for i := lo; i < hi; i++ {
			v, _ := s.evalOf(i, p)
			d := float64(s.result[i]) - sigmoid(k, v)
			sum += d * d
		}
		sums[t] = sum
	})
	var total float64
	for _, v := range sums {
		total += v
	}
	return total / float64(s.Len())
}

func (s *Set) parallel(threads int, f func(t, lo, hi int)) {
	if threads < 1 {
		threads = 1
	}
	n := s.Len()
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		lo, hi := n*t/threads, n*(t+1)/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(t, lo, hi)
		}()
	}
	wg.Wait()
}

// FitK finds the sigmoid scale minimising the loss for fixed parameters by
// golden-section search on [0.05, 5].
func (s *Set) FitK(p *Params, threads int) float64 {
	lo, hi := 0.05, 5.0
	g := (math.Sqrt(5) - 1) / 2
	a, b := hi-g*(hi-lo), lo+g*(hi-lo)
	fa, fb := s.Loss(p, a, threads), s.Loss(p, b, threads)
	for hi-lo > 1e-4 {
		if fa < fb {
			hi, b, fb = b, a, fa
			a = hi - g*(hi-lo)
			fa = s.Loss(p, a, threads)
		} else {
			lo, a, fa = a, b, fb
			b = lo + g*(hi-lo)
			fb = s.Loss(p, b, threads)
		}
	}
	return (lo + hi) / 2
}

// gradient returns d(loss)/d(param) for every parameter, plus an L2 pull
// of strength l2 towards anchor.
func (s *Set) gradient(p *Params, k float64, threads int, l2 float64, anchor *Params) *Params {
	parts := make([]Params, threads)
	n := float64(s.Len())
	s.parallel(threads, func(t, lo, hi int) {
		g := &parts[t]
		for i := lo; i < hi; i++ {
			v, dz := s.evalOf(i, p)
			sg := sigmoid(k, v)
			// d/d eval of (r - sg)^2 = -2 (r - sg) sg (1 - sg) k ln10 / 400
			d := -2 * (float64(s.result[i]) - sg) * sg * (1 - sg) * k * math.Ln10 / 400 / n
			dm, de := d*float64(s.mgMul[i]), d*float64(s.egMul[i])
			for _, e := range s.entries[s.start[i]:s.start[i+1]] {
				c := float64(e.coef)
				g[e.idx][0] += c * dm
				g[e.idx][1] += c * de
			}
			// Chain rule through the king-danger term S(d²/KDM, d/KDE).
			kd := s.kd[i*2*eval.NumKD : (i+1)*2*eval.NumKD]
			for c := 0; c < 2; c++ {
				if dz[c] <= 0 {
					continue
				}
				sign := 1 - 2*float64(c)
				dd := sign * (dm*2*dz[c]/eval.KingDangerMG + de/eval.KingDangerEG)
				for j, f := range kd[c*eval.NumKD : (c+1)*eval.NumKD] {
					if f != 0 {
						g[eval.IdxKDanger+j][0] += float64(f) * dd
					}
				}
			}
		}
	})
	var g Params
	for t := range parts {
		for i := range g {
			g[i][0] += parts[t][i][0]
			g[i][1] += parts[t][i][1]
		}
	}
	if l2 > 0 && anchor != nil {
		for i := range g {
			g[i][0] += 2 * l2 * (p[i][0] - anchor[i][0])
			g[i][1] += 2 * l2 * (p[i][1] - anchor[i][1])
		}
	}
	return &g
}

// Options control Fit.
type Options struct {
	Iterations int
	LR         float64 // Adam step size, in centipawns
	Threads    int
	L2         float64 // pull towards the starting parameters (0 = none)
	// Frozen parameters keep their starting value.
	Frozen []bool
	// Progress, if set, is called every ReportEvery iterations.
	Progress    func(iter int, loss float64)
	ReportEvery int
}

// Fit runs full-batch Adam from p (changed in place) with fixed k and
// returns the final loss. It stops early when ctx is cancelled.
func (s *Set) Fit(ctx context.Context, p *Params, k float64, o Options) float64 {
	if o.Threads < 1 {
		o.Threads = 1
	}
	if o.LR == 0 {
		o.LR = 1
	}
	anchor := *p
	var m, v Params
	const b1, b2, eps = 0.9, 0.999, 1e-8
	b1t, b2t := 1.0, 1.0
	for it := 1; it <= o.Iterations; it++ {
		if ctx.Err() != nil {
			break
		}
		g := s.gradient(p, k, o.Threads, o.L2, &anchor)
		b1t *= b1
		b2t *= b2
		for i := range p {
			if o.Frozen != nil && o.Frozen[i] {
				continue
			}
			for j := 0; j < 2; j++ {
				m[i][j] = b1*m[i][j] + (1-b1)*g[i][j]
				v[i][j] = b2*v[i][j] + (1-b2)*g[i][j]*g[i][j]
				mh := m[i][j] / (1 - b1t)
				vh := v[i][j] / (1 - b2t)
				p[i][j] -= o.LR * mh / (math.Sqrt(vh) + eps)
			}
		}
		if o.Progress != nil && o.ReportEvery > 0 && it%o.ReportEvery == 0 {
			o.Progress(it, s.Loss(p, k, o.Threads))
		}
	}
	return s.Loss(p, k, o.Threads)
}
