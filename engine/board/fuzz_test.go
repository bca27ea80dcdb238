package board

import "testing"

func FuzzParseFEN(f *testing.F) {
	for _, s := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"8/8/8/8/8/8/8/8 w - -",
		"4k3/8/8/8/8/8/8/4K3 b",
		"",
		"99/8/8/8/8/8/8/8 w - - 0 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseFEN(s)
		if err != nil {
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("ParseFEN(%q) ok but its FEN %q fails: %v", s, out, err)
		}
		if q.FEN() != out || q.Key() != p.Key() {
			t.Fatalf("round trip of %q: %q -> %q", s, out, q.FEN())
		}
		// The position must be usable: generate and play every move.
		var ml MoveList
		p.GenerateLegal(&ml)
		for _, m := range ml.Slice() {
			p.MakeMove(m)
			p.UnmakeMove()
		}
		if p.FEN() != out {
			t.Fatalf("make/unmake changed %q to %q", out, p.FEN())
		}
	})
}

func FuzzParseUCIMove(f *testing.F) {
	for _, s := range []string{"e2e4", "e1g1", "e1h1", "e7e8q", "a7a8N", "0000", "", "e2e4e", "zz99", "h1h1", "e8c8"} {
		f.Add(StartFEN, s)
		f.Add("r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1", s)
	}
	f.Fuzz(func(t *testing.T, fen, s string) {
		p, err := ParseFEN(fen)
		if err != nil {
			return
		}
		m, err := p.ParseUCIMove(s)
		if err != nil {
			return
		}
		if !p.IsLegal(m) {
			t.Fatalf("%s: ParseUCIMove(%q) returned illegal %v", fen, s, m)
		}
		back, err := p.ParseUCIMove(p.MoveToUCI(m))
		if err != nil || back != m {
			t.Fatalf("%s: %v does not round-trip through %q", fen, m, p.MoveToUCI(m))
		}
	})
}
