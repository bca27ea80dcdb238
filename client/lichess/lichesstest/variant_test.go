package lichesstest

import (
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// A game of a variant the server does not check (crazyhouse here) is held
// by trust: any move of UCI shape is played, drops included, turn by ply
// parity; a malformed move or a move out of turn is refused; the PGN keeps
// the moves in UCI with the variant's tag; the FEN stays the initial
// position; the ply limit ends it as a draw. Chess960 is still refused.
func TestUncheckedVariantGame(t *testing.T) {
	s := newTestServer(t, WithVariantPlyLimit(6))
	s.AddAccount("White", "tok-w", true, 1500)
	s.AddAccount("Black", "tok-b", true, 1500)
	id, err := s.Challenge("White", "Black", ChallengeParams{ClockLimit: time.Minute, Variant: "crazyhouse", Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatalf("accept a crazyhouse challenge: %v", err)
	}
	for _, st := range []struct {
		who, move string
		ok        bool
	}{
		{"Black", "e7e5", false}, // not Black's turn
		{"White", "e2e4", true},
		{"Black", "d7d5", true},
		{"Black", "e7e5", false},
		{"White", "e4d5", true},
		{"Black", "x@e4", false}, // no such piece
		{"Black", "e7e9", false},
		{"Black", "d8d5", true},
		{"White", "p@e6", true}, // a drop, written P@e6
	} {
		if err := s.Move(id, st.who, st.move); (err == nil) != st.ok {
			t.Errorf("%s %s: error %v, want ok %v", st.who, st.move, err, st.ok)
		}
	}
	g, _ := s.Game(id)
	if strings.Join(g.Moves, " ") != "e2e4 d7d5 e4d5 d8d5 P@e6" || g.Finished || g.Variant != "crazyhouse" {
		t.Errorf("moves %v, finished %v, variant %s", g.Moves, g.Finished, g.Variant)
	}
	if g.FEN != variantStartFEN["crazyhouse"] {
		t.Errorf("FEN %q, want the initial position", g.FEN)
	}
	if err := s.Move(id, "Black", "f7e6"); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Game(id)
	if !g.Finished || g.Status != "draw" || g.Winner != "" {
		t.Errorf("after the ply limit: finished %v, status %s, winner %q", g.Finished, g.Status, g.Winner)
	}
	if !strings.Contains(g.PGN, `[Variant "Crazyhouse"]`) || !strings.Contains(g.PGN, "e2e4 d7d5 e4d5 d8d5 P@e6 f7e6 1/2-1/2") {
		t.Errorf("PGN:\n%s", g.PGN)
	}
	if st := s.Stats(); st.IllegalMoves != 4 || st.MovesPlayed != 6 {
		t.Errorf("stats: %d illegal, %d played", st.IllegalMoves, st.MovesPlayed)
	}

	c960, err := s.Challenge("White", "Black", ChallengeParams{ClockLimit: time.Minute, Variant: "chess960"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(c960); err == nil {
		t.Error("a chess960 challenge accepted")
	}
}

// Out of time in a variant the server does not check, the opponent wins
// (the server cannot tell whether they could mate), and a house player
// declines such a challenge, as it plays by standard rules only.
func TestUncheckedVariantFlagAndHouse(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("White", "tok-w", true, 1500)
	s.AddAccount("Black", "tok-b", true, 1500)
	s.AddAccount("House", "tok-h", true, 1500)
	if err := s.SetHousePlayer("House", HouseOptions{}); err != nil {
		t.Fatal(err)
	}
	id, err := s.Challenge("White", "Black", ChallengeParams{ClockLimit: 300 * time.Millisecond, Variant: "atomic", Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	for i, m := range []string{"e2e4", "e7e5", "g1f3"} {
		if err := s.Move(id, [2]string{"White", "Black"}[i%2], m); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.WaitGameOver(testsupport.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "outoftime" || g.Winner != "white" {
		t.Errorf("status %s, winner %q", g.Status, g.Winner)
	}
	hc, err := s.Challenge("White", "House", ChallengeParams{ClockLimit: time.Minute, Variant: "horde"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.WaitFor(testsupport.Context(t), func() bool { st, _ := s.ChallengeStatus(hc); return st == "declined" })
	if _, key := s.ChallengeStatus(hc); err != nil || key != "variant" {
		t.Errorf("house player and a horde challenge: %v, reason %q", err, key)
	}
}
