package uci_test

import (
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci"
)

func ExampleParseCommand() {
	for _, line := range []string{
		"position startpos moves e2e4 e7e5",
		"setoption name Move Overhead value 30",
		"go ponder wtime 60000 btime 59000 winc 1000 binc 1000",
		"go depht 5",
	} {
		cmd, err := uci.ParseCommand(line)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		switch c := cmd.(type) {
		case uci.CmdPosition:
			fmt.Println(len(c.Moves), "moves from", c.FEN)
		case uci.CmdSetOption:
			fmt.Printf("option %q = %q\n", c.Name, c.Value)
		case uci.CmdGo:
			fmt.Println("ponder:", c.Limits.Ponder, "white clock:", c.Limits.WTime)
		}
	}
	// Output:
	// 2 moves from rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
	// option "Move Overhead" = "30"
	// ponder: true white clock: 1m0s
	// error: go: unknown parameter "depht"
}

func ExampleInfo_String() {
	in := uci.Info{Depth: 12, SelDepth: 17, Score: uci.CP(34), Nodes: 250000, NPS: 1000000,
		Time: 250 * time.Millisecond, HashFull: 41, PV: []string{"e2e4", "e7e5", "g1f3"}}
	fmt.Println(in)
	// Output:
	// info depth 12 seldepth 17 score cp 34 nodes 250000 nps 1000000 hashfull 41 time 250 pv e2e4 e7e5 g1f3
}
