package syzygy

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestProbeRootKeepsResult: the best-ranked root moves keep the position's
// result, and the shortest winning distance over the moves is the
// position's DTZ within one ply (tables that store moves round).
func TestProbeRootKeepsResult(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(11, 12))
	buf := make([]RootMove, 0, 256)
	for i := 0; i < 600; i++ {
		p := randomPosition(rng, testMaterials[i%len(testMaterials)])
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tb.ProbeDTZ(p)
		moves, err := tb.ProbeRoot(p, true, buf[:0])
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		if len(moves) != ml.N {
			t.Fatalf("%s: %d root moves, %d legal", p.FEN(), len(moves), ml.N)
		}
		if ml.N == 0 {
			continue
		}
		best := Best(moves)
		for _, m := range best {
			if m.WDL != w {
				t.Fatalf("%s (%v): best move %s gives %v", p.FEN(), w, m.Move, m.WDL)
			}
		}
		for _, m := range moves[len(best):] {
			if m.Rank >= best[0].Rank {
				t.Fatalf("%s: moves not sorted", p.FEN())
			}
		}
		if w == Win {
			shortest := 1 << 20
			for _, m := range moves {
				if m.DTZ > 0 {
					shortest = min(shortest, m.DTZ)
				}
			}
			if shortest < d-1 || shortest > d+1 {
				t.Fatalf("%s: dtz %d, shortest move %d", p.FEN(), d, shortest)
			}
		}
	}
}

func TestProbeRootErrors(t *testing.T) {
	tb := openTestdata(t)
	p := mustFEN(t, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
	if _, err := tb.ProbeRoot(p, true, nil); !errors.Is(err, ErrCastling) {
		t.Errorf("castling rights: %v", err)
	}
}

// TestProbeRootConvertsWins plays won positions out, each side choosing at
// random among its best-ranked root moves: the winner must mate before
// the fifty-move rule or a threefold repetition could draw.
func TestProbeRootConvertsWins(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(13, 14))
	buf := make([]RootMove, 0, 256)
	games := 0
	for games < 30 {
		name := []string{"KQvKR", "KRvK", "KPvK", "KQRvK", "KRRvK", "KQvK"}[games%6]
		p := randomPosition(rng, name)
		if w, err := tb.ProbeWDL(p); err != nil || w != Win {
			continue
		}
		games++
		start := p.FEN()
		for ply := 0; ; ply++ {
			moves, err := tb.ProbeRoot(p, true, buf[:0])
			if err != nil {
				t.Fatalf("%s: %v", p.FEN(), err)
			}
			if len(moves) == 0 {
				if !p.InCheck() {
					t.Fatalf("game from %s: stalemate at %s", start, p.FEN())
				}
				break
			}
			best := Best(moves)
			p.MakeMove(best[rng.IntN(len(best))].Move)
			if p.HalfmoveClock() >= 100 && p.HasLegalMoves() {
				t.Fatalf("game from %s: fifty-move rule at %s", start, p.FEN())
			}
			if p.RepetitionCount() >= 2 {
				t.Fatalf("game from %s: threefold repetition at %s", start, p.FEN())
			}
			if ply > 600 {
				t.Fatalf("game from %s: no mate in 600 plies", start)
			}
		}
	}
}

// TestProbeRootWDLAtTheLimit: as a move's DTZ may be one ply short, a
// win or loss is reported as proven (Win, Loss) only when |DTZ| plus the
// root's fifty-move counter is at most 99; at exactly 100 it is a
// CursedWin (BlessedLoss), so that a rule resigning a tablebase loss never
// resigns one the fifty-move rule may still save.
func TestProbeRootWDLAtTheLimit(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(21, 22))
	withClock := func(p *board.Position, cnt50 int) *board.Position {
		f := strings.Fields(p.FEN())
		f[4] = strconv.Itoa(cnt50)
		return mustFEN(t, strings.Join(f, " "))
	}
	wins, losses := 0, 0
	for i := 0; i < 400 && (wins < 20 || losses < 20); i++ {
		p := randomPosition(rng, []string{"KQvKR", "KRvK", "KQvK", "KPvK"}[i%4])
		moves, err := tb.ProbeRoot(p, true, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		for _, m := range moves {
			d := m.DTZ
			if d == 0 || d > 99 || d < -99 {
				continue
			}
			n := d
			if n < 0 {
				n = -n
			}
			for _, tc := range []struct {
				cnt50 int
				want  WDL
			}{{99 - n, Win}, {100 - n, CursedWin}} {
				if d < 0 {
					tc.want = -tc.want
				}
				q := withClock(p, tc.cnt50)
				got, err := tb.ProbeRoot(q, true, nil)
				if err != nil {
					t.Fatalf("%s: %v", q.FEN(), err)
				}
				for _, g := range got {
					if g.Move == m.Move && g.WDL != tc.want {
						t.Errorf("%s: %s with DTZ %d: %v, want %v", q.FEN(), m.Move, g.DTZ, g.WDL, tc.want)
					}
				}
			}
			if d > 0 {
				wins++
			} else {
				losses++
			}
		}
	}
	if wins == 0 || losses == 0 {
		t.Fatalf("%d wins, %d losses checked", wins, losses)
	}
}

// TestProbeRootWDL: the WDL-only ranking gives every move the result that
// DTZ's ranking gives it (win, draw or loss alike), its best moves keep
// the position's result, and it works where only the WDL table is found,
// which ProbeRoot cannot.
func TestProbeRootWDL(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(31, 32))
	sign := func(n int) int { return min(max(n, -1), 1) }
	for i := 0; i < 300; i++ {
		p := randomPosition(rng, testMaterials[i%len(testMaterials)])
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatal(err)
		}
		byDTZ, err := tb.ProbeRoot(p, true, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		byWDL, err := tb.ProbeRootWDL(p, true, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		if len(byWDL) != len(byDTZ) {
			t.Fatalf("%s: %d moves, ProbeRoot %d", p.FEN(), len(byWDL), len(byDTZ))
		}
		for _, m := range byWDL {
			for _, d := range byDTZ {
				if d.Move == m.Move && sign(int(m.WDL)) != sign(d.DTZ) {
					t.Fatalf("%s: %s is %v by WDL, DTZ %d", p.FEN(), m.Move, m.WDL, d.DTZ)
				}
			}
		}
		if len(byWDL) == 0 {
			continue
		}
		best := Best(byWDL)
		for _, m := range best {
			if m.WDL != w {
				t.Fatalf("%s (%v): best move %s gives %v", p.FEN(), w, m.Move, m.WDL)
			}
		}
		if len(best) < len(byWDL) && byWDL[len(best)].Rank >= best[0].Rank {
			t.Fatalf("%s: moves not sorted", p.FEN())
		}
	}

	dir := t.TempDir()
	for _, name := range []string{"KQvKR.rtbw", "KQvK.rtbw", "KRvK.rtbw"} { // captures lead to the smaller tables
		writeTable(t, dir, name, func(b []byte) []byte { return b })
	}
	wdlOnly, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer wdlOnly.Close()
	p := mustFEN(t, "8/8/8/8/8/3k4/7r/QK6 w - - 0 1")
	if _, err := wdlOnly.ProbeRoot(p, true, nil); !errors.Is(err, ErrNoTable) {
		t.Fatalf("ProbeRoot without DTZ: %v, want ErrNoTable", err)
	}
	moves, err := wdlOnly.ProbeRootWDL(p, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if best := Best(moves); best[0].WDL != Win || len(best) == len(moves) {
		t.Errorf("WDL only: best %v (%d of %d moves), want the winning moves only", best[0].WDL, len(best), len(moves))
	}
}

func TestProbeRootNoAllocs(t *testing.T) {
	tb := openTestdata(t)
	p := mustFEN(t, "8/8/8/8/8/3k4/7r/QK6 w - - 0 1")
	buf := make([]RootMove, 0, 256)
	if _, err := tb.ProbeRoot(p, true, buf); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { tb.ProbeRoot(p, true, buf) }); n != 0 {
		t.Errorf("ProbeRoot allocates %.1f times", n)
	}
}

// Holds: a position whose material has both tables (either colour), two
// bare kings; not with a castling right, too many pieces, a material
// without tables, or one with its WDL table only (KQvKB here); and a
// position it holds can be probed at the root.
func TestHolds(t *testing.T) {
	tb := openTestdata(t)
	for _, tc := range []struct {
		fen  string
		want bool
	}{
		{"4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true},
		{"3qk3/8/8/8/8/8/8/4K3 w - - 0 1", true}, // the mirrored material
		{"4k3/8/8/8/8/8/8/4K3 b - - 0 1", true},
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", false},
		{"4k3/pp6/8/8/8/8/PP6/3QK3 w - - 0 1", false},
		{"4k3/8/8/8/8/8/8/2BQK3 w - - 0 1", false}, // KQBvK: no table here
		{"4k3/8/8/8/8/8/8/b2QK3 w - - 0 1", false}, // KQvKB: WDL only
	} {
		p := mustFEN(t, tc.fen)
		if got := tb.Holds(p); got != tc.want {
			t.Errorf("%s: Holds %v, want %v", tc.fen, got, tc.want)
		}
		if tc.want {
			if _, err := tb.ProbeRoot(p, true, nil); err != nil {
				t.Errorf("%s: held, but ProbeRoot: %v", tc.fen, err)
			}
		}
	}
}

// Holds looks for the tables the root probe reaches, not only those of the
// position's material: KQvKR with its own tables but without KQvK and
// KRvK (the materials after a capture) is not held, and ProbeRoot indeed
// fails there; with them it is held and probes.
func TestHoldsCaptureTables(t *testing.T) {
	dir := t.TempDir()
	link := func(names ...string) { // copies: symbolic links need not work everywhere
		t.Helper()
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join("testdata", n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link("KQvKR.rtbw", "KQvKR.rtbz")
	p := mustFEN(t, "8/8/8/8/8/3k4/7r/QK6 w - - 0 1")
	open := func() *Tablebase {
		t.Helper()
		tb, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tb.Close() })
		return tb
	}
	tb := open()
	if _, err := tb.ProbeRoot(p, true, nil); !errors.Is(err, ErrNoTable) {
		t.Fatalf("ProbeRoot without the capture tables: %v, want ErrNoTable", err)
	}
	if tb.Holds(p) {
		t.Error("held without the tables after a capture")
	}
	link("KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz")
	tb = open()
	if !tb.Holds(p) {
		t.Error("not held with the tables after a capture")
	}
	if _, err := tb.ProbeRoot(p, true, nil); err != nil {
		t.Errorf("held, but ProbeRoot: %v", err)
	}
}
