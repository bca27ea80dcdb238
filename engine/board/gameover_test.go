package board_test

import (
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestGameOver(t *testing.T) {
	for _, tc := range []struct {
		fen   string
		moves []string
		want  string
	}{
		{board.StartFEN, nil, ""},
		{board.StartFEN, []string{"f2f3", "e7e5", "g2g4", "d8h4"}, board.OverCheckmate},
		{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", nil, board.OverStalemate},
		{"8/8/4k3/8/8/3NK3/8/8 w - - 0 1", nil, board.OverMaterial},
		{"8/8/4k3/8/8/3RK3/8/8 w - - 99 80", []string{"d3d1"}, board.OverFiftyMoves},
		{"8/8/4k3/8/8/3RK3/8/8 w - - 98 80", []string{"d3d1"}, ""},
		{board.StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, board.OverRepetition},
		{board.StartFEN, []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"}, ""},
	} {
		p := testsupport.MustFEN(t, tc.fen, tc.moves...)
		if got := p.GameOver(); got != tc.want {
			t.Errorf("%s moves %v: GameOver = %q, want %q", tc.fen, tc.moves, got, tc.want)
		}
	}
}
