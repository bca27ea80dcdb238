package uci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

const syzygyTestdata = "../engine/syzygy/testdata"

// shortestWins returns the winning root moves of fen with the shortest DTZ.
func shortestWins(t *testing.T, fen string) map[string]bool {
	t.Helper()
	tb, err := syzygy.Open(syzygyTestdata)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	pos := testsupport.MustFEN(t, fen)
	moves, err := tb.ProbeRoot(pos, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	best := syzygy.Best(moves)
	shortest := best[0].DTZ
	for _, m := range best {
		shortest = min(shortest, m.DTZ)
	}
	out := map[string]bool{}
	for _, m := range best {
		if m.WDL == syzygy.Win && m.DTZ == shortest {
			out[pos.MoveToUCI(m.Move)] = true
		}
	}
	return out
}

// With SyzygyPath, "go" in a position the tables hold answers the tables'
// shortest win at once (source=tablebase), also with Syzygy50MoveRule off;
// with more pieces, and with the path emptied, it searches.
func TestEngineSyzygyPath(t *testing.T) {
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	want := shortestWins(t, fen)
	if len(want) == 0 {
		t.Fatal("no winning move in the test position")
	}
	c, _ := startEngine(t)
	c.send("setoption name SyzygyPath value "+syzygyTestdata, "isready")
	if lines := c.untilLine("readyok"); len(lines) != 1 {
		t.Fatalf("setoption: %q", lines)
	}
	for _, rule := range []string{"true", "false"} {
		c.send("setoption name Syzygy50MoveRule value "+rule, "position fen "+fen, "go wtime 60000 btime 60000")
		lines := c.untilPrefix("bestmove")
		best, _ := bestmove(t, lastLine(lines))
		if !want[best] || searched(lines) || !strings.Contains(strings.Join(lines, "\n"), "source=tablebase") {
			t.Errorf("Syzygy50MoveRule %s: %s, want one of %v from the tables:\n%s", rule, best, want, strings.Join(lines, "\n"))
		}
	}
	c.send("position fen 8/8/8/8/8/3k4/7r/QKR5 w - - 0 1", "go depth 2")
	if lines := c.untilPrefix("bestmove"); !searched(lines) {
		t.Errorf("five pieces: no search:\n%s", strings.Join(lines, "\n"))
	}
	c.send("setoption name SyzygyPath value <empty>", "position fen "+fen, "go depth 2")
	if lines := c.untilPrefix("bestmove"); !searched(lines) {
		t.Errorf("no tables: no search:\n%s", strings.Join(lines, "\n"))
	}
}

// A SyzygyPath with a directory that cannot be read, or a corrupt table,
// is reported naming it, and the engine plays on without tables (a
// table in the first directory hides one of the same name in the next).
func TestEngineBadSyzygyPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "KQvKR.rtbw"), []byte("not a table, not at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	c, _ := startEngine(t)
	for _, path := range []string{missing, dir, dir + string(filepath.ListSeparator) + syzygyTestdata} {
		c.send("setoption name SyzygyPath value "+path, "isready")
		lines := c.untilLine("readyok")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: setoption SyzygyPath") ||
			!(strings.Contains(lines[0], missing) || strings.Contains(lines[0], filepath.Join(dir, "KQvKR.rtbw"))) {
			t.Errorf("SyzygyPath %s gave %q", path, lines)
		}
		c.send("position fen 8/8/8/8/8/3k4/7r/QK6 w - - 0 1", "go depth 2")
		if lines := c.untilPrefix("bestmove"); !searched(lines) {
			t.Errorf("bad tables: no search:\n%s", strings.Join(lines, "\n"))
		}
	}
}

// With SyzygyPath the search probes the tables after captures: a search
// of five pieces whose capture reaches KQvKR reports tbhits and a
// tablebase win; without the tables, no tbhits.
func TestEngineSyzygyTBHits(t *testing.T) {
	const fen = "7k/7r/8/3n4/8/8/8/K2Q4 w - - 0 1"
	c, _ := startEngine(t)
	tbhits := func() (int64, int) {
		c.send("position fen "+fen, "go depth 6")
		var hits int64
		score := 0
		for _, l := range c.untilPrefix("bestmove") {
			if in, ok := ParseInfo(l); ok {
				hits = max(hits, in.TBHits)
				if in.Score.Kind == ScoreCP {
					score = in.Score.Value
				}
			}
		}
		return hits, score
	}
	if hits, _ := tbhits(); hits != 0 {
		t.Errorf("no tables: %d tbhits", hits)
	}
	c.send("setoption name SyzygyPath value "+syzygyTestdata, "setoption name SyzygyProbeDepth value 1")
	if hits, score := tbhits(); hits == 0 || score < 20000 {
		t.Errorf("with tables: %d tbhits, score cp %d; want tbhits and a tablebase win", hits, score)
	}
}

// A tablebase move comes with "info depth 0" and the tables' score (a win
// scored as the search scores tablebase wins, a mating move mate 1) and an
// "info string tablebase WDL ... DTZ ..."; "go depth N" and "go nodes N"
// still answer with the tables' move. A draw is searched among the moves
// that keep it, with the same info string.
func TestEngineSyzygyInfo(t *testing.T) {
	c, _ := startEngine(t)
	c.send("setoption name SyzygyPath value "+syzygyTestdata, "isready")
	c.untilLine("readyok")
	for _, tc := range []struct{ fen, goCmd, score, text string }{
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", "go wtime 60000 btime 60000", "cp 31", "tablebase WDL Win DTZ "},
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", "go depth 3", "cp 31", "tablebase WDL Win DTZ "},
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", "go nodes 1000", "cp 31", "tablebase WDL Win DTZ "},
		{"7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", "go depth 3", "mate 1", "tablebase WDL Win DTZ 1"},
	} {
		c.send("position fen "+tc.fen, tc.goCmd)
		lines := c.untilPrefix("bestmove")
		all := strings.Join(lines, "\n")
		if searched(lines) || !strings.Contains(all, "info depth 0 multipv 1 score "+tc.score) ||
			!strings.Contains(all, "info string "+tc.text) {
			t.Errorf("%s, %s: want depth 0, score %s and %q:\n%s", tc.fen, tc.goCmd, tc.score, tc.text, all)
		}
	}
	c.send("position fen 4k3/8/8/8/8/8/r7/4K2R w - - 0 1", "go depth 3")
	lines := c.untilPrefix("bestmove")
	if all := strings.Join(lines, "\n"); !searched(lines) || !strings.Contains(all, "info string tablebase WDL Draw DTZ 0") {
		t.Errorf("a draw: want a search and the tables' verdict:\n%s", all)
	}
}

// SyzygyProbeLimit 0 turns the tables off at the root too: "go" searches
// (no tablebase move, no tbhits); back at 7 the tables answer again.
func TestEngineSyzygyProbeLimitZero(t *testing.T) {
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	c, _ := startEngine(t)
	c.send("setoption name SyzygyPath value "+syzygyTestdata, "setoption name SyzygyProbeLimit value 0",
		"position fen "+fen, "go depth 3")
	lines := c.untilPrefix("bestmove")
	all := strings.Join(lines, "\n")
	if !searched(lines) || strings.Contains(all, "tablebase") || strings.Contains(all, "tbhits") {
		t.Errorf("limit 0: want a search without the tables:\n%s", all)
	}
	// An option that makes the game anew (resetGame) keeps the tables off.
	c.send("setoption name Move Overhead value 20", "position fen "+fen, "go depth 3")
	lines = c.untilPrefix("bestmove")
	if all := strings.Join(lines, "\n"); !searched(lines) || strings.Contains(all, "tablebase") || strings.Contains(all, "tbhits") {
		t.Errorf("limit 0 after Move Overhead: want a search without the tables:\n%s", all)
	}
	c.send("setoption name SyzygyProbeLimit value 7", "position fen "+fen, "go depth 3")
	lines = c.untilPrefix("bestmove")
	if all := strings.Join(lines, "\n"); searched(lines) || !strings.Contains(all, "source=tablebase") {
		t.Errorf("limit 7: want the tables' move:\n%s", all)
	}
}

// A SyzygyProbeLimit below the position's pieces keeps the tables off at
// the root too (tables beyond the limit are not used at all, as in
// Stockfish): a 4-piece win is searched under limit 3, and played from the
// tables under limit 4.
func TestEngineSyzygyProbeLimitAtRoot(t *testing.T) {
	const fen = "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"
	c, _ := startEngine(t)
	c.send("setoption name SyzygyPath value "+syzygyTestdata, "setoption name SyzygyProbeLimit value 3",
		"position fen "+fen, "go depth 3")
	lines := c.untilPrefix("bestmove")
	if all := strings.Join(lines, "\n"); !searched(lines) || strings.Contains(all, "source=tablebase") || strings.Contains(all, "info string tablebase") {
		t.Errorf("limit 3, 4 pieces: want a search without the tables' move:\n%s", all)
	}
	c.send("setoption name SyzygyProbeLimit value 4", "position fen "+fen, "go depth 3")
	lines = c.untilPrefix("bestmove")
	if all := strings.Join(lines, "\n"); searched(lines) || !strings.Contains(all, "source=tablebase") {
		t.Errorf("limit 4: want the tables' move:\n%s", all)
	}
}
