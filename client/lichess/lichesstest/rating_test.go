package lichesstest

import (
	"testing"
	"time"
)

// A rated game's gameFinish carries both players' rating changes, as on
// Lichess; a casual one none.
func TestGameFinishRatingDiff(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1700)
	ev := openStream(t, s.URL(), "tme", "/api/stream/event")
	for _, rated := range []bool{true, false} {
		id, err := s.Challenge("them", "me", ChallengeParams{Rated: rated, ClockLimit: time.Minute, ClockIncrement: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AcceptChallenge(id); err != nil {
			t.Fatal(err)
		}
		ev.nextOfType(t, "gameStart")
		snap, _ := s.Game(id)
		if err := s.Move(id, snap.White, "e2e4"); err != nil {
			t.Fatal(err)
		}
		if err := s.Move(id, snap.Black, "e7e5"); err != nil {
			t.Fatal(err)
		}
		if err := s.Resign(id, "them"); err != nil {
			t.Fatal(err)
		}
		gf := ev.nextOfType(t, "gameFinish")
		g := gf["game"].(map[string]any)
		mine, ok1 := g["ratingDiff"].(float64)
		opp, ok2 := g["opponent"].(map[string]any)["ratingDiff"].(float64)
		if !rated {
			if ok1 || ok2 {
				t.Errorf("casual game with rating changes: %v", g)
			}
			continue
		}
		// 1500 beats 1700: Elo K=20 gives 20 × (1 − 0.24) ≈ 15.
		if !ok1 || !ok2 || mine != 15 || opp != -15 {
			t.Errorf("rated game: ratingDiff %v, opponent %v; want 15 and -15: %v", g["ratingDiff"], g["opponent"], g)
		}
	}
}
