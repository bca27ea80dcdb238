package book

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func openSample(t testing.TB) *Book {
	t.Helper()
	b, err := Open(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bookOf writes entries (sorted here) into a Book.
func bookOf(t testing.TB, entries ...Entry) *Book {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, entries); err != nil {
		t.Fatal(err)
	}
	b, err := Parse("test", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func uciMove(t testing.TB, p *board.Position, s string) board.Move {
	t.Helper()
	m, err := p.ParseUCIMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	unsorted := append(bytes.Clone(good[len(good)-16:]), good[:len(good)-16]...) // last entry first
	cases := map[string][]byte{
		"empty.bin":     nil,
		"truncated.bin": good[:len(good)-5],
		"unsorted.bin":  unsorted,
	}
	for name, data := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want ErrCorrupt naming the file", name, err)
		}
	}
	missing := filepath.Join(dir, "missing.bin")
	if _, err := Open(missing); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: error %v, want not-exist naming the file", err)
	}
	if b, err := Open(samplePath); err != nil || b.Len() != len(good)/EntrySize {
		t.Errorf("sample: %v, %d entries", err, b.Len())
	}
}

// In the start position the gnuchess book has the usual first moves, all
// legal, with their stored weights.
func TestSampleStartPosition(t *testing.T) {
	b := openSample(t)
	p := board.NewPosition()
	entries := b.Entries(Key(p))
	moves := b.Moves(p)
	if len(moves) < 4 || len(moves) > len(entries) {
		t.Fatalf("%d moves from %d entries", len(moves), len(entries))
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	found := map[string]int{}
	for _, m := range moves {
		if !ml.Contains(m.Move) {
			t.Errorf("book move %v is not legal", m.Move)
		}
		found[p.MoveToUCI(m.Move)] = m.Weight
	}
	for _, want := range []string{"e2e4", "d2d4", "c2c4", "g1f3"} {
		if found[want] == 0 {
			t.Errorf("%s missing or weight 0 in %v", want, found)
		}
	}
	total := 0
	for _, e := range entries {
		total += int(e.Weight)
	}
	sum := 0
	for _, w := range found {
		sum += w
	}
	if sum != total {
		t.Errorf("weights of the legal moves add to %d, entries to %d", sum, total)
	}
	if b.Entries(0x0123456789abcdef) != nil {
		t.Error("entries for a key not in the book")
	}
}

// Castling in the book (king takes rook, e1h1) comes back as the board's
// castling move.
func TestSampleCastling(t *testing.T) {
	b := openSample(t)
	for _, tc := range []struct{ line, castle string }{
		{"e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6", "e1h1"},
		{"d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6 g1f3", "e8h8"},
	} {
		p := play(t, tc.line)
		var got *Move
		for _, m := range b.Moves(p) {
			if m.Move.IsCastling() {
				got = &m
			}
		}
		if got == nil {
			t.Errorf("after %s: no castling among %v", tc.line, b.Moves(p))
			continue
		}
		if got.Move != uciMove(t, p, tc.castle) || got.Move.String() != tc.castle {
			t.Errorf("after %s: castling %v, want %s", tc.line, got.Move, tc.castle)
		}
		p.MakeMove(got.Move)
		if p.PieceOn(got.Move.To()) != board.NoPiece && p.PieceOn(got.Move.To()).Type() == board.Rook {
			t.Errorf("after castling the rook is still on %v", got.Move.To())
		}
	}
}

// An entry whose move is not legal in the position (a key collision or a
// damaged entry) is skipped; duplicate entries of one move are merged.
func TestMovesSkipsIllegalEntries(t *testing.T) {
	p := board.NewPosition()
	k := Key(p)
	e2e4 := EncodeMove(uciMove(t, p, "e2e4"))
	e2e5 := uint16(board.E5) | uint16(board.E2)<<6
	badPromo := e2e4 | 7<<12
	b := bookOf(t,
		Entry{Key: k - 1, Move: e2e5, Weight: 9},
		Entry{Key: k, Move: e2e5, Weight: 100},
		Entry{Key: k, Move: e2e4, Weight: 3},
		Entry{Key: k, Move: badPromo, Weight: 100},
		Entry{Key: k, Move: e2e4, Weight: 4},
		Entry{Key: k + 1, Move: e2e5, Weight: 9},
	)
	moves := b.Moves(p)
	if len(moves) != 1 || moves[0].Move != uciMove(t, p, "e2e4") || moves[0].Weight != 7 {
		t.Fatalf("moves %+v, want only e2e4 weight 7", moves)
	}
	if len(b.Entries(k)) != 4 {
		t.Errorf("%d entries for the key, want 4", len(b.Entries(k)))
	}
	// A book with only illegal moves gives no move at all.
	bad := bookOf(t, Entry{Key: k, Move: e2e5, Weight: 100})
	if _, _, ok := Choose([]*Book{bad}, p, 0, Options{Method: BestMove}, nil); ok {
		t.Error("Choose gave a move from illegal entries")
	}
}

// Every legal move survives EncodeMove then DecodeMove, promotions, en
// passant and castling (standard and Chess960) included.
func TestEncodeDecodeMoves(t *testing.T) {
	fens := []string{
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", // Chess960 rights
	}
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		castles := 0
		for _, m := range ml.Slice() {
			if m.IsCastling() {
				castles++
			}
			got, ok := DecodeMove(EncodeMove(m), &ml)
			if !ok || got != m {
				t.Errorf("%s: %v came back as %v (%v)", fen, m, got, ok)
			}
		}
		if strings.Contains(fen, " GB ") && castles != 2 {
			t.Errorf("%s: %d castling moves, want 2", fen, castles)
		}
	}
	// The format's own numbers: e2e4 is from 12, to 28; e7e8q has code 4.
	if got := EncodeMove(board.NewMove(board.E2, board.E4)); got != 28|12<<6 {
		t.Errorf("e2e4 encoded as %#x", got)
	}
	if got := EncodeMove(board.NewPromotion(board.E7, board.E8, board.Queen)); got != 60|52<<6|4<<12 {
		t.Errorf("e7e8q encoded as %#x", got)
	}
	if got := EncodeMove(board.NewCastling(board.E1, board.H1)); got != 7|4<<6 {
		t.Errorf("white short castling encoded as %#x, want e1h1", got)
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range []Method{WeightedRandom, UniformRandom, BestMove} {
		got, err := ParseMethod(m.String())
		if err != nil || got != m {
			t.Errorf("%v: %v, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("random"); err == nil {
		t.Error("ParseMethod accepted random")
	}
}

func TestChooseOptions(t *testing.T) {
	p := board.NewPosition()
	k := Key(p)
	enc := func(s string) uint16 { return EncodeMove(uciMove(t, p, s)) }
	first := bookOf(t,
		Entry{Key: k, Move: enc("e2e4"), Weight: 10},
		Entry{Key: k, Move: enc("d2d4"), Weight: 30},
		Entry{Key: k, Move: enc("c2c4"), Weight: 20},
		Entry{Key: k, Move: enc("b1c3"), Weight: 0},
	)
	second := bookOf(t, Entry{Key: k, Move: enc("g1f3"), Weight: 40})
	rng := rand.New(rand.NewSource(1))
	books := []*Book{first, second}

	m, from, ok := Choose(books, p, 0, Options{Method: BestMove}, rng)
	if !ok || from != first || p.MoveToUCI(m.Move) != "d2d4" {
		t.Errorf("best_move: %v from %v", m.Move, from)
	}
	// min_weight above every move of the first book: the second is asked.
	m, from, ok = Choose(books, p, 0, Options{Method: BestMove, MinWeight: 31}, rng)
	if !ok || from != second || p.MoveToUCI(m.Move) != "g1f3" {
		t.Errorf("min_weight 31: %v from %v, want g1f3 from the second book", m.Move, from)
	}
	// max_depth: ply 0 is the first move; asked up to ply MaxDepth.
	if _, _, ok := Choose(books, p, 0, Options{MaxDepth: 1}, rng); !ok {
		t.Error("max_depth 1 refused the first move")
	}
	if _, _, ok := Choose(books, p, 1, Options{MaxDepth: 1}, rng); ok {
		t.Error("max_depth 1 gave a move at the second ply")
	}
	if _, _, ok := Choose(nil, p, 0, Options{}, rng); ok {
		t.Error("no books gave a move")
	}
	// uniform_random reaches every move of positive weight; weighted_random
	// never picks weight 0 either; min_weight 15 leaves d2d4 and c2c4.
	seen := map[Method]map[string]int{}
	for _, opt := range []Options{{Method: UniformRandom}, {Method: WeightedRandom}, {Method: UniformRandom, MinWeight: 15}} {
		got := map[string]int{}
		for range 2000 {
			m, _, ok := Choose(books, p, 0, opt, rng)
			if !ok {
				t.Fatal("no move")
			}
			got[p.MoveToUCI(m.Move)]++
		}
		seen[opt.Method] = got
		switch {
		case opt.MinWeight == 15:
			if len(got) != 2 || got["d2d4"] == 0 || got["c2c4"] == 0 {
				t.Errorf("uniform with min_weight 15: %v", got)
			}
		case opt.Method == UniformRandom:
			if len(got) != 3 || got["b1c3"] != 0 {
				t.Errorf("uniform: %v, want the 3 moves of positive weight", got)
			}
		default:
			if len(got) != 3 || got["b1c3"] != 0 {
				t.Errorf("weighted: %v, want the 3 moves of positive weight", got)
			}
		}
	}
}

// A move of weight 0 (Polyglot: known, not to be played) is never chosen,
// by any method and whatever min_weight; a position whose moves all weigh 0
// has no book move, and Has agrees with Choose.
func TestChooseSkipsWeightZero(t *testing.T) {
	p := board.NewPosition()
	k := Key(p)
	enc := func(s string) uint16 { return EncodeMove(uciMove(t, p, s)) }
	zeros := bookOf(t,
		Entry{Key: k, Move: enc("a2a3"), Weight: 0},
		Entry{Key: k, Move: enc("h2h3"), Weight: 0},
	)
	mixed := bookOf(t,
		Entry{Key: k, Move: enc("a2a3"), Weight: 0},
		Entry{Key: k, Move: enc("e2e4"), Weight: 1},
		Entry{Key: k, Move: enc("h2h3"), Weight: 0},
	)
	rng := rand.New(rand.NewSource(3))
	for _, m := range []Method{WeightedRandom, UniformRandom, BestMove} {
		for _, minW := range []int{0, -1} {
			opt := Options{Method: m, MinWeight: minW}
			if mv, _, ok := Choose([]*Book{zeros}, p, 0, opt, rng); ok {
				t.Errorf("%v, min_weight %d: weight-0 book gave %s", m, minW, p.MoveToUCI(mv.Move))
			}
			if Has([]*Book{zeros}, p, 0, opt) {
				t.Errorf("%v, min_weight %d: Has says a weight-0 book has a move", m, minW)
			}
			if !Has([]*Book{zeros, mixed}, p, 0, opt) {
				t.Errorf("%v, min_weight %d: Has misses the second book's move", m, minW)
			}
			for range 200 {
				mv, from, ok := Choose([]*Book{zeros, mixed}, p, 0, opt, rng)
				if !ok || from != mixed || p.MoveToUCI(mv.Move) != "e2e4" {
					t.Fatalf("%v, min_weight %d: got %v from %v, want e2e4 from the second book", m, minW, mv.Move, from)
				}
			}
		}
	}
	if Has([]*Book{mixed}, p, 1, Options{MaxDepth: 1}) {
		t.Error("Has ignores max_depth")
	}
}

// chiSquareCritical returns the value that the chi-square statistic with df
// degrees of freedom exceeds with probability 0.001: tabulated up to 30
// degrees, Wilson–Hilferty's approximation beyond.
func chiSquareCritical(df int) float64 {
	table := [...]float64{0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588,
		31.264, 32.909, 34.528, 36.123, 37.697, 39.252, 40.790, 42.312, 43.820, 45.315,
		46.797, 48.268, 49.728, 51.179, 52.620, 54.052, 55.476, 56.892, 58.301, 59.703}
	if df < len(table) {
		return table[df]
	}
	const z = 3.0902 // the normal quantile for 0.999
	k := float64(df)
	c := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * c * c * c
}

// chiSquare draws n moves from moves with pick and returns the statistic
// against the weights, and its degrees of freedom.
func chiSquare(t *testing.T, moves []Move, n int, pick func() Move) (float64, int) {
	t.Helper()
	total := 0
	for _, m := range moves {
		total += m.Weight
	}
	count := map[board.Move]int{}
	for range n {
		count[pick().Move]++
	}
	stat := 0.0
	k := 0
	for _, m := range moves {
		if m.Weight == 0 {
			if count[m.Move] != 0 {
				t.Errorf("move %v of weight 0 drawn %d times", m.Move, count[m.Move])
			}
			continue
		}
		k++
		want := float64(n) * float64(m.Weight) / float64(total)
		d := float64(count[m.Move]) - want
		stat += d * d / want
	}
	return stat, k - 1
}

// weightedPositions returns 20 positions along the sample's lines with at
// least two moves of positive weight, and their book moves.
func weightedPositions(t *testing.T, b *Book) ([]*board.Position, [][]Move) {
	t.Helper()
	var ps []*board.Position
	var ms [][]Move
	for _, p := range samplePositions(t, b) {
		moves := b.Moves(p)
		positive := 0
		for _, m := range moves {
			if m.Weight > 0 {
				positive++
			}
		}
		if positive >= 2 {
			ps, ms = append(ps, p), append(ms, moves)
		}
		if len(ps) == 20 {
			return ps, ms
		}
	}
	t.Fatalf("only %d positions with two weighted moves in the sample", len(ps))
	return nil, nil
}

// weighted_random follows the book's weights: 10,000 draws in each of 20
// positions of the gnuchess book, a fixed seed, a chi-square test per
// position at p = 0.001. The same test rejects uniform_random's draws, so it
// can tell a wrong distribution.
func TestWeightedRandomChiSquare(t *testing.T) {
	b := openSample(t)
	rng := rand.New(rand.NewSource(20261124))
	ps, ms := weightedPositions(t, b)
	const draws = 10000
	rejectedUniform := 0
	for i, p := range ps {
		moves := ms[i]
		stat, df := chiSquare(t, moves, draws, func() Move {
			m, _, ok := Choose([]*Book{b}, p, 0, Options{Method: WeightedRandom}, rng)
			if !ok {
				t.Fatal("no move")
			}
			return m
		})
		crit := chiSquareCritical(df)
		t.Logf("%-60s %2d moves chi2 %7.2f (df %d, critical %.2f)", p.FEN(), len(moves), stat, df, crit)
		if stat > crit {
			t.Errorf("%s: weighted_random chi-square %.2f > %.2f (df %d)", p.FEN(), stat, crit, df)
		}
		ustat, udf := chiSquare(t, nonZero(moves), draws, func() Move {
			m, _ := Pick(nonZero(moves), Options{Method: UniformRandom}, rng)
			return m
		})
		if ustat > chiSquareCritical(udf) {
			rejectedUniform++
		}
	}
	if rejectedUniform < len(ps)/2 {
		t.Errorf("the test rejected uniform draws in only %d of %d positions", rejectedUniform, len(ps))
	}
}

func nonZero(moves []Move) []Move {
	var out []Move
	for _, m := range moves {
		if m.Weight > 0 {
			out = append(out, m)
		}
	}
	return out
}

// The sample holds exactly the full book's entries for its positions
// (skipped when the full book is not here).
func TestSampleMatchesFullBook(t *testing.T) {
	full, err := Open(fullBook(t))
	if err != nil {
		t.Fatal(err)
	}
	sample := openSample(t)
	n := 0
	for _, p := range samplePositions(t, full) {
		k := Key(p)
		a, b := full.Entries(k), sample.Entries(k)
		if len(a) != len(b) {
			t.Errorf("%s: %d entries in the full book, %d in the sample", p.FEN(), len(a), len(b))
			continue
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: entry %d differs: %+v vs %+v", p.FEN(), i, a[i], b[i])
			}
		}
		n += len(a)
	}
	if n != sample.Len() {
		t.Errorf("the sample has %d entries, the positions %d", sample.Len(), n)
	}
}

// Along random book lines of the full book, every chosen move is legal and
// one of the book's moves for the position (skipped without the full book).
func TestFullBookLines(t *testing.T) {
	full, err := Open(fullBook(t))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	asked, found := 0, 0
	for range 200 {
		p := board.NewPosition()
		for ply := 0; ply < 30; ply++ {
			asked++
			m, _, ok := Choose([]*Book{full}, p, ply, Options{Method: WeightedRandom}, rng)
			if !ok {
				break
			}
			found++
			var ml board.MoveList
			p.GenerateLegal(&ml)
			if !ml.Contains(m.Move) {
				t.Fatalf("%s: book move %v is not legal", p.FEN(), m.Move)
			}
			inBook := false
			for _, e := range full.Entries(Key(p)) {
				if d, ok := DecodeMove(e.Move, &ml); ok && d == m.Move {
					inBook = true
				}
			}
			if !inBook {
				t.Fatalf("%s: %v is not among the book's entries", p.FEN(), m.Move)
			}
			p.MakeMove(m.Move)
		}
	}
	t.Logf("%d of %d positions along the lines had a book move", found, asked)
	if found < 1000 {
		t.Errorf("only %d book moves along 200 lines", found)
	}
}
