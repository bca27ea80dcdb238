package uci

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
)

// learnFEN is a quiet middlegame (see ponder's memory tests).
const learnFEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"

// goNodes runs "go depth" on b in learnFEN and returns the nodes of the
// last info line of depth >= depth.
func goNodes(t *testing.T, b *EngineBackend, depth int) int64 {
	t.Helper()
	if err := b.SetPosition(learnFEN, nil); err != nil {
		t.Fatal(err)
	}
	var nodes int64
	best, _ := b.Go(context.Background(), GoParams{GoLimits: GoLimits{Depth: depth}}, func(in Info) {
		if in.Depth >= depth && in.Nodes > 0 {
			nodes = in.Nodes
		}
	})
	if best == "" || nodes == 0 {
		t.Fatalf("go depth %d: best %q, nodes %d", depth, best, nodes)
	}
	return nodes
}

// TestLearnFileOption: with LearnFile set, an engine records its searches
// into the file, and an engine started later on the same file reaches the
// same depth in at most half the nodes; "<empty>" turns it off; a file
// that cannot be opened is an error and the engine plays on.
func TestLearnFileOption(t *testing.T) {
	// The default LearnMinDepth (8) and more, with room below the root: the
	// memory keeps entries of LearnMinDepth or more, so a search of depth 11
	// leaves only its first 3 plies (37 entries, 28038 of 48151 nodes the
	// second time); depth 12 leaves 4 (79 entries, 18645 of 74948). See
	// ponder's TestMemoryHalvesNodesToSameDepth.
	const depth = 12
	path := filepath.Join(t.TempDir(), "learn.db")
	first := NewEngineBackend()
	if err := first.SetOption(OptLearnFile, path); err != nil {
		t.Fatal(err)
	}
	n1 := goNodes(t, first, depth)
	first.Close() // writes what is queued

	m, err := store.OpenMemory(path, store.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := m.Count(context.Background(), search.EvalID(nil))
	m.Close()
	if err != nil || recorded == 0 {
		t.Fatalf("the file holds %d entries (%v) after a search of depth %d", recorded, err, depth)
	}

	second := NewEngineBackend()
	defer second.Close()
	if err := second.SetOption(OptLearnFile, path); err != nil {
		t.Fatal(err)
	}
	n2 := goNodes(t, second, depth)
	t.Logf("depth %d: %d nodes, then %d with LearnFile (%d entries)", depth, n1, n2, recorded)
	if 2*n2 > n1 {
		t.Fatalf("with LearnFile: %d nodes to depth %d, want at most half of %d", n2, depth, n1)
	}

	// Off again: a search from nothing.
	off := NewEngineBackend()
	defer off.Close()
	if err := off.SetOption(OptLearnFile, path); err != nil {
		t.Fatal(err)
	}
	if err := off.SetOption(OptLearnFile, "<empty>"); err != nil {
		t.Fatal(err)
	}
	if n := goNodes(t, off, depth); n != n1 {
		t.Fatalf("LearnFile <empty>: %d nodes, want %d as from nothing", n, n1)
	}

	bad := NewEngineBackend()
	defer bad.Close()
	err = bad.SetOption(OptLearnFile, t.TempDir()) // a directory
	if err == nil {
		t.Fatal("a directory as LearnFile: no error")
	}
	if errors.Is(err, ErrBadOptionValue) {
		t.Fatalf("a file that cannot be opened: %v, want an open error", err)
	}
	if goNodes(t, bad, 4) == 0 {
		t.Fatal("no search after a bad LearnFile")
	}
}

func TestLearnInferResult(t *testing.T) {
	for _, c := range []struct {
		score, mate int
		want        ponder.GameResult
	}{
		{-LearnLossCP, 0, ponder.ResultLoss},
		{-search.MateScore + 3, -2, ponder.ResultLoss},
		{-LearnLossCP + 1, 0, ponder.ResultUnknown},
		{0, 0, ponder.ResultUnknown},
		{LearnLossCP, 0, ponder.ResultWin},
		{search.MateScore - 1, 1, ponder.ResultWin},
	} {
		if got := inferResult(c.score, c.mate); got != c.want {
			t.Errorf("inferResult(%d, %d) = %v, want %v", c.score, c.mate, got, c.want)
		}
	}
}

// TestLearnNewGameJudgesTheGame: "ucinewgame" after a game whose last
// searched score was a loss halves the depth of what the game recorded
// (the result is inferred at ucinewgame, not only at quit).
func TestLearnNewGameJudgesTheGame(t *testing.T) {
	const depth = 10
	path := filepath.Join(t.TempDir(), "learn.db")
	b := NewEngineBackend()
	defer b.Close()
	if err := b.SetOption(OptLearnFile, path); err != nil {
		t.Fatal(err)
	}
	goNodes(t, b, depth)
	b.Game().WaitLearning()
	b.learn.mem.Flush()
	pos, err := board.ParseFEN(learnFEN)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func() int {
		got, _ := b.learn.mem.Lookup(search.EvalID(nil), []uint64{pos.Key()})
		if len(got) != 1 {
			return 0
		}
		return got[0].Depth
	}
	before := lookup()
	if before < depth {
		t.Fatalf("the root was recorded at depth %d after go depth %d", before, depth)
	}
	// The game's last searched move scored -6 pawns: a loss.
	b.noteScore(b.Game(), ponder.Decision{Depth: depth, Score: -600})
	b.NewGame()
	b.learn.mem.Flush()
	if after := lookup(); after != before/2 {
		t.Fatalf("after a lost game and ucinewgame the root's depth is %d, want %d (halved from %d)", after, before/2, before)
	}
}

// TestLearnUCILossAtUcinewgame drives the wiring through the protocol: a
// game whose last search scored a loss (K against K+Q), then
// "ucinewgame", halves the depth of what the game recorded.
func TestLearnUCILossAtUcinewgame(t *testing.T) {
	const lostFEN = "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"
	path := filepath.Join(t.TempDir(), "learn.db")
	b := NewEngineBackend()
	defer b.Close()
	c := startServer(t, b)
	c.send("uci")
	c.untilLine("uciok")
	c.send("setoption name LearnFile value "+path, "ucinewgame", "position fen "+lostFEN, "go depth 10")
	lines := c.untilPrefix("bestmove")
	score := ""
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "info" {
			for i := 0; i+2 < len(f); i++ {
				if f[i] == "score" {
					score = f[i+1] + " " + f[i+2]
				}
			}
		}
	}
	b.Game().WaitLearning()
	b.learn.mem.Flush()
	pos, err := board.ParseFEN(lostFEN)
	if err != nil {
		t.Fatal(err)
	}
	depthOf := func() int {
		got, _ := b.learn.mem.Lookup(search.EvalID(nil), []uint64{pos.Key()})
		if len(got) != 1 {
			return 0
		}
		return got[0].Depth
	}
	before := depthOf()
	if before < 8 {
		t.Fatalf("the root was recorded at depth %d (last score %q)", before, score)
	}
	c.send("ucinewgame", "isready")
	c.untilLine("readyok")
	b.learn.mem.Flush()
	if after := depthOf(); after != before/2 {
		t.Fatalf("last score %q, then ucinewgame: the root's depth is %d, want %d (halved from %d)", score, after, before/2, before)
	}
}

// TestLearnFileNetChangeClearsTheHash: with LearnFile set, a change of
// net (UseNNUE, EvalFile) clears the hash table, whose entries came from
// the other evaluation and would be recorded under the new one.
func TestLearnFileNetChangeClearsTheHash(t *testing.T) {
	dir := t.TempDir()
	b := NewEngineBackend()
	defer b.Close()
	if err := b.SetOption(OptHash, "1"); err != nil { // a small table: its sample fills
		t.Fatal(err)
	}
	if err := b.SetOption(OptLearnFile, filepath.Join(dir, "learn.db")); err != nil {
		t.Fatal(err)
	}
	goNodes(t, b, 8)
	t.Logf("hashfull %d after the search", b.game.Engine().TT().Hashfull())
	if b.game.Engine().TT().Hashfull() == 0 {
		t.Fatal("the table is empty after a search")
	}
	if err := b.SetOption(OptEvalFile, writeTestNet(t, dir)); err != nil {
		t.Fatal(err)
	}
	if err := b.SetOption(OptUseNNUE, "true"); err != nil {
		t.Fatal(err)
	}
	if b.Net() == nil {
		t.Fatal("no net after UseNNUE")
	}
	if h := b.game.Engine().TT().Hashfull(); h != 0 {
		t.Errorf("hashfull %d after the net changed, want 0", h)
	}
}
