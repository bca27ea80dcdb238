package lichesstest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestKeepAliveLines(t *testing.T) {
	s := newTestServer(t, WithKeepAlive(5*time.Millisecond))
	s.AddAccount("bot", "tok", true, 1500)
	s.AddAccount("opp", "topp", true, 1500)
	ev := openStream(t, s.URL(), "tok", "/api/stream/event")
	if ct := ev.header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("content type %q", ct)
	}
	id, _ := s.Challenge("opp", "bot", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	gs := openStream(t, s.URL(), "tok", "/api/bot/game/stream/"+id)
	for name, st := range map[string]*ndStream{"event": ev, "game": gs} {
		empty := 0
		for empty < 3 {
			select {
			case l, ok := <-st.lines:
				if !ok {
					t.Fatalf("%s stream ended", name)
				}
				if l == "" {
					empty++
				}
			case <-time.After(testsupport.WaitLimit):
				t.Fatalf("%s stream: only %d keep-alive lines", name, empty)
			}
		}
	}
}

func TestInjected429AndCoolDown(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	base := s.URL()
	s.Inject429("GET /api/account", 1, time.Minute)

	r := get(t, base, "tok", "/api/account")
	wantStatus(t, r, http.StatusTooManyRequests)
	if ra := r.header.Get("Retry-After"); ra != "60" {
		t.Errorf("Retry-After %q, want 60", ra)
	}
	if str(r.body, "error") == "" {
		t.Errorf("429 without an error JSON: %s", r.raw)
	}
	if s.CoolDownViolations() != 0 {
		t.Fatalf("violations before any retry: %d", s.CoolDownViolations())
	}
	// Another endpoint is outside the default (per-endpoint) cool-down.
	wantStatus(t, get(t, base, "tok", "/api/challenge"), 200)
	if s.CoolDownViolations() != 0 {
		t.Fatalf("another endpoint counted as a violation")
	}
	// Retrying inside the minute is a violation, answered normally
	// (the rule was for one request only, and enforcement is off).
	wantStatus(t, get(t, base, "tok", "/api/account"), 200)
	if s.CoolDownViolations() != 1 {
		t.Fatalf("violations %d, want 1", s.CoolDownViolations())
	}
	recs := s.RequestsMatching("GET /api/account")
	if len(recs) != 2 || recs[0].Status != 429 || recs[1].Status != 200 || !recs[1].InCoolDown || recs[0].InCoolDown {
		t.Fatalf("records %+v", recs)
	}
	if st := s.Stats(); st.TooManyRequests != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestEnforcedGlobalCoolDown(t *testing.T) {
	s := newTestServer(t, WithEnforcedCoolDown(), WithGlobalCoolDown())
	s.AddAccount("bot", "tok", true, 1500)
	s.AddAccount("other", "tok2", true, 1500)
	base := s.URL()
	s.Inject429("POST /api/bot/game/*/move/*", 1, time.Minute)
	r := post(t, base, "tok", "/api/bot/game/abcdefgh/move/e2e4", nil)
	wantStatus(t, r, http.StatusTooManyRequests)
	r = get(t, base, "tok", "/api/account")
	wantStatus(t, r, http.StatusTooManyRequests)
	if ra := r.header.Get("Retry-After"); ra == "" {
		t.Error("enforced 429 without Retry-After")
	}
	wantStatus(t, get(t, base, "tok2", "/api/account"), 200) // other clients are not affected
	if v := s.CoolDownViolations(); v != 1 {
		t.Fatalf("violations %d, want 1", v)
	}
}

func TestStreamDropAndReconnect(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, _ := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	ev := openStream(t, s.URL(), "tw", "/api/stream/event")
	ev.nextOfType(t, "gameStart")
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	gs.nextOfType(t, "gameState")
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.GameStreams(id, "w") == 1 }); err != nil {
		t.Fatal(err)
	}

	s.DropGameStreams(id)
	if err := gs.waitEnd(t); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("dropped game stream ended with %v, want an unexpected EOF", err)
	}
	s.DropEventStream("w")
	if err := ev.waitEnd(t); err == nil {
		t.Fatal("dropped event stream ended cleanly")
	}
	// The game goes on; a reconnect sees everything.
	if err := s.Move(id, "b", "e7e5"); err != nil {
		t.Fatal(err)
	}
	gs2 := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	if full := gs2.nextOfType(t, "gameFull"); str(full, "state", "moves") != "e2e4 e7e5" {
		t.Fatalf("gameFull after reconnect %v", full)
	}
	ev2 := openStream(t, s.URL(), "tw", "/api/stream/event")
	if g := ev2.nextOfType(t, "gameStart"); str(g, "game", "gameId") != id || str(g, "game", "lastMove") != "e7e5" {
		t.Fatalf("gameStart after reconnect %v", g)
	}
}

func TestSecondEventStreamClosesFirst(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	first := openStream(t, s.URL(), "tok", "/api/stream/event")
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.EventStreamOpen("bot") }); err != nil {
		t.Fatal(err)
	}
	_ = openStream(t, s.URL(), "tok", "/api/stream/event")
	if err := first.waitEnd(t); err != nil {
		t.Fatalf("first stream should end cleanly, got %v", err)
	}
}

func TestRestartKeepsGames(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, _ := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(id, "w", "d2d4"); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	gs := openStream(t, base, "tb", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")

	done := make(chan error, 1)
	go func() { done <- s.Restart(300 * time.Millisecond) }()
	if err := gs.waitEnd(t); err == nil {
		t.Fatal("stream survived a restart")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.URL() != base {
		t.Fatalf("URL changed: %s → %s", base, s.URL())
	}
	wantStatus(t, post(t, base, "tb", "/api/bot/game/"+id+"/move/d7d5", nil), 200)
	gs2 := openStream(t, base, "tb", "/api/bot/game/stream/"+id)
	if full := gs2.nextOfType(t, "gameFull"); str(full, "state", "moves") != "d2d4 d7d5" {
		t.Fatalf("after restart: %v", full)
	}
}

func TestInjectedUnknownLinesAndFields(t *testing.T) {
	s := newTestServer(t, WithUnknownFields())
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	ev := openStream(t, s.URL(), "tw", "/api/stream/event")
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.EventStreamOpen("w") }); err != nil {
		t.Fatal(err)
	}
	if !s.InjectEventLine("w", `{"type":"somethingNew","x":1}`) {
		t.Fatal("no stream to inject into")
	}
	if m := ev.next(t); m["type"] != "somethingNew" {
		t.Fatalf("injected line %v", m)
	}
	id, _ := s.Challenge("b", "w", ChallengeParams{ClockLimit: time.Minute})
	ch := ev.nextOfType(t, "challenge")
	if _, ok := ch["ponderosaUnknownField"]; !ok || str(ch, "challenge", "id") != id {
		t.Fatalf("challenge event without the unknown field: %v", ch)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if !s.InjectGameLine(id, `{"type":"newGameLine"}`, "w") {
		t.Fatal("no game stream to inject into")
	}
	gs.nextOfType(t, "newGameLine")
}

func TestLatency(t *testing.T) {
	s := newTestServer(t, WithLatency(30*time.Millisecond, 40*time.Millisecond))
	s.AddAccount("bot", "tok", true, 1500)
	wantStatus(t, get(t, s.URL(), "tok", "/api/account"), 200)
	recs := s.Requests()
	// A lower bound only: the injected delay happened.
	if len(recs) != 1 || recs[0].Duration < 30*time.Millisecond {
		t.Fatalf("records %+v", recs)
	}
	s.SetLatency(0, 0)
	wantStatus(t, get(t, s.URL(), "tok", "/api/account"), 200)
}

func TestDownHandlerCutsConnections(t *testing.T) {
	// The error text of a cut connection is the client's business; it
	// must not be a normal response.
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	s.mu.Lock()
	s.down = true
	s.mu.Unlock()
	req, _ := http.NewRequest("GET", s.URL()+"/api/account", nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got status %d while down", resp.StatusCode)
	}
	if !strings.Contains(err.Error(), "EOF") {
		t.Logf("error while down: %v", err)
	}
}

func TestInjectError(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	s.InjectError("/api/account", 1, http.StatusBadGateway)
	r := get(t, s.URL(), "tok", "/api/account")
	wantStatus(t, r, http.StatusBadGateway)
	if !strings.Contains(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("502 content type %q", r.header.Get("Content-Type"))
	}
	wantStatus(t, get(t, s.URL(), "tok", "/api/account"), 200)
	if v := s.CoolDownViolations(); v != 0 {
		t.Errorf("a 502 started a cool-down: %d violations", v)
	}
}

func TestConcurrentRequestsCounted(t *testing.T) {
	s := newTestServer(t, WithLatency(time.Hour, time.Hour))
	s.AddAccount("bot", "tok", true, 1500)
	s.AddAccount("other", "tok2", true, 1500)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/api/account", nil)
	req.Header.Set("Authorization", "Bearer tok")
	first := make(chan struct{})
	go func() {
		defer close(first)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if err := s.WaitFor(testsupport.Context(t), func() bool { return len(s.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	s.SetLatency(0, 0)
	wantStatus(t, get(t, s.URL(), "tok2", "/api/account"), 200) // another client: fine
	if n := s.Stats().ConcurrentRequests; n != 0 {
		t.Fatalf("other client's request counted: %d", n)
	}
	wantStatus(t, get(t, s.URL(), "tok", "/api/account"), 200) // same client, first still pending
	if n := s.Stats().ConcurrentRequests; n != 1 {
		t.Fatalf("concurrent requests %d, want 1", n)
	}
	cancel()
	<-first
}

func TestRateLimit(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	s.AddAccount("other", "tok2", true, 1500)
	s.SetRateLimit("POST /api/challenge/*", 2, time.Hour, time.Minute)
	base := s.URL()
	form := map[string][]string{"clock.limit": {"60"}, "clock.increment": {"0"}}
	wantStatus(t, post(t, base, "tok", "/api/challenge/other", form), 200)
	wantStatus(t, post(t, base, "tok", "/api/challenge/other", form), 200)
	r := post(t, base, "tok", "/api/challenge/other", form)
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	wantStatus(t, post(t, base, "tok2", "/api/challenge/bot", form), 200) // per client
	wantStatus(t, get(t, base, "tok", "/api/challenge"), 200)             // other endpoints
	if s.CoolDownViolations() != 0 {
		t.Fatalf("violations %d", s.CoolDownViolations())
	}
	post(t, base, "tok", "/api/challenge/other", form)
	if s.CoolDownViolations() != 1 {
		t.Fatalf("violations %d, want 1", s.CoolDownViolations())
	}
}

// TestConcurrentUse runs games, streams and faults at once so the race
// detector can see the locking.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithKeepAlive(2*time.Millisecond), WithAutoGone(5*time.Millisecond), WithClaimWait(time.Millisecond))
	base := s.URL()
	for _, n := range []string{"h1", "h2", "h3", "h4"} {
		s.AddAccount(n, "t"+n, true, 1500)
		if err := s.SetHousePlayer(n, HouseOptions{Strategy: HouseRandom, AcceptDraws: true}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, pair := range [][2]string{{"h1", "h2"}, {"h3", "h4"}} {
		id, err := s.Challenge(pair[0], pair[1], ChallengeParams{ClockLimit: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			switch i % 6 {
			case 0:
				s.DropAllStreams()
			case 1:
				s.SetLatency(0, time.Millisecond)
			case 2:
				_ = s.Games()
				_ = s.Requests()
			case 3:
				_ = s.Draw(ids[0], "h1", true)
			case 4:
				s.InjectEventLine("h1", `{"type":"x"}`)
			case 5:
				_ = s.Chat(ids[1], "h3", "player", "hi")
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for _, tok := range []string{"th1", "th3"} {
		_ = openStream(t, base, tok, "/api/stream/event")
	}
	for _, id := range ids {
		_ = openStream(t, base, "th2", "/api/bot/game/stream/"+id)
		_ = openStream(t, base, "", "/api/stream/game/"+id)
	}
	for _, id := range ids {
		if _, err := s.WaitGameOver(testsupport.Context(t), id); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	<-done
}

func TestInjected429WithoutRetryAfter(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	s.Inject429("/api/account", 1, 0)
	r := get(t, s.URL(), "tok", "/api/account")
	wantStatus(t, r, http.StatusTooManyRequests)
	if _, ok := r.header["Retry-After"]; ok {
		t.Fatalf("Retry-After %q, want none", r.header.Get("Retry-After"))
	}
	get(t, s.URL(), "tok", "/api/account") // well within the minute
	if v := s.CoolDownViolations(); v != 1 {
		t.Fatalf("violations %d, want 1", v)
	}
}

// A lost answer: the move is played, the client sees its connection cut,
// and the record keeps the status the server meant to send.
func TestInjectLostAnswer(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	s.InjectLostAnswer("POST /api/bot/game/*/move/*", 1)
	req, err := http.NewRequest("POST", s.URL()+"/api/bot/game/"+id+"/move/e2e4", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tw")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("lost answer arrived: status %d", resp.StatusCode)
	}
	if snap, _ := s.Game(id); strings.Join(snap.Moves, " ") != "e2e4" {
		t.Fatalf("moves %v: the move did not take effect", snap.Moves)
	}
	recs := s.RequestsMatching("POST /api/bot/game/*/move/*")
	if len(recs) != 1 || !recs[0].Lost || recs[0].Status != 200 {
		t.Fatalf("records %+v", recs)
	}
	// The next one is answered.
	wantStatus(t, post(t, s.URL(), "tb", "/api/bot/game/"+id+"/move/e7e5", nil), 200)
}

// A silenced stream answers 200 and then writes nothing at all.
func TestInjectSilence(t *testing.T) {
	s := newTestServer(t, WithKeepAlive(5*time.Millisecond))
	s.AddAccount("bot", "tok", true, 1500)
	s.InjectSilence("GET /api/stream/event", 1)
	st := openStream(t, s.URL(), "tok", "/api/stream/event")
	if st.status != 200 {
		t.Fatalf("status %d", st.status)
	}
	select {
	case l, ok := <-st.lines:
		t.Fatalf("silenced stream wrote %q (open %v)", l, ok)
	case <-time.After(100 * time.Millisecond): // twenty keep-alive periods
	}
	if s.EventStreamOpen("bot") {
		t.Error("a silenced event stream counts as open")
	}
	st.cancel()
	// The next stream is served.
	next := openStream(t, s.URL(), "tok", "/api/stream/event")
	if l := <-next.lines; l != "" {
		t.Fatalf("first line %q, want a keep-alive", l)
	}
}

func TestRepeatGameStateAndDropAfter(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	if s.RepeatGameState(id) {
		t.Fatal("state repeated with no stream open")
	}
	s.DropGameStreamsAfter(id, 2)
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	if st := gs.nextOfType(t, "gameState"); plies(st) != 1 {
		t.Fatalf("state %v", st)
	}
	if !s.RepeatGameState(id) {
		t.Fatal("state not repeated")
	}
	if st := gs.nextOfType(t, "gameState"); str(st, "moves") != "e2e4" {
		t.Fatalf("repeated state %v", st)
	}
	if err := s.Move(id, "b", "e7e5"); err != nil {
		t.Fatal(err)
	}
	for m := gs.next(t); m != nil; m = gs.next(t) {
	}
	if err := gs.waitEnd(t); err == nil {
		t.Fatal("the stream ended cleanly, want it cut after ply 2")
	}
	if s.GameStreams(id, "w") != 0 {
		t.Error("a cut stream still counts")
	}
	// Only once: a new stream sees the next states.
	gs = openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.Move(id, "w", "g1f3"); err != nil {
		t.Fatal(err)
	}
	if st := gs.nextOfType(t, "gameState"); plies(st) != 3 {
		t.Fatalf("state %v", st)
	}
}

// A record shows the status of its answer as soon as the answer starts: an
// open stream is recorded 200 before it ends.
func TestRecordStatusWhileStreaming(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	st := openStream(t, s.URL(), "tok", "/api/stream/event")
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.EventStreamOpen("bot") }); err != nil {
		t.Fatal(err)
	}
	recs := s.RequestsMatching("GET /api/stream/event")
	if len(recs) != 1 || recs[0].Status != 200 || recs[0].Duration != 0 {
		t.Fatalf("records of an open stream %+v", recs)
	}
	st.cancel()
	if err := s.WaitFor(testsupport.Context(t), func() bool { return s.RequestsMatching("GET /api/stream/event")[0].Duration > 0 }); err != nil {
		t.Fatal(err)
	}
}

func TestRevokeToken(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("bot", "tok", true, 1500)
	s.AddAccount("other", "tok2", true, 1500)
	base := s.URL()
	st := openStream(t, base, "tok", "/api/stream/event")
	wantStatus(t, get(t, base, "tok", "/api/account"), 200)

	if !s.RevokeToken("tok") {
		t.Fatal("RevokeToken of a known token reported false")
	}
	if s.RevokeToken("tok") || s.RevokeToken("nope") {
		t.Error("RevokeToken of an unknown token reported true")
	}
	r := get(t, base, "tok", "/api/account")
	wantStatus(t, r, http.StatusUnauthorized)
	if str(r.body, "error") != "No such token" {
		t.Errorf("401 body %s", r.raw)
	}
	wantStatus(t, get(t, base, "tok", "/api/stream/event"), http.StatusUnauthorized)
	// The other account's token still works.
	wantStatus(t, get(t, base, "tok2", "/api/account"), 200)
	// The open stream is not cut by the revocation.
	if !s.InjectEventLine("bot", `{"type":"ping"}`) {
		t.Fatal("the event stream opened before the revocation is closed")
	}
	if m := st.next(t); m["type"] != "ping" {
		t.Errorf("stream line %v", m)
	}
	st.cancel()
}
