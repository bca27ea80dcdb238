// Command perft counts move-generation leaf nodes with ponderosa's board
// package, for checking and timing the move generator.
//
//	perft -depth 6                      # start position
//	perft -fen "<FEN>" -depth 5 -divide # per-move counts, like UCI "go perft"
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func main() {
	fen := flag.String("fen", board.StartFEN, "position to count from")
	depth := flag.Int("depth", 5, "perft depth")
	divide := flag.Bool("divide", false, "print the count below each root move")
	flag.Parse()

	p, err := board.ParseFEN(*fen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perft:", err)
		os.Exit(2)
	}
	if *depth < 1 || *depth > 12 {
		fmt.Fprintln(os.Stderr, "perft: depth must be 1..12")
		os.Exit(2)
	}
	start := time.Now()
	var nodes uint64
	if *divide {
		for _, e := range board.Divide(p, *depth) {
			fmt.Printf("%s: %d\n", e.UCI, e.Nodes)
			nodes += e.Nodes
		}
	} else {
		nodes = board.Perft(p, *depth)
	}
	el := time.Since(start)
	fmt.Printf("Nodes searched: %d\n", nodes)
	fmt.Printf("Time: %.3f s\n", el.Seconds())
	fmt.Printf("NPS: %.0f\n", float64(nodes)/el.Seconds())
}
