package tune

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

func TestParseLine(t *testing.T) {
	const fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	cases := []struct {
		line string
		ok   bool
		res  float64
		err  bool
	}{
		{fen + ";1-0", true, 1, false},
		{fen + ";0-1", true, 0, false},
		{fen + "; 1/2-1/2", true, 0.5, false},
		{fen + ";0.5", true, 0.5, false},
		{fen + ";1.0", true, 1, false},
		{fen + ";1-0;-35", true, 1, false},
		{fen + ";1-0;x", false, 0, true},
		{fen + ";1-0;3;4", false, 0, true},
		{"", false, 0, false},
		{"# comment", false, 0, false},
		{fen, false, 0, true},
		{fen + ";2", false, 0, true},
		{fen + ";win", false, 0, true},
	}
	for _, c := range cases {
		s, ok, err := ParseLine(c.line)
		if (err != nil) != c.err || ok != c.ok {
			t.Errorf("%q: ok=%v err=%v, want ok=%v err=%v", c.line, ok, err, c.ok, c.err)
			continue
		}
		if ok && (s.Result != c.res || s.FEN != fen || s.HasScore != (strings.Count(c.line, ";") == 2) || s.HasScore && s.Score != -35) {
			t.Errorf("%q: got %+v", c.line, s)
		}
	}
	if _, err := ReadSamples(strings.NewReader(fen + ";1-0\n\nbad line\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("ReadSamples error %v, want one naming line 3", err)
	}
}

// randomFENs plays random games from the start position and keeps
// positions not in check.
func randomFENs(t testing.TB, n int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []string
	var ml board.MoveList
	for len(out) < n {
		p, err := board.ParseFEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 100 && len(out) < n; ply++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			if ply > 6 && ply%3 == 0 && !p.InCheck() {
				out = append(out, p.FEN())
			}
		}
	}
	return out
}

// labelled returns samples whose results are the expected score
// sigmoid(k·eval) of the evaluation under weights w (a noiseless target).
func labelled(t testing.TB, fens []string, w *eval.Weights, k float64) []Sample {
	t.Helper()
	ev := eval.NewEvaluatorWith(w)
	var tr eval.Trace
	var out []Sample
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		v := ev.Trace(p, &tr)
		out = append(out, Sample{FEN: fen, Result: sigmoid(k, float64(v))})
	}
	return out
}

func TestSetMatchesEvaluator(t *testing.T) {
	w := eval.DefaultWeights()
	fens := randomFENs(t, 300, 1)
	set := Build(labelled(t, fens, &w, 1), -1)
	p := FromWeights(&w)
	ev := eval.NewEvaluator()
	j := 0
	for _, fen := range fens {
		pos, _ := board.ParseFEN(fen)
		var tr eval.Trace
		white := ev.Trace(pos, &tr)
		if tr.Drawn {
			continue
		}
		if got, _ := set.evalOf(j, p); math.Abs(got-float64(white)) > 2 {
			t.Fatalf("%s: set eval %.2f, evaluator %d", fen, got, white)
		}
		j++
	}
	if j != set.Len() {
		t.Fatalf("set has %d positions, matched %d", set.Len(), j)
	}
}

func TestFitKRecoversScale(t *testing.T) {
	w := eval.DefaultWeights()
	for _, k := range []float64{0.6, 1.4} {
		set := Build(labelled(t, randomFENs(t, 400, 2), &w, k), -1)
		got := set.FitK(FromWeights(&w), 2)
		if math.Abs(got-k) > 0.05*k {
			t.Errorf("FitK = %.4f, labels made with K = %.2f", got, k)
		}
	}
}

func TestGradientMatchesFiniteDifference(t *testing.T) {
	w := eval.DefaultWeights()
	truth := w
	truth[eval.IdxMaterial+1] = eval.S(420, 380)
	truth[eval.IdxKDanger+eval.KDAttQ] = eval.S(30, 0)
	set := Build(labelled(t, randomFENs(t, 300, 3), &truth, 1), -1)
	p := FromWeights(&w)
	g := set.gradient(p, 1, 2, 0, nil)
	for _, i := range []int{eval.IdxMaterial + 1, eval.IdxMaterial + 3, eval.IdxMobB + 6, eval.IdxPST + 32 + 13, eval.IdxTempo,
		eval.IdxKDanger + eval.KDBias, eval.IdxKDanger + eval.KDAttQ, eval.IdxKDanger + eval.KDChkQ, eval.IdxKDanger + eval.KDShelter} {
		for j := 0; j < 2; j++ {
			const h = 0.5
			q := *p
			q[i][j] += h
			up := set.Loss(&q, 1, 2)
			q[i][j] -= 2 * h
			down := set.Loss(&q, 1, 2)
			num := (up - down) / (2 * h)
			if math.Abs(num-g[i][j]) > 1e-3*math.Abs(num)+1e-9 {
				t.Errorf("%s[%d]: analytic %.4g, numeric %.4g", eval.ParamName(i), j, g[i][j], num)
			}
		}
	}
}

func TestFitReducesLossAndMovesTowardTruth(t *testing.T) {
	start := eval.DefaultWeights()
	truth := start
	truth[eval.IdxMaterial+1] = eval.S(420, 380) // knights worth a lot more
	truth[eval.IdxMaterial+3] = eval.S(400, 450) // rooks less
	set := Build(labelled(t, randomFENs(t, 600, 4), &truth, 1), -1)
	p := FromWeights(&start)
	before := set.Loss(p, 1, 2)
	after := set.Fit(context.Background(), p, 1, Options{Iterations: 300, LR: 2, Threads: 2})
	if !(after < before*0.5) {
		t.Fatalf("loss %.6g -> %.6g, want at least halved", before, after)
	}
	kn := p[eval.IdxMaterial+1][0] + p[eval.IdxMaterial+1][1]
	if kn < float64(start[eval.IdxMaterial+1].MG()+start[eval.IdxMaterial+1].EG())+40 {
		t.Errorf("knight value %.0f (mg+eg) did not move towards the truth", kn)
	}
}

func TestFrozenParametersStay(t *testing.T) {
	start := eval.DefaultWeights()
	truth := start
	truth[eval.IdxMaterial+1] = eval.S(420, 380)
	set := Build(labelled(t, randomFENs(t, 200, 5), &truth, 1), -1)
	p := FromWeights(&start)
	frozen := make([]bool, eval.NumParams)
	frozen[eval.IdxMaterial+1] = true
	set.Fit(context.Background(), p, 1, Options{Iterations: 50, LR: 2, Threads: 1, Frozen: frozen})
	if p[eval.IdxMaterial+1][0] != float64(start[eval.IdxMaterial+1].MG()) {
		t.Errorf("frozen knight value moved to %.2f", p[eval.IdxMaterial+1][0])
	}
}

func TestBuildFilters(t *testing.T) {
	samples := []Sample{
		{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Result: 0.5},
		{FEN: "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}, // in check
		{FEN: "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", Result: 0.5},                // pawn takes queen: not quiet
		{FEN: "8/8/4k3/8/8/2B5/3K4/8 w - - 0 1", Result: 0.5},                  // material draw
		{FEN: "not a fen", Result: 1},
	}
	set := Build(samples, 30)
	if set.Len() != 1 || set.Skipped.Check != 1 || set.Skipped.NotQuiet != 1 || set.Skipped.Drawn != 1 || set.Skipped.Parse != 1 {
		t.Fatalf("kept %d, skipped %+v", set.Len(), set.Skipped)
	}
}

func TestPlayGameMates(t *testing.T) {
	// White mates in one (Qh5xf7 style back-rank pattern): Ra8#.
	start, err := board.ParseFEN("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	pl := NewBootstrap(1)
	o := DefaultGameOptions()
	o.RandomPlies, o.SkipFirst = 0, 0
	g, err := PlayGame(context.Background(), start, pl, pl, rand.New(rand.NewPCG(1, 1)), o)
	if err != nil {
		t.Fatal(err)
	}
	if g.Result != 1 || g.Reason != "checkmate" || g.Plies != 1 {
		t.Fatalf("got %+v, want White mating at once", g)
	}
}

func TestPlayGameFinishes(t *testing.T) {
	start, _ := board.ParseFEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
	pl := NewBootstrap(1)
	o := DefaultGameOptions()
	o.MaxPlies = 120
	for seed := uint64(0); seed < 3; seed++ {
		g, err := PlayGame(context.Background(), start, pl, pl, rand.New(rand.NewPCG(seed, 1)), o)
		if err != nil {
			t.Fatal(err)
		}
		if g.Result != 0 && g.Result != 0.5 && g.Result != 1 || g.Reason == "" || g.Plies > o.MaxPlies {
			t.Fatalf("bad game %+v", g)
		}
		for _, fen := range g.FENs {
			p, err := board.ParseFEN(fen)
			if err != nil || p.InCheck() {
				t.Fatalf("recorded %q: err %v, in check %v", fen, err, err == nil && p.InCheck())
			}
		}
	}
	if start.FEN() != "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" {
		t.Fatalf("PlayGame changed its start position")
	}
}

// TestPlayGameKeepSkips: PlayGameKeep hands over only positions a static
// evaluation can judge (not in check, the chosen move neither a capture nor
// a promotion, past SkipFirst), and the same positions PlayGame records.
func TestPlayGameKeepSkips(t *testing.T) {
	start := board.NewPosition()
	pl := NewBootstrap(1)
	o := DefaultGameOptions()
	o.MaxPlies = 160
	for seed := uint64(0); seed < 3; seed++ {
		var fens []string
		g, err := PlayGameKeep(context.Background(), start, pl, pl, rand.New(rand.NewPCG(seed, 7)), o, func(p *board.Position, m board.Move, ws int) {
			if p.InCheck() || p.IsCapture(m) || m.IsPromotion() {
				t.Errorf("kept %s with move %v (in check %v)", p.FEN(), m, p.InCheck())
			}
			if ply := 2*(p.FullmoveNumber()-1) + int(p.SideToMove()); ply < o.SkipFirst {
				t.Errorf("kept %s at ply %d < SkipFirst %d", p.FEN(), ply, o.SkipFirst)
			}
			fens = append(fens, p.FEN())
		})
		if err != nil {
			t.Fatal(err)
		}
		if g.Kept != len(fens) || g.Kept == 0 || g.Searched < g.Kept || g.Searched > g.Plies-o.RandomPlies+1 || g.FENs != nil {
			t.Errorf("seed %d: kept %d (%d handed over), searched %d, plies %d, FENs %d", seed, g.Kept, len(fens), g.Searched, g.Plies, len(g.FENs))
		}
		g2, err := PlayGame(context.Background(), start, pl, pl, rand.New(rand.NewPCG(seed, 7)), o)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(g2.FENs, "|") != strings.Join(fens, "|") || g2.Result != g.Result || len(g2.Scores) != len(fens) {
			t.Errorf("seed %d: PlayGame recorded %d positions, PlayGameKeep %d", seed, len(g2.FENs), len(fens))
		}
	}
}

// TestRealSample fits a little on the committed self-play sample: K lands
// in a sane range and the training loss goes down.
func TestRealSample(t *testing.T) {
	f, err := os.Open("testdata/selfplay_sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	samples, err := ReadSamples(f)
	if err != nil {
		t.Fatal(err)
	}
	set := Build(samples, 30)
	if set.Len() < len(samples)*8/10 {
		t.Fatalf("only %d of %d positions kept (skipped %+v)", set.Len(), len(samples), set.Skipped)
	}
	w := eval.DefaultWeights()
	p := FromWeights(&w)
	k := set.FitK(p, 2)
	if k < 0.3 || k > 3 {
		t.Fatalf("K = %.3f, outside [0.3, 3]", k)
	}
	before := set.Loss(p, k, 2)
	if before <= 0.05 || before >= 0.25 {
		t.Fatalf("loss %.4f with built-in weights: not a plausible fit to game results", before)
	}
	after := set.Fit(context.Background(), p, k, Options{Iterations: 30, LR: 1, Threads: 2})
	if after >= before {
		t.Fatalf("loss %.6f -> %.6f, want lower", before, after)
	}
}

func TestSearchPlayerMates(t *testing.T) {
	start, err := board.ParseFEN("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	pl := NewSearchPlayer(2000, 0, 1)
	o := DefaultGameOptions()
	o.RandomPlies, o.SkipFirst = 0, 0
	g, err := PlayGame(context.Background(), start, pl, pl, rand.New(rand.NewPCG(1, 1)), o)
	if err != nil {
		t.Fatal(err)
	}
	if g.Result != 1 || g.Reason != "checkmate" || g.Plies != 1 {
		t.Fatalf("got %+v, want White mating at once", g)
	}
	if _, _, err := NewSearchPlayer(0, 0, 1).BestMove(context.Background(), start); err == nil {
		t.Fatal("unbounded search player accepted")
	}
}

func TestBlendTargets(t *testing.T) {
	samples := []Sample{
		{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Result: 1, Score: 0, HasScore: true},
		{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", Result: 0},
	}
	set := Build(samples, -1)
	set.BlendTargets(0.25, 1)
	if got := set.result[0]; math.Abs(float64(got)-(0.25*1+0.75*0.5)) > 1e-6 {
		t.Errorf("blended target %.4f, want 0.625", got)
	}
	if set.result[1] != 0 {
		t.Errorf("sample without a score changed to %.4f", set.result[1])
	}
}

func TestReadStarts(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/o.epd"
	os.WriteFile(path, []byte("# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n\nshort line\n8/8/8/4k3/8/8/8/4K3 w - - 5 60\n"), 0o644)
	got, err := ReadStarts(path)
	want := []string{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ReadStarts = %q, %v; want %q", got, err, want)
	}
	os.WriteFile(path, []byte("8/8/8/8/8/8/8/8 w - -\n"), 0o644)
	if _, err := ReadStarts(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad FEN: %v", err)
	}
	if _, err := ReadStarts(dir + "/missing"); err == nil {
		t.Error("missing file: no error")
	}
}
