package lichesstest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestAuth(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("Bot1", "tokbot", true, 1500)
	s.AddAccount("Human", "tokhuman", false, 1700)
	base := s.URL()

	r := get(t, base, "tokbot", "/api/account")
	wantStatus(t, r, 200)
	if str(r.body, "id") != "bot1" || str(r.body, "username") != "Bot1" || str(r.body, "title") != "BOT" {
		t.Fatalf("account %s", r.raw)
	}
	if sc := r.header.Get("X-OAuth-Scopes"); !strings.Contains(sc, "bot:play") {
		t.Errorf("X-OAuth-Scopes %q", sc)
	}
	r = get(t, base, "tokhuman", "/api/account")
	if _, hasTitle := r.body["title"]; hasTitle {
		t.Errorf("human with a title: %s", r.raw)
	}
	for _, tok := range []string{"", "wrong"} {
		r = get(t, base, tok, "/api/account")
		wantStatus(t, r, http.StatusUnauthorized)
		if str(r.body, "error") == "" {
			t.Errorf("401 without error JSON: %s", r.raw)
		}
	}
	// A token without bot:play cannot use the bot API.
	s.SetScopes("Bot1", ScopeChallengeRead)
	r = get(t, base, "tokbot", "/api/bot/game/stream/whatever")
	wantStatus(t, r, http.StatusForbidden)
	if sc := r.header.Get("X-OAuth-Scopes"); sc != "challenge:read" {
		t.Errorf("X-OAuth-Scopes %q", sc)
	}

	// POST /api/token/test
	req, _ := http.NewRequest("POST", base+"/api/token/test", strings.NewReader("tokhuman,nope"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tt map[string]*struct {
		UserID string `json:"userId"`
		Scopes string `json:"scopes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tt); err != nil {
		t.Fatal(err)
	}
	if tt["tokhuman"] == nil || tt["tokhuman"].UserID != "human" || !strings.Contains(tt["tokhuman"].Scopes, "board:play") {
		t.Errorf("token test %+v", tt["tokhuman"])
	}
	if v, ok := tt["nope"]; !ok || v != nil {
		t.Errorf("bad token should map to null, got %v (present %v)", v, ok)
	}
}

func TestUpgradeToBot(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("Fresh", "tok", false, 1500)
	s.SetScopes("Fresh", ScopeBotPlay)
	base := s.URL()
	wantStatus(t, post(t, base, "tok", "/api/bot/account/upgrade", nil), 200)
	if r := get(t, base, "tok", "/api/account"); str(r.body, "title") != "BOT" {
		t.Fatalf("after upgrade: %s", r.raw)
	}
	wantStatus(t, post(t, base, "tok", "/api/bot/account/upgrade", nil), 400)
}

func TestDeclineReasons(t *testing.T) {
	cases := []struct{ form, key string }{
		{"", "generic"}, {"tooFast", "toofast"}, {"tooSlow", "tooslow"}, {"timeControl", "timecontrol"},
		{"rated", "rated"}, {"casual", "casual"}, {"standard", "standard"}, {"variant", "variant"},
		{"noBot", "nobot"}, {"onlyBot", "onlybot"}, {"later", "later"}, {"generic", "generic"},
	}
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1500)
	base := s.URL()
	ev := openStream(t, base, "tthem", "/api/stream/event")
	for _, c := range cases {
		id, err := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ev.nextOfType(t, "challenge")
		form := url.Values{}
		if c.form != "" {
			form.Set("reason", c.form)
		}
		wantStatus(t, post(t, base, "tme", "/api/challenge/"+id+"/decline", form), 200)
		d := ev.nextOfType(t, "challengeDeclined")
		if str(d, "challenge", "id") != id || str(d, "challenge", "status") != "declined" ||
			str(d, "challenge", "declineReasonKey") != c.key || str(d, "challenge", "declineReason") == "" {
			t.Errorf("reason %q: event %v", c.form, d)
		}
	}
	id, _ := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
	wantStatus(t, post(t, base, "tme", "/api/challenge/"+id+"/decline", url.Values{"reason": {"bogus"}}), 400)
	wantStatus(t, post(t, base, "tme", "/api/challenge/nosuch/decline", nil), 404)
}

func TestChallengeListShowCancel(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", false, 1500)
	base := s.URL()
	evMe := openStream(t, base, "tme", "/api/stream/event")
	r := post(t, base, "tthem", "/api/challenge/me", url.Values{"days": {"3"}, "color": {"white"}})
	wantStatus(t, r, 200)
	id := str(r.body, "id")
	if str(r.body, "speed") != "correspondence" || str(r.body, "timeControl", "type") != "correspondence" ||
		num(r.body, "timeControl", "daysPerTurn") != 3 {
		t.Fatalf("correspondence challenge %s", r.raw)
	}
	ch := evMe.nextOfType(t, "challenge")
	if b, ok := ch["compat"].(map[string]any); !ok || b["bot"] != true {
		t.Errorf("challenge compat %v", ch["compat"])
	}
	l := get(t, base, "tme", "/api/challenge")
	in, _ := l.body["in"].([]any)
	out, _ := l.body["out"].([]any)
	if len(in) != 1 || len(out) != 0 || str(in[0].(map[string]any), "direction") != "in" {
		t.Fatalf("list %s", l.raw)
	}
	sh := get(t, base, "tthem", "/api/challenge/"+id+"/show")
	if str(sh.body, "direction") != "out" || str(sh.body, "status") != "created" {
		t.Fatalf("show %s", sh.raw)
	}
	wantStatus(t, post(t, base, "tme", "/api/challenge/"+id+"/cancel", nil), 404) // only the challenger cancels
	wantStatus(t, post(t, base, "tthem", "/api/challenge/"+id+"/cancel", nil), 200)
	c := evMe.nextOfType(t, "challengeCanceled")
	if str(c, "challenge", "id") != id || str(c, "challenge", "status") != "canceled" {
		t.Fatalf("canceled event %v", c)
	}
	wantStatus(t, post(t, base, "tme", "/api/challenge/"+id+"/accept", nil), 404)
	if st, _ := s.ChallengeStatus(id); st != "canceled" {
		t.Fatalf("status %s", st)
	}
}

func TestChallengeValidation(t *testing.T) {
	s := newTestServer(t, WithLichessLimits())
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1500)
	base := s.URL()
	bad := []url.Values{
		{"clock.limit": {"2"}, "clock.increment": {"0"}},  // not a Lichess clock value
		{"clock.limit": {"15"}, "clock.increment": {"0"}}, // ultraBullet between bots
		{"clock.limit": {"60"}},                           // increment missing
		{"clock.limit": {"60"}, "clock.increment": {"0"}, "color": {"purple"}},
		{"days": {"4"}},
		{"clock.limit": {"60"}, "clock.increment": {"0"}, "variant": {"shogi"}},
		{"clock.limit": {"60"}, "clock.increment": {"0"}, "fen": {"not a fen"}},
		{"clock.limit": {"60"}, "clock.increment": {"0"}, "fen": {"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}, "rated": {"true"}},
	}
	for _, f := range bad {
		r := post(t, base, "tme", "/api/challenge/them", f)
		if r.status != 400 || str(r.body, "error") == "" {
			t.Errorf("%v: status %d %s", f, r.status, r.raw)
		}
	}
	wantStatus(t, post(t, base, "tme", "/api/challenge/nobody", url.Values{"clock.limit": {"60"}, "clock.increment": {"0"}}), 400)
	wantStatus(t, post(t, base, "tme", "/api/challenge/me", url.Values{"clock.limit": {"60"}, "clock.increment": {"0"}}), 400)
	r := post(t, base, "tme", "/api/challenge/them", url.Values{"clock.limit": {"180"}, "clock.increment": {"2"}})
	wantStatus(t, r, 200)
	if str(r.body, "speed") != "blitz" || str(r.body, "timeControl", "show") != "3+2" || num(r.body, "timeControl", "limit") != 180 {
		t.Fatalf("3+2 challenge %s", r.raw)
	}
	// Chess960 challenges can be made (and declined), not played.
	r = post(t, base, "tme", "/api/challenge/them", url.Values{"clock.limit": {"180"}, "clock.increment": {"2"}, "variant": {"chess960"}})
	wantStatus(t, r, 200)
	wantStatus(t, post(t, base, "tthem", "/api/challenge/"+str(r.body, "id")+"/accept", nil), 400)
}

func TestChallengeExpires(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithChallengeTTL(50*time.Millisecond))
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1500)
	ev := openStream(t, s.URL(), "tme", "/api/stream/event")
	id, _ := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
	ev.nextOfType(t, "challenge")
	if c := ev.nextOfType(t, "challengeCanceled"); str(c, "challenge", "id") != id {
		t.Fatalf("expiry event %v", c)
	}
}

func TestEventStreamReplaysOpenChallengesAndGames(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("me", "tme", true, 1500)
	s.AddAccount("them", "tthem", true, 1500)
	gid, _ := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
	if err := s.AcceptChallenge(gid); err != nil {
		t.Fatal(err)
	}
	cid, _ := s.Challenge("them", "me", ChallengeParams{ClockLimit: time.Minute})
	ev := openStream(t, s.URL(), "tme", "/api/stream/event")
	if g := ev.next(t); g["type"] != "gameStart" || str(g, "game", "gameId") != gid {
		t.Fatalf("first line %v", g)
	}
	if c := ev.next(t); c["type"] != "challenge" || str(c, "challenge", "id") != cid {
		t.Fatalf("second line %v", c)
	}
	r := get(t, s.URL(), "tme", "/api/account/playing")
	np, _ := r.body["nowPlaying"].([]any)
	if len(np) != 1 || str(np[0].(map[string]any), "gameId") != gid {
		t.Fatalf("playing %s", r.raw)
	}
}

func TestBotOnline(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("a", "ta", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	s.AddAccount("h", "th", false, 1500)
	_ = openStream(t, s.URL(), "ta", "/api/stream/event")
	_ = openStream(t, s.URL(), "th", "/api/stream/event")
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.EventStreamOpen("a") && s.EventStreamOpen("h") }); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL() + "/api/bot/online")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ids []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var u map[string]any
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, str(u, "id"))
		if str(u, "title") != "BOT" {
			t.Errorf("online bot without title: %v", u)
		}
	}
	if strings.Join(ids, ",") != "a" {
		t.Fatalf("online bots %v, want [a]", ids)
	}
}
