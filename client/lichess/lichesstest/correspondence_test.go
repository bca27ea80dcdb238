package lichesstest

import (
	"context"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// playingEntry returns the game's entry in GET /api/account/playing of
// token's account.
func playingEntry(t *testing.T, base, token, id string) map[string]any {
	t.Helper()
	r := get(t, base, token, "/api/account/playing?nb=50")
	wantStatus(t, r, 200)
	list, _ := r.body["nowPlaying"].([]any)
	for _, e := range list {
		if m, _ := e.(map[string]any); str(m, "gameId") == id {
			return m
		}
	}
	t.Fatalf("game %s not in %s", id, r.raw)
	return nil
}

// A correspondence game: the days-per-move clock (shortened by
// WithCorrespondenceDay) runs for the side to move from the start, a move
// gives the mover the full days per move again, the player to move gets a
// gameStart after each move, and /api/account/playing says whose turn it
// is and how many seconds are left.
func TestCorrespondenceClockAndTurnNotice(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithCorrespondenceDay(time.Hour))
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	base := s.URL()
	id, err := s.Challenge("w", "b", ChallengeParams{Days: 2, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	ev := openStream(t, base, "tb", "/api/stream/event")
	if g := ev.nextOfType(t, "gameStart"); str(g, "game", "gameId") != id || g["game"].(map[string]any)["isMyTurn"] != false {
		t.Fatalf("gameStart at open %v", g)
	}
	w := playingEntry(t, base, "tw", id)
	if w["isMyTurn"] != true || str(w, "speed") != "correspondence" || num(w, "secondsLeft") > 7200 || num(w, "secondsLeft") < 7000 {
		t.Fatalf("white's entry %v: want its turn, correspondence, about 7200 s left", w)
	}
	if snap, _ := s.Game(id); !snap.ClockRunning || snap.WhiteTime > 2*time.Hour || snap.BlackTime != 2*time.Hour {
		t.Fatalf("snapshot %+v: white's clock runs from the start, black's is full", snap)
	}
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	g := ev.nextOfType(t, "gameStart")
	if str(g, "game", "gameId") != id || g["game"].(map[string]any)["isMyTurn"] != true || str(g, "game", "lastMove") != "e2e4" {
		t.Fatalf("gameStart after white's move %v: want black's turn", g)
	}
	if w := playingEntry(t, base, "tw", id); w["isMyTurn"] != false || num(w, "secondsLeft") != 7200 {
		t.Fatalf("white's entry after the move %v: want 7200 s again, not its turn", w)
	}
	b := playingEntry(t, base, "tb", id)
	if b["isMyTurn"] != true || num(b, "secondsLeft") > 7200 || num(b, "secondsLeft") < 7000 {
		t.Fatalf("black's entry %v", b)
	}
	st := openStream(t, base, "tb", "/api/bot/game/stream/"+id)
	full := st.nextOfType(t, "gameFull")
	if num(full, "daysPerTurn") != 2 || full["clock"] != nil || stateOf(full)["expiration"] != nil {
		t.Fatalf("gameFull %v: want daysPerTurn 2, no clock, no first-move expiration", full)
	}
	if wt := num(stateOf(full), "wtime"); wt != 7200*1000 {
		t.Errorf("wtime %v, want white's full 2 days (of an hour)", wt)
	}
}

// A correspondence player who does not move in their days per move loses
// on time; there is no first-move abort.
func TestCorrespondenceTimeout(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithCorrespondenceDay(30*time.Millisecond))
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, err := s.Challenge("w", "b", ChallengeParams{Days: 1, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testsupport.WaitLimit)
	defer cancel()
	snap, err := s.WaitGameOver(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != "outoftime" || snap.Winner != "black" || snap.WhiteTime != 0 {
		t.Fatalf("snapshot %+v: want white out of time", snap)
	}
}
