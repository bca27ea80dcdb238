package ponder

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// A won KQvKR played by the Game for both sides from the tables: every
// winner's move comes from the tables without a search (source=tablebase
// in the stats log) and keeps the win; the loser's moves are searched
// among the moves that keep the loss (or, when only one does, played from
// the tables at once); the game ends in mate within the fifty-move rule.
func TestTablebaseMovesConvertWin(t *testing.T) {
	tb := testsupport.Syzygy(t)
	var logBuf bytes.Buffer
	g := newTestGame(t, Options{Tablebase: tb, Logger: zerolog.New(&logBuf)})
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	var moves []string
	atOnce, searched := 0, 0
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
		winner := ply%2 == 0
		if winner && (d.Source != FromTablebase || d.Nodes != 0) {
			t.Fatalf("ply %d: %+v, want a tablebase move", ply, d)
		}
		if winner && (d.WDL != syzygy.Win || d.DTZ <= 0) {
			t.Fatalf("ply %d: the winner's move %s gives %v (dtz %d)", ply, d.UCI, d.WDL, d.DTZ)
		}
		if d.Source == FromTablebase {
			atOnce++
		} else if winner || d.Source != FromSearch || !d.Tablebase || d.WDL != syzygy.Loss {
			t.Fatalf("ply %d: %+v, want a search among the moves that keep the loss", ply, d)
		} else {
			searched++
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
	if g.Searches() != searched || searched == 0 {
		t.Errorf("%d searches, %d searched moves of the loser", g.Searches(), searched)
	}
	if n := strings.Count(logBuf.String(), `"source":"tablebase"`); n != atOnce {
		t.Errorf("%d moves logged with source=tablebase, want %d", n, atOnce)
	}
}

// The tables are not asked for an analysis, for positions they do not
// hold, nor once SetTablebase turned them off.
func TestTablebaseLimits(t *testing.T) {
	tb := testsupport.Syzygy(t)
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
	tb := testsupport.Syzygy(t)
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
// tables hold the position: with the tables' move, with the search among
// the moves that keep a loss or a draw (Decision.Tablebase set), and with
// an analysis that the search decides among all moves; a cursed win (the
// fifty-move counter counted) stays apart from a win; a position the
// tables do not hold is not known.
func TestDecisionTB(t *testing.T) {
	tb := testsupport.Syzygy(t)
	for _, tc := range []struct {
		name   string
		fen    string
		lim    ThinkLimits
		source Source
		known  bool
		wdl    syzygy.WDL
	}{
		{"KQvK win", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", ThinkLimits{Depth: 1}, FromTablebase, true, syzygy.Win},
		{"KQvK loss", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", ThinkLimits{Depth: 1}, FromSearch, true, syzygy.Loss},
		{"KRvKR draw", "4k3/8/8/8/8/8/r7/4K2R w - - 0 1", ThinkLimits{Depth: 1}, FromSearch, true, syzygy.Draw},
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
			// The tables chose the move or the moves searched, except in an
			// analysis or a position they do not hold.
			if want := tc.known && tc.lim.MultiPV <= 1; d.Tablebase != want {
				t.Errorf("Decision.Tablebase %v, want %v", d.Tablebase, want)
			}
		})
	}
}

// tbKept returns the moves that keep the result of fen by the tables.
func tbKept(t *testing.T, tb *syzygy.Tablebase, fen string, wdlOnly bool) (keep []syzygy.RootMove, all int) {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	probe := tb.ProbeRoot
	if wdlOnly {
		probe = tb.ProbeRootWDL
	}
	moves, err := probe(p, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	return syzygy.Best(moves), len(moves)
}

// checkKeptSearch checks a decision searched among the moves in keep only.
func checkKeptSearch(t *testing.T, d Decision, keep []syzygy.RootMove, want syzygy.WDL) {
	t.Helper()
	in := func(m board.Move) bool {
		for _, k := range keep {
			if k.Move == m {
				return true
			}
		}
		return false
	}
	if d.Source != FromSearch || !d.Tablebase || d.WDL != want || !in(d.Move) || d.Nodes == 0 {
		t.Fatalf("%+v: want a search among the %d moves that keep %v", d, len(keep), want)
	}
	for _, rm := range d.RootMoves {
		if !in(rm.Move) {
			t.Errorf("root move %s searched: it does not keep %v", rm.Move, want)
		}
	}
}

// In a drawn position the tables hold, Think does not play the first
// drawing move at once: it searches among the moves that keep the draw
// (an opponent may still go wrong), never one that loses.
func TestTablebaseDrawIsSearched(t *testing.T) {
	tb := testsupport.Syzygy(t)
	const fen = "4k3/8/8/8/8/8/r7/4K2R w - - 0 1" // KRvKR
	keep, all := tbKept(t, tb, fen, false)
	if keep[0].WDL != syzygy.Draw || len(keep) < 2 || len(keep) == all {
		t.Fatalf("%s: %d of %d moves keep %v; the test wants a draw with several drawing and some losing moves", fen, len(keep), all, keep[0].WDL)
	}
	g := newTestGame(t, Options{Tablebase: tb})
	if err := g.SetPosition(fen, false, nil); err != nil {
		t.Fatal(err)
	}
	d := think(t, g, ThinkLimits{Depth: 4})
	checkKeptSearch(t, d, keep, syzygy.Draw)
	if !d.TB.Known || d.TB.WDL != syzygy.Draw {
		t.Errorf("Decision.TB %+v, want the tables' draw", d.TB)
	}
}

// With only the WDL tables (no .rtbz), the root moves are ranked by WDL and
// a won position is searched among the moves that keep the win.
func TestTablebaseWDLOnly(t *testing.T) {
	tb := wdlOnlyTables(t, "KQvKR.rtbw", "KQvK.rtbw", "KRvK.rtbw")
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	keep, all := tbKept(t, tb, fen, true)
	if keep[0].WDL != syzygy.Win || len(keep) == all {
		t.Fatalf("%s: %d of %d moves keep %v; the test wants a win that some moves spoil", fen, len(keep), all, keep[0].WDL)
	}
	g := newTestGame(t, Options{Tablebase: tb})
	if err := g.SetPosition(fen, false, nil); err != nil {
		t.Fatal(err)
	}
	d := think(t, g, ThinkLimits{Depth: 4})
	checkKeptSearch(t, d, keep, syzygy.Win)
	if !d.TB.Known || d.TB.WDL != syzygy.Win {
		t.Errorf("Decision.TB %+v, want the WDL tables' win", d.TB)
	}
	if d.DTZ != 0 {
		t.Errorf("DTZ %d without DTZ tables", d.DTZ)
	}
}

// Without the DTZ tables the root result is ranked as if the fifty-move
// counter were reset: with a nonzero halfmove clock a table win is said to
// be no more than a cursed win, and a table loss no worse than a blessed
// loss (which the resign rule does not take for a loss); with the counter
// at 0 the result stands, and so does a win by a move that resets it (Qxh2).
func TestTablebaseWDLOnlyHalfmoveClock(t *testing.T) {
	tb := wdlOnlyTables(t, "KQvKR.rtbw", "KQvK.rtbw", "KRvK.rtbw")
	for _, c := range []struct {
		fen  string
		want syzygy.WDL
	}{
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", syzygy.Win},
		{"8/8/8/8/8/3k4/7r/QK6 w - - 40 60", syzygy.CursedWin},
		{"8/8/Q7/8/8/3k4/7r/1K6 b - - 0 1", syzygy.Loss},
		{"8/8/Q7/8/8/3k4/7r/1K6 b - - 40 60", syzygy.BlessedLoss},
		{"8/8/8/8/8/3k4/7r/1K5Q w - - 40 60", syzygy.Win},
	} {
		g := newTestGame(t, Options{Tablebase: tb})
		if err := g.SetPosition(c.fen, false, nil); err != nil {
			t.Fatal(err)
		}
		d := think(t, g, ThinkLimits{Depth: 2})
		if !d.TB.Known || d.TB.WDL != c.want {
			t.Errorf("%s: Decision.TB %+v, want %v", c.fen, d.TB, c.want)
		}
	}
}

// wdlOnlyTables opens a copy of the named WDL tables of the syzygy test data
// (no DTZ tables).
func wdlOnlyTables(t *testing.T, names ...string) *syzygy.Tablebase {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("../engine/syzygy/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := syzygy.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// A tablebase move comes with the tables' score at depth 0: a win is
// search.TBWin less its DTZ (a tablebase win, no mate), a mating move a
// mate in 1.
func TestTablebaseScore(t *testing.T) {
	tb := testsupport.Syzygy(t)
	g := newTestGame(t, Options{Tablebase: tb})
	if err := g.SetPosition("8/8/8/8/8/3k4/7r/QK6 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	d := think(t, g, ThinkLimits{Depth: 5})
	if d.Source != FromTablebase || d.Depth != 0 || d.Mate != 0 || d.Score != search.TBWin-d.DTZ || d.Score < search.TBWinInMaxPly {
		t.Errorf("KQvKR win: %+v, want score TBWin-DTZ at depth 0", d)
	}
	if err := g.SetPosition("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	d = think(t, g, ThinkLimits{Depth: 5})
	if d.Source != FromTablebase || d.UCI != "b1b8" || d.Mate != 1 || d.Score != search.MateScore-1 {
		t.Errorf("mate in 1: %+v, want b1b8 scored mate 1", d)
	}
}

// A positive probe limit below the position's pieces keeps the tables off
// at the root too (as in Stockfish: tables beyond the limit are not used
// at all): a 4-piece won position is searched under limit 3, and its
// result is not known; under limit 4 (and 0, the largest table) the tables
// play it at once.
func TestTablebaseProbeLimitAtRoot(t *testing.T) {
	tb := testsupport.Syzygy(t)
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1" // KQvKR, 4 pieces
	g := newTestGame(t, Options{Tablebase: tb})
	for _, tc := range []struct {
		limit  int
		tables bool
	}{{3, false}, {4, true}, {0, true}, {2, false}, {7, true}} {
		g.SetTablebase(tb, false, 1, tc.limit)
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
		d := think(t, g, ThinkLimits{Depth: 2})
		if tc.tables && (d.Source != FromTablebase || !d.TB.Known || d.TB.WDL != syzygy.Win) {
			t.Errorf("limit %d: %+v, want the tables' move", tc.limit, d)
		}
		if !tc.tables && (d.Source != FromSearch || d.Tablebase || d.TB.Known) {
			t.Errorf("limit %d: %+v, want a search without the tables' result", tc.limit, d)
		}
	}
}
