package train

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestTarget(t *testing.T) {
	p, _ := board.ParseFEN(board.StartFEN)
	r := nnuedata.Encode(p, 0, nnuedata.Draw)
	if got := Target(&r, 0.7, 400); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("score 0, draw: %v, want 0.5", got)
	}
	// Black to move, White's score +400 and White won: the side to move's
	// score is −400 (sigmoid(−1) = 0.268941) and its result 0.
	p, _ = board.ParseFEN("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
	r = nnuedata.Encode(p, 400, nnuedata.WhiteWin)
	if got, want := Target(&r, 0.7, 400), 0.7*0.2689414213699951; math.Abs(got-want) > 1e-12 {
		t.Errorf("Black to move, +400, 1-0: %v, want %v", got, want)
	}
	// White to move, +400, White won, lambda 0.25, scale 200: 0.25·sigmoid(2) + 0.75.
	p, _ = board.ParseFEN(board.StartFEN)
	r = nnuedata.Encode(p, 400, nnuedata.WhiteWin)
	if got, want := Target(&r, 0.25, 200), 0.25*0.8807970779778823+0.75; math.Abs(got-want) > 1e-12 {
		t.Errorf("White to move, +400, 1-0, lambda 0.25, scale 200: %v, want %v", got, want)
	}
}

// pattern returns, for each accumulator of rec, whether it lies below,
// inside or above (0, 1).
func pattern(s *scratch, n *Net, rec *nnuedata.Record) string {
	s.forward(n, rec)
	var b strings.Builder
	for _, acc := range [][]float32{s.accUs, s.accT} {
		for _, x := range acc {
			switch {
			case x <= 0:
				b.WriteByte('0')
			case x < 1:
				b.WriteByte('1')
			default:
				b.WriteByte('2')
			}
		}
	}
	return b.String()
}

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	recs := synthRecords(12, 3)
	for _, act := range []nnue.Activation{nnue.CReLU, nnue.SCReLU} {
		n, err := NewNet(6, act, 17)
		if err != nil {
			t.Fatal(err)
		}
		// Larger weights than at initialisation, so that accumulators fall
		// below 0, inside (0, 1) and above 1, and outputs are far from 0.
		for i := range n.P[:n.offW2()] {
			n.P[i] *= 12
		}
		for i := n.offW2(); i < len(n.P); i++ {
			n.P[i] = n.P[i]*8 + 0.05
		}
		s := newScratch(n.H)
		grad := make([]float32, len(n.P))
		var regimes [3]int
		for i := range recs {
			s.accumulate(n, &recs[i], 0.7, 400, grad)
			for _, c := range pattern(s, n, &recs[i]) {
				regimes[c-'0']++
			}
		}
		for k, c := range regimes {
			if c == 0 {
				t.Fatalf("%v: no accumulator in regime %d (%v): the check would miss a derivative", act, k, regimes)
			}
		}
		loss := func() float64 {
			var sum float64
			for i := range recs {
				sum += s.loss(n, &recs[i], 0.7, 400)
			}
			return sum
		}
		// Which parameters to check: every weight of the rows of the first
		// record's features, all biases and output weights.
		var params []int
		s.forward(n, &recs[0])
		for i := 0; i < s.k; i++ {
			for j := 0; j < n.H; j++ {
				params = append(params, s.fUs[i]+j, s.fThem[i]+j)
			}
		}
		for i := n.offB1(); i < len(n.P); i++ {
			params = append(params, i)
		}
		const eps = 2e-3
		checked, skipped := 0, 0
		var worst float64
		for _, i := range params {
			orig := n.P[i]
			n.P[i] = orig + eps
			var pat []string
			for r := range recs {
				pat = append(pat, pattern(s, n, &recs[r]))
			}
			up := loss()
			n.P[i] = orig - eps
			same := true
			for r := range recs {
				same = same && pattern(s, n, &recs[r]) == pat[r]
			}
			down := loss()
			n.P[i] = orig
			if !same { // a clamp's corner lies between: no derivative to compare
				skipped++
				continue
			}
			num := (up - down) / (float64(orig+eps) - float64(orig-eps)) // the float32 step actually taken
			a := float64(grad[i])
			d := math.Abs(a - num)
			if d > 1e-2*math.Max(math.Abs(a), math.Abs(num))+2e-5 {
				t.Errorf("%v: parameter %d: analytic %.6g, finite difference %.6g", act, i, a, num)
			}
			worst = math.Max(worst, d/(math.Abs(num)+1e-6))
			checked++
		}
		if checked < 300 || skipped > checked/10 {
			t.Fatalf("%v: %d parameters checked, %d skipped at a clamp", act, checked, skipped)
		}
		// Rows of features no record has get no gradient at all.
		active := make(map[int]bool)
		for i := range recs {
			s.forward(n, &recs[i])
			for k := 0; k < s.k; k++ {
				active[s.fUs[k]/n.H], active[s.fThem[k]/n.H] = true, true
			}
		}
		for f := 0; f < Inputs; f++ {
			if active[f] {
				continue
			}
			for j := 0; j < n.H; j++ {
				if grad[f*n.H+j] != 0 {
					t.Fatalf("%v: inactive feature %d has gradient %v", act, f, grad[f*n.H+j])
				}
			}
		}
		t.Logf("%v: %d parameters checked, %d skipped, worst relative error %.2g", act, checked, skipped, worst)
	}
}

func TestAccumulateDoesNotAllocate(t *testing.T) {
	recs := synthRecords(20, 4)
	n, _ := NewNet(32, nnue.SCReLU, 1)
	s := newScratch(n.H)
	grad := make([]float32, len(n.P))
	i := 0
	if a := testing.AllocsPerRun(100, func() {
		s.accumulate(n, &recs[i%len(recs)], 0.7, 400, grad)
		i++
	}); a != 0 {
		t.Fatalf("%v allocations a position", a)
	}
}

func TestLossFalls(t *testing.T) {
	recs := synthRecords(20000, 7)
	train, val := Split(recs, 0.1, 100, 1)
	for _, act := range []nnue.Activation{nnue.CReLU, nnue.SCReLU} {
		h := testHyper(act)
		h.Epochs = 4
		tr, err := New(h, 2, train, val)
		if err != nil {
			t.Fatal(err)
		}
		v0 := tr.ValLoss()
		var first, last float64
		for e := 0; !tr.Done(); {
			var sum float64
			var n int
			for {
				l, k, done := tr.TrainBatch()
				sum += l * float64(k)
				n += k
				if done {
					break
				}
			}
			if e == 0 {
				first = sum / float64(n)
			}
			last = sum / float64(n)
			e++
		}
		v1 := tr.ValLoss()
		t.Logf("%v: validation loss %.5f → %.5f, train loss epoch 1 %.5f, last %.5f (search score alone: %.5f)",
			act, v0, v1, first, last, tr.ScoreOnlyLoss(val))
		if !(v1 < 0.1*v0) || !(last < 0.5*first) {
			t.Errorf("%v: validation loss %.5f → %.5f, training loss %.5f → %.5f: not falling enough", act, v0, v1, first, last)
		}
		// It learnt material from each side's point of view: White a queen
		// up is good for White to move and bad for Black to move.
		for _, tc := range []struct {
			fen  string
			sign float64
		}{
			{"3qk3/8/8/8/8/8/8/3QK2Q w - - 0 1", 1},
			{"3qk3/8/8/8/8/8/8/3QK2Q b - - 0 1", -1},
			{"3qk2q/8/8/8/8/8/8/3QK3 b - - 0 1", 1},
		} {
			p, _ := board.ParseFEN(tc.fen)
			if y := tr.Net.Evaluate(p); y*tc.sign < 0.1 {
				t.Errorf("%v: %s evaluates %.3f (×400 cp)", act, tc.fen, y)
			}
		}
	}
}

func TestSameResultForAnyThreads(t *testing.T) {
	recs := synthRecords(1500, 8)
	train, val := Split(recs, 0.1, 100, 1)
	h := testHyper(nnue.SCReLU)
	h.Epochs = 2
	run := func(threads int, seed uint64) []float32 {
		h := h
		h.Seed = seed
		tr, err := New(h, threads, train, val)
		if err != nil {
			t.Fatal(err)
		}
		for !tr.Done() {
			tr.TrainBatch()
		}
		return tr.Net.P
	}
	a, b, c := run(1, 5), run(3, 5), run(1, 6)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("parameter %d: %v with 1 thread, %v with 3", i, a[i], b[i])
		}
	}
	diff := 0
	for i := range a {
		if a[i] != c[i] {
			diff++
		}
	}
	if diff < len(a)/2 {
		t.Fatalf("another seed changes only %d of %d parameters", diff, len(a))
	}
}

func TestSplit(t *testing.T) {
	one := synthRecords(1, 9)[0]
	recs := make([]nnuedata.Record, 3*ValBlock+100)
	for i := range recs { // number the records by their fullmove bytes
		recs[i] = one
		recs[i][30], recs[i][31] = byte(i), byte(i>>8)
	}
	id := func(r nnuedata.Record) int { return int(r[30]) | int(r[31])<<8 }
	train, val := Split(recs, 0.25, ValBlock, 1)
	if len(val) == 0 || len(train)+len(val) != len(recs) {
		t.Fatalf("%d + %d of %d", len(train), len(val), len(recs))
	}
	if len(val)%ValBlock != 0 && len(val) != 100 && len(val)%ValBlock != 100 {
		t.Fatalf("%d validation records: not whole blocks", len(val))
	}
	for i := 1; i < len(val); i++ {
		if id(val[i]) != id(val[i-1])+1 && id(val[i])%ValBlock != 0 {
			t.Fatalf("validation record %d (id %d) follows id %d inside a block", i, id(val[i]), id(val[i-1]))
		}
	}
	train2, val2 := Split(recs, 0.25, ValBlock, 1)
	if !equalRecs(train, train2) || !equalRecs(val, val2) {
		t.Fatal("the same seed splits differently")
	}
	if tr, v := Split(recs, 0, ValBlock, 1); len(v) != 0 || len(tr) != len(recs) {
		t.Fatalf("fraction 0 holds out %d", len(v))
	}
}

func equalRecs(a, b []nnuedata.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSchedule(t *testing.T) {
	c := Schedule{Kind: "cosine", LR: 0.01, End: 0.001}
	for _, tc := range []struct {
		e, b int
		want float64
	}{{0, 0, 0.01}, {1, 0, 0.0055}, {2, 0, 0.001}, {0, 5, 0.001 + 0.009*(1+math.Cos(math.Pi/4))/2}} {
		if got := c.Rate(tc.e, tc.b, 2, 10); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("cosine epoch %d batch %d: %v, want %v", tc.e, tc.b, got, tc.want)
		}
	}
	s := Schedule{Kind: "step", LR: 0.01, Every: 2, Gamma: 0.5}
	for e, want := range []float64{0.01, 0.01, 0.005, 0.005, 0.0025} {
		if got := s.Rate(e, 3, 5, 10); math.Abs(got-want) > 1e-15 {
			t.Errorf("step epoch %d: %v, want %v", e, got, want)
		}
	}
	for _, bad := range []Schedule{{Kind: "cosine", LR: 0}, {Kind: "cosine", LR: 1, End: 2}, {Kind: "step", LR: 1, Every: 0, Gamma: 0.5}, {Kind: "linear", LR: 1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestAdamStep(t *testing.T) {
	// One step from zero moments moves every parameter by lr·sign(g)
	// (bias-corrected m/√v = g/|g|), and clipping holds the clipped range.
	a := newAdam(4)
	p := []float32{0, 0, 1.979, 5}
	g := []float32{0.5, -2, -1, -1}
	a.update(p, g, 0, 4, 3, 0.01, 1)
	want := []float32{-0.01, 0.01, Clip, 5.01}
	for i := range p {
		if math.Abs(float64(p[i]-want[i])) > 1e-6 {
			t.Errorf("parameter %d: %v, want %v", i, p[i], want[i])
		}
	}
}

func TestQuantisedAgreesWithFloat(t *testing.T) {
	recs := synthRecords(12000, 10)
	train, val := Split(recs, 0.1, 100, 2)
	ps := synthPositions(400, 11)
	for _, act := range []nnue.Activation{nnue.CReLU, nnue.SCReLU} {
		h := testHyper(act)
		h.Hidden = 32
		h.Epochs = 3
		tr, err := New(h, 2, train, val)
		if err != nil {
			t.Fatal(err)
		}
		for !tr.Done() {
			tr.TrainBatch()
		}
		n := tr.Net
		q, err := n.Quantise(255, 64, 400)
		if err != nil {
			t.Fatal(err)
		}
		// Rounding alone separates them: 2H output weights each off by up
		// to 1/128 (QB 64) times an activation up to 1, accumulators off
		// by up to (pieces+1)/510. The tolerance: 10 cp on average (and
		// under 3% of the mean |eval|, several hundred cp on these
		// material-driven positions), 40 cp at most.
		var sum, worst, evals float64
		for _, p := range ps {
			f := 400 * n.Evaluate(p)
			d := math.Abs(float64(q.Evaluate(p)) - f)
			sum += d
			evals += math.Abs(f)
			worst = math.Max(worst, d)
		}
		k := float64(len(ps))
		t.Logf("%v: |quantised − float| mean %.2f cp, max %.2f cp (mean |eval| %.0f) over %d positions; validation: %v",
			act, sum/k, worst, evals/k, len(ps), QuantisationError(n, q, val, 300))
		if sum/k > 10 || sum > 0.03*evals || worst > 40 {
			t.Errorf("%v: quantised differs from float by %.2f cp on average, %.1f at most (mean |eval| %.0f)", act, sum/k, worst, evals/k)
		}
		// Weights that are exact multiples of 1/QA and 1/QB: the integer
		// evaluation only truncates (SCReLU's s/QA by less than 1/(QA·QB)
		// of output, 0.025 cp; the centipawns by less than 1), so they
		// agree within 1.05 cp.
		for i := range n.P {
			k := 255.0
			if i >= n.offW2() && i < n.offB2() {
				k = 64
			} else if i == n.offB2() {
				k = 255 * 64
			}
			n.P[i] = float32(math.Round(float64(n.P[i])*k) / k)
		}
		if q, err = n.Quantise(255, 64, 400); err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			f := 400 * n.Evaluate(p)
			if d := math.Abs(float64(q.Evaluate(p)) - f); d > 1.05 {
				t.Fatalf("%v: exact weights: %s quantised %d, float %.3f", act, p.FEN(), q.Evaluate(p), f)
			}
		}
	}
}

func TestMirrorSymmetry(t *testing.T) {
	n, _ := NewNet(32, nnue.SCReLU, 3)
	for i := range n.P {
		n.P[i] *= 6 // spread the accumulators over the clamps
	}
	q, err := n.Quantise(255, 64, 400)
	if err != nil {
		t.Fatal(err)
	}
	distinct := make(map[float64]bool)
	for i, p := range synthPositions(300, 12) {
		m, err := board.ParseFEN(testsupport.MirrorFEN(t, p.FEN()))
		if err != nil {
			t.Fatal(err)
		}
		a, b := n.Evaluate(p), n.Evaluate(m)
		if math.Abs(a-b) > 1e-5*math.Max(1, math.Abs(a)) {
			t.Fatalf("%s: %v, mirror %s: %v", p.FEN(), a, m.FEN(), b)
		}
		if qa, qb := q.Evaluate(p), q.Evaluate(m); qa != qb {
			t.Fatalf("quantised: %s: %d, mirror: %d", p.FEN(), qa, qb)
		}
		distinct[a] = true
		// The record of the mirror, with the score and result turned,
		// has the same target.
		ra := nnuedata.Encode(p, 150+i, nnuedata.WhiteWin)
		rb := nnuedata.Encode(m, -150-i, nnuedata.BlackWin)
		if ta, tb := Target(&ra, 0.7, 400), Target(&rb, 0.7, 400); math.Abs(ta-tb) > 1e-12 {
			t.Fatalf("%s: target %v, mirror's %v", p.FEN(), ta, tb)
		}
	}
	if len(distinct) < 250 {
		t.Fatalf("only %d distinct evaluations of 300 positions", len(distinct))
	}
}

func TestCheckpointRoundTripAndCorruption(t *testing.T) {
	recs := synthRecords(600, 13)
	h := testHyper(nnue.CReLU)
	tr, err := New(h, 1, recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.TrainBatch()
	tr.TrainBatch()
	path := filepath.Join(t.TempDir(), "c.ckpt")
	if err := tr.SaveCheckpoint(path, "s"); err != nil {
		t.Fatal(err)
	}
	tr2, _ := New(h, 1, recs, nil)
	if err := tr2.LoadCheckpoint(path, "s"); err != nil {
		t.Fatal(err)
	}
	if e, b := tr2.Position(); e != 0 || b != 2 || tr2.Steps() != 2 {
		t.Fatalf("restored at epoch %d batch %d step %d", e, b, tr2.Steps())
	}
	for i := range tr.Net.P {
		if tr.Net.P[i] != tr2.Net.P[i] || tr.opt.m[i] != tr2.opt.m[i] || tr.opt.v[i] != tr2.opt.v[i] {
			t.Fatalf("parameter %d differs after the round trip", i)
		}
	}
	if err := tr2.LoadCheckpoint(path, "t"); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("other settings: %v", err)
	}
	good, _ := os.ReadFile(path)
	for _, cut := range []int{0, 10, 43, 44, len(good) / 2, len(good) - 1} {
		os.WriteFile(path, good[:cut], 0o644)
		if err := tr2.LoadCheckpoint(path, "s"); !errors.Is(err, ErrCheckpoint) {
			t.Fatalf("cut to %d bytes: %v", cut, err)
		}
	}
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 4
	os.WriteFile(path, bad, 0o644)
	if err := tr2.LoadCheckpoint(path, "s"); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("flipped bit: %v", err)
	}
	h2 := h
	h2.Hidden = 8
	tr3, _ := New(h2, 1, recs, nil)
	os.WriteFile(path, good, 0o644)
	if err := tr3.LoadCheckpoint(path, "s"); !errors.Is(err, ErrCheckpoint) {
		t.Fatalf("other hidden size: %v", err)
	}
}

func TestFitResumesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	a := writeData(t, dir, "a.bin", synthRecords(900, 14))
	b := writeData(t, dir, "b.bin", synthRecords(700, 15))
	cfg := func(out string) Config {
		h := testHyper(nnue.SCReLU)
		h.Epochs = 2
		h.Batch = 200
		return Config{Hyper: h, Train: []string{a, b}, ValFrac: 0.2, ValBlock: 100, Out: out, Threads: 2, QA: 255, QB: 64}
	}
	var log bytes.Buffer
	whole := filepath.Join(dir, "whole")
	if err := Fit(context.Background(), cfg(whole), &log); err != nil {
		t.Fatal(err, log.String())
	}
	// The same run stopped after every batch for the first 10 batches (the
	// context is cancelled when training starts, so one batch runs), then
	// let finish.
	parts := filepath.Join(dir, "parts")
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		w := &cancelOn{w: &log, line: "fit: net 768", cancel: cancel}
		if err := Fit(ctx, cfg(parts), w); !errors.Is(err, context.Canceled) {
			t.Fatalf("stop %d: %v", i, err)
		}
		cancel()
	}
	if err := Fit(context.Background(), cfg(parts), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "resuming") || !strings.Contains(log.String(), "at epoch 2, batch 2 of 7") {
		t.Fatalf("no resuming line in\n%s", log.String())
	}
	for _, name := range []string{CheckpointFile, NetFile, EpochNetFile(1), EpochNetFile(2)} {
		x, err1 := os.ReadFile(filepath.Join(whole, name))
		y, err2 := os.ReadFile(filepath.Join(parts, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Fatalf("%s differs between the whole and the interrupted run (%v, %v)", name, err1, err2)
		}
	}
	if _, err := nnue.Load(filepath.Join(whole, NetFile)); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(filepath.Join(whole, LossFile))
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], "2,") {
		t.Fatalf("losses.csv:\n%s", csv)
	}
	// A finished run with more epochs trains further; other settings are refused.
	c := cfg(whole)
	c.Epochs = 3
	if err := Fit(context.Background(), c, &log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(whole, EpochNetFile(3))); err != nil {
		t.Fatal(err)
	}
	c.Lambda = 0.5
	if err := Fit(context.Background(), c, &log); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("other lambda: %v", err)
	}
}

// cancelOn writes to w and calls cancel when a write contains line.
type cancelOn struct {
	w      io.Writer
	line   string
	cancel func()
}

func (c *cancelOn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(c.line)) {
		c.cancel()
	}
	return c.w.Write(b)
}
