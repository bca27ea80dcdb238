package syzygy

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func checkDTZ(t *testing.T, tb *Tablebase, cases []epdCase) {
	t.Helper()
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		key := p.Key()
		d, err := tb.ProbeDTZ(p)
		if err != nil || d != c.dtz {
			t.Errorf("%s: dtz %d (%v), want %d", c.line, d, err, c.dtz)
		}
		if p.Key() != key {
			t.Fatalf("%s: probe did not restore the position", c.line)
		}
	}
}

func TestDTZSampleEPD(t *testing.T) {
	checkDTZ(t, openTestdata(t), readEPD(t, "testdata/endgame-sample.epd"))
}

// TestDTZSharedEPD checks the dtz of every line of python-chess's
// endgame.epd against the full 3-4-piece set (skipped without it).
func TestDTZSharedEPD(t *testing.T) {
	dir := sharedTables(t)
	tb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	checkDTZ(t, tb, readEPD(t, filepath.Join(filepath.Dir(dir), "python-chess_endgame.epd")))
}

// TestDTZSymmetryAndSign: mirror images have the same DTZ; its sign is the
// WDL's and it is beyond ±100 exactly for cursed wins and blessed losses.
func TestDTZSymmetryAndSign(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(7, 8))
	cursed := 0
	for i := 0; i < 2000; i++ {
		p := randomPosition(rng, testMaterials[i%len(testMaterials)])
		d, err := tb.ProbeDTZ(p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		w, _ := tb.ProbeWDL(p)
		if sign(d) != sign(int(w)) || (d > 100 || d < -100) != (w == CursedWin || w == BlessedLoss) {
			t.Fatalf("%s: dtz %d with wdl %v", p.FEN(), d, w)
		}
		if w == CursedWin || w == BlessedLoss {
			cursed++
		}
		for _, q := range []*board.Position{mirrorColours(t, p), mirrorFiles(t, p)} {
			dq, err := tb.ProbeDTZ(q)
			if err != nil || dq != d {
				t.Fatalf("%s gives %d, its mirror %s gives %d (%v)", p.FEN(), d, q.FEN(), dq, err)
			}
		}
	}
	t.Logf("%d cursed wins or blessed losses", cursed)
}

// TestDTZKnown: positions whose distance is known by hand.
func TestDTZKnown(t *testing.T) {
	tb := openTestdata(t)
	for _, c := range []struct {
		fen string
		dtz int
	}{
		{"7k/8/6K1/8/8/8/8/R7 b - - 0 1", -2}, // KRvK: Kg8 Ra8#
		{"R6k/8/6K1/8/8/8/8/8 b - - 0 1", -1}, // mated
		{"7k/8/6K1/8/8/8/8/R7 w - - 0 1", 1},  // Ra8 mates at once
		{"7k/8/5K2/8/8/8/8/R7 w - - 0 1", 3},  // Kg6 Kg8 Ra8#
		{"k7/P7/K7/8/8/8/8/8 b - - 0 1", 0},   // stalemate
		{"8/8/8/8/8/8/8/k1K5 w - - 0 1", 0},   // KvK
	} {
		p := mustFEN(t, c.fen)
		d, err := tb.ProbeDTZ(p)
		if err != nil || d != c.dtz {
			t.Errorf("%s: dtz %d (%v), want %d", c.fen, d, err, c.dtz)
		}
	}
}

func TestProbeDTZNoAllocs(t *testing.T) {
	tb := openTestdata(t)
	// Black to move in KQvKR: the DTZ table stores White to move, so this
	// probe also runs the one-ply search.
	for _, fen := range []string{"8/8/8/8/8/3k4/8/QK5r w - - 0 1", "8/8/8/8/8/3k4/7r/QK6 b - - 0 1"} {
		p := mustFEN(t, fen)
		if _, err := tb.ProbeDTZ(p); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(50, func() { tb.ProbeDTZ(p) }); n != 0 {
			t.Errorf("%s: ProbeDTZ allocates %.1f times", fen, n)
		}
	}
}

func BenchmarkProbeDTZ(b *testing.B) {
	tb := openTestdata(b)
	rng := rand.New(rand.NewPCG(9, 10))
	var ps []*board.Position
	for i := 0; i < 256; i++ {
		ps = append(ps, randomPosition(rng, testMaterials[i%len(testMaterials)]))
	}
	for _, p := range ps {
		if _, err := tb.ProbeDTZ(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb.ProbeDTZ(ps[i&255])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
}
