package syzygy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestIndexTables(t *testing.T) {
	tt := newIndexTables()
	if tt.binom[2][62] != 62*61/2 || tt.binom[3][48] != 48*47*46/6 || tt.binom[0][0] != 1 {
		t.Errorf("binomials wrong: %d %d", tt.binom[2][62], tt.binom[3][48])
	}
	// 462 legal placements of two kings up to symmetry, each numbered once.
	seen := map[int]bool{}
	for i := 0; i < 10; i++ {
		for s := 0; s < 64; s++ {
			if v := tt.kings[i][s]; v >= 0 {
				if seen[v] || v >= 462 {
					t.Fatalf("king index %d repeated or out of range", v)
				}
				seen[v] = true
			}
		}
	}
	if len(seen) != 462 {
		t.Errorf("%d king pairs, want 462", len(seen))
	}
	if tt.triangle[board.B1] != 0 || tt.triangle[board.D3] != 5 || tt.triangle[board.A1] != 6 ||
		tt.triangle[board.D4] != 9 || tt.triangle[board.E1] != -1 {
		t.Errorf("triangle wrong")
	}
	if tt.lower[board.B1] != 0 || tt.lower[board.H7] != 27 || tt.lower[board.A2] != -1 {
		t.Errorf("lower wrong")
	}
	if tt.pawnRank[board.A2] != 47 || tt.pawnRank[board.H2] != 46 || tt.pawnRank[board.E7] != 0 {
		t.Errorf("pawn ranks wrong: %d %d %d", tt.pawnRank[board.A2], tt.pawnRank[board.H2], tt.pawnRank[board.E7])
	}
	var total uint64
	for f := 0; f < 4; f++ {
		total += tt.leadPawnCount[1][f]
	}
	if total != 24 {
		t.Errorf("one leading pawn: %d squares, want 24", total)
	}
}

func TestParseName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		n    int
	}{
		{"KQvKR", true, 4}, {"KPvK", true, 3}, {"KRPPvKRP", true, 7}, {"KvK", false, 0},
		{"KQRRvKQRB", false, 0}, {"QKvK", false, 0}, {"KXvK", false, 0}, {"KQKvK", false, 0},
	} {
		count, ok := parseName(c.name)
		n := 0
		for _, k := range count {
			n += int(k)
		}
		if ok != c.ok || (ok && n != c.n) {
			t.Errorf("parseName(%q) = %d pieces, %v; want %d, %v", c.name, n, ok, c.n, c.ok)
		}
	}
	tab := newTable("KRvKP", "x", kindWDL)
	if !tab.pawns || tab.symmetric || tab.pawnCount != [2]int{1, 0} || tab.sides != 2 || tab.files != 4 {
		t.Errorf("KRvKP described wrongly: %+v", tab)
	}
	if tab := newTable("KRvKR", "x", kindWDL); !tab.symmetric || tab.sides != 1 || !tab.unique {
		t.Errorf("KRvKR described wrongly")
	}
	if tab := newTable("KNNvK", "x", kindWDL); tab.unique {
		t.Errorf("KNNvK has no unique piece")
	}
}

func TestOpenFindsTables(t *testing.T) {
	tb := openTestdata(t)
	if tb.Tables() != 36 || tb.MaxPieces() != 4 {
		t.Errorf("found %d tables up to %d pieces, want 36 up to 4", tb.Tables(), tb.MaxPieces())
	}
	if err := tb.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "nowhere")); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("missing directory: %v", err)
	}
}

// checkWDL probes the cases; with partial, a position whose own table is
// not there (its result comes from captures) skips the table value.
func checkWDL(t *testing.T, tb *Tablebase, cases []epdCase, partial bool) {
	t.Helper()
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		key := p.Key()
		wt, err := tb.tableWDL(p)
		if partial && errors.Is(err, ErrNoTable) {
			wt, err = WDL(c.wdlTable), nil
		}
		if err != nil || int(wt) != c.wdlTable {
			t.Errorf("%s: table value %d (%v), want %d", c.line, wt, err, c.wdlTable)
		}
		w, err := tb.ProbeWDL(p)
		if err != nil || int(w) != c.wdl {
			t.Errorf("%s: wdl %d (%v), want %d", c.line, w, err, c.wdl)
		}
		if p.Key() != key {
			t.Fatalf("%s: probe did not restore the position", c.line)
		}
	}
}

func TestWDLSampleEPD(t *testing.T) {
	cases := readEPD(t, "testdata/endgame-sample.epd")
	if len(cases) != 84 {
		t.Fatalf("%d sample lines, want 84", len(cases))
	}
	checkWDL(t, openTestdata(t), cases, true)
}

// TestWDLSharedEPD checks every line of python-chess's endgame.epd against
// the full 3-4-piece set (skipped without it).
func TestWDLSharedEPD(t *testing.T) {
	dir := sharedTables(t)
	tb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	cases := readEPD(t, filepath.Join(filepath.Dir(dir), "python-chess_endgame.epd"))
	if len(cases) != 200 {
		t.Fatalf("%d lines, want 200", len(cases))
	}
	checkWDL(t, tb, cases, false)
}

func TestProbeErrors(t *testing.T) {
	tb := openTestdata(t)
	for _, c := range []struct {
		fen  string
		want error
	}{
		{"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", ErrCastling},
		{"4k3/8/8/8/8/8/8/RR2K1R1 w - - 0 1", ErrNoTable}, // 5 pieces
		{"4k3/8/8/8/8/8/8/1B2K1B1 w - - 0 1", ErrNoTable}, // KBBvK not copied
		{"4k3/8/8/8/8/8/1P6/1B2K3 w - - 0 1", ErrNoTable}, // KBPvK not copied
		{"8/8/8/8/8/8/8/4K2k w - - 0 1", nil},             // KvK is a draw
		{"4k3/8/8/8/8/8/8/1N2K3 b - - 0 1", nil},          // KNvK
		{"8/8/8/8/8/4k3/8/4K2R w - - 0 1", nil},           // KRvK without rights
	} {
		p := mustFEN(t, c.fen)
		_, err := tb.ProbeWDL(p)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.fen, err, c.want)
		}
	}
}

// writeTable writes a (damaged) copy of a testdata table into dir.
func writeTable(t *testing.T, dir, name string, damage func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), damage(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptTables(t *testing.T) {
	for _, c := range []struct {
		what   string
		damage func([]byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"bad magic", func(b []byte) []byte { b[0] ^= 0xFF; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"header only", func(b []byte) []byte { return b[:40] }},
		{"pawn flag", func(b []byte) []byte { b[4] ^= 2; return b }},
	} {
		dir := t.TempDir()
		writeTable(t, dir, "KQvKR.rtbw", c.damage)
		tb, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = tb.Check()
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "KQvKR.rtbw")) {
			t.Errorf("%s: Check gave %v, want an error naming the file", c.what, err)
		}
		p := mustFEN(t, "8/8/8/8/8/3k4/8/QK5r w - - 0 1")
		if _, err := tb.ProbeWDL(p); err == nil || !strings.Contains(err.Error(), "KQvKR.rtbw") {
			t.Errorf("%s: probe gave %v, want an error naming the file", c.what, err)
		}
		tb.Close()
	}
}

// TestDamagedDataNeverPanics flips bytes in the compressed data of a table
// and probes many positions: the answers may be wrong but a probe must
// return (a value or an error), never panic or hang.
func TestDamagedDataNeverPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		for _, name := range []string{"KQvKR.rtbw", "KQvKP.rtbw", "KQvKR.rtbz", "KQvKP.rtbz", "KQvK.rtbw", "KRvK.rtbw", "KPvK.rtbw", "KPvK.rtbz",
			"KQvKQ.rtbw", "KQvKB.rtbw", "KQvKN.rtbw", "KQvK.rtbz", "KRvK.rtbz"} {
			writeTable(t, dir, name, func(b []byte) []byte {
				if strings.HasPrefix(name, "KQvK") && len(name) > 9 {
					for i := 0; i < 50; i++ {
						b[64+rng.IntN(len(b)-64)] = byte(rng.IntN(256))
					}
				}
				return b
			})
		}
		tb, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			name := "KQvKR"
			if i%2 == 1 {
				name = "KQvKP"
			}
			p := randomPosition(rng, name)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("round %d: probe of %s panicked: %v", round, p.FEN(), r)
					}
				}()
				tb.ProbeWDL(p)
				tb.ProbeDTZ(p)
			}()
		}
		tb.Close()
	}
}

// testMaterials are the materials whose tables (and those they lead to by
// captures and promotions) are in testdata.
var testMaterials = []string{"KQvK", "KRvK", "KPvK", "KRvKR", "KQvKQ", "KNvKN", "KBvKN", "KBvKB", "KNNvK",
	"KRRvK", "KQRvK", "KRPvK", "KQvKR", "KQvKP"}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// TestWDLSymmetry: a position and its mirror images (colours swapped and
// the board turned; files mirrored) have the same result.
func TestWDLSymmetry(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		name := testMaterials[i%len(testMaterials)]
		p := randomPosition(rng, name)
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		for _, q := range []*board.Position{mirrorColours(t, p), mirrorFiles(t, p)} {
			wq, err := tb.ProbeWDL(q)
			if err != nil || wq != w {
				t.Fatalf("%s gives %v, its mirror %s gives %v (%v)", p.FEN(), w, q.FEN(), wq, err)
			}
		}
	}
}

// TestWDLNegamax: without the fifty-move rule the result of a position is
// the best of the results after its moves (mate a loss, stalemate a draw).
func TestWDLNegamax(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1500; i++ {
		name := testMaterials[i%len(testMaterials)]
		p := randomPosition(rng, name)
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		best := -1
		if ml.N == 0 && !p.InCheck() {
			best = 0
		}
		for _, m := range ml.Slice() {
			p.MakeMove(m)
			v, err := tb.ProbeWDL(p)
			p.UnmakeMove()
			if err != nil {
				t.Fatalf("%s after %s: %v", p.FEN(), m, err)
			}
			best = max(best, -sign(int(v)))
		}
		if sign(int(w)) != best {
			t.Fatalf("%s: wdl %v, best move gives %d", p.FEN(), w, best)
		}
	}
}

func TestProbeWDLNoAllocs(t *testing.T) {
	tb := openTestdata(t)
	p := mustFEN(t, "8/8/8/8/8/3k4/8/QK5r w - - 0 1")
	if _, err := tb.ProbeWDL(p); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { tb.ProbeWDL(p) }); n != 0 {
		t.Errorf("ProbeWDL allocates %.1f times", n)
	}
}

func BenchmarkProbeWDL(b *testing.B) {
	tb := openTestdata(b)
	rng := rand.New(rand.NewPCG(5, 6))
	var ps []*board.Position
	for i := 0; i < 1024; i++ {
		ps = append(ps, randomPosition(rng, testMaterials[i%len(testMaterials)]))
	}
	for _, p := range ps {
		if _, err := tb.ProbeWDL(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tb.ProbeWDL(ps[i&1023])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
}

// TestConcurrentProbes probes from several goroutines into a fresh
// Tablebase, so that tables are opened while others probe (run with -race).
func TestConcurrentProbes(t *testing.T) {
	tb := openTestdata(t)
	rng := rand.New(rand.NewPCG(15, 16))
	var ps [4][]*board.Position
	var want [4][]WDL
	ref := openTestdata(t)
	for g := range ps {
		for i := 0; i < 100; i++ {
			p := randomPosition(rng, testMaterials[(g+i)%len(testMaterials)])
			w, err := ref.ProbeWDL(p)
			if err != nil {
				t.Fatal(err)
			}
			ps[g] = append(ps[g], p)
			want[g] = append(want[g], w)
		}
	}
	errs := make(chan error, len(ps))
	for g := range ps {
		go func() {
			for i, p := range ps[g] {
				w, err := tb.ProbeWDL(p)
				if err == nil && w != want[g][i] {
					err = fmt.Errorf("%s: %v, want %v", p.FEN(), w, want[g][i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range ps {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestReadFallback: the portable reader gives the same bytes as the
// memory mapping.
func TestReadFallback(t *testing.T) {
	path := filepath.Join("testdata", "KQvKR.rtbz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	heap, err := readFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := openMapping(path)
	if err != nil {
		t.Fatal(err)
	}
	defer mapped.Close()
	want, _ := os.ReadFile(path)
	if string(heap.Bytes()) != string(want) || string(mapped.Bytes()) != string(want) {
		t.Errorf("file contents differ between the readers")
	}
}

// FuzzTableParse feeds damaged table files to the header parser and, when
// it accepts one, decodes values from it: neither may panic.
func FuzzTableParse(f *testing.F) {
	for _, name := range []string{"KQvKR.rtbw", "KQvKR.rtbz", "KPvK.rtbw", "KQvKP.rtbz", "KRvKR.rtbw"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, data)
		f.Add(name, data[:len(data)/3])
		mid := append([]byte(nil), data...)
		for i := 5; i < len(mid) && i < 200; i += 7 {
			mid[i] ^= 0x5A
		}
		f.Add(name, mid)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		base, ext, _ := strings.Cut(name, ".")
		if _, ok := parseName(base); !ok {
			return
		}
		k := kindWDL
		if ext == "rtbz" {
			k = kindDTZ
		}
		tab := newTable(base, name, k)
		if tab.parse(data) != nil {
			return
		}
		tab.data = data
		for f := 0; f < tab.files; f++ {
			for s := 0; s < tab.sides; s++ {
				d := &tab.pd[f][s]
				size := d.groupIdx[d.groups]
				for i := uint64(0); i < 64 && size > 0; i++ {
					tab.value(d, (i*2654435761)%size)
				}
			}
		}
	})
}
