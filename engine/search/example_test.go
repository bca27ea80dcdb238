package search_test

import (
	"context"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

func ExampleEngine_Search() {
	pos, err := board.ParseFEN("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
	if err != nil {
		panic(err)
	}
	e := search.New(search.Options{Threads: 1, HashMB: 16})
	res := e.Search(context.Background(), pos, search.Limits{Depth: 4}, nil, func(info search.Info) {
		// One call per completed iteration: depth, score, nodes, PV...
	})
	fmt.Println(pos.MoveToUCI(res.BestMove), "mate", res.Mate)
	// Output: d1d8 mate 1
}
