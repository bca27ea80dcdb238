package board

import (
	"errors"
	"strings"
	"testing"
)

// checkConsistency verifies the incremental state against a from-scratch
// computation.
func checkConsistency(t *testing.T, p *Position, where string) {
	t.Helper()
	var byType [7]Bitboard
	var byColor [2]Bitboard
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			byType[pc.Type()] |= s.Bitboard()
			byColor[pc.Color()] |= s.Bitboard()
		}
	}
	if byType != p.byType || byColor != p.byColor {
		t.Fatalf("%s: bitboards disagree with the mailbox", where)
	}
	key, pawnKey := p.computeKeys()
	if key != p.Key() || pawnKey != p.PawnKey() {
		t.Fatalf("%s: incremental keys %x/%x, from scratch %x/%x", where, p.Key(), p.PawnKey(), key, pawnKey)
	}
	ksq := p.KingSquare(p.side)
	if want := p.AttackersTo(ksq, p.Occupied()) & p.byColor[p.side^1]; want != p.Checkers() {
		t.Fatalf("%s: checkers %x, want %x", where, p.Checkers(), want)
	}
	q, err := ParseFEN(p.FEN())
	if err != nil {
		t.Fatalf("%s: own FEN %q does not parse: %v", where, p.FEN(), err)
	}
	if q.Key() != p.Key() || q.FEN() != p.FEN() {
		t.Fatalf("%s: FEN round trip changed the position: %q key %x vs %x", where, q.FEN(), q.Key(), p.Key())
	}
}

// walk plays every legal line to depth, checking consistency after every
// make and exact restoration after every unmake.
func walk(t *testing.T, p *Position, depth int) {
	if depth == 0 {
		return
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	fen, key, pawnKey := p.FEN(), p.Key(), p.PawnKey()
	board := p.board
	for _, m := range ml.Slice() {
		p.MakeMove(m)
		checkConsistency(t, p, fen+" "+m.String())
		if p.attackedBy(p.KingSquare(p.side^1), p.side, p.Occupied()) {
			t.Fatalf("%s %s: legal move leaves own king in check", fen, m)
		}
		walk(t, p, depth-1)
		p.UnmakeMove()
		if p.FEN() != fen || p.Key() != key || p.PawnKey() != pawnKey || p.board != board {
			t.Fatalf("%s %s: unmake did not restore the position: %s", fen, m, p.FEN())
		}
	}
	if !p.InCheck() {
		p.MakeNullMove()
		checkConsistency(t, p, fen+" null")
		p.UnmakeNullMove()
		if p.FEN() != fen || p.Key() != key {
			t.Fatalf("%s: null move not restored", fen)
		}
	}
}

func TestMakeUnmakeConsistency(t *testing.T) {
	tests := []struct {
		fen   string
		depth int
	}{
		{StartFEN, 3},
		{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2},
		{"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3},
		{"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 2},
		{"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2},
		{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 2},
		{"2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1", 3},
		{"rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1", 3},
		{"4k3/8/8/2pPp3/8/8/8/4K3 w - c6 0 1", 3},
		{"r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1", 3},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			t.Fatal(err)
		}
		checkConsistency(t, p, tt.fen)
		walk(t, p, tt.depth)
	}
}

func TestFENRoundTrip(t *testing.T) {
	for _, fen := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"4k3/8/8/8/8/8/8/4K3 b - - 49 120",
		// Chess960: outermost rooks print as KQkq, inner rooks as file letters.
		"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
		"1r2k1rr/8/8/8/8/8/8/1R2K1RR w Gg - 0 1",
	} {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		if got := p.FEN(); got != fen {
			t.Errorf("FEN round trip: %q -> %q", fen, got)
		}
	}
}

func TestFENNormalisation(t *testing.T) {
	tests := []struct{ in, want string }{
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", StartFEN},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", StartFEN},
		// An en-passant square nobody can capture on is dropped.
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"},
		{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := p.FEN(); got != tt.want {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFENErrors(t *testing.T) {
	tests := []struct{ name, fen, want string }{
		{"empty", "", "at least"},
		{"seven ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks"},
		{"nine files", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "exactly 8"},
		{"short rank", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "exactly 8"},
		{"bad letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "bad piece letter"},
		{"no kings", "8/8/8/8/8/8/8/8 w - - 0 1", "no white king"},
		{"no black king", "8/8/8/8/8/8/8/4K3 w - - 0 1", "no black king"},
		{"two kings", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "2 white kings"},
		{"pawn on rank 8", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on the first or last rank"},
		{"nine pawns", "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "9 white pawns"},
		{"seventeen pieces", "4k3/8/8/8/8/QQQQQQQQ/QQQQQQQQ/4K3 w - - 0 1", "17 white pieces"},
		{"bad side", "4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move"},
		{"opponent in check", "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "not to move is in check"},
		{"bad castling letter", "r3k2r/8/8/8/8/8/8/R3K2R w KQkx - 0 1", "bad castling letter"},
		{"castling without rook", "r3k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "no rook"},
		{"castling king off rank", "r6r/8/8/8/8/4k3/8/R3K2R w KQkq - 0 1", "not on its first rank"},
		{"castling shredder no rook", "r3k2r/8/8/8/8/8/8/R3K2R w G - 0 1", "no rook"},
		{"ep square wrong rank", "4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 1", "wrong rank"},
		{"ep without pawn", "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1", "double pawn push"},
		{"ep garbage", "4k3/8/8/3pP3/8/8/8/4K3 w - z9 0 1", "bad en-passant"},
		{"bad halfmove", "4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove"},
		{"negative fullmove", "4k3/8/8/8/8/8/8/4K3 w - - 0 -3", "fullmove"},
		{"too many fields", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "too many fields"},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err == nil {
			t.Errorf("%s: ParseFEN(%q) succeeded: %s", tt.name, tt.fen, p.FEN())
			continue
		}
		if !errors.Is(err, ErrFEN) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q, want one wrapping ErrFEN containing %q", tt.name, err, tt.want)
		}
	}
	// SetFEN leaves the position alone on error.
	p := NewPosition()
	if err := p.SetFEN("garbage"); err == nil || p.FEN() != StartFEN {
		t.Errorf("SetFEN(garbage) = %v, position now %s", err, p.FEN())
	}
}

func TestChess960Detection(t *testing.T) {
	for _, tt := range []struct {
		fen  string
		want bool
	}{
		{StartFEN, false},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false},
		{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true},
		{"4k3/8/8/8/8/8/8/1R2K3 w Q - 0 1", true},
	} {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			t.Fatal(err)
		}
		if p.Chess960() != tt.want {
			t.Errorf("%s: Chess960() = %v, want %v", tt.fen, p.Chess960(), tt.want)
		}
	}
}
