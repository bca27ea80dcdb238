package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// engineAuthor is the "id author" of the UCI engine.
const engineAuthor = "the ponderosa authors"

// uciCmd speaks UCI on in and e.stdout with the built-in engine until
// "quit" or the end of in.
func uciCmd(e env, args []string, in io.Reader) int {
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "usage: ponderosa uci")
		return exitUsage
	}
	// stdout is the GUI's: errors (a recovered panic, with its stack) go
	// to stderr.
	log := zerolog.New(e.stderr).Level(zerolog.ErrorLevel).With().Timestamp().Logger()
	b := uci.NewEngineBackend()
	b.SetLogger(log)
	defer b.Close()
	srv := uci.NewServer("ponderosa "+appVersion(), engineAuthor, b)
	srv.Logger = log
	if err := srv.Run(context.Background(), in, e.stdout); err != nil {
		fmt.Fprintln(e.stderr, "ponderosa uci:", err)
		return exitFailure
	}
	return exitOK
}
