package train

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// Hyper holds the settings that decide what a training step computes.
type Hyper struct {
	Hidden int             // hidden size H
	Act    nnue.Activation // CReLU or SCReLU
	Lambda float64         // weight of the search score in the target (1 − Lambda: the result)
	Scale  float64         // centipawns per unit of the sigmoid's argument
	Batch  int             // positions per optimiser step
	Shards int             // gradient buffers a batch is split over (see Trainer)
	Seed   uint64          // initial weights, shuffles, validation split
	Sched  Schedule        // learning rate
	Epochs int             // passes over the training set (the cosine schedule spans them)
}

// Validate checks the settings.
func (h Hyper) Validate() error {
	switch {
	case h.Hidden < 1 || h.Hidden > nnue.MaxHidden:
		return fmt.Errorf("hidden size %d: want 1–%d", h.Hidden, nnue.MaxHidden)
	case h.Act != nnue.CReLU && h.Act != nnue.SCReLU:
		return fmt.Errorf("unknown activation %v", h.Act)
	case !(h.Lambda >= 0 && h.Lambda <= 1):
		return fmt.Errorf("lambda %g: want 0–1", h.Lambda)
	case !(h.Scale > 0):
		return fmt.Errorf("scale %g: want > 0", h.Scale)
	case h.Batch < 1:
		return fmt.Errorf("batch %d: want ≥ 1", h.Batch)
	case h.Shards < 1 || h.Shards > 1024:
		return fmt.Errorf("shards %d: want 1–1024", h.Shards)
	case h.Epochs < 1:
		return fmt.Errorf("epochs %d: want ≥ 1", h.Epochs)
	}
	return h.Sched.Validate()
}

// Trainer fits a Net to a training set by mini-batch Adam.
//
// A batch is cut into Shards contiguous parts, each with its own gradient
// buffer; Threads goroutines take parts one at a time and run their
// positions forward and back into the part's buffer. Then the parameters
// are divided among the goroutines, and each sums its parameters' gradients
// over the parts in part order, takes the Adam step and zeroes the buffers.
// Every sum is therefore made in an order fixed by the batch and the parts,
// never by the threads: the same seed, data and Hyper give bit-identical
// weights for any number of threads.
type Trainer struct {
	Hyper
	Net     *Net
	Threads int

	opt     *adam
	train   []nnuedata.Record
	val     []nnuedata.Record
	perm    []uint32
	permFor int // epoch+1 that perm was shuffled for; 0: none
	epoch   int // completed epochs
	batch   int // batches done in the current epoch
	grads   [][]float32
	losses  []float64 // per shard
	scratch []*scratch
}

// New returns a trainer with a fresh net drawn from h.Seed.
func New(h Hyper, threads int, train, val []nnuedata.Record) (*Trainer, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("no training positions")
	}
	net, err := NewNet(h.Hidden, h.Act, h.Seed)
	if err != nil {
		return nil, err
	}
	threads = max(1, min(threads, h.Shards))
	t := &Trainer{
		Hyper: h, Net: net, Threads: threads,
		opt:   newAdam(len(net.P)),
		train: train, val: val,
		perm:   make([]uint32, len(train)),
		grads:  make([][]float32, h.Shards),
		losses: make([]float64, h.Shards),
	}
	for i := range t.grads {
		t.grads[i] = make([]float32, len(net.P))
	}
	for i := 0; i < threads; i++ {
		t.scratch = append(t.scratch, newScratch(h.Hidden))
	}
	return t, nil
}

// BatchesPerEpoch returns the batches of an epoch (the last one may be
// short).
func (t *Trainer) BatchesPerEpoch() int { return (len(t.train) + t.Batch - 1) / t.Batch }

// Position returns the completed epochs and the batches done in the next.
func (t *Trainer) Position() (epoch, batch int) { return t.epoch, t.batch }

// Steps returns the optimiser steps taken.
func (t *Trainer) Steps() uint64 { return t.opt.t }

// Done reports whether every epoch is complete.
func (t *Trainer) Done() bool { return t.epoch >= t.Epochs }

// shuffle sets perm to epoch e's order of the training set: a function of
// the seed and e alone, so a run resumed in the middle of an epoch sees the
// same order.
func (t *Trainer) shuffle(e int) {
	for i := range t.perm {
		t.perm[i] = uint32(i)
	}
	rng := rand.New(rand.NewPCG(t.Seed, 0xe90c0000+uint64(e)))
	rng.Shuffle(len(t.perm), func(i, j int) { t.perm[i], t.perm[j] = t.perm[j], t.perm[i] })
}

// parallel runs f(i) for i in [0, n) on the trainer's goroutines, each
// taking the next i when done; f receives the goroutine's scratch.
func (t *Trainer) parallel(n int, f func(s *scratch, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(t.Threads, n); w++ {
		wg.Add(1)
		go func(s *scratch) {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(s, i)
			}
		}(t.scratch[w])
	}
	wg.Wait()
}

// shardRange returns the part of a batch of n positions that shard k takes.
func (t *Trainer) shardRange(n, k int) (lo, hi int) {
	return k * n / t.Shards, (k + 1) * n / t.Shards
}

// gradients runs the batch of training positions idx forward and back into
// the shard buffers and returns the summed squared error.
func (t *Trainer) gradients(idx []uint32) float64 {
	t.parallel(t.Shards, func(s *scratch, k int) {
		lo, hi := t.shardRange(len(idx), k)
		g := t.grads[k]
		var sum float64
		for _, i := range idx[lo:hi] {
			sum += s.accumulate(t.Net, &t.train[i], t.Lambda, t.Scale, g)
		}
		t.losses[k] = sum
	})
	var sum float64
	for _, l := range t.losses {
		sum += l
	}
	return sum
}

// step takes one optimiser step on the positions idx at learning rate lr
// and returns their mean squared error before the step.
func (t *Trainer) step(idx []uint32, lr float64) float64 {
	loss := t.gradients(idx)
	t.opt.t++
	step := t.opt.t
	inv := float32(1 / float64(len(idx)))
	p := t.Net.P
	clipEnd := t.Net.offB2() // everything but the output bias is clipped
	const chunk = 4096
	chunks := (len(p) + chunk - 1) / chunk
	t.parallel(chunks, func(s *scratch, c int) {
		lo, hi := c*chunk, min((c+1)*chunk, len(p))
		g := t.grads[0][lo:hi]
		for _, o := range t.grads[1:] {
			o := o[lo:hi]
			for i := range g {
				g[i] += o[i]
				o[i] = 0
			}
		}
		for i := range g {
			g[i] *= inv
		}
		t.opt.update(p, t.grads[0], lo, hi, clipEnd, lr, step)
		clear(g)
	})
	return loss / float64(len(idx))
}

// Rate returns the learning rate of the next batch.
func (t *Trainer) Rate() float64 {
	return t.Sched.Rate(t.epoch, t.batch, t.Epochs, t.BatchesPerEpoch())
}

// TrainBatch runs the next batch of the current epoch and returns its
// mean squared error (before the step) and size. It reports whether the
// epoch ended with it.
func (t *Trainer) TrainBatch() (loss float64, n int, epochDone bool) {
	if t.permFor != t.epoch+1 {
		t.shuffle(t.epoch)
		t.permFor = t.epoch + 1
	}
	lo := t.batch * t.Batch
	hi := min(lo+t.Batch, len(t.train))
	loss = t.step(t.perm[lo:hi], t.Rate())
	t.batch++
	if hi == len(t.train) {
		t.epoch++
		t.batch = 0
	}
	return loss, hi - lo, t.batch == 0
}

// Loss returns the mean squared error of the net on recs (all threads).
func (t *Trainer) Loss(recs []nnuedata.Record) float64 {
	if len(recs) == 0 {
		return 0
	}
	t.parallel(t.Shards, func(s *scratch, k int) {
		lo, hi := t.shardRange(len(recs), k)
		var sum float64
		for i := lo; i < hi; i++ {
			sum += s.loss(t.Net, &recs[i], t.Lambda, t.Scale)
		}
		t.losses[k] = sum
	})
	var sum float64
	for _, l := range t.losses {
		sum += l
	}
	return sum / float64(len(recs))
}

// ValLoss returns the loss on the validation set (0 when there is none).
func (t *Trainer) ValLoss() float64 { return t.Loss(t.val) }

// ScoreOnlyLoss returns the loss on recs of a predictor that outputs the
// search score itself (sigmoid(score/Scale)): what remains is the game
// results' share of the target, (1 − Lambda)²·mean (sigmoid(score/Scale) −
// result)². It shows what a net that learnt the search score exactly would
// reach.
func (t *Trainer) ScoreOnlyLoss(recs []nnuedata.Record) float64 {
	if len(recs) == 0 {
		return 0
	}
	var sum float64
	for i := range recs {
		stm := Target(&recs[i], 1, t.Scale)
		e := stm - Target(&recs[i], t.Lambda, t.Scale)
		sum += e * e
	}
	return sum / float64(len(recs))
}
