package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

func loadSet(path string, quietMargin int) (*tune.Set, int, error) {
	sets, n, err := loadSplit(path, quietMargin, 0)
	if err != nil {
		return nil, 0, err
	}
	return sets[0], n, nil
}

// loadSplit reads the comma-separated files in paths and builds a training
// set and, when holdout > 0, a validation set from the last holdout
// fraction of each file's lines (files are written game by game, so the
// tail holds other games than the head).
func loadSplit(paths string, quietMargin int, holdout float64) ([2]*tune.Set, int, error) {
	var sets [2]*tune.Set
	var parts [2][]tune.Sample
	total := 0
	for _, path := range strings.Split(paths, ",") {
		f, err := os.Open(path)
		if err != nil {
			return sets, 0, fmt.Errorf("open data: %w", err)
		}
		samples, err := tune.ReadSamples(f)
		f.Close()
		if err != nil {
			return sets, 0, fmt.Errorf("data %s: %w", path, err)
		}
		total += len(samples)
		cut := len(samples) - int(holdout*float64(len(samples)))
		parts[0] = append(parts[0], samples[:cut]...)
		parts[1] = append(parts[1], samples[cut:]...)
	}
	for i, name := range []string{"training", "validation"} {
		if i == 1 && holdout <= 0 {
			break
		}
		set := tune.Build(parts[i], quietMargin)
		fmt.Fprintf(os.Stderr, "%s: %d lines, %d positions used (skipped: %d unparsable, %d in check, %d not quiet, %d material draws)\n",
			name, len(parts[i]), set.Len(), set.Skipped.Parse, set.Skipped.Check, set.Skipped.NotQuiet, set.Skipped.Drawn)
		if set.Len() == 0 {
			return sets, 0, fmt.Errorf("data %s: no usable %s positions", paths, name)
		}
		sets[i] = set
	}
	return sets, total, nil
}

func runFit(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	data := fs.String("data", "", "\"FEN;result\" files, comma-separated (required)")
	out := fs.String("out", "", "where to write weights.go (empty: print the losses only)")
	iters := fs.Int("iters", 2000, "Adam iterations (full batch); with -holdout the best iteration on held-out data is kept")
	lr := fs.Float64("lr", 1, "Adam step size in centipawns")
	l2 := fs.Float64("l2", 1e-7, "L2 pull towards the starting weights")
	threads := fs.Int("threads", 2, "goroutines")
	k := fs.Float64("k", 0, "sigmoid scale (0: fit it to the starting weights)")
	from := fs.String("from", "builtin", "starting weights: builtin (weights.go) or start (hand-set StartingWeights)")
	quiet := fs.Int("quiet-margin", 30, "drop positions whose capture search differs from the static eval by more (cp); -1 keeps all")
	holdout := fs.Float64("holdout", 0.1, "fraction of the data (its last lines) kept out of the fit to measure over-fitting")
	every := fs.Int("every", 20, "measure the held-out loss (and keep the best parameters) every this many iterations")
	freeze := fs.String("freeze", "", "comma-separated parameter groups to keep fixed (e.g. PST,Material)")
	lambda := fs.Float64("lambda", 1, "training target = lambda·result + (1-lambda)·sigmoid(K·search score) where a score is recorded; 1 = pure game results")
	note := fs.String("note", "", "extra line for the header of weights.go (e.g. how the data was made)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" {
		return fmt.Errorf("fit: -data is required")
	}
	var w0 eval.Weights
	switch *from {
	case "builtin":
		w0 = eval.DefaultWeights()
	case "start":
		w0 = eval.StartingWeights()
	default:
		return fmt.Errorf("fit: -from %q: want builtin or start", *from)
	}
	var frozen []bool
	if *freeze != "" {
		frozen = make([]bool, eval.NumParams)
		for _, name := range strings.Split(*freeze, ",") {
			start, n, ok := eval.GroupRange(name)
			if !ok {
				return fmt.Errorf("fit: -freeze: no parameter group %q", name)
			}
			for i := start; i < start+n; i++ {
				frozen[i] = true
			}
		}
	}
	sets, lines, err := loadSplit(*data, *quiet, *holdout)
	if err != nil {
		return err
	}
	set, val := sets[0], sets[1]
	p := tune.FromWeights(&w0)
	if *k == 0 {
		*k = set.FitK(p, *threads)
	}
	if *lambda < 1 {
		set.BlendTargets(*lambda, *k)
		fmt.Fprintf(os.Stderr, "training targets blended: lambda %.2f (the held-out loss still uses game results)\n", *lambda)
	}
	before := set.Loss(p, *k, *threads)
	valBefore := math.NaN()
	if val != nil {
		valBefore = val.Loss(p, *k, *threads)
	}
	fmt.Fprintf(os.Stderr, "K = %.4f, loss before = %.6f (validation %.6f)\n", *k, before, valBefore)
	begin := time.Now()
	best, bestVal, bestIter := *p, valBefore, 0
	after := set.Fit(ctx, p, *k, tune.Options{
		Iterations: *iters, LR: *lr, Threads: *threads, L2: *l2, ReportEvery: *every, Frozen: frozen,
		Progress: func(it int, loss float64) {
			vl := math.NaN()
			if val != nil {
				vl = val.Loss(p, *k, *threads)
				if vl < bestVal {
					best, bestVal, bestIter = *p, vl, it
				}
			}
			fmt.Fprintf(os.Stderr, "iter %d loss %.6f validation %.6f (%s)\n", it, loss, vl, time.Since(begin).Round(time.Second))
		},
	})
	if val != nil {
		// Early stopping: keep the parameters that did best on held-out data.
		fmt.Fprintf(os.Stderr, "best validation loss %.6f at iteration %d\n", bestVal, bestIter)
		*p = best
		after = set.Loss(p, *k, *threads)
	}
	w1 := p.Weights()
	rounded := set.Loss(tune.FromWeights(&w1), *k, *threads)
	valAfter := math.NaN()
	if val != nil {
		valAfter = val.Loss(tune.FromWeights(&w1), *k, *threads)
	}
	fmt.Fprintf(os.Stderr, "loss after = %.6f (rounded weights %.6f, validation %.6f)\n", after, rounded, valAfter)
	for i := eval.IdxMaterial; i < eval.IdxMaterial+5; i++ {
		fmt.Fprintf(os.Stderr, "  %s: S(%d, %d) -> S(%d, %d)\n", eval.ParamName(i), w0[i].MG(), w0[i].EG(), w1[i].MG(), w1[i].EG())
	}
	printBiggestChanges(&w0, &w1, 20)
	if *out == "" {
		return nil
	}
	header := []string{
		fmt.Sprintf("Fitted %s by `tune fit` (Texel method, full-batch Adam, %d iterations, lr %g, l2 %g, frozen groups %q, lambda %g).", time.Now().UTC().Format("2006-01-02"), *iters, *lr, *l2, *freeze, *lambda),
		fmt.Sprintf("Data: %s, %d lines, %d quiet positions used; K = %.4f.", *data, lines, set.Len(), *k),
		fmt.Sprintf("Mean squared error: %.6f with the starting weights (%s), %.6f after.", before, *from, rounded),
		fmt.Sprintf("Held-out last %.0f%% of the data: %.6f before, %.6f after (best of every %d iterations: %d).", *holdout*100, valBefore, valAfter, *every, bestIter),
	}
	if *note != "" {
		header = append(header, *note)
	}
	return writeWeights(*out, &w1, header)
}

func writeWeights(path string, w *eval.Weights, header []string) error {
	var buf bytes.Buffer
	if err := eval.WriteGo(&buf, w, header); err != nil {
		return fmt.Errorf("write weights: %w", err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return fmt.Errorf("format weights: %w", err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return fmt.Errorf("write weights: %w", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", path)
	return nil
}

func runLoss(args []string) error {
	fs := flag.NewFlagSet("loss", flag.ContinueOnError)
	data := fs.String("data", "", "\"FEN;result\" file (required)")
	k := fs.Float64("k", 0, "sigmoid scale (0: fit it)")
	quiet := fs.Int("quiet-margin", 30, "as for fit")
	threads := fs.Int("threads", 2, "goroutines")
	weights := fs.String("weights", "", "weights.go file to measure (default: the built-in weights)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" {
		return fmt.Errorf("loss: -data is required")
	}
	w := eval.DefaultWeights()
	if *weights != "" {
		f, err := os.Open(*weights)
		if err != nil {
			return fmt.Errorf("loss: %w", err)
		}
		wp, err := eval.ReadGo(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("loss: %s: %w", *weights, err)
		}
		w = *wp
	}
	set, _, err := loadSet(*data, *quiet)
	if err != nil {
		return err
	}
	p := tune.FromWeights(&w)
	if *k == 0 {
		*k = set.FitK(p, *threads)
	}
	fmt.Printf("K = %.4f loss = %.6f positions = %d\n", *k, set.Loss(p, *k, *threads), set.Len())
	return nil
}

func runInit(args []string) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	out := fs.String("out", "", "where to write weights.go (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("init: -out is required")
	}
	w := eval.StartingWeights()
	return writeWeights(*out, &w, []string{
		"Hand-set starting weights (eval.StartingWeights), written by `tune init`; not yet fitted.",
	})
}

// printBiggestChanges lists the n parameters that moved most.
func printBiggestChanges(a, b *eval.Weights, n int) {
	idx := make([]int, eval.NumParams)
	for i := range idx {
		idx[i] = i
	}
	delta := func(i int) int {
		d := func(x int) int {
			if x < 0 {
				return -x
			}
			return x
		}
		return d(a[i].MG()-b[i].MG()) + d(a[i].EG()-b[i].EG())
	}
	sort.Slice(idx, func(x, y int) bool { return delta(idx[x]) > delta(idx[y]) })
	fmt.Fprintln(os.Stderr, "biggest changes:")
	for _, i := range idx[:n] {
		fmt.Fprintf(os.Stderr, "  %-26s S(%d, %d) -> S(%d, %d)\n", eval.ParamName(i), a[i].MG(), a[i].EG(), b[i].MG(), b[i].EG())
	}
}
