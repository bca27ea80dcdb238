package nnuedata

import (
	"errors"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

var fixedFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	"rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Kq d3 0 3",
	"4k3/8/8/8/8/8/8/4K3 b - - 99 120",
	"r3k2r/8/8/8/8/8/8/R3K2R b Qk - 7 40",
	// Chess960: outermost rooks as KQkq, inner rooks as file letters.
	"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
	"1r2k1rr/8/8/8/8/8/8/1R2K1RR w Gg - 0 1",
	"1r2k1rr/8/8/8/8/8/8/1R2K1RR b Bb - 0 1",
	"rkr5/8/8/8/8/8/8/RKR5 w KQkq - 0 1",
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 65000",
}

// positions returns the fixed positions and those of random playouts from
// them (so every kind of piece, capture, castling and en passant occurs).
func positions(t *testing.T) []*board.Position {
	return testsupport.Playouts(t, fixedFENs, 1, 4, 120, 7)
}

func TestRecordRoundTrip(t *testing.T) {
	ps := positions(t)
	if len(ps) < 500 {
		t.Fatalf("only %d positions", len(ps))
	}
	for i, p := range ps {
		score := (i*37)%4001 - 2000
		res := Result(i % 3)
		r := Encode(p, score, res)
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		fen, err := r.FEN()
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		if fen != p.FEN() {
			t.Errorf("FEN %q decodes as %q", p.FEN(), fen)
		}
		q, err := r.Position()
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		if q.Key() != p.Key() {
			t.Errorf("%s: decoded key %x, want %x", fen, q.Key(), p.Key())
		}
		if r.Score() != score || r.Result() != res || r.SideToMove() != p.SideToMove() ||
			r.HalfmoveClock() != p.HalfmoveClock() || r.FullmoveNumber() != p.FullmoveNumber() || r.EPSquare() != p.EPSquare() {
			t.Errorf("%s: fields score %d result %v stm %v hm %d fm %d ep %v, want %d %v %v %d %d %v", fen,
				r.Score(), r.Result(), r.SideToMove(), r.HalfmoveClock(), r.FullmoveNumber(), r.EPSquare(),
				score, res, p.SideToMove(), p.HalfmoveClock(), p.FullmoveNumber(), p.EPSquare())
		}
		var pcs [32]PieceSquare
		n := r.Pieces(&pcs)
		if n != p.Occupied().Count() {
			t.Fatalf("%s: %d pieces, want %d", fen, n, p.Occupied().Count())
		}
		for _, ps := range pcs[:n] {
			if p.PieceOn(ps.Square) != ps.Piece {
				t.Errorf("%s: %v on %v, want %v", fen, ps.Piece, ps.Square, p.PieceOn(ps.Square))
			}
		}
	}
}

func TestScoreClampAndResult(t *testing.T) {
	p := board.NewPosition()
	for _, tt := range []struct{ in, want int }{{0, 0}, {-1, -1}, {32767, 32767}, {40000, 32767}, {-40000, -32767}} {
		r := Encode(p, tt.in, Draw)
		if r.Score() != tt.want {
			t.Errorf("score %d stored as %d, want %d", tt.in, r.Score(), tt.want)
		}
	}
	big := mustFEN(t, "4k3/8/8/8/8/8/8/4K3 w - - 300 70000")
	if r := Encode(big, 0, Draw); r.HalfmoveClock() != 255 || r.FullmoveNumber() != 65535 {
		t.Errorf("clocks 300 and 70000 stored as %d and %d, want 255 and 65535", r.HalfmoveClock(), r.FullmoveNumber())
	}
	r := Encode(p, 0, BlackWin)
	r.SetResult(WhiteWin)
	if r.Result() != WhiteWin || r.Result().White() != 1 || r.Result().String() != "1-0" {
		t.Errorf("SetResult: %v", r.Result())
	}
	for _, tt := range []struct {
		in   float64
		want Result
	}{{0, BlackWin}, {0.5, Draw}, {1, WhiteWin}} {
		if got, err := ResultFromWhite(tt.in); err != nil || got != tt.want || got.White() != tt.in {
			t.Errorf("ResultFromWhite(%v) = %v, %v", tt.in, got, err)
		}
	}
	if _, err := ResultFromWhite(0.7); err == nil {
		t.Error("ResultFromWhite(0.7): no error")
	}
}

func TestEncodeDecodeDoNotAllocate(t *testing.T) {
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var r Record
	var pcs [32]PieceSquare
	n := testing.AllocsPerRun(100, func() {
		r = Encode(p, 12, Draw)
		_ = r.Pieces(&pcs)
		if r.Validate() != nil {
			t.Fatal("invalid")
		}
	})
	if n != 0 {
		t.Errorf("Encode+Pieces+Validate: %v allocations, want 0", n)
	}
}

func TestValidateRejects(t *testing.T) {
	good := Encode(board.NewPosition(), 0, Draw)
	for _, tt := range []struct {
		name   string
		change func(r *Record)
	}{
		{"empty square code", func(r *Record) { r[8] &= 0xf0 }},
		{"code 8", func(r *Record) { r[8] = r[8]&0xf0 | 8 }},
		{"unused nibble", func(r *Record) { r[0] = 0 }},               // 24 pieces left, codes for 32
		{"no white king", func(r *Record) { r[10] = r[10]&0xf0 | 5 }}, // e1 (piece 4) becomes a queen
		{"pawn on rank 1", func(r *Record) { r[9] = r[9]&0xf0 | 1 }},
		{"reserved stm bits", func(r *Record) { r[24] = 2 }},
		{"ep square on wrong rank", func(r *Record) { r[25] = 20 }},
		{"ep square out of range", func(r *Record) { r[25] = 70 }},
		{"result 3", func(r *Record) { r[27] = 3 }},
		{"castling rook off its rank", func(r *Record) {
			*r = Encode(mustFEN(t, "4k3/8/8/8/8/8/R7/4K3 w - - 0 1"), 0, Draw)
			r[8] |= 0x70 // the a2 rook (second piece, after e1) claims a castling right
		}},
		{"two castling rooks on one side", func(r *Record) {
			*r = Encode(mustFEN(t, "4k3/8/8/8/8/8/8/RR2K3 w Q - 0 1"), 0, Draw)
			r[8] |= 0x70 // b1 joins a1
		}},
	} {
		r := good
		tt.change(&r)
		err := r.Validate()
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Validate = %v, want ErrCorrupt", tt.name, err)
		}
		if _, ferr := r.FEN(); ferr == nil {
			t.Errorf("%s: FEN gave no error", tt.name)
		}
	}
	// 33 pieces cannot be stored.
	r := good
	r[0], r[1], r[2] = 0xff, 0xff, 0x01
	if err := r.Validate(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("33 pieces: %v", err)
	}
}

func mustFEN(t *testing.T, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzRecord: any 32 bytes give an error or a position, never a panic, and
// a position that decodes encodes back to the same FEN.
func FuzzRecord(f *testing.F) {
	for _, fen := range fixedFENs {
		p, _ := board.ParseFEN(fen)
		r := Encode(p, -55, WhiteWin)
		f.Add(r[:])
	}
	f.Add(make([]byte, RecordSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		copy(r[:], b)
		var pcs [32]PieceSquare
		_ = r.Pieces(&pcs)
		p, err := r.Position()
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		back := Encode(p, r.Score(), r.Result())
		f1, _ := back.FEN()
		if f1 != p.FEN() {
			t.Fatalf("re-encoded %q as %q", p.FEN(), f1)
		}
	})
}
