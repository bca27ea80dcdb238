package lichesstest

import (
	"net/url"
	"sort"
	"testing"
	"time"
)

// Required fields per line type, from the Lichess OpenAPI spec
// (lichess-org/api doc/specs/schemas, bot subset: GameFullEvent.yaml,
// GameStateEvent.yaml, ChallengeJson.yaml, ChallengeDeclinedJson.yaml,
// GameEventInfo.yaml, ChatLineEvent.yaml, OpponentGoneEvent.yaml,
// tags/games/api-account-playing.yaml), plus the keys the spec's examples
// show (examples/stream-gameStart.json.yaml, stream-challenge.json.yaml).
var requiredKeys = map[string][]string{
	"gameFull":          {"type", "id", "variant", "speed", "perf", "rated", "createdAt", "white", "black", "initialFen", "state", "clock"},
	"gameState":         {"type", "moves", "wtime", "btime", "winc", "binc", "status"},
	"challenge":         {"type", "challenge", "compat"},
	"challengeJson":     {"id", "url", "status", "challenger", "destUser", "variant", "rated", "speed", "timeControl", "color", "perf", "finalColor"},
	"challengeDeclined": {"type", "challenge"},
	"declinedJson":      {"declineReason", "declineReasonKey"},
	"gameEventInfo": {"fullId", "gameId", "fen", "color", "lastMove", "source", "status", "variant", "speed", "perf",
		"rated", "hasMoved", "opponent", "isMyTurn", "secondsLeft", "rating", "compat", "id"},
	"chatLine":     {"type", "room", "username", "text"},
	"opponentGone": {"type", "gone", "claimWinInSeconds"},
	"nowPlaying": {"gameId", "fullId", "color", "fen", "hasMoved", "isMyTurn", "lastMove", "opponent", "perf",
		"rated", "rating", "secondsLeft", "source", "speed", "variant"},
}

func checkKeys(t *testing.T, what string, m map[string]any) {
	t.Helper()
	var missing []string
	for _, k := range requiredKeys[what] {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Errorf("%s lacks %v: %v", what, missing, m)
	}
}

func TestLinesHaveSpecFields(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1500)
	base := s.URL()
	evMe := openStream(t, base, "tme", "/api/stream/event")
	evThem := openStream(t, base, "tthem", "/api/stream/event")

	r := post(t, base, "tthem", "/api/challenge/me", url.Values{"clock.limit": {"60"}, "clock.increment": {"1"}})
	checkKeys(t, "challengeJson", r.body)
	ch := evMe.nextOfType(t, "challenge")
	checkKeys(t, "challenge", ch)
	checkKeys(t, "challengeJson", ch["challenge"].(map[string]any))
	wantStatus(t, post(t, base, "tme", "/api/challenge/"+str(r.body, "id")+"/decline", url.Values{"reason": {"later"}}), 200)
	d := evThem.nextOfType(t, "challengeDeclined")
	checkKeys(t, "challengeDeclined", d)
	checkKeys(t, "declinedJson", d["challenge"].(map[string]any))

	id, _ := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute, ClockIncrement: time.Second})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	gs := evMe.nextOfType(t, "gameStart")
	checkKeys(t, "gameEventInfo", gs["game"].(map[string]any))
	stream := openStream(t, base, "tme", "/api/bot/game/stream/"+id)
	full := stream.nextOfType(t, "gameFull")
	checkKeys(t, "gameFull", full)
	checkKeys(t, "gameState", full["state"].(map[string]any))
	if full["state"].(map[string]any)["type"] != "gameState" {
		t.Errorf("gameFull.state.type %v", full["state"])
	}
	snap, _ := s.Game(id)
	if err := s.Move(id, snap.White, "e2e4"); err != nil {
		t.Fatal(err)
	}
	checkKeys(t, "gameState", stream.nextOfType(t, "gameState"))
	if err := s.Move(id, snap.Black, "e7e5"); err != nil {
		t.Fatal(err)
	}
	if err := s.Chat(id, "them", "player", "hello"); err != nil {
		t.Fatal(err)
	}
	checkKeys(t, "chatLine", stream.nextOfType(t, "chatLine"))
	if err := s.SetGone(id, "them", true, time.Hour); err != nil {
		t.Fatal(err)
	}
	checkKeys(t, "opponentGone", stream.nextOfType(t, "opponentGone"))

	p := get(t, base, "tme", "/api/account/playing")
	np := p.body["nowPlaying"].([]any)
	if len(np) != 1 {
		t.Fatalf("nowPlaying %s", p.raw)
	}
	checkKeys(t, "nowPlaying", np[0].(map[string]any))
	if g := np[0].(map[string]any); str(g, "status", "name") != "started" || num(g, "status", "id") != 20 {
		t.Errorf("nowPlaying status %v, want the GameStatus object", g["status"])
	}

	if err := s.Resign(id, "me"); err != nil {
		t.Fatal(err)
	}
	gf := evMe.nextOfType(t, "gameFinish")
	checkKeys(t, "gameEventInfo", gf["game"].(map[string]any))
	if str(gf, "game", "status", "name") != "resign" || num(gf, "game", "status", "id") != 31 {
		t.Errorf("gameFinish status %v", gf["game"])
	}
}
