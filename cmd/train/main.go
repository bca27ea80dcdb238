// Command train trains ponderosa's evaluation network on internal/nnuedata
// files (made by cmd/datagen) and exports it in engine/nnue's quantised
// format (see docs/nnue-net.md).
//
//	train fit -out DIR [flags] data.bin [more.bin ...]   # train; rerun the same command to continue
//	train export -ckpt DIR/checkpoint.ckpt -out net.nnue  # quantise a checkpoint (other QA/QB)
//	train eval -net net.nnue [FEN ...]                    # centipawns of positions (stdin without FENs)
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // a second Ctrl-C kills at once
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: train fit|export|eval [flags] (see -h of each)")
	}
	switch args[0] {
	case "fit":
		return runFit(ctx, args[1:], stderr)
	case "export":
		return runExport(args[1:], stdout, stderr)
	case "eval":
		return runEval(args[1:], stdin, stdout, stderr)
	}
	return fmt.Errorf("unknown subcommand %q: want fit, export or eval", args[0])
}

// The defaults, documented in docs/nnue-net.md.
const (
	defHidden = 256
	defAct    = "screlu"
	defLambda = 0.7
	defScale  = 400
	defLR     = 0.001
	defLREnd  = 0.00001
	defBatch  = 16384
	defEpochs = 10
	defShards = 16
	defQA     = 255
	defQB     = 64

	defProgress   = 10 * time.Second
	defCheckpoint = 10 * time.Minute
)

func runFit(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("train fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory of the checkpoint, the nets and losses.csv (required)")
	val := fs.String("val", "", "validation data files, comma-separated (default: hold out -val-frac of the training data)")
	valFrac := fs.Float64("val-frac", 0.05, "fraction of the training data held out for validation, in blocks of 4096 records")
	hidden := fs.Int("hidden", defHidden, "hidden layer size H")
	act := fs.String("act", defAct, "activation: screlu (squared clipped ReLU) or crelu (clipped ReLU)")
	lambda := fs.Float64("lambda", defLambda, "weight of the search score in the target; 1 − lambda goes to the game result")
	scale := fs.Float64("scale", defScale, "centipawns per unit of the sigmoid's argument: target sigmoid(score/scale), eval = output·scale")
	lr := fs.Float64("lr", defLR, "learning rate (Adam) at the start")
	sched := fs.String("lr-schedule", "cosine", "cosine (from -lr to -lr-end over all batches) or step (×-lr-gamma every -lr-step epochs)")
	lrEnd := fs.Float64("lr-end", defLREnd, "cosine: the last learning rate")
	lrStep := fs.Int("lr-step", 4, "step: epochs between decays")
	lrGamma := fs.Float64("lr-gamma", 0.3, "step: factor of each decay")
	batch := fs.Int("batch", defBatch, "positions per optimiser step")
	epochs := fs.Int("epochs", defEpochs, "passes over the training data")
	threads := fs.Int("threads", runtime.NumCPU(), "goroutines (at most -shards are used)")
	shards := fs.Int("shards", defShards, "parts of a batch with their own gradient buffers; the result depends on it, not on -threads")
	seed := fs.Uint64("seed", 1, "seed of the initial weights, the shuffles and the validation split")
	qa := fs.Int("qa", defQA, "quantisation of the input weights and biases")
	qb := fs.Int("qb", defQB, "quantisation of the output weights")
	progress := fs.Duration("progress", defProgress, "interval of progress lines (0: none)")
	ckEvery := fs.Duration("checkpoint-every", defCheckpoint, "interval of checkpoints within an epoch (0: at epoch ends only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("fit: want -out DIR and at least one data file")
	}
	a, err := nnue.ParseActivation(*act)
	if err != nil {
		return fmt.Errorf("fit: %w", err)
	}
	cfg := train.Config{
		Hyper: train.Hyper{
			Hidden: *hidden, Act: a, Lambda: *lambda, Scale: *scale,
			Batch: *batch, Shards: *shards, Seed: *seed, Epochs: *epochs,
			Sched: train.Schedule{Kind: *sched, LR: *lr, End: *lrEnd, Every: *lrStep, Gamma: *lrGamma},
		},
		Train: fs.Args(), ValFrac: *valFrac, Out: *out, Threads: *threads, QA: *qa, QB: *qb,
		Progress: *progress, CheckpointEvery: *ckEvery,
	}
	if *val != "" {
		cfg.Val = strings.Split(*val, ",")
	}
	return train.Fit(ctx, cfg, stderr)
}

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("ckpt", "", "checkpoint file (required)")
	out := fs.String("out", "", "net file to write (required)")
	qa := fs.Int("qa", defQA, "quantisation of the input weights and biases")
	qb := fs.Int("qb", defQB, "quantisation of the output weights")
	scale := fs.Int("scale", 0, "centipawns per unit of output (0: the checkpoint's -scale)")
	data := fs.String("data", "", "data file whose positions compare the quantised net with the float one (optional)")
	n := fs.Int("n", 2000, "positions of -data to compare")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ckpt == "" || *out == "" || fs.NArg() != 0 {
		return fmt.Errorf("export: want -ckpt FILE -out FILE")
	}
	c, err := train.ReadCheckpoint(*ckpt)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if *scale == 0 {
		s, err := strconv.ParseFloat(c.Setting("scale"), 64)
		if err != nil {
			return fmt.Errorf("export: the checkpoint names no scale (%q): give -scale", c.Settings)
		}
		*scale = int(s)
	}
	q, err := c.Net.Quantise(*qa, *qb, *scale)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := q.Save(*out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stdout, "%s: 768→%d→1 ×2, %v, QA %d, QB %d, scale %d, from epoch %d batch %d of %s\n",
		*out, q.Hidden, q.Act, q.QA, q.QB, q.Scale, c.Epoch, c.Batch, *ckpt)
	if *data != "" {
		d, err := train.Load(context.Background(), []string{*data})
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", train.QuantisationError(c.Net, q, d.Records, *n))
	}
	return nil
}

func runEval(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	netPath := fs.String("net", "", "net file (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *netPath == "" {
		return fmt.Errorf("eval: want -net FILE")
	}
	n, err := nnue.Load(*netPath)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	eval := func(fen string) error {
		p, err := board.ParseFEN(fen)
		if err != nil {
			return fmt.Errorf("eval: %q: %w", fen, err)
		}
		fmt.Fprintf(stdout, "%d\t%s\n", n.Evaluate(p), fen)
		return nil
	}
	if fs.NArg() > 0 {
		for _, fen := range fs.Args() {
			if err := eval(fen); err != nil {
				return err
			}
		}
		return nil
	}
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			if err := eval(line); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("eval: read FENs: %w", err)
	}
	return nil
}
