package ponder

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

func testTablebase(t *testing.T) *syzygy.Tablebase {
	t.Helper()
	tb, err := syzygy.Open("../engine/syzygy/testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// A won KQvKR played by the Game for both sides from the tables: every
// move comes from the tables without a search (source=tablebase in the
// stats log), the winner's moves keep the win, and the game ends in mate
// within the fifty-move rule.
func TestTablebaseMovesConvertWin(t *testing.T) {
	tb := testTablebase(t)
	var logBuf bytes.Buffer
	g := newTestGame(t, Options{Tablebase: tb, Logger: zerolog.New(&logBuf)})
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	var moves []string
	if err := g.SetPosition(fen, false, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := board.ParseFEN(fen)
	for ply := 0; ; ply++ {
		var ml board.MoveList
		p.GenerateLegal(&ml)
		if ml.N == 0 {
			if !p.InCheck() || p.SideToMove() != board.Black {
				t.Fatalf("game ended without Black mated: %s", p.FEN())
			}
			break
		}
		d := think(t, g, ThinkLimits{Depth: 1})
		if d.Source != FromTablebase || d.Nodes != 0 {
			t.Fatalf("ply %d: %+v, want a tablebase move", ply, d)
		}
		if winner := ply%2 == 0; winner && (d.WDL != syzygy.Win || d.DTZ <= 0) {
			t.Fatalf("ply %d: the winner's move %s gives %v (dtz %d)", ply, d.UCI, d.WDL, d.DTZ)
		}
		m, err := p.ParseUCIMove(d.UCI)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
		play(t, g, d.UCI)
		moves = append(moves, d.UCI)
		if p.HalfmoveClock() >= 100 || ply > 200 {
			t.Fatalf("no mate within the fifty-move rule: %v", moves)
		}
	}
	if g.Searches() != 0 {
		t.Errorf("%d searches", g.Searches())
	}
	if n := strings.Count(logBuf.String(), `"source":"tablebase"`); n != len(moves) {
		t.Errorf("%d moves logged with source=tablebase, want %d", n, len(moves))
	}
}

// The tables are not asked for an analysis, for positions they do not
// hold, nor once SetTablebase turned them off.
func TestTablebaseLimits(t *testing.T) {
	tb := testTablebase(t)
	g := newTestGame(t, Options{Tablebase: tb})
	if err := g.SetPosition("8/8/8/8/8/3k4/7r/QK6 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	for _, lim := range []ThinkLimits{{Depth: 1, MultiPV: 2}, {Depth: 1, SearchMoves: []string{"a1a3"}}, {Depth: 3, Mate: 1}} {
		if d := think(t, g, lim); d.Source != FromSearch {
			t.Errorf("analysis %+v answered from the tables: %+v", lim, d)
		}
	}
	// Five pieces; a four-piece material whose table is not in testdata.
	for _, fen := range []string{"8/8/8/8/8/3k4/7r/QKR5 w - - 0 1", "8/8/8/8/8/3k4/p7/2B1K3 w - - 0 1"} {
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
		if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromSearch {
			t.Errorf("%s: %+v", fen, d)
		}
	}
	if err := g.SetPosition("8/8/8/8/8/3k4/7r/QK6 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	g.SetTablebase(nil, false, 0, 0)
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromSearch {
		t.Errorf("tables off: %+v", d)
	}
	g.SetTablebase(tb, false, 0, 0)
	if d := think(t, g, ThinkLimits{Depth: 1}); d.Source != FromTablebase || d.WDL != syzygy.Win {
		t.Errorf("tables on again: %+v", d)
	}
}

// Beyond the tables the search probes them: taking the hanging knight
// reaches a won KQvKR, and the decision's score says a tablebase win.
func TestTablebaseInSearch(t *testing.T) {
	tb := testTablebase(t)
	g := newTestGame(t, Options{Tablebase: tb, TablebaseProbeDepth: 1})
	if err := g.SetPosition("7k/7r/8/3n4/8/8/8/K2Q4 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	d := think(t, g, ThinkLimits{Depth: 6})
	if d.Source != FromSearch || d.UCI != "d1d5" || d.Score <= search.TBWin-search.MaxPly || d.Mate != 0 {
		t.Errorf("%+v, want d1d5 from a search scored as a tablebase win", d)
	}
	g.SetTablebase(nil, false, 0, 0)
	if err := g.SetPosition("7k/7r/8/3n4/8/8/8/K2Q4 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	if d := think(t, g, ThinkLimits{Depth: 6}); d.Score > search.TBWin-search.MaxPly {
		t.Errorf("without tables: %+v", d)
	}
}

// Decision.TB is the tables' result for the side to move whenever the
// tables hold the position: with the tables' move, and with an analysis
// that the search decides; a cursed win (the fifty-move counter counted)
// stays apart from a win; a position the tables do not hold is not known.
func TestDecisionTB(t *testing.T) {
	tb := testTablebase(t)
	for _, tc := range []struct {
		name   string
		fen    string
		lim    ThinkLimits
		source Source
		known  bool
		wdl    syzygy.WDL
	}{
		{"KQvK win", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", ThinkLimits{Depth: 1}, FromTablebase, true, syzygy.Win},
		{"KQvK loss", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", ThinkLimits{Depth: 1}, FromTablebase, true, syzygy.Loss},
		{"KRvKR draw", "4k3/8/8/8/8/8/r7/4K2R w - - 0 1", ThinkLimits{Depth: 1}, FromTablebase, true, syzygy.Draw},
		{"KQvKR cursed win", "8/8/8/8/8/3k4/7r/QK6 w - - 98 60", ThinkLimits{Depth: 1}, FromTablebase, true, syzygy.CursedWin},
		{"KQvK analysis", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", ThinkLimits{Depth: 2, MultiPV: 2}, FromSearch, true, syzygy.Win},
		{"start position", board.StartFEN, ThinkLimits{Depth: 2}, FromSearch, false, syzygy.Draw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGame(t, Options{Tablebase: tb})
			if err := g.SetPosition(tc.fen, false, nil); err != nil {
				t.Fatal(err)
			}
			d := think(t, g, tc.lim)
			if d.Source != tc.source || d.TB.Known != tc.known || (tc.known && d.TB.WDL != tc.wdl) {
				t.Errorf("source %v, TB %+v; want source %v, known %v, %v", d.Source, d.TB, tc.source, tc.known, tc.wdl)
			}
		})
	}
}
