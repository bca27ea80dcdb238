package lichesstest

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// An arena from creation to its end through the endpoints a bot uses:
// the scope, the password, bots' admission, pairMeAsap as the condition
// of a pairing, the gameStart with tournamentId, pausing, the states that
// GET /api/tournament/{id} tells.
func TestArenaEndpoints(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("house", "thouse", true, 1500)
	if err := s.SetHousePlayer("house", HouseOptions{ThinkTime: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	closed := s.CreateArena(ArenaParams{ClockLimit: time.Minute, Minutes: 30})
	id := s.CreateArena(ArenaParams{Name: "Bot Arena", ClockLimit: time.Minute, ClockIncrement: time.Second,
		Minutes: 30, BotsAllowed: true, Password: "pw"})
	if len(id) != 8 {
		t.Fatalf("arena id %q: want 8 characters", id)
	}
	path := "/api/tournament/" + id

	// No tournament:write scope: 403, as Lichess.
	wantStatus(t, post(t, base, "tme", path+"/join", url.Values{"password": {"pw"}}), 403)
	s.SetScopes("me", ScopeBotPlay, ScopeTournamentWrite)
	wantStatus(t, post(t, base, "tme", "/api/tournament/nosuchid/join", nil), 404)
	if r := post(t, base, "tme", "/api/tournament/"+closed+"/join", nil); r.status != 400 || !strings.Contains(str(r.body, "error"), "Bots") {
		t.Fatalf("bot joins an arena without bots: %d %s", r.status, r.raw)
	}
	if r := post(t, base, "tme", path+"/join", url.Values{"password": {"wrong"}}); r.status != 400 || str(r.body, "error") == "" {
		t.Fatalf("wrong password: %d %s", r.status, r.raw)
	}
	r := get(t, base, "", path) // no token needed
	wantStatus(t, r, 200)
	for _, k := range []string{"id", "fullName", "clock", "nbPlayers"} { // ArenaTournamentFull's required fields
		if _, ok := r.body[k]; !ok {
			t.Errorf("GET %s lacks %q: %s", path, k, r.raw)
		}
	}
	if num(r.body, "secondsToStart") <= 0 || r.body["isFinished"] == true || num(r.body, "clock", "limit") != 60 {
		t.Errorf("created arena: %s", r.raw)
	}
	wantStatus(t, post(t, base, "tme", path+"/join", url.Values{"password": {"pw"}, "pairMeAsap": {"true"}}), 200)
	if err := s.JoinArena(id, "house", "pw", ""); err != nil {
		t.Fatal(err)
	}
	// pairMeAsap before the start makes nobody wait.
	if err := s.StartArena(id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PairArena(id, "me", "house"); err == nil || !strings.Contains(err.Error(), "not waiting") {
		t.Fatalf("paired a player who asked no pairMeAsap since the start: %v", err)
	}
	if r := get(t, base, "", path); num(r.body, "secondsToFinish") <= 0 || r.body["secondsToStart"] != nil {
		t.Errorf("started arena: %s", r.raw)
	}
	ev := openStream(t, base, "tme", "/api/stream/event")
	wantStatus(t, post(t, base, "tme", path+"/join", url.Values{"pairMeAsap": {"true"}, "password": {"pw"}}), 200)
	if !s.ArenaWaiting(id, "me") || !s.ArenaWaiting(id, "house") {
		t.Fatal("joined players with pairMeAsap do not wait")
	}
	gid, err := s.PairArena(id, "me", "house")
	if err != nil {
		t.Fatal(err)
	}
	gs := ev.nextOfType(t, "gameStart")
	if str(gs, "game", "gameId") != gid || str(gs, "game", "tournamentId") != id || str(gs, "game", "source") != "arena" {
		t.Errorf("gameStart of the pairing: %v", gs)
	}
	if len(s.RequestsMatching("/api/challenge")) != 0 {
		t.Error("a pairing went through a challenge")
	}
	gf := openStream(t, base, "tme", "/api/bot/game/stream/"+gid).nextOfType(t, "gameFull")
	if str(gf, "tournamentId") != id {
		t.Errorf("gameFull lacks the tournamentId: %v", gf)
	}
	if _, err := s.PairArena(id, "me", "house"); err == nil {
		t.Error("paired a player during their game of the arena")
	}
	// Withdrawing pauses: no pairing, even with the game over.
	wantStatus(t, post(t, base, "tme", "/api/bot/game/"+gid+"/resign", nil), 200)
	wantStatus(t, post(t, base, "tme", path+"/withdraw", nil), 200)
	if s.ArenaWaiting(id, "me") {
		t.Error("a paused player waits")
	}
	snap, _ := s.Arena(id)
	if len(snap.Players) != 2 || !snap.Players[0].Paused || snap.Players[0].Joins != 2 || snap.Players[0].Withdrawals != 1 ||
		len(snap.Games) != 1 || snap.Games[0] != gid {
		t.Errorf("snapshot %+v", snap)
	}
	if err := s.FinishArena(id); err != nil {
		t.Fatal(err)
	}
	if r := get(t, base, "", path); r.body["isFinished"] != true {
		t.Errorf("finished arena: %s", r.raw)
	}
	if r := post(t, base, "tme", path+"/join", url.Values{"password": {"pw"}}); r.status != 400 {
		t.Errorf("join after the end: %d %s", r.status, r.raw)
	}
}

// Withdrawing before the start leaves the arena.
func TestArenaWithdrawBeforeStart(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.SetScopes("me", ScopeTournamentWrite)
	id := s.CreateArena(ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Teams: []string{"red"}})
	if r := post(t, s.URL(), "tme", "/api/tournament/"+id+"/join", nil); r.status != 400 {
		t.Fatalf("team battle joined without a team: %d %s", r.status, r.raw)
	}
	wantStatus(t, post(t, s.URL(), "tme", "/api/tournament/"+id+"/join", url.Values{"team": {"red"}}), 200)
	if snap, _ := s.Arena(id); len(snap.Players) != 1 || snap.Players[0].Team != "red" {
		t.Fatalf("after the join: %+v", snap)
	}
	wantStatus(t, post(t, s.URL(), "tme", "/api/tournament/"+id+"/withdraw", nil), 200)
	if snap, _ := s.Arena(id); len(snap.Players) != 0 {
		t.Errorf("after withdrawing before the start: %+v", snap)
	}
}

// With PauseDelay, a player who withdrew from the running arena cannot
// join again before the delay is over (Lichess' 400 "Your pause is not
// over yet"); after it, the join ends the pause.
func TestArenaPauseDelay(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.SetScopes("me", ScopeTournamentWrite)
	const delay = 500 * time.Millisecond
	id := s.CreateArena(ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, PauseDelay: delay})
	if err := s.StartArena(id); err != nil {
		t.Fatal(err)
	}
	path := "/api/tournament/" + id
	wantStatus(t, post(t, s.URL(), "tme", path+"/join", nil), 200)
	withdrewAt := time.Now()
	wantStatus(t, post(t, s.URL(), "tme", path+"/withdraw", nil), 200)
	r := post(t, s.URL(), "tme", path+"/join", url.Values{"pairMeAsap": {"true"}})
	if time.Since(withdrewAt) < delay && (r.status != 400 || str(r.body, "error") != "Your pause is not over yet") {
		t.Fatalf("join within the pause: %d %s", r.status, r.raw)
	}
	if snap, _ := s.Arena(id); !snap.Players[0].Paused || snap.Players[0].Joins != 1 {
		t.Errorf("a refused join changed the player: %+v", snap.Players[0])
	}
	time.Sleep(time.Until(withdrewAt.Add(delay + 10*time.Millisecond)))
	wantStatus(t, post(t, s.URL(), "tme", path+"/join", url.Values{"pairMeAsap": {"true"}}), 200)
	if !s.ArenaWaiting(id, "me") {
		t.Error("the join after the pause does not end it")
	}
}
