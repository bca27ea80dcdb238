package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// Config is a training run over files.
type Config struct {
	Hyper
	Train    []string // training data files (internal/nnuedata)
	Val      []string // validation files; when empty, ValFrac of Train is held out
	ValFrac  float64
	ValBlock int    // records held out together (0: ValBlock)
	Out      string // directory of the checkpoint, the nets and losses.csv
	Threads  int
	QA, QB   int // quantisation of the exported nets

	Progress        time.Duration // interval of progress lines (0: none)
	CheckpointEvery time.Duration // interval of checkpoints within an epoch (0: at epoch ends only)
}

// Files in Config.Out.
const (
	CheckpointFile = "checkpoint.ckpt"
	NetFile        = "net.nnue" // the latest epoch's net
	LossFile       = "losses.csv"
)

// EpochNetFile returns the name of the net exported after epoch e (1-based).
func EpochNetFile(e int) string { return fmt.Sprintf("epoch-%03d.nnue", e) }

func (c *Config) validate() error {
	if err := c.Hyper.Validate(); err != nil {
		return err
	}
	switch {
	case len(c.Train) == 0:
		return fmt.Errorf("no training files")
	case c.Out == "":
		return fmt.Errorf("no output directory")
	case len(c.Val) == 0 && !(c.ValFrac >= 0 && c.ValFrac < 1):
		return fmt.Errorf("validation fraction %g: want 0 ≤ f < 1", c.ValFrac)
	case c.QA < 1 || c.QA > nnue.MaxQ || c.QB < 1 || c.QB > nnue.MaxQ:
		return fmt.Errorf("QA %d, QB %d: want 1–%d", c.QA, c.QB, nnue.MaxQ)
	case c.Scale != math.Trunc(c.Scale) || c.Scale > 65535:
		return fmt.Errorf("scale %g: the net file holds a whole number 1–65535", c.Scale)
	}
	return nil
}

// Fit trains as c says, printing progress to log. When c.Out holds a
// checkpoint of the same settings, it goes on from there (so the same
// command continues an interrupted run, and one with more epochs trains
// further). After every epoch it writes the checkpoint, the quantised net
// (EpochNetFile and NetFile) and a line of LossFile. When ctx ends it
// saves a checkpoint after the current batch and returns ctx.Err().
func Fit(ctx context.Context, c Config, log io.Writer) error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	start := time.Now()
	trainSet, err := Load(ctx, c.Train)
	if err != nil {
		return err
	}
	var train, val []nnuedata.Record
	data := "train=" + trainSet.Describe()
	if len(c.Val) > 0 {
		valSet, err := Load(ctx, c.Val)
		if err != nil {
			return err
		}
		train, val = trainSet.Records, valSet.Records
		data += " val=" + valSet.Describe()
	} else {
		block := c.ValBlock
		if block <= 0 {
			block = ValBlock
		}
		train, val = Split(trainSet.Records, c.ValFrac, block, c.Seed)
		data += fmt.Sprintf(" val=%g×blocks of %d", c.ValFrac, block)
	}
	trainSet = nil
	t, err := New(c.Hyper, c.Threads, train, val)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	fmt.Fprintf(log, "fit: %d training and %d validation positions loaded in %v\n", len(train), len(val), time.Since(start).Round(time.Millisecond))
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	settings := t.Settings(data)
	ckpt := filepath.Join(c.Out, CheckpointFile)
	if _, err := os.Stat(ckpt); err == nil {
		if err := t.LoadCheckpoint(ckpt, settings); err != nil {
			return err
		}
		e, b := t.Position()
		fmt.Fprintf(log, "fit: resuming %s at epoch %d, batch %d of %d (step %d)\n", ckpt, e+1, b, t.BatchesPerEpoch(), t.Steps())
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("train: %w", err)
	}
	fmt.Fprintf(log, "fit: net 768→%d→1 ×2 perspectives, %v, %d parameters; %d threads, %d shards, batch %d, %d batches an epoch, %d epochs\n",
		t.Hidden, t.Act, len(t.Net.P), t.Threads, t.Shards, t.Batch, t.BatchesPerEpoch(), t.Epochs)
	fmt.Fprintf(log, "fit: target %g·sigmoid(score/%g) + (1 − %g)·result; lr %s\n", t.Lambda, t.Scale, t.Lambda, describeSchedule(t.Sched))
	if len(val) > 0 {
		fmt.Fprintf(log, "fit: validation loss of the search score itself %.6f; of this net %.6f\n", t.ScoreOnlyLoss(val), t.ValLoss())
	} else {
		fmt.Fprintf(log, "fit: no validation set (none given, or too few blocks to hold one out): validation losses read 0\n")
	}
	if t.Done() {
		fmt.Fprintf(log, "fit: all %d epochs done already\n", t.Epochs)
		return nil
	}

	var (
		epochLoss   float64
		epochPos    int
		epochTime   time.Duration
		sincePos    int
		runPos      int
		runTrain    time.Duration
		lastLine    = time.Now()
		lastCkpt    = time.Now()
		batchesLeft = (t.Epochs-t.epoch)*t.BatchesPerEpoch() - t.batch
	)
	for !t.Done() {
		lr := t.Rate()
		t0 := time.Now()
		loss, n, epochDone := t.TrainBatch()
		d := time.Since(t0)
		epochLoss += loss * float64(n)
		epochPos += n
		epochTime += d
		sincePos += n
		runPos += n
		runTrain += d
		batchesLeft--
		now := time.Now()
		if c.Progress > 0 && now.Sub(lastLine) >= c.Progress && !epochDone {
			eta := time.Duration(float64(runTrain) / float64(runPos) * float64(batchesLeft*t.Batch))
			e, b := t.Position()
			fmt.Fprintf(log, "fit: epoch %d/%d, batch %d/%d, %.0f positions/s, loss %.6f, lr %.3g, ETA %v\n",
				e+1, t.Epochs, b, t.BatchesPerEpoch(), float64(sincePos)/now.Sub(lastLine).Seconds(),
				epochLoss/float64(epochPos), lr, eta.Round(time.Second))
			lastLine, sincePos = now, 0
		}
		if epochDone {
			e, _ := t.Position()
			v0 := time.Now()
			vl := t.ValLoss()
			vd := time.Since(v0)
			if err := t.SaveCheckpoint(ckpt, settings); err != nil {
				return err
			}
			q, err := t.Net.Quantise(c.QA, c.QB, int(c.Scale))
			if err != nil {
				return fmt.Errorf("train: epoch %d: %w", e, err)
			}
			for _, name := range []string{EpochNetFile(e), NetFile} {
				if err := q.Save(filepath.Join(c.Out, name)); err != nil {
					return fmt.Errorf("train: %w", err)
				}
			}
			qd := QuantisationError(t.Net, q, val, 1000)
			rate := float64(epochPos) / epochTime.Seconds()
			fmt.Fprintf(log, "fit: epoch %d/%d done: train loss %.6f, validation loss %.6f, %.0f positions/s (%v training, %v validation); quantised %s: %s\n",
				e, t.Epochs, epochLoss/float64(epochPos), vl, rate, epochTime.Round(time.Millisecond), vd.Round(time.Millisecond), EpochNetFile(e), qd)
			if err := appendLoss(filepath.Join(c.Out, LossFile), e, epochLoss/float64(epochPos), vl, rate, lr); err != nil {
				return err
			}
			epochLoss, epochPos, epochTime = 0, 0, 0
			lastCkpt = time.Now()
		} else if c.CheckpointEvery > 0 && now.Sub(lastCkpt) >= c.CheckpointEvery {
			if err := t.SaveCheckpoint(ckpt, settings); err != nil {
				return err
			}
			lastCkpt = now
		}
		if ctx.Err() != nil {
			if err := t.SaveCheckpoint(ckpt, settings); err != nil {
				return err
			}
			e, b := t.Position()
			fmt.Fprintf(log, "fit: stopped at epoch %d, batch %d; %s holds the state, the same command goes on\n", e+1, b, ckpt)
			return ctx.Err()
		}
	}
	fmt.Fprintf(log, "fit: done in %v, %.0f positions/s while training; net %s\n",
		time.Since(start).Round(time.Second), float64(runPos)/runTrain.Seconds(), filepath.Join(c.Out, NetFile))
	return nil
}

func describeSchedule(s Schedule) string {
	if s.Kind == "step" {
		return fmt.Sprintf("%g, ×%g every %d epochs (Adam β1 %g, β2 %g, ε %g)", s.LR, s.Gamma, s.Every, Beta1, Beta2, Epsilon)
	}
	return fmt.Sprintf("%g → %g cosine over all batches (Adam β1 %g, β2 %g, ε %g)", s.LR, s.End, Beta1, Beta2, Epsilon)
}

func appendLoss(path string, epoch int, train, val, rate, lr float64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("train: losses: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		fmt.Fprintln(f, "epoch,train_loss,val_loss,positions_per_s,last_lr")
	}
	fmt.Fprintf(f, "%d,%.6f,%.6f,%.0f,%.4g\n", epoch, train, val, rate, lr)
	if err := f.Close(); err != nil {
		return fmt.Errorf("train: losses: %w", err)
	}
	return nil
}

// QuantError compares a float net with its quantised export.
type QuantError struct {
	N            int     // positions compared
	MeanAbs, Max float64 // centipawns
}

func (q QuantError) String() string {
	if q.N == 0 {
		return "no positions to compare"
	}
	return fmt.Sprintf("|quantised − float| mean %.2f cp, max %.1f cp over %d positions", q.MeanAbs, q.Max, q.N)
}

// QuantisationError evaluates up to limit of recs (spread over them) with
// the float net (output × q.Scale) and the quantised one (q.Evaluate) and
// returns how far apart they are.
func QuantisationError(n *Net, q *nnue.Net, recs []nnuedata.Record, limit int) QuantError {
	var r QuantError
	if len(recs) == 0 || limit <= 0 {
		return r
	}
	s := newScratch(n.H)
	step := max(1, len(recs)/limit)
	var sum float64
	for i := 0; i < len(recs) && r.N < limit; i += step {
		p, err := recs[i].Position()
		if err != nil {
			continue
		}
		f := float64(s.forward(n, &recs[i])) * float64(q.Scale)
		d := math.Abs(float64(q.Evaluate(p)) - f)
		sum += d
		r.Max = max(r.Max, d)
		r.N++
	}
	if r.N > 0 {
		r.MeanAbs = sum / float64(r.N)
	}
	return r
}
