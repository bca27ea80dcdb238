package nnue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// stackFENs are walked by the incremental tests: standard positions with
// castling, en passant and promotions close, and Chess960 positions whose
// castling swaps king and rook, leaves the king or the rook in place, or
// crosses the other piece.
var stackFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Kq d3 0 3",
	"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
	"nq1bbrkr/pp2nppp/2pp4/4p3/1PP1P3/1B6/P2P1PPP/NQN1BRKR w HFhf - 2 9",
	"4k3/8/8/8/8/8/8/5KR1 w K - 0 1",
	"4k3/8/8/8/8/8/8/6KR w K - 0 1",
	"4k3/8/8/8/8/8/8/3R1K2 w Q - 0 1",
	"1kr5/8/8/8/8/8/8/4K3 b k - 0 1",
	"rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1",
}

// kinds counts the moves of each kind a walk made, so that the tests can
// check they covered them.
type kinds struct{ quiet, capture, ep, castle, castle960, promo, null int }

func (k *kinds) count(p *board.Position, m board.Move) {
	switch {
	case m.IsCastling():
		k.castle++
		if p.Chess960() {
			k.castle960++
		}
	case m.IsEnPassant():
		k.ep++
	case m.IsPromotion():
		k.promo++
	case p.PieceOn(m.To()) != board.NoPiece:
		k.capture++
	default:
		k.quiet++
	}
}

// walk searches p to depth like perft, with null moves (when not in check)
// and a random subset of moves at the deeper plies, comparing the stack
// with the reference at every node.
func walk(t *testing.T, s *Stack, p *board.Position, depth int, rng *rand.Rand, k *kinds) {
	t.Helper()
	if got, want := s.Evaluate(p), s.net.Evaluate(p); got != want {
		t.Fatalf("%s (pushes %d): incremental %d, reference %d", p.FEN(), s.Depth(), got, want)
	}
	if depth == 0 {
		return
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		if depth <= 2 && rng.IntN(3) != 0 {
			continue
		}
		k.count(p, m)
		p.MakeMove(m)
		s.Push(p)
		walk(t, s, p, depth-1, rng, k)
		p.UnmakeMove()
		s.Pop()
	}
	if !p.InCheck() && p.LastMove() != board.NullMove && rng.IntN(2) == 0 {
		k.null++
		p.MakeNullMove()
		s.Push(p)
		walk(t, s, p, depth-1, rng, k)
		p.UnmakeNullMove()
		s.Pop()
	}
	// Unwound: the accumulator here must still be right.
	if got, want := s.Evaluate(p), s.net.Evaluate(p); got != want {
		t.Fatalf("%s after unmaking: incremental %d, reference %d", p.FEN(), got, want)
	}
}

func TestStackMatchesReferenceAtEveryNode(t *testing.T) {
	for _, tc := range []struct {
		h   int
		act Activation
	}{{32, SCReLU}, {37, CReLU}, {64, SCReLU}} {
		n := RandomNet(tc.h, tc.act, uint64(tc.h))
		s := NewStack(n, 64)
		rng := rand.New(rand.NewPCG(11, uint64(tc.h)))
		var k kinds
		for _, fen := range stackFENs {
			p, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("%s: %v", fen, err)
			}
			s.Reset()
			walk(t, s, p, 3, rng, &k)
			if s.Depth() != 0 {
				t.Fatalf("%s: %d pushes outstanding after the walk", fen, s.Depth())
			}
		}
		t.Logf("h %d %v: %+v", tc.h, tc.act, k)
		if k.quiet == 0 || k.capture == 0 || k.ep == 0 || k.castle == 0 || k.castle960 == 0 || k.promo == 0 || k.null == 0 {
			t.Errorf("walk missed a move kind: %+v", k)
		}
	}
}

// Long random games with bursts of takebacks, evaluating only now and then
// so that the lazy updates run over several plies and past refreshAfter.
func TestStackMatchesReferenceInRandomGames(t *testing.T) {
	n := RandomNet(48, SCReLU, 5)
	s := NewStack(n, 512)
	rng := rand.New(rand.NewPCG(21, 22))
	var ml board.MoveList
	var k kinds
	checks := 0
	for game := 0; game < 40; game++ {
		p, err := board.ParseFEN(stackFENs[game%len(stackFENs)])
		if err != nil {
			t.Fatal(err)
		}
		s.Reset()
		for ply := 0; ply < 160; ply++ {
			if rng.IntN(5) == 0 && s.Depth() > 0 {
				for back := rng.IntN(min(s.Depth(), 8)) + 1; back > 0; back-- {
					if p.LastMove() == board.NullMove {
						p.UnmakeNullMove()
					} else {
						p.UnmakeMove()
					}
					s.Pop()
				}
			} else {
				p.GenerateLegal(&ml)
				if ml.Len() == 0 {
					break
				}
				if !p.InCheck() && rng.IntN(20) == 0 {
					k.null++
					p.MakeNullMove()
				} else {
					m := ml.Moves[rng.IntN(ml.Len())]
					k.count(p, m)
					p.MakeMove(m)
				}
				s.Push(p)
			}
			if rng.IntN(4) == 0 {
				checks++
				if got, want := s.Evaluate(p), n.Evaluate(p); got != want {
					t.Fatalf("game %d ply %d %s: incremental %d, reference %d", game, ply, p.FEN(), got, want)
				}
			}
		}
	}
	t.Logf("%d checks, %+v", checks, k)
	if checks < 1000 || k.capture == 0 || k.castle == 0 {
		t.Errorf("too little covered: %d checks, %+v", checks, k)
	}
}

// Pushed past its capacity, the stack falls back to the reference and
// comes back to its own accumulators once popped below it.
func TestStackBeyondCapacity(t *testing.T) {
	n := RandomNet(16, SCReLU, 9)
	s := NewStack(n, 3)
	p := board.NewPosition()
	s.Reset()
	for _, u := range []string{"g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "e7e5", "g1f3"} {
		m, err := p.ParseUCIMove(u)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
		s.Push(p)
		if got, want := s.Evaluate(p), n.Evaluate(p); got != want {
			t.Fatalf("after %s: %d, want %d", u, got, want)
		}
	}
	if s.Depth() != 7 {
		t.Fatalf("Depth %d, want 7", s.Depth())
	}
	for s.Depth() > 0 {
		p.UnmakeMove()
		s.Pop()
		if got, want := s.Evaluate(p), n.Evaluate(p); got != want {
			t.Fatalf("popped to %d: %d, want %d", s.Depth(), got, want)
		}
	}
}

func TestStackDoesNotAllocate(t *testing.T) {
	n := RandomNet(128, SCReLU, 1)
	s := NewStack(n, 16)
	p, err := board.ParseFEN(stackFENs[1])
	if err != nil {
		t.Fatal(err)
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	s.Reset()
	allocs := testing.AllocsPerRun(100, func() {
		for _, m := range ml.Slice() {
			p.MakeMove(m)
			s.Push(p)
			_ = s.Evaluate(p)
			p.UnmakeMove()
			s.Pop()
		}
		_ = s.Evaluate(p)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a run, want 0", allocs)
	}
}

// BenchmarkStackMoveEval is one move made, evaluated and taken back (the
// incremental update of one ply plus the output layer), at H = 128, 256
// and 512.
func BenchmarkStackMoveEval(b *testing.B) {
	for _, h := range []int{128, 256, 512} {
		b.Run(fmt.Sprintf("H%d", h), func(b *testing.B) {
			n := RandomNet(h, SCReLU, 1)
			s := NewStack(n, 16)
			p, _ := board.ParseFEN(stackFENs[1])
			var ml board.MoveList
			p.GenerateLegal(&ml)
			s.Reset()
			s.Evaluate(p)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m := ml.Moves[i%ml.N]
				p.MakeMove(m)
				s.Push(p)
				_ = s.Evaluate(p)
				p.UnmakeMove()
				s.Pop()
			}
		})
	}
}

// BenchmarkReferenceEvaluate is Net.Evaluate from scratch, for comparison.
func BenchmarkReferenceEvaluate(b *testing.B) {
	n := RandomNet(128, SCReLU, 1)
	p, _ := board.ParseFEN(stackFENs[1])
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = n.Evaluate(p)
	}
}
