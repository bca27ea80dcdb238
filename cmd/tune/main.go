// Command tune makes tuning data by self-play and fits ponderosa's
// evaluation weights to it (Texel's method). See docs/tuning.md.
//
//	tune gen   -out data.txt -games 1000        # self-play positions, "FEN;result" lines
//	tune fit   -data data.txt -out engine/eval/weights.go
//	tune loss  -data data.txt                   # loss of the built-in weights
//	tune init  -out engine/eval/weights.go      # write the hand-set starting weights
//	tune match -pairs 100                       # built-in vs hand-set weights, bootstrap player
//	tune match -a binA -b binB -nodes 5000      # two builds (two weights.go) with the real search
//	tune serve -nodes 5000                      # FEN in, "move score" out (used by match -a/-b)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "tune:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: tune gen|fit|loss|init|match|serve [flags] (see -h of each)")
	}
	switch args[0] {
	case "gen":
		return runGen(ctx, args[1:])
	case "fit":
		return runFit(ctx, args[1:])
	case "loss":
		return runLoss(args[1:])
	case "init":
		return runInit(args[1:])
	case "match":
		return runMatch(ctx, args[1:])
	case "serve":
		return runServe(ctx, args[1:])
	}
	return fmt.Errorf("unknown subcommand %q: want gen, fit, loss, init, match or serve", args[0])
}
