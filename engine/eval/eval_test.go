package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// flipFilesFEN mirrors the board left-right (a-file <-> h-file). Only
// valid without castling rights.
func flipFilesFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, r := range ranks {
		b := []byte(r)
		for x, y := 0, len(b)-1; x < y; x, y = x+1, y-1 {
			b[x], b[y] = b[y], b[x]
		}
		ranks[i] = string(b)
	}
	f[0] = strings.Join(ranks, "/")
	if f[3] != "-" {
		f[3] = string([]byte{'a' + 'h' - f[3][0], f[3][1]})
	}
	return strings.Join(f, " ")
}

var fixedFENs = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
	"8/8/4k3/8/8/2B5/3K4/8 w - - 0 1",
	"2r3k1/pp3ppp/4p3/3pP3/3P4/2P2N2/P4PPP/2R3K1 b - - 0 20",
	"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8",
	"8/5k2/8/3b4/8/2B5/4PK2/8 w - - 0 1",
	"4k3/3ppp2/8/8/8/8/3PPP2/4K3 w - - 0 1",
	"3q1rk1/5ppp/p7/1p6/3Qn3/1B6/PP3PPP/4R1K1 b - - 3 25",
}

// randomPositions plays random legal games from the fixed positions and
// collects positions along the way, deterministically.
func randomPositions(t testing.TB, n int) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var out []string
	var ml board.MoveList
	for len(out) < n {
		p := testsupport.MustFEN(t, fixedFENs[rng.IntN(len(fixedFENs))])
		plies := 20 + rng.IntN(120)
		for i := 0; i < plies && len(out) < n; i++ {
			ml.Clear()
			p.GenerateLegal(&ml)
			if ml.Len() == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.Len())])
			if i%5 == 4 {
				out = append(out, p.FEN())
			}
		}
	}
	return append(out, fixedFENs...)
}

func TestColourSymmetry(t *testing.T) {
	e := NewEvaluator()
	for _, fen := range randomPositions(t, 2000) {
		m := testsupport.MirrorFEN(t, fen)
		a := e.Evaluate(testsupport.MustFEN(t, fen))
		b := e.Evaluate(testsupport.MustFEN(t, m))
		if a != b {
			t.Fatalf("eval %q = %d but mirrored %q = %d", fen, a, m, b)
		}
	}
}

func TestFileSymmetry(t *testing.T) {
	e := NewEvaluator()
	n := 0
	for _, fen := range randomPositions(t, 2000) {
		if strings.Fields(fen)[2] != "-" {
			continue
		}
		n++
		m := flipFilesFEN(fen)
		if a, b := e.Evaluate(testsupport.MustFEN(t, fen)), e.Evaluate(testsupport.MustFEN(t, m)); a != b {
			t.Fatalf("eval %q = %d but file-mirrored %q = %d", fen, a, m, b)
		}
	}
	if n < 500 {
		t.Fatalf("only %d positions without castling rights", n)
	}
}

func TestSideToMoveSign(t *testing.T) {
	e := NewEvaluator()
	cases := []struct {
		fen  string
		want int // sign from White's point of view
	}{
		{"4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1", 1},
		{"4k3/8/8/8/8/8/8/QQ2K3 b - - 0 1", 1},
		{"qq2k3/8/8/8/8/8/8/4K3 w - - 0 1", -1},
		{"rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", 1},
	}
	for _, c := range cases {
		p := testsupport.MustFEN(t, c.fen)
		v := e.Evaluate(p)
		white := v
		if p.SideToMove() == board.Black {
			white = -v
		}
		if white*c.want <= 100 {
			t.Errorf("%s: side-to-move eval %d, White's view %d, want sign %d and beyond 100", c.fen, v, white, c.want)
		}
	}
	// Same position, other side to move: the scores are opposite in sign up
	// to the tempo bonus, which favours whoever moves.
	p1 := testsupport.MustFEN(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	p2 := testsupport.MustFEN(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3")
	w := DefaultWeights()
	var tr Trace
	e.Trace(p1, &tr)
	tempo := 2 * float64(w[IdxTempo].MG()*tr.Phase+w[IdxTempo].EG()*(MaxPhase-tr.Phase)) / MaxPhase
	if a, b := e.Evaluate(p1), e.Evaluate(p2); math.Abs(float64(a+b)-tempo) > 1 {
		t.Errorf("white to move %d, black to move %d: sum %d, want 2×tempo %.1f", a, b, a+b, tempo)
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestInsufficientMaterialIsZero(t *testing.T) {
	e := NewEvaluator()
	for _, fen := range []string{
		"8/8/4k3/8/8/3K4/8/8 w - - 0 1",
		"8/8/4k3/8/8/2B5/3K4/8 w - - 0 1",
		"8/8/4k3/8/8/2N5/3K4/8 b - - 0 1",
		"8/8/4k3/8/8/2NN4/3K4/8 w - - 0 1",
		"8/8/4kb2/8/8/2N5/3K4/8 w - - 0 1",
		"8/8/4kn2/8/8/3K4/8/8 w - - 0 1",
	} {
		if v := e.Evaluate(testsupport.MustFEN(t, fen)); v != 0 {
			t.Errorf("%s: eval %d, want 0", fen, v)
		}
	}
	// Mating material is not a draw.
	for _, fen := range []string{
		"8/8/4k3/8/8/2BB4/3K4/8 w - - 0 1",
		"8/8/4k3/8/8/2BN4/3K4/8 w - - 0 1",
		"8/8/4k3/8/8/2R5/3K4/8 w - - 0 1",
		"8/8/4k3/8/8/3K4/4P3/8 w - - 0 1",
	} {
		if v := e.Evaluate(testsupport.MustFEN(t, fen)); v <= 100 {
			t.Errorf("%s: eval %d, want a clear plus", fen, v)
		}
	}
}

func TestPawnCacheConsistent(t *testing.T) {
	cached := NewEvaluator()
	for _, fen := range randomPositions(t, 1000) {
		p := testsupport.MustFEN(t, fen)
		fresh := NewEvaluator().Evaluate(p)
		a := cached.Evaluate(p)
		b := cached.Evaluate(p) // surely a hit now
		if a != fresh || b != fresh {
			t.Fatalf("%s: fresh %d, cached %d then %d", fen, fresh, a, b)
		}
	}
}

func TestTraceIsLinear(t *testing.T) {
	e := NewEvaluator()
	w := DefaultWeights()
	var tr Trace
	for _, fen := range randomPositions(t, 1000) {
		p := testsupport.MustFEN(t, fen)
		white := e.Trace(p, &tr)
		got := e.Evaluate(p)
		if p.SideToMove() == board.Black {
			got = -got
		}
		if white != got {
			t.Fatalf("%s: Trace returned %d, Evaluate %d", fen, white, got)
		}
		if lin := tr.Linear(&w); math.Abs(lin-float64(white)) > 2 { // integer rounding of the king-danger term
			t.Fatalf("%s: Σ coef·weight = %.2f, eval %d", fen, lin, white)
		}
	}
}

// TestTraceSeesEveryGroup guards against features that never fire.
func TestTraceSeesEveryGroup(t *testing.T) {
	e := NewEvaluator()
	var tr Trace
	used := make([]bool, NumParams)
	w := DefaultWeights()
	dangerous := 0
	for _, fen := range randomPositions(t, 3000) {
		e.Trace(testsupport.MustFEN(t, fen), &tr)
		for i, c := range tr.Coef {
			if c != 0 {
				used[i] = true
			}
		}
		for c := board.White; c <= board.Black; c++ {
			if tr.KingDanger(c, &w) > 0 {
				dangerous++
			}
			for j, f := range tr.KD[c] {
				if f != 0 {
					used[IdxKDanger+j] = true
				}
			}
		}
	}
	if dangerous == 0 {
		t.Error("king danger never positive")
	}
	for _, g := range groups {
		any := false
		for i := g.start; i < g.start+g.n; i++ {
			any = any || used[i]
		}
		if !any {
			t.Errorf("group %s never used", g.name)
		}
	}
}

func TestLayoutHasNoGaps(t *testing.T) {
	next := 0
	for _, g := range groups {
		if g.start != next {
			t.Fatalf("group %s starts at %d, want %d", g.name, g.start, next)
		}
		next += g.n
	}
	if next != NumParams {
		t.Fatalf("groups cover %d params, NumParams = %d", next, NumParams)
	}
}

func TestScorePacking(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {1, -1}, {-1, 1}, {-300, 250}, {32000, -32000}, {-5, -7}} {
		s := S(c[0], c[1])
		if s.MG() != c[0] || s.EG() != c[1] {
			t.Errorf("S(%d,%d) unpacks to (%d,%d)", c[0], c[1], s.MG(), s.EG())
		}
		s3 := s * 3
		s2 := s + S(7, -9)
		if c[0] < 10000 && c[0] > -10000 && (s3.MG() != 3*c[0] || s3.EG() != 3*c[1]) {
			t.Errorf("3·S(%d,%d) = (%d,%d)", c[0], c[1], s3.MG(), s3.EG())
		}
		if c[0] < 30000 && c[1] > -30000 && (s2.MG() != c[0]+7 || s2.EG() != c[1]-9) {
			t.Errorf("S(%d,%d)+S(7,-9) = (%d,%d)", c[0], c[1], s2.MG(), s2.EG())
		}
	}
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	e := NewEvaluator()
	ps := []*board.Position{}
	for _, fen := range fixedFENs {
		ps = append(ps, testsupport.MustFEN(t, fen))
	}
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		e.Evaluate(ps[i%len(ps)])
		i++
	})
	if allocs != 0 {
		t.Fatalf("Evaluate allocates %.1f times per call", allocs)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	e := NewEvaluator()
	var ps []*board.Position
	for _, fen := range randomPositions(b, 256) {
		ps = append(ps, testsupport.MustFEN(b, fen))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Evaluate(ps[i&255])
	}
}

func BenchmarkEvaluateNoPawnCache(b *testing.B) {
	var ps []*board.Position
	for _, fen := range randomPositions(b, 256) {
		ps = append(ps, testsupport.MustFEN(b, fen))
	}
	e := NewEvaluator()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.pawns[pawnIndex(ps[i&255].Pieces(board.White, board.Pawn), ps[i&255].Pieces(board.Black, board.Pawn))].valid = false
		e.Evaluate(ps[i&255])
	}
}

func TestIDPositionsParse(t *testing.T) {
	for _, fen := range idPositions {
		if _, err := board.ParseFEN(fen); err != nil {
			t.Errorf("%q: %v", fen, err)
		}
	}
}

// The ID follows the evaluation's code, not only its weights: the same
// weights evaluated differently in one of the positions give another ID.
func TestIDFollowsTheEvaluation(t *testing.T) {
	w := DefaultWeights()
	ev := NewEvaluatorWith(&w)
	same := idOf(&w, ev.Evaluate)
	if same != w.ID() {
		t.Fatalf("idOf with the evaluator %q, ID %q", same, w.ID())
	}
	third, err := board.ParseFEN(idPositions[3])
	if err != nil {
		t.Fatal(err)
	}
	changed := idOf(&w, func(p *board.Position) int {
		v := ev.Evaluate(p)
		if p.Key() == third.Key() {
			v++
		}
		return v
	})
	if changed == same {
		t.Fatalf("an evaluation one centipawn off in one position keeps the ID %q", same)
	}
}
