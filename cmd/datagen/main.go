// Command datagen makes the training data of ponderosa's evaluation network
// in the binary format of internal/nnuedata (see docs/nnue-data.md).
//
//	datagen gen -out data.bin -games 100000      # self-play at fixed nodes, every core; rerun to continue
//	datagen convert -out data.bin a.txt b.txt    # the tuner's "FEN;result;score" text to the binary format
//	datagen stats data.bin                       # counts, results, scores and a few decoded positions
//
// It is a command of its own rather than a -format flag of `tune gen`: its
// -games and -positions are targets for the whole file (a rerun continues
// an interrupted run and produces the same bytes), while `tune gen` appends
// a number of further games to a text file; and it has convert and stats,
// which belong to the binary format. Both play their games with
// internal/tune's self-play.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // a second Ctrl-C kills at once
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "datagen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: datagen gen|convert|stats [flags] (see -h of each)")
	}
	switch args[0] {
	case "gen":
		return runGen(ctx, args[1:], stderr, nil)
	case "convert":
		return runConvert(ctx, args[1:], stderr)
	case "stats":
		return runStats(args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown subcommand %q: want gen, convert or stats", args[0])
}
