package board_test

import (
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The tests of this file are in package board_test so that they can play
// moves with testsupport (which imports board).

func TestRepetition(t *testing.T) {
	p := board.NewPosition()
	testsupport.Play(t, p, "g1f3", "g8f6", "f3g1")
	if p.RepetitionCount() != 0 || p.IsRepetition(100) {
		t.Fatal("no repetition yet")
	}
	testsupport.Play(t, p, "f6g8") // start position again (second occurrence)
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("RepetitionCount = %d, want 1", got)
	}
	if !p.IsRepetition(5) {
		t.Error("IsRepetition(5): the earlier occurrence is inside the search, want true")
	}
	if p.IsRepetition(4) {
		t.Error("IsRepetition(4): one earlier occurrence at the root is not yet a draw")
	}
	testsupport.Play(t, p, "g1f3", "g8f6", "f3g1", "f6g8") // third occurrence
	if got := p.RepetitionCount(); got != 2 {
		t.Fatalf("RepetitionCount = %d, want 2", got)
	}
	if !p.IsRepetition(0) {
		t.Error("threefold repetition must be a draw even before the root")
	}
	// An irreversible move cuts the history.
	testsupport.Play(t, p, "e2e4", "e7e5", "g1f3", "g8f6", "f3g1", "f6g8")
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("after e4 e5: RepetitionCount = %d, want 1", got)
	}
	// A null move cuts it too.
	p.MakeNullMove()
	p.MakeNullMove()
	if p.RepetitionCount() != 0 {
		t.Error("repetition across null moves")
	}
	p.UnmakeNullMove()
	p.UnmakeNullMove()
	if got := p.RepetitionCount(); got != 1 {
		t.Fatalf("after null moves undone: RepetitionCount = %d, want 1", got)
	}
	// Castling rights differ: not a repetition.
	q, _ := board.ParseFEN("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	testsupport.Play(t, q, "e1f1", "e8f8", "f1e1", "f8e8")
	if q.RepetitionCount() != 0 {
		t.Error("positions with different castling rights counted as repeated")
	}
	testsupport.Play(t, q, "e1f1", "e8f8", "f1e1", "f8e8")
	if q.RepetitionCount() != 1 {
		t.Error("repetition without castling rights missed")
	}
}

func TestHalfmoveAndFullmove(t *testing.T) {
	p := board.NewPosition()
	testsupport.Play(t, p, "g1f3", "g8f6", "f3g1")
	if p.HalfmoveClock() != 3 || p.FullmoveNumber() != 2 {
		t.Fatalf("clock %d move %d, want 3 and 2", p.HalfmoveClock(), p.FullmoveNumber())
	}
	testsupport.Play(t, p, "e7e5")
	if p.HalfmoveClock() != 0 || p.FullmoveNumber() != 3 {
		t.Fatalf("clock %d move %d, want 0 and 3", p.HalfmoveClock(), p.FullmoveNumber())
	}
	p.UnmakeMove()
	if p.HalfmoveClock() != 3 || p.FullmoveNumber() != 2 {
		t.Fatal("unmake did not restore the clocks")
	}
}

func TestInsufficientMaterial(t *testing.T) {
	for _, tt := range []struct {
		fen  string
		want bool
	}{
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},
		{"4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true},   // both bishops on dark squares
		{"4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", false}, // opposite colours
		{"4k3/8/8/8/8/8/8/4KNN1 w - - 0 1", false},
		{"4kn2/8/8/8/8/8/8/4KB2 w - - 0 1", false},
		{"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
		{"4k3/8/8/8/8/8/8/4K2R w - - 0 1", false},
	} {
		p, err := board.ParseFEN(tt.fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.IsInsufficientMaterial(); got != tt.want {
			t.Errorf("%s: IsInsufficientMaterial = %v, want %v", tt.fen, got, tt.want)
		}
	}
}

func TestCloneIsIndependent(t *testing.T) {
	p := board.NewPosition()
	testsupport.Play(t, p, "e2e4", "e7e5")
	q := p.Clone()
	testsupport.Play(t, q, "g1f3")
	if p.FEN() == q.FEN() || p.Plies() != 2 || q.Plies() != 3 {
		t.Fatal("clone shares state with the original")
	}
	q.UnmakeMove()
	q.UnmakeMove()
	if q.FEN() != "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" {
		t.Fatalf("clone history wrong: %s", q.FEN())
	}
	var r board.Position
	r.CopyFrom(p)
	if r.FEN() != p.FEN() || r.Key() != p.Key() || r.Plies() != 2 {
		t.Fatal("CopyFrom")
	}
}
