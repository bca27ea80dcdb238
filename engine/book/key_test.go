package book

import (
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// The test vectors published with the Polyglot format: the key after each
// sequence of moves from the start position.
var keyVectors = []struct {
	moves string
	fen   string
	key   uint64
}{
	{"", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463b96181691fc9c},
	{"e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0x823c9b50fd114196},
	{"e2e4 d7d5", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", 0x0756b94461c50fb0},
	{"e2e4 d7d5 e4e5", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", 0x662fafb965db29d4},
	{"e2e4 d7d5 e4e5 f7f5", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0x22a48b5a8e47ff78},
	{"e2e4 d7d5 e4e5 f7f5 e1e2", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", 0x652a607ca3f242c1},
	{"e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", 0x00fdd303c946bdd9},
	{"a2a4 b7b5 h2h4 b5b4 c2c4", "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", 0x3c8123ea7b067637},
	{"a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", 0x5c3f9b829b279560},
}

func TestKeyVectors(t *testing.T) {
	for _, v := range keyVectors {
		// By moves played from the start position (keys along a game).
		p := board.NewPosition()
		for _, s := range splitMoves(v.moves) {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				t.Fatalf("%q: %v", v.moves, err)
			}
			p.MakeMove(m)
		}
		if got := Key(p); got != v.key {
			t.Errorf("moves %q: key %016x, want %016x", v.moves, got, v.key)
		}
		// By FEN (the same position set up directly).
		q, err := board.ParseFEN(v.fen)
		if err != nil {
			t.Fatalf("%s: %v", v.fen, err)
		}
		if got := Key(q); got != v.key {
			t.Errorf("fen %q: key %016x, want %016x", v.fen, got, v.key)
		}
	}
}

// An en-passant square that no pawn of the side to move can take on does not
// count, even when the FEN names it.
func TestKeyIgnoresUncapturableEnPassant(t *testing.T) {
	with, err := board.ParseFEN("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
	if err != nil {
		t.Fatal(err)
	}
	without, err := board.ParseFEN("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	if Key(with) != Key(without) {
		t.Errorf("keys differ: %016x vs %016x", Key(with), Key(without))
	}
	// A capturable one does count: black pawn on d4 next to the e4 pawn.
	a, _ := board.ParseFEN("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
	b, _ := board.ParseFEN("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3")
	if Key(a) == Key(b) || Key(a)^Key(b) != random64[epOffset+4] {
		t.Errorf("capturable en passant: keys %016x and %016x should differ by the e-file number", Key(a), Key(b))
	}
}
