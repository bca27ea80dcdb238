package client

import (
	"strings"
	"testing"
)

func TestBoards(t *testing.T) {
	type step struct {
		move, canon, san string // canon "" → illegal
	}
	for _, tc := range []struct {
		name, variant, fen string
		steps              []step
		nLegal             int // before the steps
		fenAfter           string
	}{
		{"standard opening", "standard", "", []step{
			{"e2e4", "e2e4", "e4"}, {"e7e5", "e7e5", "e5"}, {"g1f3", "g1f3", "Nf3"}, {"e8e6", "", ""}, {"b8c6", "b8c6", "Nc6"},
		}, 20, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"},
		{"standard castling both notations", "fromPosition", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []step{
			{"e1h1", "e1g1", "O-O"}, {"e8c8", "e8c8", "O-O-O"},
		}, 26, "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"},
		{"bad syntax", "standard", "startpos", []step{{"e2", "", ""}, {"z9z9", "", ""}, {"e7e5", "", ""}}, 20, ""},
		{"chess960 king takes rook", "chess960", "rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1", []step{
			{"b1h1", "b1h1", "O-O"}, {"b8a8", "b8a8", "O-O-O"},
		}, 0, "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"},
		{"chess960 disambiguation and mate", "chess960", "6k1/5ppp/8/8/8/8/4K3/R6R w - - 0 1", []step{
			{"a1d1", "a1d1", "Rad1"}, {"g8h8", "g8h8", "Kh8"}, {"d1d8", "d1d8", "Rd8#"},
		}, 0, ""},
	} {
		b, err := newBoard(tc.variant, tc.fen, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := len(b.LegalMoves()); tc.nLegal > 0 && n != tc.nLegal {
			t.Errorf("%s: %d legal moves, want %d", tc.name, n, tc.nLegal)
		}
		for _, st := range tc.steps {
			canon, err := b.Legal(st.move)
			if st.canon == "" {
				if err == nil {
					t.Errorf("%s: %s accepted as %s", tc.name, st.move, canon)
				}
				continue
			}
			if err != nil || canon != st.canon {
				t.Errorf("%s: Legal(%s) = %q, %v; want %s", tc.name, st.move, canon, err, st.canon)
				continue
			}
			if san := b.SAN(st.move); san != st.san {
				t.Errorf("%s: SAN(%s) = %s, want %s", tc.name, st.move, san, st.san)
			}
			if err := b.Play(st.move); err != nil {
				t.Fatalf("%s: Play(%s): %v", tc.name, st.move, err)
			}
		}
		if tc.fenAfter != "" && b.FEN() != tc.fenAfter {
			t.Errorf("%s: FEN %s, want %s", tc.name, b.FEN(), tc.fenAfter)
		}
	}
	// A variant the worker has no rules for is followed without them.
	if b, err := newBoard("crazyhouse", "", nil); err != nil || b.LegalMoves() != nil {
		t.Errorf("crazyhouse board: %T %v, legal moves %v", b, err, b.LegalMoves())
	}
	if _, err := newBoard("standard", "", []string{"e2e4", "e2e4"}); err == nil || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("replaying an illegal move: %v", err)
	}
}

func TestCannotWin(t *testing.T) {
	for _, tc := range []struct {
		variant, fen string
		white, black bool
	}{
		{"standard", "", false, false},
		{"fromPosition", "7k/8/8/8/8/8/5q2/K7 w - - 0 1", true, false},
		{"fromPosition", "7k/8/8/8/8/8/5n2/KB6 w - - 0 1", true, true},
		{"fromPosition", "7k/8/8/8/8/8/5nn1/KB6 w - - 0 1", true, false},
		{"chess960", "7k/8/8/8/8/8/5p2/KN6 w - - 0 1", true, false},
		{"chess960", "7k/8/8/8/8/8/8/KR6 w - - 0 1", false, true},
	} {
		b, err := newBoard(tc.variant, tc.fen, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.CannotWin(true) != tc.white || b.CannotWin(false) != tc.black {
			t.Errorf("%s %s: CannotWin white %v black %v, want %v %v", tc.variant, tc.fen, b.CannotWin(true), b.CannotWin(false), tc.white, tc.black)
		}
	}
}

// A variant without rules here is followed by ply parity: any move of UCI
// shape (drops, king promotions) is taken, as written by Lichess; the side
// to move alternates from the FEN's; nothing is known about legality or
// material.
func TestPlyBoard(t *testing.T) {
	for _, v := range []string{"crazyhouse", "antichess", "atomic", "horde", "kingOfTheHill", "racingKings", "threeCheck"} {
		if KnowsRules(v) {
			t.Errorf("KnowsRules(%s)", v)
		}
	}
	for _, v := range []string{"", "standard", "chess960", "fromPosition"} {
		if !KnowsRules(v) {
			t.Errorf("!KnowsRules(%q)", v)
		}
	}
	b, err := newBoard("crazyhouse", "startpos", []string{"e2e4", "d7d5", "e4d5", "d8d5", "N@f3"})
	if err != nil {
		t.Fatal(err)
	}
	if b.WhiteToMove() || b.LegalMoves() != nil || b.CannotWin(true) || b.CannotWin(false) || b.FEN() != "" {
		t.Errorf("after 5 plies: white to move %v, legal %v, cannot win %v/%v, FEN %q",
			b.WhiteToMove(), b.LegalMoves(), b.CannotWin(true), b.CannotWin(false), b.FEN())
	}
	for in, want := range map[string]string{"p@E4": "P@e4", " N@f3 ": "N@f3", "E7E8K": "e7e8k", "a7a8q": "a7a8q", "e1g1": "e1g1"} {
		if got, err := b.Legal(in); err != nil || got != want {
			t.Errorf("Legal(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0000", "(none)", "X@e4", "e2e9", "e4", "resign"} {
		if got, err := b.Legal(bad); err == nil {
			t.Errorf("Legal(%q) = %q", bad, got)
		}
		if err := b.Play(bad); err == nil {
			t.Errorf("Play(%q) accepted", bad)
		}
	}
	if san := b.SAN("P@e4"); san != "P@e4" {
		t.Errorf("SAN = %q", san)
	}
	if err := b.Play("P@e6"); err != nil || !b.WhiteToMove() {
		t.Errorf("Play: %v, white to move %v", err, b.WhiteToMove())
	}
	bf, err := newBoard("atomic", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", nil)
	if err != nil || bf.WhiteToMove() {
		t.Errorf("black to move first: %v, white to move %v", err, bf.WhiteToMove())
	}
}
