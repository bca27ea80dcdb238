package main

import (
	"fmt"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// benchCmd runs the built-in benchmark (the same as the UCI "bench"
// command) and prints a line per position and the total nodes and nodes per
// second. The total node count is the engine's signature.
func benchCmd(e env, args []string) int {
	b := uci.NewEngineBackend()
	switch len(args) {
	case 0:
	case 1:
		d, err := strconv.Atoi(args[0])
		if err != nil || d < 1 || d > 64 {
			fmt.Fprintf(e.stderr, "ponderosa bench: depth %q is not a number in [1, 64]\n", args[0])
			return 2
		}
		b.BenchDepth = d
	default:
		fmt.Fprintln(e.stderr, "usage: ponderosa bench [depth]")
		return 2
	}
	if err := b.Bench(e.stdout); err != nil {
		fmt.Fprintln(e.stderr, "ponderosa bench:", err)
		return 1
	}
	return 0
}
