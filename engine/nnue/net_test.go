package nnue

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
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
	"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}

// testPositions returns the fixed positions and some of random playouts
// from them.
func testPositions(t *testing.T) []*board.Position {
	return testsupport.Playouts(t, fixedFENs, 3, 3, 100, 9)
}

func TestFeatureIsABijection(t *testing.T) {
	for persp := board.White; persp <= board.Black; persp++ {
		seen := make(map[int]bool)
		for c := board.White; c <= board.Black; c++ {
			for pt := board.Pawn; pt <= board.King; pt++ {
				for s := board.Square(0); s < 64; s++ {
					f := Feature(persp, board.MakePiece(c, pt), s)
					if f < 0 || f >= Inputs || seen[f] {
						t.Fatalf("perspective %v: %v%v on %v gives %d (out of range or taken)", persp, c, pt, s, f)
					}
					seen[f] = true
				}
			}
		}
	}
	for _, tc := range []struct {
		persp board.Color
		pc    board.Piece
		sq    string
		want  int
	}{
		{board.White, board.WhitePawn, "e2", 12},
		{board.Black, board.WhitePawn, "e2", 384 + 52},
		{board.Black, board.BlackPawn, "e7", 12},
		{board.White, board.BlackKing, "e8", 384 + 5*64 + 60},
		{board.Black, board.BlackKing, "e8", 5*64 + 4},
		{board.White, board.WhiteKnight, "g1", 64 + 6},
	} {
		s, _ := board.ParseSquare(tc.sq)
		if got := Feature(tc.persp, tc.pc, s); got != tc.want {
			t.Errorf("Feature(%v, %v, %s) = %d, want %d", tc.persp, tc.pc, tc.sq, got, tc.want)
		}
	}
}

func TestNetFileRoundTrip(t *testing.T) {
	for _, act := range []Activation{CReLU, SCReLU} {
		n := RandomNet(16, act, uint64(act))
		var buf bytes.Buffer
		k, err := n.WriteTo(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if int(k) != HeaderSize+PayloadSize(16) || buf.Len() != int(k) {
			t.Fatalf("wrote %d bytes (buffer %d), want %d", k, buf.Len(), HeaderSize+PayloadSize(16))
		}
		m, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFields(n, m) {
			t.Fatalf("%v: read net differs from the written one", act)
		}
		if m.id == "" || m.ID() != n.ID() {
			t.Fatalf("%v: read net's ID %q (kept %q), the written one's %q", act, m.ID(), m.id, n.ID())
		}
	}
	// Save and Load through a file.
	n := RandomNet(8, SCReLU, 9)
	path := filepath.Join(t.TempDir(), "net.nnue")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !sameFields(n, m) {
		t.Fatal("loaded net differs from the saved one")
	}
	if m.ID() != n.ID() {
		t.Fatalf("loaded net's ID %q, the saved one's %q", m.ID(), n.ID())
	}
}

// sameFields reports whether a and b have the same exported fields (the
// ID Read keeps aside).
func sameFields(a, b *Net) bool {
	c := *b
	c.id = a.id
	return reflect.DeepEqual(a, &c)
}

func TestNetFileHeaderLayout(t *testing.T) {
	n := RandomNet(8, SCReLU, 1)
	b, err := n.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("PNDRNNUE\x01\x00\x02\x00\x00\x03\x08\x00\xff\x00\x40\x00\x90\x01\x00\x00")
	if !bytes.Equal(b[:24], want) {
		t.Fatalf("header % x\nwant   % x", b[:24], want)
	}
	if size := int(b[24]) | int(b[25])<<8 | int(b[26])<<16 | int(b[27])<<24; size != 2*768*8+2*8+4*8+4 {
		t.Fatalf("payload size %d", size)
	}
	// The first input weight follows the header, little-endian.
	if w := int16(uint16(b[32]) | uint16(b[33])<<8); w != n.InputWeights[0] {
		t.Fatalf("first weight %d, want %d", w, n.InputWeights[0])
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	n := RandomNet(4, CReLU, 2)
	good, err := n.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation is an error wrapping ErrFormat, never a panic.
	for k := 0; k < len(good); k++ {
		_, err := Read(bytes.NewReader(good[:k]))
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("cut to %d bytes: error %v, want ErrFormat", k, err)
		}
		if k > HeaderSize && !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut to %d bytes: %v does not say truncated", k, err)
		}
	}
	edit := func(name string, f func(b []byte) []byte, wantMsg string) {
		t.Helper()
		b := f(bytes.Clone(good))
		_, err := Read(bytes.NewReader(b))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), wantMsg) {
			t.Errorf("%s: error %v, want ErrFormat saying %q", name, err, wantMsg)
		}
	}
	edit("magic", func(b []byte) []byte { b[0] = 'X'; return b }, "magic")
	edit("version", func(b []byte) []byte { b[8] = 2; return b }, "version 2")
	edit("activation", func(b []byte) []byte { b[10] = 3; return b }, "activation")
	edit("inputs", func(b []byte) []byte { b[13] = 2; return b }, "inputs")
	edit("hidden 0", func(b []byte) []byte { b[14] = 0; return b }, "hidden size 0")
	edit("hidden 5", func(b []byte) []byte { b[14] = 5; return b }, "payload size")
	edit("QA 0", func(b []byte) []byte { b[16], b[17] = 0, 0; return b }, "QA")
	edit("reserved", func(b []byte) []byte { b[22] = 1; return b }, "reserved")
	edit("payload byte", func(b []byte) []byte { b[HeaderSize+100] ^= 0x10; return b }, "checksum")
	edit("last byte", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "checksum")
	edit("trailing", func(b []byte) []byte { return append(b, 0) }, "data after")
	if _, err := Load(filepath.Join(t.TempDir(), "missing.nnue")); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

func TestValidateRefusesAnOverflowingAccumulator(t *testing.T) {
	n := RandomNet(4, SCReLU, 3)
	for f := 0; f < 32; f++ {
		n.InputWeights[f*n.Hidden+2] = 1000
	}
	n.InputBiases[2] = 1000 // 33 000 > 32 767
	err := n.Validate()
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "hidden unit 2") {
		t.Fatalf("Validate: %v, want an overflow error for hidden unit 2", err)
	}
	if _, err := n.MarshalBinary(); err == nil {
		t.Fatal("MarshalBinary wrote a net that fails Validate")
	}
	n.InputBiases[2] = 0 // 32 000: fits
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
}

// handNet is a net of two hidden units where only hidden unit 0 counts:
// it adds 10 (QA scale) for each of the side's own pawns to a bias of 100,
// and the output is unit 0 of the side to move minus unit 0 of the other
// side (output weights ±64 = ±1.0).
func handNet(act Activation) *Net {
	n := &Net{
		Hidden: 2, Act: act, QA: 255, QB: 64, Scale: 400,
		InputWeights:  make([]int16, Inputs*2),
		InputBiases:   []int16{100, 50},
		OutputWeights: []int16{64, 0, -64, 0},
	}
	for s := board.A2; s <= board.H7; s++ {
		n.InputWeights[Feature(board.White, board.WhitePawn, s)*2] = 10
	}
	return n
}

func TestEvaluateHandComputed(t *testing.T) {
	for _, tc := range []struct {
		act  Activation
		fen  string
		want int
	}{
		// Equal pawns: the output is the bias.
		{CReLU, board.StartFEN, 0},
		// White to move, 8 pawns against 7: us 180, them 170.
		// CReLU: (180−170)·64 = 640; 640·400/(255·64) = 15.7 → 15.
		{CReLU, "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 15},
		// SCReLU: (180²−170²)·64 = 224000; /255 = 878; 878·400/16320 = 21.5 → 21.
		{SCReLU, "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 21},
		// Black to move sees the same from the other side: −15 and −21.
		{CReLU, "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", -15},
		{SCReLU, "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", -21},
	} {
		p, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := handNet(tc.act).Evaluate(p); got != tc.want {
			t.Errorf("%v %s: %d, want %d", tc.act, tc.fen, got, tc.want)
		}
	}
	// Clipping at QA: a bias of 240 and 8 pawns give 320 → 255 for the
	// side to move, 240 for the other (no pawns): CReLU (255−240)·64 = 960
	// → 960·400/16320 = 23.5 → 23; SCReLU (255²−240²)·64 = 470400, /255 =
	// 1844, → 1844·400/16320 = 45.2 → 45.
	for act, want := range map[Activation]int{CReLU: 23, SCReLU: 45} {
		n := handNet(act)
		n.InputBiases[0] = 240
		p, err := board.ParseFEN("4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1")
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Evaluate(p); got != want {
			t.Errorf("%v clipped: %d, want %d", act, got, want)
		}
	}
	// A negative output truncates toward zero and a bias counts in QA·QB.
	n := handNet(CReLU)
	n.OutputBias = -255 * 64 / 4 // −0.25 → −100 cp
	p, _ := board.ParseFEN(board.StartFEN)
	if got := n.Evaluate(p); got != -100 {
		t.Errorf("bias −0.25: %d, want −100", got)
	}
}

func TestEvaluateMirrorSymmetry(t *testing.T) {
	ps := testPositions(t)
	if len(ps) < 50 {
		t.Fatalf("only %d positions", len(ps))
	}
	for _, act := range []Activation{CReLU, SCReLU} {
		n := RandomNet(16, act, 11)
		distinct := make(map[int]bool)
		for _, p := range ps {
			m, err := board.ParseFEN(testsupport.MirrorFEN(t, p.FEN()))
			if err != nil {
				t.Fatalf("mirror of %s: %v", p.FEN(), err)
			}
			a, b := n.Output(p), n.Output(m)
			if a != b {
				t.Fatalf("%v: %s gives %d, its mirror %s gives %d", act, p.FEN(), a, m.FEN(), b)
			}
			distinct[n.Evaluate(p)] = true
		}
		if len(distinct) < len(ps)/2 {
			t.Fatalf("%v: only %d distinct evaluations of %d positions: the net barely looks at the position", act, len(distinct), len(ps))
		}
	}
}

func TestEvaluateDoesNotAllocate(t *testing.T) {
	n := RandomNet(16, SCReLU, 5)
	p, _ := board.ParseFEN(fixedFENs[1])
	if a := testing.AllocsPerRun(20, func() { n.Evaluate(p) }); a != 0 {
		t.Fatalf("%v allocations an evaluation", a)
	}
}
