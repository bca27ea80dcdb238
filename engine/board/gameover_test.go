package board

import "testing"

func TestGameOver(t *testing.T) {
	for _, tc := range []struct {
		fen   string
		moves []string
		want  string
	}{
		{StartFEN, nil, ""},
		{StartFEN, []string{"f2f3", "e7e5", "g2g4", "d8h4"}, OverCheckmate},
		{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", nil, OverStalemate},
		{"8/8/4k3/8/8/3NK3/8/8 w - - 0 1", nil, OverMaterial},
		{"8/8/4k3/8/8/3RK3/8/8 w - - 99 80", []string{"d3d1"}, OverFiftyMoves},
		{"8/8/4k3/8/8/3RK3/8/8 w - - 98 80", []string{"d3d1"}, ""},
		{StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, OverRepetition},
		{StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"}, ""},
	} {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.moves {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				t.Fatalf("%s: move %s: %v", tc.fen, s, err)
			}
			p.MakeMove(m)
		}
		if got := p.GameOver(); got != tc.want {
			t.Errorf("%s moves %v: GameOver = %q, want %q", tc.fen, tc.moves, got, tc.want)
		}
	}
}
