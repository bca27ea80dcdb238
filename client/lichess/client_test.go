package lichess

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

func TestNewValidates(t *testing.T) {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"})
	if _, err := New("ftp://example.org", ts); err == nil {
		t.Error("ftp base URL accepted")
	}
	if _, err := New("", nil); err == nil {
		t.Error("nil token source accepted")
	}
	c, err := New("", ts)
	if err != nil || c.BaseURL() != DefaultBaseURL {
		t.Errorf("default base URL: %v %v", c, err)
	}
}

func TestCheckToken(t *testing.T) {
	t.Run("header with bot:play", func(t *testing.T) {
		s := newServer(t)
		a, scopes, err := newTestClient(t, s.URL()).CheckToken(context.Background())
		if err != nil || a.ID != botID || !a.IsBot() || len(scopes) != 3 {
			t.Fatalf("CheckToken = %+v %v %v", a, scopes, err)
		}
		if n := requestCount(s, "POST /api/token/test"); n != 0 {
			t.Errorf("token test called %d times although the header was there", n)
		}
	})
	t.Run("header without bot:play", func(t *testing.T) {
		s := newServer(t)
		s.SetScopes(botName, "challenge:read", "board:play")
		_, _, err := newTestClient(t, s.URL()).CheckToken(context.Background())
		if err == nil || !strings.Contains(err.Error(), "bot:play") || !errors.Is(err, ErrMissingScope) || errors.Is(err, ErrTokenRefused) {
			t.Fatalf("CheckToken without bot:play: %v", err)
		}
		if strings.Contains(err.Error(), testToken) {
			t.Fatal("the token appears in the error")
		}
	})
	t.Run("no header: token test endpoint", func(t *testing.T) {
		s := newServer(t)
		s.SetScopes(botName)
		// The server always sends X-OAuth-Scopes; this proxy drops it.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.Handler().ServeHTTP(noScopesHeader{w}, r)
		}))
		defer srv.Close()
		_, _, err := newTestClient(t, srv.URL).CheckToken(context.Background())
		if err == nil {
			t.Fatal("no scopes accepted")
		}
		if n := requestCount(s, "POST /api/token/test"); n != 1 {
			t.Fatalf("token test called %d times, want 1", n)
		}
	})
	t.Run("bad token", func(t *testing.T) {
		s := newServer(t)
		c, _ := New(s.URL(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "lip_wrongSECRET"}))
		_, _, err := c.CheckToken(context.Background())
		if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "lip_wrongSECRET") || !errors.Is(err, ErrTokenRefused) {
			t.Fatalf("CheckToken with a bad token: %v", err)
		}
	})
}

// Any request to Lichess answered 401 because the token was revoked closes
// TokenRefused (GET /api/account confirms it); other errors (a 403) do not.
func TestTokenRefusedOnAnyCall(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	refused := func() bool {
		select {
		case <-c.TokenRefused():
			return true
		default:
			return false
		}
	}
	s.InjectError("GET /api/account", 1, http.StatusForbidden)
	if _, err := c.Account(context.Background()); StatusCode(err) != http.StatusForbidden || errors.Is(err, ErrTokenRefused) {
		t.Fatalf("Account with an injected 403: %v", err)
	}
	if _, err := c.Playing(context.Background(), 0); err != nil || refused() {
		t.Fatalf("before the revocation: err %v, refused %v", err, refused())
	}
	s.RevokeToken(testToken)
	_, err := c.Playing(context.Background(), 0)
	if StatusCode(err) != http.StatusUnauthorized || !errors.Is(err, ErrTokenRefused) {
		t.Fatalf("Playing with a revoked token: %v", err)
	}
	if !refused() {
		t.Fatal("a 401 did not close TokenRefused")
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// A 401 to one endpoint while GET /api/account still accepts the token is
// about that endpoint alone: it neither matches ErrTokenRefused nor closes
// TokenRefused, so one odd 401 cannot end the bot. The account is asked
// once per such 401.
func TestOdd401DoesNotRefuseToken(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	s.InjectError("GET /api/account/playing", 1, http.StatusUnauthorized)
	_, err := c.Playing(context.Background(), 0)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized || !ae.LichessToken || ae.Refused || errors.Is(err, ErrTokenRefused) {
		t.Fatalf("Playing with an injected 401: %v (%+v)", err, ae)
	}
	if isClosed(c.TokenRefused()) {
		t.Fatal("a 401 with the account still fine closed TokenRefused")
	}
	if n := requestCount(s, "GET /api/account"); n != 1 {
		t.Errorf("GET /api/account asked %d times, want once to confirm the 401", n)
	}
	if _, err := c.Playing(context.Background(), 0); err != nil {
		t.Fatalf("Playing after the odd 401: %v", err)
	}
	// A 401 to the account itself is the token refused, without asking
	// again.
	s.InjectError("GET /api/account", 1, http.StatusUnauthorized)
	if _, err := c.Account(context.Background()); !errors.Is(err, ErrTokenRefused) || !isClosed(c.TokenRefused()) {
		t.Fatalf("Account answered 401: %v, refused %v", err, isClosed(c.TokenRefused()))
	}
	if n := requestCount(s, "GET /api/account"); n != 2 {
		t.Errorf("GET /api/account asked %d times, want 2", n)
	}
}

// Only Lichess at the base URL can refuse the token: a 401 from another
// server, even with our token sent (the opening explorer), or to a request
// sent without the token, neither matches ErrTokenRefused nor closes
// TokenRefused, nor asks the account.
func TestTokenRefusedOnlyByLichess(t *testing.T) {
	s := newServer(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"No such token"}`))
	}))
	defer other.Close()
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	for _, r := range []request{
		{op: "other server with the token", method: http.MethodGet, base: other.URL, path: "/masters", limitKey: "x", essential: true},
		{op: "other server without the token", method: http.MethodGet, base: other.URL + "/", path: "/standard", limitKey: "y", essential: true, noAuth: true},
		{op: "Lichess without the token", method: http.MethodGet, path: "/api/account", limitKey: "z", essential: true, noAuth: true},
	} {
		err := c.doJSON(ctx, r, nil)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized || ae.LichessToken || errors.Is(err, ErrTokenRefused) {
			t.Errorf("%s: %v (%+v)", r.op, err, ae)
		}
	}
	if isClosed(c.TokenRefused()) {
		t.Fatal("a 401 not from Lichess with our token closed TokenRefused")
	}
	if n := requestCount(s, "GET /api/account"); n != 1 {
		t.Errorf("GET /api/account asked %d times, want once (the request without the token)", n)
	}
	// The base URL given per request is Lichess's own: its 401 counts.
	s.RevokeToken(testToken)
	err := c.doJSON(ctx, request{op: "Lichess as a per-request base", method: http.MethodGet, base: s.URL() + "/", path: "/api/account/playing", limitKey: "w", essential: true}, nil)
	if !errors.Is(err, ErrTokenRefused) || !isClosed(c.TokenRefused()) {
		t.Fatalf("revoked token, Lichess's base given per request: %v", err)
	}
}

// noScopesHeader drops the X-OAuth-Scopes header of the answers it writes.
type noScopesHeader struct{ http.ResponseWriter }

func (w noScopesHeader) WriteHeader(code int) {
	w.Header().Del("X-OAuth-Scopes")
	w.ResponseWriter.WriteHeader(code)
}

func (w noScopesHeader) Write(b []byte) (int, error) {
	w.Header().Del("X-OAuth-Scopes")
	return w.ResponseWriter.Write(b)
}

// Errors say what was being done and never contain the token.
// Playing lists the games in progress, decoded from nowPlaying.
func TestPlaying(t *testing.T) {
	s := newServer(t)
	id := startGame(t, s)
	games, err := newTestClient(t, s.URL()).Playing(context.Background(), 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 1 {
		t.Fatalf("%d games in progress, want 1: %+v", len(games), games)
	}
	g := games[0]
	if g.GameID != id || g.Status.Name != "started" || g.Color != "white" || !g.IsMyTurn || g.Opponent.Username != humanName {
		t.Errorf("game in progress %+v", g)
	}
}

func TestErrorsNameTheOperation(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{c.AcceptChallenge(ctx, "nochal"), "accept challenge nochal: HTTP 404"},
		{c.Move(ctx, "nogame", "e2e4", false), "post move e2e4 in game nogame: HTTP 404: No such game"},
		{c.Resign(ctx, "nogame"), "resign game nogame: HTTP 404"},
		{c.ClaimVictory(ctx, "nogame"), "claim victory in game nogame"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want it to contain %q", tc.err, tc.want)
		}
		if tc.err != nil && strings.Contains(tc.err.Error(), testToken) {
			t.Errorf("token in error %v", tc.err)
		}
	}
	dead, _ := New("http://127.0.0.1:1", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken}))
	err := dead.Move(ctx, "g", "e2e4", false)
	if err == nil || strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "post move e2e4 in game g") {
		t.Errorf("network error: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{"0.5", 500 * time.Millisecond},
		{"-3", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
	} {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

// A 429 cools down that endpoint: non-essential calls fail at once without
// a request; other endpoints are unaffected.
func TestRateLimitCooldownPerEndpoint(t *testing.T) {
	s := newServer(t)
	g1 := startGame(t, s)
	s.Inject429("POST /api/bot/game/*/chat", 1, time.Hour)
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	err := c.Chat(ctx, g1, RoomPlayer, "hello")
	if !IsRateLimited(err) || StatusCode(err) != http.StatusTooManyRequests {
		t.Fatalf("first chat: %v, want a 429", err)
	}
	if d := c.Cooldown("bot/game/chat"); d < 59*time.Minute {
		t.Fatalf("cool-down %v, want the Retry-After hour", d)
	}
	before := requestCount(s, "POST /api/bot/game/"+g1+"/chat")
	err = c.Chat(ctx, g1, RoomPlayer, "again")
	if !errors.Is(err, ErrCoolingDown) {
		t.Fatalf("chat inside the cool-down: %v, want ErrCoolingDown", err)
	}
	if n := requestCount(s, "POST /api/bot/game/"+g1+"/chat"); n != before {
		t.Fatal("a request was sent inside the cool-down")
	}
	// Another endpoint works.
	if err := c.Move(ctx, g1, "e2e4", false); err != nil {
		t.Fatalf("move while chat cools down: %v", err)
	}
	// An essential request inside its cool-down waits (here: until ctx ends).
	c.cooldowns.start("bot/game/resign", "3600", time.Now())
	ctx2, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := c.Resign(ctx2, g1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("resign inside its cool-down: %v, want to wait until the deadline", err)
	}
	if n := requestCount(s, "POST /api/bot/game/"+g1+"/resign"); n != 0 {
		t.Fatal("resign sent inside its cool-down")
	}
}

// A 429 on a move cools down that game only: the other game keeps moving,
// and the limited game's move is sent again, once, after the cool-down.
func TestRateLimitMovePerGame(t *testing.T) {
	s := newServer(t)
	slow := startGame(t, s)
	fast := startGame(t, s)
	slowMoves := "POST /api/bot/game/" + slow + "/move/*"
	// The first move of the slow game gets a 429 without Retry-After.
	s.Inject429(slowMoves, 1, 0)
	const cool = 300 * time.Millisecond
	c := newTestClient(t, s.URL(), WithRateLimitCooldown(cool))
	ctx := context.Background()
	if err := c.Move(ctx, slow, "e2e4", false); !IsRateLimited(err) {
		t.Fatalf("first move: %v, want 429", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Move(ctx, slow, "e2e4", false) }() // waits out the cool-down
	// Meanwhile the other game moves several times (the human answers).
	for i, m := range []string{"e2e4", "d2d4", "g1f3"} {
		if err := c.Move(ctx, fast, m, false); err != nil {
			t.Fatalf("fast game move %s: %v", m, err)
		}
		if i < 2 {
			if err := s.Move(fast, humanName, []string{"e7e5", "b8c6"}[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("slow move after the cool-down: %v", err)
	}
	posted := s.RequestsMatching(slowMoves)
	if len(posted) != 2 {
		t.Fatalf("slow game move requests = %d, want 2", len(posted))
	}
	limitedAt, retriedAt := posted[0].Time, posted[1].Time
	if retriedAt.Sub(limitedAt) < cool {
		t.Fatalf("move sent again %v after the 429, inside the %v cool-down", retriedAt.Sub(limitedAt), cool)
	}
	accepted := 0
	for _, r := range posted {
		if r.Status == http.StatusOK {
			accepted++
		}
	}
	if g, _ := s.Game(slow); len(g.Moves) < 1 || g.Moves[0] != "e2e4" || accepted != 1 {
		t.Fatalf("slow game moves %v, %d move posts accepted", g.Moves, accepted)
	}
}

// Non-essential requests go one at a time; a move is not held behind them.
func TestBackgroundRequestsOneAtATime(t *testing.T) {
	var mu sync.Mutex
	inFlight, maxInFlight := 0, 0
	arrived := make(chan string, 4)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat") {
			mu.Lock()
			inFlight++
			maxInFlight = max(maxInFlight, inFlight)
			mu.Unlock()
			arrived <- r.FormValue("text")
			<-release
			mu.Lock()
			inFlight--
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	defer open() // before srv.Close, which waits for the held handlers
	c, err := New(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	errs := make(chan error, 2)
	go func() { errs <- c.Chat(ctx, "g1", "player", "first") }()
	if got := <-arrived; got != "first" {
		t.Fatalf("first chat arrived as %q", got)
	}
	go func() { errs <- c.Chat(ctx, "g2", "player", "second") }()
	// A move goes through while the first chat is still open.
	if err := c.Move(ctx, "g1", "e2e4", false); err != nil {
		t.Fatalf("move while a chat is open: %v", err)
	}
	// A cancelled context gives up waiting for the gate with an error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Chat(cctx, "g3", "player", "never"); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("chat with a cancelled context while another is open: %v", err)
	}
	select {
	case got := <-arrived:
		t.Fatalf("chat %q was sent while the first was still open", got)
	case <-time.After(200 * time.Millisecond):
	}
	open()
	if got := <-arrived; got != "second" {
		t.Fatalf("second chat arrived as %q", got)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Errorf("chat: %v", err)
		}
	}
	if maxInFlight != 1 {
		t.Errorf("%d chats open at once, want 1", maxInFlight)
	}
}

// Lichess' answers to a challenge past the daily bot-game limits are told
// apart: the 429 whose ratelimit.key is bot.vsBot.day (ours), the 400 for
// an opponent who has played too many games, and neither for a plain 429
// or another 400.
func TestBotGameLimitAnswers(t *testing.T) {
	s := newServer(t)
	ctx := testsupport.Context(t)
	for _, tc := range []struct {
		what         string
		inject       func()
		dayLimit     bool
		capped       bool
		rateLimitKey string
	}{
		{"429 bot.vsBot.day", func() {
			s.InjectAnswer("POST /api/challenge/*", 1, http.StatusTooManyRequests, lichesstest.BotDayLimitBody)
		}, true, false, BotDayLimitKey},
		{"400 opponent capped", func() {
			s.InjectAnswer("POST /api/challenge/*", 1, http.StatusBadRequest, lichesstest.OpponentCappedBody)
		}, false, true, ""},
		{"plain 429", func() { s.Inject429("POST /api/challenge/*", 1, time.Millisecond) }, false, false, ""},
		{"other 400", func() { s.InjectError("POST /api/challenge/*", 1, http.StatusBadRequest) }, false, false, ""},
	} {
		tc.inject()
		c := newTestClient(t, s.URL()) // a fresh client: no cool-down left by the last case
		_, err := c.CreateChallenge(ctx, humanName, ChallengeRequest{Limit: 60})
		if err == nil {
			t.Fatalf("%s: challenge accepted", tc.what)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.RateLimitKey != tc.rateLimitKey {
			t.Errorf("%s: error %v, want an APIError with ratelimit key %q", tc.what, err, tc.rateLimitKey)
		}
		if want := map[bool]int{true: 5400}[tc.dayLimit]; ae != nil && ae.RateLimitSeconds != want {
			t.Errorf("%s: ratelimit seconds %d, want %d", tc.what, ae.RateLimitSeconds, want)
		}
		if got := IsBotDayLimit(err); got != tc.dayLimit {
			t.Errorf("%s: IsBotDayLimit = %v, want %v (%v)", tc.what, got, tc.dayLimit, err)
		}
		if got := IsOpponentCapped(err); got != tc.capped {
			t.Errorf("%s: IsOpponentCapped = %v, want %v (%v)", tc.what, got, tc.capped, err)
		}
		until, ok := OpponentCappedUntil(err)
		if want := time.Date(2099, 1, 2, 3, 4, 5, 678e6, time.UTC); tc.capped && (!ok || !until.Equal(want)) {
			t.Errorf("%s: OpponentCappedUntil = %v, %v; want %v", tc.what, until, ok, want)
		}
	}
}

// The capped opponent's "until" date is read in the forms Lichess may
// write it; an unreadable one is no date (the caller falls back), and the
// text matches whatever its case.
func TestOpponentCappedUntil(t *testing.T) {
	want := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		msg string
		ok  bool
	}{
		{"SomeBot played 100 games against other bots today, please wait until 2026-11-25T10:00:00Z to challenge them.", true},
		{"SomeBot played 100 games against other bots today, please wait until 2026-11-25T11:00:00.000+01:00 to challenge them.", true},
		{"SomeBot played 100 Games Against Other Bots Today, please wait until 2026-11-25T10:00:00Z.", true},
		{"SomeBot played 100 games against other bots today, please wait until tomorrow to challenge them.", false},
		{"SomeBot played 100 games against other bots today.", false},
	} {
		err := &APIError{StatusCode: http.StatusBadRequest, Message: tc.msg}
		if !IsOpponentCapped(err) {
			t.Errorf("%q: not taken for a capped opponent", tc.msg)
		}
		got, ok := OpponentCappedUntil(err)
		if ok != tc.ok || (ok && !got.Equal(want)) {
			t.Errorf("%q: until %v, %v; want %v, %v", tc.msg, got, ok, want, tc.ok)
		}
	}
	if IsOpponentCapped(&APIError{StatusCode: http.StatusBadRequest, Message: "This bot has played too many games today."}) {
		t.Error("a 400 without Lichess' text taken for a capped opponent")
	}
}

// A challenge with Days is a correspondence challenge: Lichess' days,
// without the clock (which Lichess refuses beside days); one without is
// a real-time challenge with its clock.
func TestCreateChallengeDays(t *testing.T) {
	s := newServer(t)
	ctx := testsupport.Context(t)
	c := newTestClient(t, s.URL())
	ch, err := c.CreateChallenge(ctx, humanName, ChallengeRequest{Days: 3, Limit: 180, Increment: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ch.TimeControl.Type != "correspondence" || ch.TimeControl.DaysPerTurn != 3 || ch.Speed != "correspondence" {
		t.Errorf("days 3: time control %+v, speed %q; want correspondence, 3 days", ch.TimeControl, ch.Speed)
	}
	ch, err = c.CreateChallenge(ctx, humanName, ChallengeRequest{Limit: 180, Increment: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ch.TimeControl.Type != "clock" || ch.TimeControl.Limit != 180 || ch.TimeControl.Increment != 2 {
		t.Errorf("3+2: time control %+v, want a clock of 180+2", ch.TimeControl)
	}
}
