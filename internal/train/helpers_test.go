package train

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// material returns White's material minus Black's in centipawns.
func material(p *board.Position) int {
	v := [...]int{0, 100, 300, 300, 500, 900, 0}
	s := 0
	for pt := board.Pawn; pt <= board.Queen; pt++ {
		s += v[pt] * (p.Pieces(board.White, pt).Count() - p.Pieces(board.Black, pt).Count())
	}
	return s
}

// synthPositions plays random games from the start position and returns
// positions from them.
func synthPositions(n int, seed uint64) []*board.Position {
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []*board.Position
	var ml board.MoveList
	for len(out) < n {
		p, _ := board.ParseFEN(board.StartFEN)
		for ply := 0; ply < 160 && len(out) < n; ply++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			if ply >= 4 && !p.InCheck() {
				out = append(out, p.Clone())
			}
		}
	}
	return out
}

// synthRecords returns n records of random-game positions whose score is
// the material balance (White's view) and whose result follows it: White
// won above +100, Black below −100, a draw between.
func synthRecords(n int, seed uint64) []nnuedata.Record {
	recs := make([]nnuedata.Record, 0, n)
	for _, p := range synthPositions(n, seed) {
		m := material(p)
		res := nnuedata.Draw
		switch {
		case m > 100:
			res = nnuedata.WhiteWin
		case m < -100:
			res = nnuedata.BlackWin
		}
		recs = append(recs, nnuedata.Encode(p, m, res))
	}
	return recs
}

// writeData writes recs to a new data file in dir and returns its path.
func writeData(t *testing.T, dir, name string, recs []nnuedata.Record) string {
	t.Helper()
	path := filepath.Join(dir, name)
	w, err := nnuedata.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// testHyper returns small settings for tests.
func testHyper(act nnue.Activation) Hyper {
	return Hyper{
		Hidden: 16, Act: act, Lambda: 0.7, Scale: 400, Batch: 128, Shards: 4, Seed: 5, Epochs: 6,
		Sched: Schedule{Kind: "cosine", LR: 0.01, End: 0.001},
	}
}
