package client

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// runBot starts a Bot on f and returns it with a stop function that cancels
// Run and waits for it.
func runBot(t *testing.T, f *fakeLichess, s Settings, pool *playerPool, opts ...lichess.Option) (*Bot, func()) {
	t.Helper()
	if s.ReconnectMin == 0 {
		s.ReconnectMin, s.ReconnectMax = 10*time.Millisecond, 50*time.Millisecond
	}
	b := NewBot(f.client(t, opts...), pool.factory, s, testsupport.Logger(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return b, stop
}

// noDuplicatePosts fails if any ply got two accepted moves.
func noDuplicatePosts(t *testing.T, f *fakeLichess, id string) {
	t.Helper()
	f.with(func() {
		for ply, n := range f.games[id].posts {
			if n != 1 {
				t.Errorf("game %s ply %d: %d moves accepted", id, ply, n)
			}
		}
	})
}

func gameOver(f *fakeLichess, id string) func() bool {
	return func() bool { g := f.games[id]; return g != nil && g.status != "started" }
}

func TestFullGameFromChallenge(t *testing.T) {
	f := newFake(t)
	dir := t.TempDir()
	pool := &playerPool{next: func(i int, p *testPlayer) { p.score = 35 }}
	s := Settings{PGNDir: dir, Chat: ChatSettings{
		Greeting: ChatMessages{Player: "Hi {opponent}, good luck!", Spectator: "Hi all, {me} here"},
		Goodbye:  ChatMessages{Player: "Thanks for the game."}}}
	_, stop := runBot(t, f, s, pool)
	testsupport.WaitFor(t, "event stream", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.evSubs) > 0 })
	f.offerChallenge(lichess.Challenge{ID: "chal1", Challenger: lichess.ChallengeUser{ID: "alice", Name: "Alice", Rating: 1500},
		Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", Rated: true, Color: "random",
		TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}})
	f.waitLocked(t, "game chal1 over", gameOver(f, "chal1"))
	f.waitLocked(t, "goodbye", func() bool {
		for _, l := range f.games["chal1"].chatLines {
			if strings.HasSuffix(l, "Thanks for the game.") {
				return true
			}
		}
		return false
	})
	testsupport.WaitFor(t, "record", func() bool { _, err := os.Stat(filepath.Join(dir, "chal1.pgn")); return err == nil })
	stop()
	f.with(func() {
		g := f.games["chal1"]
		if g.status != "resign" || g.winner != "white" || len(g.moves) != 7 {
			t.Errorf("game ended %s/%s after %d plies", g.status, g.winner, len(g.moves))
		}
		greet, spect, bye := false, false, false
		for _, l := range g.chatLines {
			greet = greet || l == "player:Hi opponent, good luck!" || l == "player:Hi Alice, good luck!"
			spect = spect || l == "spectator:Hi all, Ponderosa here"
			bye = bye || l == "player:Thanks for the game."
		}
		if !greet || !spect || !bye || len(g.chatLines) != 3 {
			t.Errorf("chat lines %q: want greeting and goodbye", g.chatLines)
		}
	})
	noDuplicatePosts(t, f, "chal1")
	pgn, err := os.ReadFile(filepath.Join(dir, "chal1.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`[White "Ponderosa"]`, `[Result "1-0"]`, `[Termination "resign"]`, "1. ", "{ [%eval 0.35] depth 3 }", "1-0\n"} {
		if !strings.Contains(string(pgn), want) {
			t.Errorf("PGN lacks %q:\n%s", want, pgn)
		}
	}
	ps := pool.all()
	if len(ps) != 1 {
		t.Fatalf("%d players made, want 1", len(ps))
	}
	ps[0].get(func(p *testPlayer) {
		if !p.ended || !p.closed || p.thinks != 4 || p.ponders < 3 || !p.info.White || p.info.Variant != "standard" {
			t.Errorf("player: ended %v closed %v thinks %d ponders %d info %+v", p.ended, p.closed, p.thinks, p.ponders, p.info)
		}
	})
}

func TestDeclineChallenges(t *testing.T) {
	f := newFake(t)
	s := Settings{Challenge: ChallengePolicy{AcceptHumans: true, MaxGames: 1}}
	b, _ := runBot(t, f, s, &playerPool{})
	testsupport.WaitFor(t, "event stream", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.evSubs) > 0 })
	mk := func(id string, mod func(*lichess.Challenge)) lichess.Challenge {
		c := lichess.Challenge{ID: id, Challenger: lichess.ChallengeUser{ID: "x" + id, Name: "X"}, Variant: lichess.Variant{Key: "standard"},
			Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 300}}
		mod(&c)
		return c
	}
	f.offerChallenge(mk("v1", func(c *lichess.Challenge) { c.Variant.Key = "atomic" }))
	f.offerChallenge(mk("b1", func(c *lichess.Challenge) { c.Challenger.Title = "BOT" }))
	f.offerChallenge(mk("u1", func(c *lichess.Challenge) { c.Speed = "ultraBullet"; c.TimeControl.Limit = 15 }))
	// Our own outgoing challenge is not answered.
	f.offerChallenge(mk("o1", func(c *lichess.Challenge) { c.Challenger.ID = botID; c.Direction = "out" }))
	f.waitLocked(t, "three declines", func() bool { return len(f.declines) == 3 })
	f.with(func() {
		want := map[string]string{"v1": "variant", "b1": "noBot", "u1": "tooFast"}
		for id, r := range want {
			if f.declines[id] != r {
				t.Errorf("challenge %s declined with %q, want %q", id, f.declines[id], r)
			}
		}
	})
	// New settings apply to the next challenge.
	b.UpdateSettings(Settings{Challenge: ChallengePolicy{BlockList: []string{"xz1"}}})
	f.offerChallenge(mk("z1", func(c *lichess.Challenge) {}))
	f.waitLocked(t, "decline by block list", func() bool { return f.declines["z1"] == "generic" })
	if n := f.requestCount("POST /api/challenge/o1/"); n != 0 {
		t.Errorf("our own challenge answered %d times", n)
	}
}

// A duplicate state for a ply in progress (a reconnect's gameFull, a repeated
// gameState) starts no second search and no second post.
func TestMoveDedupe(t *testing.T) {
	f := newFake(t)
	f.addGame("d1", true, func(g *fakeGame) { g.resignAfter = 4 })
	block := make(chan struct{})
	pool := &playerPool{next: func(i int, p *testPlayer) { p.block = block }}
	_, stop := runBot(t, f, Settings{}, pool)
	testsupport.WaitFor(t, "player thinking", func() bool {
		ps := pool.all()
		n := 0
		if len(ps) > 0 {
			ps[0].get(func(p *testPlayer) { n = p.thinks })
		}
		return n == 1
	})
	// While the player thinks: repeated states and a dropped stream.
	f.with(func() {
		g := f.games["d1"]
		f.broadcastStateLocked(g)
		f.broadcastStateLocked(g)
		close(g.drop)
		g.drop = make(chan struct{})
	})
	testsupport.WaitFor(t, "game stream reopened", func() bool { return f.requestCount("GET /api/bot/game/stream/d1") >= 2 })
	f.with(func() { f.broadcastStateLocked(f.games["d1"]) })
	close(block)
	f.waitLocked(t, "game over", gameOver(f, "d1"))
	stop()
	noDuplicatePosts(t, f, "d1")
	if n := f.requestCount("POST /api/bot/game/d1/move/"); n != 3 {
		t.Errorf("%d move posts, want 3 (plies 0, 2 and 4)", n)
	}
	pool.all()[0].get(func(p *testPlayer) {
		if p.thinks != 3 {
			t.Errorf("player asked %d times, want 3", p.thinks)
		}
	})
}

// A move POST whose answer is lost (the connection breaks after Lichess
// applied the move) is not played twice.
func TestMoveLostAnswer(t *testing.T) {
	f := newFake(t)
	f.addGame("l1", true, func(g *fakeGame) { g.resignAfter = 4 })
	var broke atomic.Bool
	// Wrap the server's handler: apply the first move, then kill the connection.
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/bot/game/l1/move/") && broke.CompareAndSwap(false, true) {
			inner.ServeHTTP(httptestDiscard{}, r)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		inner.ServeHTTP(w, r)
	})
	_, stop := runBot(t, f, Settings{}, &playerPool{})
	f.waitLocked(t, "game over", gameOver(f, "l1"))
	stop()
	if !broke.Load() {
		t.Fatal("the connection was never broken")
	}
	noDuplicatePosts(t, f, "l1")
}

type httptestDiscard struct{}

func (httptestDiscard) Header() http.Header         { return http.Header{} }
func (httptestDiscard) Write(b []byte) (int, error) { return len(b), nil }
func (httptestDiscard) WriteHeader(int)             {}

func TestGameStreamDroppedMidGame(t *testing.T) {
	f := newFake(t)
	// The fake drops the game stream right after the states of plies 2,
	// 3, 5 and 7 (the state itself may or may not get through).
	f.addGame("s1", false, func(g *fakeGame) { g.resignAfter = 9; g.dropAt = map[int]bool{2: true, 3: true, 5: true, 7: true} })
	pool := &playerPool{}
	_, stop := runBot(t, f, Settings{}, pool)
	f.waitLocked(t, "game over", gameOver(f, "s1"))
	stop()
	noDuplicatePosts(t, f, "s1")
	if n := f.requestCount("GET /api/bot/game/stream/s1"); n < 2 {
		t.Errorf("game stream opened %d times, want reconnects", n)
	}
	f.with(func() {
		if g := f.games["s1"]; g.status != "resign" || g.winner != "black" {
			t.Errorf("game ended %s/%s", g.status, g.winner)
		}
	})
}

// A 429 on one game's move does not hold up another game.
func TestRateLimitedGameDoesNotBlockOthers(t *testing.T) {
	f := newFake(t)
	f.addGame("limited", true, func(g *fakeGame) { g.resignAfter = 6 })
	f.addGame("free", true, func(g *fakeGame) { g.resignAfter = 6 })
	f.intercept = func(r *http.Request) (int, http.Header, string, bool) {
		if strings.HasPrefix(r.URL.Path, "/api/bot/game/limited/move/") {
			return http.StatusTooManyRequests, http.Header{"Retry-After": {"3600"}}, `{"error":"Too many requests"}`, true
		}
		return 0, nil, "", false
	}
	s := Settings{Challenge: ChallengePolicy{MaxGames: 2}}
	b, stop := runBot(t, f, s, &playerPool{})
	f.waitLocked(t, "free game over", gameOver(f, "free"))
	// On a loaded machine the free game can end before the limited game's
	// first move request has been answered; the checks below need it.
	testsupport.WaitFor(t, "limited game's move refused", func() bool {
		return f.requestCount("POST /api/bot/game/limited/move/") >= 1 && b.c.Cooldown("move/limited") > 0
	})
	if d := b.c.Cooldown("move/limited"); d < 59*time.Minute {
		t.Errorf("limited game's cool-down %v", d)
	}
	stop()
	if n := f.requestCount("POST /api/bot/game/limited/move/"); n != 1 {
		t.Errorf("limited game: %d move requests, want 1 (none inside the cool-down)", n)
	}
	noDuplicatePosts(t, f, "free")
}

// A bot stopped mid-game and started again finishes the game.
func TestRestartMidGame(t *testing.T) {
	f := newFake(t)
	f.addGame("r1", true, func(g *fakeGame) { g.resignAfter = 10 })
	// The first run's player hangs from ply 4 on; the bot is stopped there.
	hang := make(chan struct{})
	defer close(hang)
	pool1 := &playerPool{next: func(i int, p *testPlayer) { p.block, p.blockAt = hang, 4 }}
	_, stop1 := runBot(t, f, Settings{}, pool1)
	testsupport.WaitFor(t, "ply 4 thinking", func() bool {
		n := 0
		for _, p := range pool1.all() {
			p.get(func(p *testPlayer) { n += p.thinks })
		}
		return n == 3
	})
	stop1()
	f.with(func() {
		if f.games["r1"].status != "started" {
			t.Fatal("game ended before the restart")
		}
	})
	_, stop2 := runBot(t, f, Settings{}, &playerPool{})
	f.waitLocked(t, "game over", gameOver(f, "r1"))
	stop2()
	noDuplicatePosts(t, f, "r1")
	f.with(func() {
		if g := f.games["r1"]; g.status != "resign" || len(g.moves) != 11 {
			t.Errorf("game ended %s after %d plies", g.status, len(g.moves))
		}
	})
}

func TestOpponentGone(t *testing.T) {
	for _, tc := range []struct {
		name, fen, on, want string
	}{
		{"claim victory", "", "", "claim-victory"},
		{"claim draw with a bare king", "7k/8/8/8/8/8/5q2/K7 w - - 0 1", "", "claim-draw"},
		{"claim draw by choice", "", OpponentGoneClaimDraw, "claim-draw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.addGame("og", true, func(g *fakeGame) { g.silent = true; g.initialFEN = tc.fen })
			_, stop := runBot(t, f, Settings{Game: GameSettings{OnOpponentGone: tc.on}}, &playerPool{})
			f.waitLocked(t, "our move", func() bool { return len(f.games["og"].moves) == 1 })
			f.with(func() {
				f.broadcastLocked(f.games["og"], `{"type":"opponentGone","gone":true,"claimWinInSeconds":0}`)
			})
			f.waitLocked(t, "claim", gameOver(f, "og"))
			stop()
			f.with(func() {
				if c := f.games["og"].claims; len(c) != 1 || c[0] != tc.want {
					t.Errorf("claims %v, want %s", c, tc.want)
				}
			})
		})
	}
}

// opponentGone with gone:false cancels a pending claim.
func TestOpponentBack(t *testing.T) {
	f := newFake(t)
	f.addGame("ob", true, func(g *fakeGame) { g.silent = true })
	_, stop := runBot(t, f, Settings{}, &playerPool{})
	f.waitLocked(t, "our move", func() bool { return len(f.games["ob"].moves) == 1 })
	f.with(func() {
		g := f.games["ob"]
		f.broadcastLocked(g, `{"type":"opponentGone","gone":true,"claimWinInSeconds":1}`)
		f.broadcastLocked(g, `{"type":"opponentGone","gone":false}`)
		f.broadcastLocked(g, `{"type":"chatLine","room":"player","username":"opponent","text":"!name"}`)
	})
	f.waitLocked(t, "chat answer", func() bool { return len(f.games["ob"].chatLines) > 0 })
	time.Sleep(1200 * time.Millisecond) // past the cancelled claim time
	stop()
	f.with(func() {
		if c := f.games["ob"].claims; len(c) != 0 {
			t.Errorf("claims %v after the opponent came back", c)
		}
	})
}

func TestDrawAndTakebackOffers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		score     int
		afterMove int
		want      string
	}{
		{"decline when better", 80, 0, "no"},
		{"decline when far behind", -120, 0, "no"},
		{"accept when level", -10, 0, "yes"},
		{"too early", 10, 30, "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.addGame("dr", true, func(g *fakeGame) { g.silent = true })
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawAfterMove: tc.afterMove}}
			_, stop := runBot(t, f, s, &playerPool{next: func(i int, p *testPlayer) { p.score = tc.score }})
			f.waitLocked(t, "our move", func() bool { return len(f.games["dr"].moves) == 1 })
			f.with(func() {
				g := f.games["dr"]
				applyLocked(g, "e7e5")
				g.bdraw, g.btake = true, true
				f.broadcastStateLocked(g)
			})
			f.waitLocked(t, "answers", func() bool {
				g := f.games["dr"]
				return len(g.drawAnswers) == 1 && len(g.takebackAns) == 1
			})
			stop()
			f.with(func() {
				g := f.games["dr"]
				if g.drawAnswers[0] != tc.want || g.takebackAns[0] != "no" {
					t.Errorf("draw answer %v takeback answer %v", g.drawAnswers, g.takebackAns)
				}
			})
		})
	}
}

func TestAbortSilentOpponent(t *testing.T) {
	for _, white := range []bool{true, false} {
		f := newFake(t)
		f.addGame("ab", white, func(g *fakeGame) { g.silent = true })
		_, stop := runBot(t, f, Settings{Game: GameSettings{AbortAfter: 50 * time.Millisecond}}, &playerPool{})
		f.waitLocked(t, "abort", gameOver(f, "ab"))
		stop()
		f.with(func() {
			g := f.games["ab"]
			if g.status != "aborted" || len(g.claims) != 1 || g.claims[0] != "abort" {
				t.Errorf("white=%v: status %s claims %v", white, g.status, g.claims)
			}
		})
	}
}

// With one legal move the bot plays it without asking the player.
func TestSingleLegalMove(t *testing.T) {
	f := newFake(t)
	f.addGame("one", true, func(g *fakeGame) { g.initialFEN = "k7/8/8/8/8/8/1q6/K7 w - - 0 1"; g.resignAfter = 1 })
	pool := &playerPool{}
	_, stop := runBot(t, f, Settings{}, pool)
	f.waitLocked(t, "game over", gameOver(f, "one"))
	stop()
	f.with(func() {
		if m := f.games["one"].moves; len(m) != 1 || m[0] != "a1b2" {
			t.Errorf("moves %v, want [a1b2]", m)
		}
	})
	for _, p := range pool.all() {
		p.get(func(p *testPlayer) {
			if p.thinks != 0 {
				t.Errorf("player asked %d times", p.thinks)
			}
		})
	}
}

func TestPlayerFailures(t *testing.T) {
	t.Run("error: restarted through the factory", func(t *testing.T) {
		f := newFake(t)
		f.addGame("pf", true, func(g *fakeGame) { g.resignAfter = 4 })
		pool := &playerPool{next: func(i int, p *testPlayer) {
			if i == 0 {
				p.thinkErr = errors.New("engine crashed")
			}
		}}
		_, stop := runBot(t, f, Settings{}, pool)
		f.waitLocked(t, "game over", gameOver(f, "pf"))
		stop()
		ps := pool.all()
		if len(ps) != 2 {
			t.Fatalf("%d players made, want 2", len(ps))
		}
		ps[0].get(func(p *testPlayer) {
			if !p.closed {
				t.Error("failed player not closed")
			}
		})
		noDuplicatePosts(t, f, "pf")
	})
	t.Run("illegal move: fallback", func(t *testing.T) {
		f := newFake(t)
		f.addGame("il", true, func(g *fakeGame) { g.resignAfter = 4 })
		pool := &playerPool{next: func(i int, p *testPlayer) { p.illegal = true }}
		_, stop := runBot(t, f, Settings{}, pool)
		f.waitLocked(t, "game over", gameOver(f, "il"))
		stop()
		f.with(func() {
			if g := f.games["il"]; g.status != "resign" || len(g.moves) != 5 {
				t.Errorf("game %s after %d plies", g.status, len(g.moves))
			}
		})
		if n := f.requestCount("POST /api/bot/game/il/move/a1a8"); n != 0 {
			t.Error("illegal move posted")
		}
	})
	t.Run("hung player: fallback before the flag", func(t *testing.T) {
		f := newFake(t)
		f.addGame("hu", true, func(g *fakeGame) { g.resignAfter = 2; g.clockMs = 400 })
		release := make(chan struct{})
		defer close(release)
		pool := &playerPool{next: func(i int, p *testPlayer) { p.hang = true; p.release = release }}
		_, stop := runBot(t, f, Settings{Clock: ClockSettings{MoveOverhead: 50 * time.Millisecond}}, pool)
		f.waitLocked(t, "game over", gameOver(f, "hu"))
		stop()
		f.with(func() {
			if g := f.games["hu"]; g.status != "resign" || len(g.moves) != 3 {
				t.Errorf("moves %v", g.moves)
			}
		})
	})
}

func TestChatCommands(t *testing.T) {
	f := newFake(t)
	f.addGame("ch", true, func(g *fakeGame) { g.silent = true })
	_, stop := runBot(t, f, Settings{Chat: ChatSettings{Name: "ponderosa test"}}, &playerPool{next: func(i int, p *testPlayer) { p.score = -42 }})
	f.waitLocked(t, "our move", func() bool { return len(f.games["ch"].moves) == 1 })
	f.with(func() {
		g := f.games["ch"]
		for _, l := range []string{
			`{"type":"chatLine","room":"player","username":"opponent","text":"!help"}`,
			`{"type":"chatLine","room":"player","username":"opponent","text":"!eval"}`,
			`{"type":"chatLine","room":"spectator","username":"watcher","text":"!eval"}`,
			`{"type":"chatLine","room":"spectator","username":"watcher","text":"!NAME please"}`,
			`{"type":"chatLine","room":"player","username":"opponent","text":"hello"}`,
		} {
			f.broadcastLocked(g, l)
		}
	})
	f.waitLocked(t, "four answers", func() bool { return len(f.games["ch"].chatLines) >= 4 })
	stop()
	f.with(func() {
		got := strings.Join(f.games["ch"].chatLines, "\n")
		for _, want := range []string{"player:Commands: !help", "player:!eval is for spectators only",
			"spectator:Eval -0.42, depth 3", "spectator:ponderosa test"} {
			if !strings.Contains(got, want) {
				t.Errorf("chat lacks %q:\n%s", want, got)
			}
		}
		if n := len(f.games["ch"].chatLines); n != 4 {
			t.Errorf("%d chat lines, want 4:\n%s", n, got)
		}
	})
}

// Drain declines new challenges and returns once the games are over.
func TestDrain(t *testing.T) {
	f := newFake(t)
	f.addGame("dn", true, func(g *fakeGame) { g.silent = true })
	b, stop := runBot(t, f, Settings{Challenge: ChallengePolicy{MaxGames: 3}}, &playerPool{})
	f.waitLocked(t, "our move", func() bool { return len(f.games["dn"].moves) == 1 })
	drained := make(chan error, 1)
	go func() { drained <- b.Drain(context.Background()) }()
	testsupport.WaitFor(t, "draining", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.draining })
	f.offerChallenge(lichess.Challenge{ID: "late", Challenger: lichess.ChallengeUser{ID: "bob", Name: "Bob"}, Variant: lichess.Variant{Key: "standard"},
		Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 300}})
	f.waitLocked(t, "decline", func() bool { return f.declines["late"] == "later" })
	select {
	case err := <-drained:
		t.Fatalf("Drain returned %v with a game running", err)
	default:
	}
	f.with(func() { f.endLocked(f.games["dn"], "resign", "white") })
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if g := b.Games(); len(g) != 0 {
		t.Errorf("games after drain: %v", g)
	}
	stop()
	// A drain bounded by a context returns its error while games run.
	f2 := newFake(t)
	f2.addGame("dn2", true, func(g *fakeGame) { g.silent = true })
	b2, _ := runBot(t, f2, Settings{}, &playerPool{})
	f2.waitLocked(t, "our move", func() bool { return len(f2.games["dn2"].moves) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b2.Drain(ctx); err == nil {
		t.Error("Drain with a running game and an expired context returned nil")
	}
}

func TestRunRefusesNonBotAccount(t *testing.T) {
	f := newFake(t)
	f.title = ""
	b := NewBot(f.client(t), (&playerPool{}).factory, Settings{}, testsupport.Logger(t))
	err := b.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a Bot account") {
		t.Fatalf("Run for a non-bot account: %v", err)
	}
	f.scopes = "board:play"
	f.title = "BOT"
	if err := NewBot(f.client(t), nil, Settings{}, testsupport.Logger(t)).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "bot:play") {
		t.Fatalf("Run without bot:play: %v", err)
	}
}

// Lichess may write castling as king takes rook even in standard chess; the
// Player always gets king-to-destination moves.
func TestCastlingNotation(t *testing.T) {
	f := newFake(t)
	f.addGame("cs", true, func(g *fakeGame) {
		g.initialFEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
		g.kingTakesRook = true
		g.oppReplies = []string{"e8g8"}
		g.resignAfter = 3
	})
	pool := &playerPool{next: func(i int, p *testPlayer) { p.prefer = []string{"e1h1"} }}
	_, stop := runBot(t, f, Settings{}, pool)
	f.waitLocked(t, "game over", gameOver(f, "cs"))
	stop()
	f.with(func() {
		if m := f.games["cs"].moves; strings.Join(m, " ") != "e1h1 e8h8 "+m[2] {
			t.Errorf("server moves %v", m)
		}
	})
	noDuplicatePosts(t, f, "cs")
	pool.all()[0].get(func(p *testPlayer) {
		if len(p.seen) != 2 || strings.Join(p.seen[1], " ") != "e1g1 e8g8" {
			t.Errorf("player saw %v, want [[] [e1g1 e8g8]]", p.seen)
		}
	})
	if n := f.requestCount("POST /api/bot/game/cs/move/e1g1"); n != 1 {
		t.Errorf("castling posted %d times as e1g1", n)
	}
}

// The game's moves live in the worker: it tells the player each position
// once, the opponent's move before Think and our posted move before
// Ponder, and the player never has to add a move of its own.
func TestPlayerToldEachPositionOnce(t *testing.T) {
	f := newFake(t)
	f.addGame("po", true, func(g *fakeGame) { g.resignAfter = 7 })
	pool := &playerPool{}
	_, stop := runBot(t, f, Settings{}, pool)
	f.waitLocked(t, "game over", gameOver(f, "po"))
	stop()
	var server []string
	f.with(func() { server = append(server, f.games["po"].moves...) })
	if len(server) != 7 {
		t.Fatalf("server moves %v, want 7 plies", server)
	}
	var want []string
	for ply := 0; ply <= len(server); ply++ {
		want = append(want, strings.TrimSpace("position "+strings.Join(server[:ply], " ")))
		if ply%2 == 0 {
			want = append(want, "think") // our turn (white)
		} else {
			want = append(want, "ponder") // after our move
		}
	}
	pool.all()[0].get(func(p *testPlayer) {
		// The last Position and Ponder race with the end of the game.
		if len(p.calls) < len(want)-2 || strings.Join(p.calls, "|") != strings.Join(want[:len(p.calls)], "|") {
			t.Errorf("player calls:\n %q\nwant:\n %q", p.calls, want)
		}
	})
}

// UpdateSettings leaves running games alone; new games get the new settings.
func TestUpdateSettingsKeepsRunningGames(t *testing.T) {
	f := newFake(t)
	f.addGame("u1", true, func(g *fakeGame) { g.silent = true })
	b, stop := runBot(t, f, Settings{Chat: ChatSettings{Name: "old name"}}, &playerPool{})
	f.waitLocked(t, "our move", func() bool { return len(f.games["u1"].moves) == 1 })
	b.UpdateSettings(Settings{Chat: ChatSettings{Name: "new name"}})
	f.addGame("u2", true, func(g *fakeGame) { g.silent = true })
	f.sendEvent(`{"type":"gameStart","game":{"gameId":"u2","fullId":"u2xxxx","opponent":{"id":"opponent","username":"opponent"}}}`)
	f.waitLocked(t, "our move in u2", func() bool { return len(f.games["u2"].moves) == 1 })
	f.with(func() {
		for _, id := range []string{"u1", "u2"} {
			f.broadcastLocked(f.games[id], `{"type":"chatLine","room":"player","username":"opponent","text":"!name"}`)
		}
	})
	f.waitLocked(t, "answers", func() bool { return len(f.games["u1"].chatLines) == 1 && len(f.games["u2"].chatLines) == 1 })
	stop()
	f.with(func() {
		if a, b := f.games["u1"].chatLines[0], f.games["u2"].chatLines[0]; a != "player:old name" || b != "player:new name" {
			t.Errorf("!name answers: running game %q, new game %q", a, b)
		}
	})
}

// A token revoked while the bot runs ends Run with an error instead of
// reconnecting forever.
func TestRunEndsWhenTokenRevoked(t *testing.T) {
	f := newFake(t)
	f.intercept = func(r *http.Request) (int, http.Header, string, bool) {
		if r.URL.Path == "/api/stream/event" {
			return http.StatusUnauthorized, nil, `{"error":"No such token"}`, true
		}
		return 0, nil, "", false
	}
	b := NewBot(f.client(t), (&playerPool{}).factory, Settings{ReconnectMin: time.Millisecond}, testsupport.Logger(t))
	err := b.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), testToken) {
		t.Fatalf("Run with a revoked token: %v", err)
	}
}

// At start-up, Lichess being unreachable or failing (5xx) is retried.
func TestRunRetriesStartUp(t *testing.T) {
	f := newFake(t)
	var fails atomic.Int32
	f.intercept = func(r *http.Request) (int, http.Header, string, bool) {
		if r.URL.Path == "/api/account" && fails.Add(1) <= 2 {
			return http.StatusServiceUnavailable, nil, `{"error":"down for maintenance"}`, true
		}
		return 0, nil, "", false
	}
	_, stop := runBot(t, f, Settings{}, &playerPool{})
	testsupport.WaitFor(t, "event stream", func() bool { return f.requestCount("GET /api/stream/event") > 0 })
	stop()
	if n := f.requestCount("GET /api/account") - f.requestCount("GET /api/account/playing"); n != 3 {
		t.Errorf("account asked %d times, want 3", n)
	}
}

// The resign rule: resign after ResignForMoves lost evaluations in a row.
func TestResignRule(t *testing.T) {
	f := newFake(t)
	f.addGame("rs", true)
	s := Settings{Game: GameSettings{Resign: true, ResignBelowCP: 500, ResignForMoves: 2}}
	_, stop := runBot(t, f, s, &playerPool{next: func(i int, p *testPlayer) { p.score = -900 }})
	f.waitLocked(t, "game over", gameOver(f, "rs"))
	stop()
	f.with(func() {
		g := f.games["rs"]
		if g.status != "resign" || g.winner != "black" || len(g.moves) != 2 || len(g.claims) != 1 {
			t.Errorf("game %s/%s after %d plies, actions %v; want our resignation at ply 2", g.status, g.winner, len(g.moves), g.claims)
		}
	})
}

// After a grace period, EndGames aborts what can be aborted and resigns the
// rest; OnOpponentGone "wait" claims nothing.
func TestEndGamesAndWait(t *testing.T) {
	f := newFake(t)
	f.addGame("early", true, func(g *fakeGame) { g.silent = true })
	f.addGame("late", true, func(g *fakeGame) { g.oppReplies = []string{"e7e5"} })
	b, stop := runBot(t, f, Settings{Challenge: ChallengePolicy{MaxGames: 2}, Game: GameSettings{OnOpponentGone: OpponentGoneWait}}, &playerPool{})
	f.waitLocked(t, "moves", func() bool { return len(f.games["early"].moves) == 1 && len(f.games["late"].moves) >= 3 })
	f.with(func() {
		f.games["late"].silent = true
		f.broadcastLocked(f.games["early"], `{"type":"opponentGone","gone":true,"claimWinInSeconds":0}`)
	})
	testsupport.WaitFor(t, "both games running", func() bool { return len(b.Games()) == 2 })
	time.Sleep(200 * time.Millisecond) // a claim, if any, would be sent now
	if err := b.EndGames(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.waitLocked(t, "games over", func() bool { return gameOver(f, "early")() && gameOver(f, "late")() })
	stop()
	f.with(func() {
		if g := f.games["early"]; g.status != "aborted" || len(g.claims) != 1 {
			t.Errorf("early game: %s, actions %v; want aborted and no claim", g.status, g.claims)
		}
		if g := f.games["late"]; g.status != "resign" || g.winner != "black" {
			t.Errorf("late game: %s/%s; want our resignation", g.status, g.winner)
		}
	})
}
