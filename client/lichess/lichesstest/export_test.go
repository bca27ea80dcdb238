package lichesstest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestExportGame: GET /game/export/{id} answers PGN by default and
// GameJson (moves in SAN, the PGN with pgnInJson) with Accept: JSON, for a
// game in progress and a finished one, without a token; 404 for none.
func TestExportGame(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("Bot", "tb", true, 2000)
	s.AddAccount("Human", "th", false, 1700)
	id, err := s.Challenge("Human", "Bot", ChallengeParams{Rated: true, ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	export := func(accept string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL()+"/game/export/"+id+"?pgnInJson=true", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, m := range []struct{ who, uci string }{{"Human", "e2e4"}, {"Bot", "e7e5"}, {"Human", "g1f3"}} {
		if err := s.Move(id, m.who, m.uci); err != nil {
			t.Fatal(err)
		}
	}
	var g map[string]any
	st, body := export("application/json")
	if st != 200 || json.Unmarshal([]byte(body), &g) != nil || g["status"] != "started" || g["moves"] != "e4 e5 Nf3" {
		t.Fatalf("in progress: %d %s", st, body)
	}
	if err := s.Resign(id, "Bot"); err != nil {
		t.Fatal(err)
	}
	st, body = export("application/json")
	g = nil
	if st != 200 || json.Unmarshal([]byte(body), &g) != nil {
		t.Fatalf("finished: %d %s", st, body)
	}
	if g["id"] != id || g["status"] != "resign" || g["winner"] != "white" || g["rated"] != true || g["speed"] != "blitz" || g["variant"] != "standard" ||
		str(g, "players", "white", "user", "name") != "Human" || str(g, "players", "black", "user", "id") != "bot" ||
		str(g, "players", "black", "user", "title") != "BOT" || num(g, "players", "white", "rating") != 1700 ||
		num(g, "clock", "initial") != 180 || num(g, "clock", "increment") != 2 ||
		num(g, "players", "white", "ratingDiff") <= 0 || num(g, "lastMoveAt") < num(g, "createdAt") ||
		!strings.Contains(str(g, "pgn"), "1. e4 e5 2. Nf3 1-0") {
		t.Errorf("finished game: %s", body)
	}
	if st, body := export(""); st != 200 || !strings.Contains(body, `[White "Human"]`) || !strings.Contains(body, "1. e4 e5 2. Nf3 1-0") {
		t.Errorf("PGN: %d %s", st, body)
	}
	resp, err := http.Get(s.URL() + "/game/export/nosuch12")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("no such game: %d, want 404", resp.StatusCode)
	}
}
