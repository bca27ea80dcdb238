package board

import "testing"

// Chess960 castling pitfalls, each with the castling move expected or not.
func TestChess960CastlingCases(t *testing.T) {
	tests := []struct {
		name, fen, move string // move in king-takes-rook form
		legal           bool
	}{
		// King d1, rook b1 castles long (king to c1, rook to d1). With a black
		// rook on a1 the white rook is the only shield of c1: illegal.
		{"rook shields target", "4k3/8/8/8/8/8/8/rR1K4 w Q - 0 1", "d1b1", false},
		{"rook shields target, no attacker", "4k3/8/8/8/8/8/8/1R1K4 w Q - 0 1", "d1b1", true},
		// King f1, rook g1: they swap squares.
		{"swap", "4k3/8/8/8/8/8/8/5KR1 w K - 0 1", "f1g1", true},
		// King already on g1: only the rook moves (h1 to f1).
		{"king stays", "4k3/8/8/8/8/8/8/6KR w K - 0 1", "g1h1", true},
		{"king stays, rook target occupied", "4k3/8/8/8/8/8/8/5NKR w K - 0 1", "g1h1", false},
		{"king stays but in check", "4k1r1/8/8/8/8/8/8/6KR w K - 0 1", "g1h1", false},
		// Rook already on its target d1, king f1 goes to c1 across it.
		{"rook stays", "4k3/8/8/8/8/8/8/3R1K2 w Q - 0 1", "f1d1", true},
		{"king path attacked", "4k3/8/8/8/8/8/4r3/3R1K2 w Q - 0 1", "f1d1", false},
		{"king target attacked", "4k3/8/8/8/8/8/2r5/3R1K2 w Q - 0 1", "f1d1", false},
		// Squares the rook crosses must be empty too: king g1, rook a1,
		// long castling sends the rook to d1 past b1 and c1.
		{"rook path blocked", "4k3/8/8/8/8/8/8/RN4K1 w Q - 0 1", "g1a1", false},
		{"rook path clear", "4k3/8/8/8/8/8/8/R5K1 w Q - 0 1", "g1a1", true},
		// The rook's own path may be attacked: only the king's path matters.
		{"rook path attacked", "4k3/8/8/8/8/8/1r6/R5K1 w Q - 0 1", "g1a1", true},
		// Standard chess: b1 may be attacked for O-O-O, d1 may not.
		{"standard b1 attacked", "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1a1", true},
		{"standard d1 attacked", "3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1a1", false},
		// Black side.
		{"black swap", "1kr5/8/8/8/8/8/8/4K3 b q - 0 1", "b8c8", false}, // c8 rook is king side of b8
		{"black king side swap", "1kr5/8/8/8/8/8/8/4K3 b k - 0 1", "b8c8", true},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			if !tt.legal {
				continue // a right that cannot exist is rejected by ParseFEN
			}
			t.Fatalf("%s: %v", tt.name, err)
		}
		from, _ := ParseSquare(tt.move[:2])
		to, _ := ParseSquare(tt.move[2:])
		m := NewCastling(from, to)
		var ml MoveList
		p.GenerateLegal(&ml)
		if got := ml.Contains(m); got != tt.legal {
			t.Errorf("%s: castling %s generated = %v, want %v", tt.name, tt.move, got, tt.legal)
		}
		if got := p.IsLegal(m); got != tt.legal {
			t.Errorf("%s: IsLegal(%s) = %v, want %v", tt.name, tt.move, got, tt.legal)
		}
		if tt.legal {
			fen := p.FEN()
			p.MakeMove(m)
			checkConsistency(t, p, tt.name)
			us := p.SideToMove().Other()
			kingTo, rookTo := castleTargets(castleIndex(us, to > from))
			if p.PieceOn(kingTo) != MakePiece(us, King) || p.PieceOn(rookTo) != MakePiece(us, Rook) {
				t.Errorf("%s: after castling king/rook not on %v/%v: %s", tt.name, kingTo, rookTo, p.FEN())
			}
			p.UnmakeMove()
			if p.FEN() != fen {
				t.Errorf("%s: unmake gave %s", tt.name, p.FEN())
			}
		}
	}
}
