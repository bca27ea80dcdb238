package search

import (
	"context"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// nnueSearchFENs: castling both ways, en passant, promotions, and Chess960
// castling (king and rook swapping, the king staying, a rook on b1).
var nnueSearchFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
	"4k3/8/8/8/8/8/8/5KR1 w K - 0 1",
	"4k3/8/8/8/8/8/8/6KR w K - 0 1",
	"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1",
}

// TestNNUESearchMatchesReferenceAtEveryEvaluation searches with the network
// and compares every static evaluation the search makes (the evaluation
// cache bypassed) with the reference evaluation of the same position: the
// accumulators follow make/unmake, null moves, the root reset and Chess960
// castling through a real search.
func TestNNUESearchMatchesReferenceAtEveryEvaluation(t *testing.T) {
	for _, act := range []nnue.Activation{nnue.SCReLU, nnue.CReLU} {
		e := New(Options{Threads: 1, HashMB: 4, Net: nnue.RandomNet(24, act, 7)})
		e.feat.checkNet = true
		th := e.threads[0]
		for _, fen := range nnueSearchFENs {
			pos, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("%s: %v", fen, err)
			}
			e.NewGame()
			th.netChecks, th.netMismatches = 0, 0
			r := e.Search(context.Background(), pos, Limits{Depth: 9}, nil, nil)
			if r.BestMove == board.NoMove {
				t.Fatalf("%s: no move", fen)
			}
			t.Logf("%v %s: %d evaluations checked", act, fen, th.netChecks)
			if th.netMismatches != 0 || th.netChecks < 100 {
				t.Errorf("%v %s: %d of %d evaluations differ from the reference", act, fen, th.netMismatches, th.netChecks)
			}
			if d := th.nn.Depth(); d != 0 {
				t.Errorf("%v %s: accumulator stack %d deep after the search, want 0", act, fen, d)
			}
		}
	}
}

// The same with two threads (each has its own stack).
func TestNNUESearchTwoThreads(t *testing.T) {
	e := New(Options{Threads: 2, HashMB: 4, Net: nnue.RandomNet(16, nnue.SCReLU, 8)})
	e.feat.checkNet = true
	pos, _ := board.ParseFEN(nnueSearchFENs[1])
	e.Search(context.Background(), pos, Limits{Depth: 6}, nil, nil)
	for i, th := range e.threads {
		if th.netMismatches != 0 || th.netChecks == 0 {
			t.Errorf("thread %d: %d of %d evaluations differ", i, th.netMismatches, th.netChecks)
		}
	}
}

// A net changes the search; SetNet(nil) gives back exactly the hand-crafted
// evaluation's search (its node count at a fixed depth), and the root's
// static evaluation is the net's.
func TestSetNetSwitchesTheEvaluation(t *testing.T) {
	pos, _ := board.ParseFEN(nnueSearchFENs[1])
	search := func(e *Engine) Result {
		e.NewGame()
		return e.Search(context.Background(), pos, Limits{Depth: 6}, nil, nil)
	}
	classical := search(New(Options{Threads: 1, HashMB: 4}))
	net := nnue.RandomNet(16, nnue.SCReLU, 9)
	e := New(Options{Threads: 1, HashMB: 4})
	e.SetNet(net)
	if e.Options().Net != net {
		t.Fatal("Options().Net is not the net given to SetNet")
	}
	withNet := search(e)
	if withNet.Nodes == classical.Nodes {
		t.Errorf("with the net the search took %d nodes, as without: is the net used?", withNet.Nodes)
	}
	th := e.threads[0]
	th.prepare(pos, newControl(e, pos, Limits{Depth: 1}, nil, time.Now()))
	if got, want := th.evaluate(), net.Evaluate(pos); got != want {
		t.Errorf("root evaluation %d, the net says %d", got, want)
	}
	e.SetNet(nil)
	if back := search(e); back.Nodes != classical.Nodes || back.BestMove != classical.BestMove {
		t.Errorf("after SetNet(nil): %d nodes %v, want %d nodes %v as with the hand-crafted evaluation",
			back.Nodes, back.BestMove, classical.Nodes, classical.BestMove)
	}
	// A thread added after SetNet evaluates with the net too.
	e.SetNet(net)
	e.SetThreads(2)
	if e.threads[1].nn == nil || e.threads[1].nn.Net() != net {
		t.Error("a thread added after SetNet has no accumulator stack for the net")
	}
}

func TestNNUEEvaluateDoesNotAllocate(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 1, Net: nnue.RandomNet(128, nnue.SCReLU, 10)})
	th := e.threads[0]
	pos, _ := board.ParseFEN(nnueSearchFENs[1])
	th.prepare(pos, newControl(e, pos, Limits{Depth: 1}, nil, time.Now()))
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	allocs := testing.AllocsPerRun(50, func() {
		for _, m := range ml.Slice() {
			th.makeMove(m)
			th.evaluate()
			th.unmakeMove()
		}
		th.makeNullMove()
		th.evaluate()
		th.unmakeNullMove()
	})
	if allocs != 0 {
		t.Errorf("%v allocations a run, want 0", allocs)
	}
}

// BenchmarkBenchNNUE and BenchmarkBenchClassical run Bench at depth 8 with a
// random H = 128 net and with the hand-crafted evaluation (compare their
// ns/op, or the nps they report, in one run).
func BenchmarkBenchNNUE(b *testing.B) {
	net := nnue.RandomNet(128, nnue.SCReLU, 11)
	for i := 0; i < b.N; i++ {
		r, _ := BenchNet(nil, 8, net)
		b.ReportMetric(float64(r.NPS), "nps")
	}
}

func BenchmarkBenchClassical(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r, _ := BenchNet(nil, 8, nil)
		b.ReportMetric(float64(r.NPS), "nps")
	}
}
