package search_test

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

func tbSearch(t *testing.T, fen string, lim search.Limits) (search.Result, uint64) {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	e := search.New(search.Options{Threads: 1, HashMB: 8})
	var hits uint64
	res := e.Search(context.Background(), pos, lim, nil, func(in search.Info) { hits = max(hits, in.TBHits) })
	return res, hits
}

// With Limits.Tablebase the search probes the WDL tables after captures:
// taking the hanging knight reaches a won KQvKR, scored as a tablebase
// win (between TBWin-MaxPly and TBWin) and counted in Info.TBHits;
// without the tables, or with TablebaseLimit 3, it is an evaluation.
func TestSearchProbesTablebase(t *testing.T) {
	tb, err := syzygy.Open("../syzygy/testdata")
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	const fen = "7k/7r/8/3n4/8/8/8/K2Q4 w - - 0 1"
	isTBWin := func(s int) bool { return s > search.TBWin-search.MaxPly && s <= search.TBWin }

	res, hits := tbSearch(t, fen, search.Limits{Depth: 6, Tablebase: tb, TablebaseDepth: 1, TablebaseRule50: true})
	if !isTBWin(res.Score) || hits == 0 || res.Mate != 0 {
		t.Errorf("with tables: %s score %d mate %d, %d tbhits; want a tablebase win", res.BestMove, res.Score, res.Mate, hits)
	}
	if res.BestMove.String() != "d1d5" {
		t.Errorf("with tables: best move %s, want d1d5", res.BestMove)
	}
	res, hits = tbSearch(t, fen, search.Limits{Depth: 6})
	if isTBWin(res.Score) || hits != 0 {
		t.Errorf("without tables: score %d, %d tbhits", res.Score, hits)
	}
	res, hits = tbSearch(t, fen, search.Limits{Depth: 6, Tablebase: tb, TablebaseLimit: 3})
	if isTBWin(res.Score) {
		t.Errorf("limit 3: score %d, %d tbhits: a 4-piece position was probed", res.Score, hits)
	}
}
