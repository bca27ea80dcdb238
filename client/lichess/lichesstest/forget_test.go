package lichesstest

import (
	"testing"
	"time"
)

// ForgetGame drops a finished game and its challenge, and refuses a game
// in progress or unknown.
func TestForgetGame(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1700)
	var ids []string
	for range 2 {
		id, err := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AcceptChallenge(id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	over, running := ids[0], ids[1]
	snap, _ := s.Game(over)
	if err := s.Move(over, snap.White, "e2e4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(over, snap.Black, "e7e5"); err != nil {
		t.Fatal(err)
	}
	if s.ForgetGame(over) {
		t.Fatalf("ForgetGame(%s) of a game in progress: true", over)
	}
	if err := s.Resign(over, "them"); err != nil {
		t.Fatal(err)
	}
	if !s.ForgetGame(over) {
		t.Fatalf("ForgetGame(%s) of a finished game: false", over)
	}
	if _, ok := s.Game(over); ok {
		t.Errorf("game %s still known after ForgetGame", over)
	}
	if st, _ := s.ChallengeStatus(over); st != "" {
		t.Errorf("challenge %s still known after ForgetGame: %s", over, st)
	}
	if gs := s.Games(); len(gs) != 1 || gs[0].ID != running {
		t.Errorf("Games after ForgetGame: %d games, want only %s", len(gs), running)
	}
	if s.ForgetGame(over) || s.ForgetGame(running) || s.ForgetGame("nosuchgm") {
		t.Errorf("ForgetGame of a forgotten, running or unknown game: true")
	}
	if g, ok := s.Game(running); !ok || g.Finished {
		t.Errorf("the game in progress: known %v, finished %v", ok, g.Finished)
	}
}
