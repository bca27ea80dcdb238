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

// TablebaseDepth holds back the probes of positions of exactly
// TablebaseLimit pieces only when that limit is within the tables (as in
// Stockfish): with limit 0 (the largest table) or a limit beyond the largest
// table (4 pieces here), the 4-piece position after the capture is probed
// at any depth; with limit 4 and TablebaseDepth 100 it is not.
func TestSearchTablebaseDepthRule(t *testing.T) {
	tb, err := syzygy.Open("../syzygy/testdata")
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if tb.MaxPieces() != 4 {
		t.Fatalf("the test wants 4-piece test tables, got %d", tb.MaxPieces())
	}
	const fen = "7k/7r/8/3n4/8/8/8/K2Q4 w - - 0 1"
	isTBWin := func(s int) bool { return s > search.TBWin-search.MaxPly && s <= search.TBWin }
	for _, c := range []struct {
		limit  int
		probed bool
	}{{0, true}, {7, true}, {4, false}} {
		res, hits := tbSearch(t, fen, search.Limits{Depth: 6, Tablebase: tb, TablebaseDepth: 100, TablebaseLimit: c.limit, TablebaseRule50: true})
		if got := hits > 0 && isTBWin(res.Score); got != c.probed {
			t.Errorf("limit %d, probe depth 100: score %d, %d tbhits; want probed %v", c.limit, res.Score, hits, c.probed)
		}
	}
}
