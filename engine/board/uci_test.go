package board

import (
	"errors"
	"testing"
)

func TestParseUCIMove(t *testing.T) {
	tests := []struct {
		name, fen, in string
		want          Move // NoMove: expect an error
		std, c960     string
	}{
		{"pawn push", StartFEN, "e2e4", NewMove(E2, E4), "e2e4", "e2e4"},
		{"knight", StartFEN, "g1f3", NewMove(G1, F3), "g1f3", "g1f3"},
		{"illegal", StartFEN, "e2e5", NoMove, "", ""},
		{"empty square", StartFEN, "e3e4", NoMove, "", ""},
		{"garbage", StartFEN, "hello", NoMove, "", ""},
		{"short", StartFEN, "e2", NoMove, "", ""},
		{"off board", StartFEN, "e9e4", NoMove, "", ""},
		{"null", StartFEN, "0000", NoMove, "", ""},
		{"promo on non-promotion", StartFEN, "e2e4q", NoMove, "", ""},
		{"castle std form", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", NewCastling(E1, H1), "e1g1", "e1h1"},
		{"castle 960 form", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1", NewCastling(E1, H1), "e1g1", "e1h1"},
		{"castle long std", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", NewCastling(E8, A8), "e8c8", "e8a8"},
		{"castle long 960", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8a8", NewCastling(E8, A8), "e8c8", "e8a8"},
		{"castle without right", "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", "e1g1", NoMove, "", ""},
		{"promotion", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8q", NewPromotion(E7, E8, Queen), "e7e8q", "e7e8q"},
		{"underpromotion upper", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8N", NewPromotion(E7, E8, Knight), "e7e8n", "e7e8n"},
		{"promotion missing piece", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8", NoMove, "", ""},
		{"bad promotion piece", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8k", NoMove, "", ""},
		{"en passant", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", NewEnPassant(E5, D6), "e5d6", "e5d6"},
		// Chess960: king f1, rook h1. f1g1 is a plain king move, not castling.
		{"960 king step", "4k3/8/8/8/8/8/8/5K1R w K - 0 1", "f1g1", NewMove(F1, G1), "f1g1", "f1g1"},
		{"960 castle", "4k3/8/8/8/8/8/8/5K1R w K - 0 1", "f1h1", NewCastling(F1, H1), "f1g1", "f1h1"},
		// Chess960: king b1, rook a1: b1c1 (king-to-target) castles, b1a1 too.
		{"960 long std form", "4k3/8/8/8/8/8/8/RK6 w Q - 0 1", "b1c1", NewMove(B1, C1), "b1c1", "b1c1"},
		{"960 long king takes rook", "4k3/8/8/8/8/8/8/RK6 w Q - 0 1", "b1a1", NewCastling(B1, A1), "b1c1", "b1a1"},
		// King already on g1 with the rook on h1: only king-takes-rook castles.
		{"960 king on target", "4k3/8/8/8/8/8/8/6KR w K - 0 1", "g1h1", NewCastling(G1, H1), "g1g1", "g1h1"},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		m, err := p.ParseUCIMove(tt.in)
		if tt.want == NoMove {
			if err == nil || !errors.Is(err, ErrMove) {
				t.Errorf("%s: ParseUCIMove(%q) = %v, %v; want an ErrMove error", tt.name, tt.in, m, err)
			}
			continue
		}
		if err != nil || m != tt.want {
			t.Errorf("%s: ParseUCIMove(%q) = %v, %v; want %v", tt.name, tt.in, m, err, tt.want)
			continue
		}
		if got := m.UCI(false); got != tt.std {
			t.Errorf("%s: UCI(false) = %q, want %q", tt.name, got, tt.std)
		}
		if got := m.UCI(true); got != tt.c960 {
			t.Errorf("%s: UCI(true) = %q, want %q", tt.name, got, tt.c960)
		}
	}
}

// Every generated move must survive MoveToUCI -> ParseUCIMove in both modes.
func TestUCIRoundTripAllMoves(t *testing.T) {
	for _, c := range loadEPDPerft(t, "testdata/fischer_sample.epd")[:10] {
		p, err := ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		var ml MoveList
		p.GenerateLegal(&ml)
		for _, m := range ml.Slice() {
			for _, c960 := range []bool{false, true} {
				s := m.UCI(c960)
				got, err := p.ParseUCIMove(s)
				if err != nil || got != m {
					// The king-to-target form of a Chess960 castling can
					// collide with a plain king move; that is allowed only
					// when the plain move is what we got back.
					if !c960 && m.IsCastling() && err == nil && got.From() == m.From() && !got.IsCastling() {
						continue
					}
					t.Errorf("%s: %v -> %q -> %v, %v", c.fen, m, s, got, err)
				}
			}
		}
	}
}
