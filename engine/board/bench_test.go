package board

import "testing"

const kiwipeteFEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

func benchPerft(b *testing.B, fen string, depth int) {
	p, err := ParseFEN(fen)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += Perft(p, depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkPerftStart(b *testing.B)    { benchPerft(b, StartFEN, 5) }
func BenchmarkPerftKiwipete(b *testing.B) { benchPerft(b, kiwipeteFEN, 4) }

func BenchmarkGenerateLegalKiwipete(b *testing.B) {
	p, _ := ParseFEN(kiwipeteFEN)
	var ml MoveList
	b.ReportAllocs()
	for b.Loop() {
		p.GenerateLegal(&ml)
	}
}

func BenchmarkMakeUnmakeKiwipete(b *testing.B) {
	p, _ := ParseFEN(kiwipeteFEN)
	var ml MoveList
	p.GenerateLegal(&ml)
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range ml.Slice() {
			p.MakeMove(m)
			p.UnmakeMove()
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	p, _ := ParseFEN(kiwipeteFEN)
	var ml MoveList
	p.GenerateLegal(&ml)
	moves := ml.Slice()
	checks := map[string]func(){
		"GenerateLegal":    func() { p.GenerateLegal(&ml) },
		"GenerateCaptures": func() { p.GenerateCaptures(&ml) },
		"GenerateQuiets":   func() { p.GenerateQuiets(&ml) },
		"MakeUnmake": func() {
			for _, m := range moves {
				p.MakeMove(m)
				p.UnmakeMove()
			}
		},
		"NullMove":   func() { p.MakeNullMove(); p.UnmakeNullMove() },
		"Perft3":     func() { Perft(p, 3) },
		"IsLegal":    func() { p.IsLegal(moves[3]) },
		"Repetition": func() { p.IsRepetition(4) },
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
}

func BenchmarkSearchHelpersKiwipete(b *testing.B) {
	p, _ := ParseFEN(kiwipeteFEN)
	var ml MoveList
	p.GenerateLegal(&ml)
	moves := ml.Slice()
	b.Run("SEE", func(b *testing.B) {
		for b.Loop() {
			for _, m := range moves {
				p.SEEGE(m, 0)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(moves)), "ns/move")
	})
	b.Run("GivesCheck", func(b *testing.B) {
		for b.Loop() {
			for _, m := range moves {
				p.GivesCheck(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(moves)), "ns/move")
	})
	b.Run("IsLegal", func(b *testing.B) {
		for b.Loop() {
			for _, m := range moves {
				p.IsLegal(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(moves)), "ns/move")
	})
	b.Run("GenerateCaptures", func(b *testing.B) {
		for b.Loop() {
			p.GenerateCaptures(&ml)
		}
	})
}
