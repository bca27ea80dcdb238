package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// benchCmd runs the built-in benchmark (the same as the UCI "bench"
// command) and prints a line per position and the total nodes and nodes per
// second. The total node count with the default (hand-crafted) evaluation
// is the engine's signature.
//
// -eval nnue benches with the network of -evalfile (or the embedded one);
// -eval both runs the hand-crafted evaluation and then the network in the
// same process and compares their speeds.
func benchCmd(e env, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	eval := fs.String("eval", "classical", "evaluation: classical, nnue, or both (one after the other, speeds compared)")
	evalFile := fs.String("evalfile", "", "network file for -eval nnue or both (empty: the embedded net)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: ponderosa bench [-eval classical|nnue|both] [-evalfile FILE] [depth]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	depth := 0
	switch fs.NArg() {
	case 0:
	case 1:
		d, err := strconv.Atoi(fs.Arg(0))
		if err != nil || d < 1 || d > 64 {
			fmt.Fprintf(e.stderr, "ponderosa bench: depth %q is not a number in [1, 64]\n", fs.Arg(0))
			return exitUsage
		}
		depth = d
	default:
		fs.Usage()
		return exitUsage
	}
	switch *eval {
	case "classical":
		b := uci.NewEngineBackend()
		b.BenchDepth = depth
		if err := b.Bench(e.stdout); err != nil {
			fmt.Fprintln(e.stderr, "ponderosa bench:", err)
			return exitFailure
		}
		return exitOK
	case "nnue", "both":
	default:
		fmt.Fprintf(e.stderr, "ponderosa bench: -eval %q: want classical, nnue or both\n", *eval)
		return exitUsage
	}
	net, err := nnue.Choose(true, *evalFile)
	if err != nil {
		fmt.Fprintln(e.stderr, "ponderosa bench:", err)
		return exitFailure
	}
	var classical search.BenchResult
	if *eval == "both" {
		fmt.Fprintln(e.stdout, "classical (hand-crafted) evaluation:")
		if classical, err = search.BenchNet(e.stdout, depth, nil); err != nil {
			fmt.Fprintln(e.stderr, "ponderosa bench:", err)
			return exitFailure
		}
		fmt.Fprintf(e.stdout, "\nnetwork %d→%d→1 ×2 %v:\n", nnue.Inputs, net.Hidden, net.Act)
	}
	withNet, err := search.BenchNet(e.stdout, depth, net)
	if err != nil {
		fmt.Fprintln(e.stderr, "ponderosa bench:", err)
		return exitFailure
	}
	if *eval == "both" {
		printBenchComparison(e.stdout, classical, withNet)
	}
	return exitOK
}

func printBenchComparison(w io.Writer, classical, withNet search.BenchResult) {
	ratio := 0.0
	if classical.NPS > 0 {
		ratio = float64(withNet.NPS) / float64(classical.NPS)
	}
	fmt.Fprintf(w, "\nclassical %d nodes %d nps; nnue %d nodes %d nps; nnue/classical nps %.2f\n",
		classical.Nodes, classical.NPS, withNet.Nodes, withNet.NPS, ratio)
}
