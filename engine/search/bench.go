package search

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// BenchDepth is the default depth of Bench.
const BenchDepth = 11

// benchFENs are the bench positions: openings, middlegames (quiet and
// tactical), and endgames. Sources: standard opening lines and the
// perft/tactical positions named beside each (positions are facts).
var benchFENs = [...]string{
	// Openings.
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",      // Ruy Lopez
	"rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",          // Sicilian
	"rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",       // QGD
	"rnbq1rk1/ppp1ppbp/3p1np1/8/2PPP3/2N2N2/PP3PPP/R1BQKB1R w KQ - 1 6",      // King's Indian
	"r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2P2N2/PP1P1PPP/RNBQK2R w KQkq - 1 5", // Giuoco Piano
	"rnbqkb1r/pp3ppp/4pn2/2pp4/3P1B2/4PN2/PPP2PPP/RN1QKB1R w KQkq - 0 5",     // London
	// Perft positions (CPW).
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	// Bratko-Kopec.
	"1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
	"rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
	"1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
	"3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
	"r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
	"r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
	"3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
	"2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
	// ECM, Kaufman, Arasan (tactical middlegames).
	"r4rk1/pp1b2pp/3bpq2/3p1p2/2PPn3/PP1B4/1BQN1PPP/R4RK1 b - - 0 1",
	"3qr1k1/1p1bppbp/p2p2p1/2rPn3/P2N4/4BP2/1PPQ2PP/R2R1BK1 w - - 0 1",
	"3r1rk1/1pp4p/1q3bp1/p3p3/P2n1P2/2BB3P/1PP2QP1/R4RK1 b - - 0 1",
	"2kr3r/Qpp1n1p1/2b2pp1/4b3/8/6N1/PPP2P2/R1B2RK1 b - - 0 1",
	"4rrk1/ppn3pp/2pb1n1q/3p4/1P1P4/P3BNP1/2P1BPKP/R2Q1R2 b - - 0 1",
	"3qrbk1/1r3p2/p1bp1Pp1/1p2p1Pp/4P2R/1P2BB1Q/P1P4P/R6K w - - 0 1",
	"3r2k1/p2r1p1p/1p2p1p1/q4n2/3P4/PQ5P/1P1RNPP1/3R2K1 b - - 0 1",
	"5r1k/6pp/1n2Q3/4p3/8/7P/PP4PK/R1B1q3 b - - 0 1",
	"1r2r1k1/p4p1p/6pB/q7/8/3Q2P1/PbP2PKP/1R3R2 w - - 0 1",
	"3q1r1k/1b3ppp/p1n5/1p1pPB2/2rP4/P6N/1P2Q1PP/R4RK1 w - - 0 1",
	"rnb3k1/p3qpr1/2p1p3/2NP3p/1pP3p1/3BQ3/P4PP1/4RRK1 w - - 0 1",
	// Endgames (EET and simple ones).
	"8/8/p2p3p/3k2p1/PP6/3K1P1P/8/8 b - - 0 1",
	"4k3/8/3PP1p1/8/3K3p/8/3n2PP/8 b - - 0 1",
	"8/6p1/6P1/6Pp/B1p1p2K/6PP/3k2P1/8 w - - 0 1",
	"5b2/p4B2/5B2/1bN5/8/P3r3/4k1K1/8 w - - 0 1",
	"8/8/4pR2/3pP2p/6P1/2p4k/P1Kb4/8 b - - 0 1",
	"3kB3/R4P2/8/8/1p6/pp6/5r2/1K6 w - - 0 1",
	"4k3/7r/3nb3/2R5/8/6n1/1R3K2/8 w - - 0 1",
	"8/5p2/pk2p3/4P2p/2b1pP1P/P3P2B/8/7K w - - 0 1",
	"8/2p1k3/3p3p/2PP1pp1/1P1K1P2/6P1/8/8 w - - 0 1",
	"8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",           // KPK
	"1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",        // Lucena
	"8/8/8/8/4k3/8/8/R3K3 w Q - 0 1",            // KRK
	"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",     // back rank
	"8/pp3k2/2p5/3p4/3P4/2P5/PP3K2/8 w - - 0 1", // pawn ending
}

// BenchResult is the outcome of Bench.
type BenchResult struct {
	Positions int
	Nodes     uint64
	Time      time.Duration
	NPS       uint64
}

// Bench searches every bench position to depth (BenchDepth if depth < 1)
// with one thread and a cleared table, writing one line per position and a
// total to out. The node count is deterministic: it is the engine's
// signature, which changes whenever the search or evaluation does.
func Bench(out io.Writer, depth int) (BenchResult, error) {
	return BenchNet(out, depth, nil)
}

// BenchNet is Bench with the evaluation network net (nil: the hand-crafted
// evaluation, as Bench).
func BenchNet(out io.Writer, depth int, net *nnue.Net) (BenchResult, error) {
	if depth < 1 {
		depth = BenchDepth
	}
	e := New(Options{Threads: 1, HashMB: 16, Net: net})
	var res BenchResult
	for i, fen := range benchFENs {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			return res, fmt.Errorf("bench position %d: %w", i+1, err)
		}
		e.NewGame()
		r := e.Search(context.Background(), pos, Limits{Depth: depth}, nil, nil)
		res.Nodes += r.Nodes
		res.Time += r.Time
		res.Positions++
		if out != nil {
			fmt.Fprintf(out, "%2d %-10s %-6s %10d nodes  %s\n", i+1, pos.MoveToUCI(r.BestMove), scoreString(r.Score), r.Nodes, fen)
		}
	}
	if res.Time > 0 {
		res.NPS = uint64(float64(res.Nodes) / res.Time.Seconds())
	}
	if out != nil {
		fmt.Fprintf(out, "===========================\n%d positions, depth %d\n%d nodes %d nps (%.2fs)\n",
			res.Positions, depth, res.Nodes, res.NPS, res.Time.Seconds())
	}
	return res, nil
}

func scoreString(s int) string {
	if m := MateMoves(s); m != 0 {
		return fmt.Sprintf("#%d", m)
	}
	return fmt.Sprintf("%+d", s)
}
