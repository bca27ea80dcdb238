package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// Unit tests of the Bot and its game workers against lichesstest (see
// harness_test.go). "opponent" is a house player that plays the first legal
// move (and resigns at a ply where a test says so), or a silent human the
// test acts for.

// houseFirst is a house player playing the first legal move, resigning on
// its turn once the game has resignAt plies (0: never).
func houseFirst(resignAt int) lichesstest.HouseOptions {
	return lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, ResignAt: resignAt}
}

func TestFullGameFromChallenge(t *testing.T) {
	h := newHarness(t)
	h.addHouse("Alice", houseFirst(6))
	dir := t.TempDir()
	pool := &playerPool{next: func(i int, p *testPlayer) { p.score = 35 }}
	s := Settings{PGNDir: dir, Chat: ChatSettings{
		Greeting: ChatMessages{Player: "Hi {opponent}, good luck!", Spectator: "Hi all, {me} here"},
		Goodbye:  ChatMessages{Player: "Thanks for the game."}}}
	_, stop := h.runBot(s, pool)
	id := h.challenge("Alice", lichesstest.ChallengeParams{Rated: true, ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Color: "black"})
	h.waitOver(id)
	h.waitFor("goodbye", func() bool { return slices.Contains(h.botChat(id), "player:Thanks for the game.") })
	testsupport.WaitFor(t, "record", func() bool { _, err := os.Stat(filepath.Join(dir, id+".pgn")); return err == nil })
	stop()
	g := h.game(id)
	if g.Status != "resign" || g.Winner != "white" || len(g.Moves) != 7 {
		t.Errorf("game ended %s/%s after %d plies", g.Status, g.Winner, len(g.Moves))
	}
	lines := h.botChat(id)
	greet, spect, bye := false, false, false
	for _, l := range lines {
		greet = greet || l == "player:Hi opponent, good luck!" || l == "player:Hi Alice, good luck!"
		spect = spect || l == "spectator:Hi all, Ponderosa here"
		bye = bye || l == "player:Thanks for the game."
	}
	if !greet || !spect || !bye || len(lines) != 3 {
		t.Errorf("chat lines %q: want greeting and goodbye", lines)
	}
	h.noDuplicatePosts(id)
	pgn, err := os.ReadFile(filepath.Join(dir, id+".pgn"))
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
		if p.result != resultWin {
			t.Errorf("player told the result %q, want %q (ResultTaker)", p.result, resultWin)
		}
	})
}

func TestDeclineChallenges(t *testing.T) {
	h := newHarness(t)
	s := Settings{Challenge: ChallengePolicy{AcceptHumans: true, MaxGames: 1}}
	b, _ := h.runBot(s, &playerPool{})
	blitz5 := lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute}
	challenge := func(from string, bot bool, p lichesstest.ChallengeParams) string {
		h.srv.AddAccount(from, "tok-"+from, bot, 1800)
		return h.challenge(from, p)
	}
	v1 := challenge("xv1", false, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute, Variant: "atomic"})
	b1 := challenge("xb1", true, blitz5)
	u1 := challenge("xu1", false, lichesstest.ChallengeParams{ClockLimit: 15 * time.Second})
	// Our own outgoing challenge is not answered.
	h.addHuman("xo1")
	o1, err := h.srv.Challenge(botName, "xo1", blitz5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{v1: "variant", b1: "noBot", u1: "tooFast"}
	h.waitFor("three declines", func() bool {
		n := 0
		for id := range want {
			if st, _ := h.srv.ChallengeStatus(id); st == "declined" {
				n++
			}
		}
		return n == 3
	})
	for id, r := range want {
		if _, key := h.srv.ChallengeStatus(id); !strings.EqualFold(key, r) {
			t.Errorf("challenge %s declined with %q, want %q", id, key, r)
		}
	}
	// New settings apply to the next challenge.
	b.UpdateSettings(Settings{Challenge: ChallengePolicy{BlockList: []string{"xz1"}}})
	z1 := challenge("xz1", false, blitz5)
	h.waitFor("decline by block list", func() bool { st, _ := h.srv.ChallengeStatus(z1); return st == "declined" })
	if _, key := h.srv.ChallengeStatus(z1); key != "generic" {
		t.Errorf("challenge of a blocked user declined with %q, want generic", key)
	}
	if st, _ := h.srv.ChallengeStatus(o1); st != "created" {
		t.Errorf("our own challenge is %s", st)
	}
	if n := h.requests("POST /api/challenge/" + o1 + "/*"); n != 0 {
		t.Errorf("our own challenge answered %d times", n)
	}
}

// A duplicate state for a ply in progress (a reconnect's gameFull, a repeated
// gameState) starts no second search and no second post.
func TestMoveDedupe(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(4))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	block := make(chan struct{})
	pool := &playerPool{next: func(i int, p *testPlayer) { p.block = block }}
	_, stop := h.runBot(Settings{}, pool)
	testsupport.WaitFor(t, "player thinking", func() bool {
		ps := pool.all()
		n := 0
		if len(ps) > 0 {
			ps[0].get(func(p *testPlayer) { n = p.thinks })
		}
		return n == 1
	})
	// While the player thinks: repeated states and a dropped stream.
	if !h.srv.RepeatGameState(id) || !h.srv.RepeatGameState(id) {
		t.Fatal("no game stream to repeat the state on")
	}
	h.srv.DropGameStreams(id)
	h.waitFor("game stream reopened", func() bool {
		return h.requests("GET /api/bot/game/stream/"+id) >= 2 && h.srv.GameStreams(id, botName) == 1
	})
	h.srv.RepeatGameState(id)
	close(block)
	h.waitOver(id)
	stop()
	h.noDuplicatePosts(id)
	if n := h.requests("POST /api/bot/game/" + id + "/move/*"); n != 3 {
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
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(4))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	// The server applies the first move, then kills the connection.
	h.srv.InjectLostAnswer("POST /api/bot/game/"+id+"/move/*", 1)
	_, stop := h.runBot(Settings{}, &playerPool{})
	h.waitOver(id)
	stop()
	broke := false
	for _, r := range h.srv.RequestsMatching("POST /api/bot/game/" + id + "/move/*") {
		broke = broke || r.Lost
	}
	if !broke {
		t.Fatal("the connection was never broken")
	}
	h.noDuplicatePosts(id)
}

func TestGameStreamDroppedMidGame(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(9))
	id := h.startGame("opponent", false, lichesstest.ChallengeParams{})
	// The server drops the game stream right after the states of plies 2,
	// 3, 5 and 7 (the state itself may or may not get through).
	h.srv.DropGameStreamsAfter(id, 2, 3, 5, 7)
	pool := &playerPool{}
	_, stop := h.runBot(Settings{}, pool)
	g := h.waitOver(id)
	stop()
	h.noDuplicatePosts(id)
	if n := h.requests("GET /api/bot/game/stream/" + id); n < 2 {
		t.Errorf("game stream opened %d times, want reconnects", n)
	}
	if g.Status != "resign" || g.Winner != "black" {
		t.Errorf("game ended %s/%s", g.Status, g.Winner)
	}
}

// A 429 on one game's move does not hold up another game.
func TestRateLimitedGameDoesNotBlockOthers(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(6))
	limited := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	free := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	h.srv.Inject429("POST /api/bot/game/"+limited+"/move/*", 1000, time.Hour)
	s := Settings{Challenge: ChallengePolicy{MaxGames: 2}}
	b, stop := h.runBot(s, &playerPool{})
	h.waitOver(free)
	// On a loaded machine the free game can end before the limited game's
	// first move request has been answered; the checks below need it.
	testsupport.WaitFor(t, "limited game's move refused", func() bool {
		return h.requests("POST /api/bot/game/"+limited+"/move/*") >= 1 && b.c.Cooldown("move/"+limited) > 0
	})
	if d := b.c.Cooldown("move/" + limited); d < 59*time.Minute {
		t.Errorf("limited game's cool-down %v", d)
	}
	stop()
	if n := h.requests("POST /api/bot/game/" + limited + "/move/*"); n != 1 {
		t.Errorf("limited game: %d move requests, want 1 (none inside the cool-down)", n)
	}
	h.noDuplicatePosts(free)
}

// A bot stopped mid-game and started again finishes the game.
func TestRestartMidGame(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(10))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	// The first run's player hangs from ply 4 on; the bot is stopped there.
	hang := make(chan struct{})
	defer close(hang)
	pool1 := &playerPool{next: func(i int, p *testPlayer) { p.block, p.blockAt = hang, 4 }}
	_, stop1 := h.runBot(Settings{}, pool1)
	testsupport.WaitFor(t, "ply 4 thinking", func() bool {
		n := 0
		for _, p := range pool1.all() {
			p.get(func(p *testPlayer) { n += p.thinks })
		}
		return n == 3
	})
	stop1()
	if h.game(id).Finished {
		t.Fatal("game ended before the restart")
	}
	_, stop2 := h.runBot(Settings{}, &playerPool{})
	g := h.waitOver(id)
	stop2()
	h.noDuplicatePosts(id)
	if g.Status != "resign" || len(g.Moves) != 11 {
		t.Errorf("game ended %s after %d plies", g.Status, len(g.Moves))
	}
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
			h := newHarness(t)
			h.addHuman("opponent")
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{FEN: tc.fen})
			_, stop := h.runBot(Settings{Game: GameSettings{OnOpponentGone: tc.on}}, &playerPool{})
			h.waitPlies(id, 1) // our move
			// Gone, and the claim possible at once (claimWinInSeconds 0).
			if err := h.srv.SetGone(id, "opponent", true, -1); err != nil {
				t.Fatal(err)
			}
			h.waitOver(id)
			stop()
			if c := h.actions(id); len(c) != 1 || c[0] != tc.want {
				t.Errorf("claims %v, want %s", c, tc.want)
			}
		})
	}
}

// opponentGone with gone:false cancels a pending claim.
func TestOpponentBack(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	_, stop := h.runBot(Settings{}, &playerPool{})
	h.waitPlies(id, 1) // our move
	for _, err := range []error{
		h.srv.SetGone(id, "opponent", true, time.Second),
		h.srv.SetGone(id, "opponent", false, 0),
		h.srv.Chat(id, "opponent", "player", "!name"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("chat answer", func() bool { return len(h.botChat(id)) > 0 })
	time.Sleep(1200 * time.Millisecond) // past the cancelled claim time
	stop()
	if c := h.actions(id); len(c) != 0 {
		t.Errorf("claims %v after the opponent came back", c)
	}
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
			h := newHarness(t)
			h.addHuman("opponent")
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawAfterMove: tc.afterMove}}
			// From ply 2 on the player thinks until the end, so that the
			// offers below come while it is our turn.
			block := make(chan struct{})
			defer close(block)
			pool := &playerPool{next: func(i int, p *testPlayer) { p.score, p.block, p.blockAt = tc.score, block, 2 }}
			_, stop := h.runBot(s, pool)
			h.waitPlies(id, 1) // our move
			// The opponent answers, proposes a takeback and offers a draw.
			for _, err := range []error{
				h.srv.Move(id, "opponent", "e7e5"),
				h.srv.Takeback(id, "opponent", true),
				h.srv.Draw(id, "opponent", true),
			} {
				if err != nil {
					t.Fatal(err)
				}
			}
			draw, takeback := "POST /api/bot/game/"+id+"/draw/*", "POST /api/bot/game/"+id+"/takeback/*"
			h.waitFor("answers", func() bool { return h.requests(draw) >= 1 && h.requests(takeback) >= 1 })
			stop()
			if d, tb := h.lastSegments(draw), h.lastSegments(takeback); len(d) != 1 || len(tb) != 1 || d[0] != tc.want || tb[0] != "no" {
				t.Errorf("draw answer %v takeback answer %v", d, tb)
			}
		})
	}
}

func TestAbortSilentOpponent(t *testing.T) {
	for _, white := range []bool{true, false} {
		h := newHarness(t)
		h.addHuman("opponent")
		id := h.startGame("opponent", white, lichesstest.ChallengeParams{})
		_, stop := h.runBot(Settings{Game: GameSettings{AbortAfter: 50 * time.Millisecond}}, &playerPool{})
		g := h.waitOver(id)
		stop()
		if c := h.actions(id); g.Status != "aborted" || len(c) != 1 || c[0] != "abort" {
			t.Errorf("white=%v: status %s claims %v", white, g.Status, c)
		}
	}
}

// With one legal move the bot plays it without asking the player.
func TestSingleLegalMove(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(1))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{FEN: "k7/8/8/8/8/8/1q6/K7 w - - 0 1"})
	pool := &playerPool{}
	_, stop := h.runBot(Settings{}, pool)
	g := h.waitOver(id)
	stop()
	if m := g.Moves; len(m) != 1 || m[0] != "a1b2" {
		t.Errorf("moves %v, want [a1b2]", m)
	}
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
		h := newHarness(t)
		h.addHouse("opponent", houseFirst(4))
		id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
		pool := &playerPool{next: func(i int, p *testPlayer) {
			if i == 0 {
				p.thinkErr = errors.New("engine crashed")
			}
		}}
		_, stop := h.runBot(Settings{}, pool)
		h.waitOver(id)
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
		h.noDuplicatePosts(id)
	})
	t.Run("illegal move: fallback", func(t *testing.T) {
		h := newHarness(t)
		h.addHouse("opponent", houseFirst(4))
		id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
		pool := &playerPool{next: func(i int, p *testPlayer) { p.illegal = true }}
		_, stop := h.runBot(Settings{}, pool)
		g := h.waitOver(id)
		stop()
		if g.Status != "resign" || len(g.Moves) != 5 {
			t.Errorf("game %s after %d plies", g.Status, len(g.Moves))
		}
		if n := h.requests("POST /api/bot/game/" + id + "/move/a1a8"); n != 0 {
			t.Error("illegal move posted")
		}
	})
	t.Run("hung player: fallback before the flag", func(t *testing.T) {
		// Two seconds for the first move and on the clock, 1.5 s of it
		// kept back: the server flags a move that comes too late. The
		// hung player never answers, so a bot that waited for it would
		// lose on time whatever the margin; the margin is wide because
		// the fallback's post must get through a loaded machine's
		// scheduler (300 ms did not always).
		h := newHarness(t, lichesstest.WithFirstMoveTimeout(2*time.Second))
		h.addHouse("opponent", houseFirst(2))
		id := h.startGame("opponent", true, lichesstest.ChallengeParams{ClockLimit: 2 * time.Second, ClockIncrement: time.Second})
		release := make(chan struct{})
		defer close(release)
		pool := &playerPool{next: func(i int, p *testPlayer) { p.hang = true; p.release = release }}
		_, stop := h.runBot(Settings{Clock: ClockSettings{MoveOverhead: 1500 * time.Millisecond}}, pool)
		g := h.waitOver(id)
		stop()
		if g.Status != "resign" || len(g.Moves) != 3 {
			t.Errorf("game %s, moves %v", g.Status, g.Moves)
		}
	})
}

func TestChatCommands(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	_, stop := h.runBot(Settings{Chat: ChatSettings{Name: "ponderosa test"}}, &playerPool{next: func(i int, p *testPlayer) { p.score = -42 }})
	h.waitPlies(id, 1) // our move
	for _, l := range [][2]string{
		{"player", "!help"},
		{"player", "!eval"},
		{"spectator", "!eval"},
		{"spectator", "!NAME please"},
		{"player", "hello"},
	} {
		if l[0] == "player" {
			if err := h.srv.Chat(id, "opponent", l[0], l[1]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// A spectator: a line on the game stream only.
		h.srv.InjectGameLine(id, `{"type":"chatLine","room":"spectator","username":"watcher","text":"`+l[1]+`"}`)
	}
	h.waitFor("four answers", func() bool { return len(h.botChat(id)) >= 4 })
	stop()
	got := strings.Join(h.botChat(id), "\n")
	for _, want := range []string{"player:Commands: !help", "player:!eval is for spectators only",
		"spectator:Eval -0.42, depth 3", "spectator:ponderosa test"} {
		if !strings.Contains(got, want) {
			t.Errorf("chat lacks %q:\n%s", want, got)
		}
	}
	if n := len(h.botChat(id)); n != 4 {
		t.Errorf("%d chat lines, want 4:\n%s", n, got)
	}
}

// Drain declines new challenges and returns once the games are over.
func TestDrain(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(Settings{Challenge: ChallengePolicy{MaxGames: 3}}, &playerPool{})
	h.waitPlies(id, 1) // our move
	drained := make(chan error, 1)
	go func() { drained <- b.Drain(context.Background()) }()
	testsupport.WaitFor(t, "draining", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.draining })
	h.addHuman("bob")
	late := h.challenge("bob", lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute})
	h.waitFor("decline", func() bool { st, key := h.srv.ChallengeStatus(late); return st == "declined" && key == "later" })
	select {
	case err := <-drained:
		t.Fatalf("Drain returned %v with a game running", err)
	default:
	}
	if err := h.srv.Resign(id, "opponent"); err != nil {
		t.Fatal(err)
	}
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if g := b.Games(); len(g) != 0 {
		t.Errorf("games after drain: %v", g)
	}
	stop()
	// A drain bounded by a context returns its error while games run.
	h2 := newHarness(t)
	h2.addHuman("opponent")
	id2 := h2.startGame("opponent", true, lichesstest.ChallengeParams{})
	b2, _ := h2.runBot(Settings{}, &playerPool{})
	h2.waitPlies(id2, 1) // our move
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b2.Drain(ctx); err == nil {
		t.Error("Drain with a running game and an expired context returned nil")
	}
}

func TestRunRefusesNonBotAccount(t *testing.T) {
	h := newHarness(t)
	// Our account as a human whose token has every scope a bot needs.
	h.srv.AddAccount(botName, botToken, false, 2000)
	h.srv.SetScopes(botName, lichesstest.ScopeBotPlay, lichesstest.ScopeChallengeRead, lichesstest.ScopeChallengeWrite)
	b := NewBot(h.client(), (&playerPool{}).factory, Settings{}, testsupport.Logger(t))
	err := b.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a Bot account") || !errors.Is(err, lichess.ErrNotBot) {
		t.Fatalf("Run for a non-bot account: %v", err)
	}
	// A bot account whose token lacks bot:play.
	h.srv.AddAccount(botName, botToken, true, 2000)
	h.srv.SetScopes(botName, lichesstest.ScopeBoardPlay)
	if err := NewBot(h.client(), nil, Settings{}, testsupport.Logger(t)).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "bot:play") {
		t.Fatalf("Run without bot:play: %v", err)
	}
}

// Lichess may write castling as king takes rook even in standard chess; the
// Player always gets king-to-destination moves.
func TestCastlingNotation(t *testing.T) {
	h := newHarness(t, lichesstest.WithCastlingAsKingTakesRook())
	h.addHouse("opponent", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, Moves: []string{"e8g8"}, ResignAt: 3})
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{FEN: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"})
	pool := &playerPool{next: func(i int, p *testPlayer) { p.prefer = []string{"e1h1"} }}
	_, stop := h.runBot(Settings{}, pool)
	g := h.waitOver(id)
	stop()
	// The server keeps castling as the king's move; it wrote e1h1 e8h8.
	if m := g.Moves; len(m) != 3 || strings.Join(m, " ") != "e1g1 e8g8 "+m[2] {
		t.Errorf("server moves %v", m)
	}
	h.noDuplicatePosts(id)
	pool.all()[0].get(func(p *testPlayer) {
		if len(p.seen) != 2 || strings.Join(p.seen[1], " ") != "e1g1 e8g8" {
			t.Errorf("player saw %v, want [[] [e1g1 e8g8]]", p.seen)
		}
	})
	if n := h.requests("POST /api/bot/game/" + id + "/move/e1g1"); n != 1 {
		t.Errorf("castling posted %d times as e1g1", n)
	}
}

// The game's moves live in the worker: it tells the player each position
// once, the opponent's move before Think and our posted move before
// Ponder, and the player never has to add a move of its own.
func TestPlayerToldEachPositionOnce(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(7))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	pool := &playerPool{}
	_, stop := h.runBot(Settings{}, pool)
	server := h.waitOver(id).Moves
	stop()
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
	h := newHarness(t)
	h.addHuman("opponent")
	u1 := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(Settings{Chat: ChatSettings{Name: "old name"}}, &playerPool{})
	h.waitPlies(u1, 1) // our move
	b.UpdateSettings(Settings{Chat: ChatSettings{Name: "new name"}})
	u2 := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	h.waitPlies(u2, 1) // our move in u2
	for _, id := range []string{u1, u2} {
		if err := h.srv.Chat(id, "opponent", "player", "!name"); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("answers", func() bool { return len(h.botChat(u1)) == 1 && len(h.botChat(u2)) == 1 })
	stop()
	if a, b := h.botChat(u1)[0], h.botChat(u2)[0]; a != "player:old name" || b != "player:new name" {
		t.Errorf("!name answers: running game %q, new game %q", a, b)
	}
}

// A token revoked while the bot runs ends Run with an error instead of
// reconnecting forever: the event stream drops, and the requests of the
// reconnection get 401, which GET /api/account confirms.
func TestRunEndsWhenTokenRevoked(t *testing.T) {
	h := newHarness(t)
	b := NewBot(h.client(), (&playerPool{}).factory, Settings{ReconnectMin: time.Millisecond}, testsupport.Logger(t))
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background()) }()
	h.waitFor("the event stream", func() bool { return h.srv.EventStreamOpen(botName) })
	h.srv.RevokeToken(botToken)
	h.srv.DropEventStream(botName)
	var err error
	select {
	case err = <-done:
	case <-h.ctx.Done():
		t.Fatal("Run goes on with a revoked token")
	}
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), botToken) || !errors.Is(err, lichess.ErrTokenRefused) {
		t.Fatalf("Run with a revoked token: %v", err)
	}
}

// A 401 to the event stream while GET /api/account still accepts the token
// does not end Run: the bot reconnects, as after any dropped stream.
func TestRunGoesOnAfterOdd401(t *testing.T) {
	h := newHarness(t)
	_, stop := h.runBot(Settings{}, &playerPool{})
	h.srv.InjectError("GET /api/stream/event", 2, http.StatusUnauthorized)
	h.srv.DropEventStream(botName)
	// Opened, twice refused, opened again.
	h.waitFor("the event stream again", func() bool {
		return h.requests("GET /api/stream/event") >= 4 && h.srv.EventStreamOpen(botName)
	})
	stop() // fails the test if Run ended with an error
}

// At start-up, a token that Lichess's token test does not know (the
// account's answer had no X-OAuth-Scopes header) is refused at once, not
// retried as if Lichess were unreachable.
func TestRunTokenUnknownToTokenTest(t *testing.T) {
	h := newHarness(t)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/token/test" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"` + botToken + `":null}`))
			return
		}
		h.srv.Handler().ServeHTTP(noScopesHeader{w}, r)
	}))
	defer proxy.Close()
	c, err := lichess.New(proxy.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: botToken}), lichess.WithLogger(testsupport.Logger(t)))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBot(c, (&playerPool{}).factory, Settings{ReconnectMin: time.Millisecond, ReconnectMax: time.Millisecond}, testsupport.Logger(t))
	ctx, cancel := context.WithTimeout(h.ctx, testsupport.WaitLimit)
	defer cancel()
	err = b.Run(ctx)
	if !errors.Is(err, lichess.ErrTokenRefused) || ctx.Err() != nil || strings.Contains(err.Error(), botToken) {
		t.Fatalf("Run with a token the token test does not know: %v", err)
	}
	if n := h.requests("GET /api/account"); n != 1 {
		t.Errorf("account asked %d times, want once (no retry)", n)
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

// A token revoked during a game: the streams already open go on, the bot's
// next request (its move) gets 401, and Run ends at once with an error
// matching lichess.ErrTokenRefused, instead of playing on with a token that
// cannot move or reconnecting forever.
func TestRunEndsWhenTokenRevokedMidGame(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	id := h.startGame("opponent", false, lichesstest.ChallengeParams{ClockLimit: 10 * time.Minute})
	b := NewBot(h.client(), (&playerPool{}).factory, Settings{ReconnectMin: 10 * time.Millisecond, ReconnectMax: 100 * time.Millisecond}, testsupport.Logger(t))
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background()) }()
	h.waitFor("the game stream", func() bool { return h.srv.EventStreamOpen(botName) && h.srv.GameStreams(id, botName) > 0 })
	if !h.srv.RevokeToken(botToken) {
		t.Fatal("token unknown to the server")
	}
	if err := h.srv.Move(id, "opponent", "e2e4"); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-h.ctx.Done():
		t.Fatal("Run goes on with a revoked token")
	}
	if !errors.Is(err, lichess.ErrTokenRefused) || strings.Contains(err.Error(), botToken) {
		t.Fatalf("Run after the revocation: %v", err)
	}
	if n := len(h.srv.RequestsMatching("GET /api/stream/event")); n != 1 {
		t.Errorf("event stream opened %d times, want once (no reconnect with a refused token)", n)
	}
	if len(b.Games()) != 0 {
		t.Errorf("games still running after Run: %v", b.Games())
	}
	if g := h.game(id); len(g.Moves) != 1 {
		t.Errorf("moves %v: the bot played with a revoked token", g.Moves)
	}
}

// At start-up, Lichess being unreachable or failing (5xx) is retried.
func TestRunRetriesStartUp(t *testing.T) {
	h := newHarness(t)
	h.srv.InjectError("GET /api/account", 2, http.StatusServiceUnavailable)
	_, stop := h.runBot(Settings{}, &playerPool{})
	testsupport.WaitFor(t, "event stream", func() bool { return h.requests("GET /api/stream/event") > 0 })
	stop()
	if n := h.requests("GET /api/account"); n != 3 {
		t.Errorf("account asked %d times, want 3", n)
	}
}

// The resign rule: resign after ResignForMoves lost evaluations in a row.
func TestResignRule(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(0))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	s := Settings{Game: GameSettings{Resign: true, ResignBelowCP: 500, ResignForMoves: 2}}
	_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score = -900 }})
	g := h.waitOver(id)
	stop()
	if c := h.actions(id); g.Status != "resign" || g.Winner != "black" || len(g.Moves) != 2 || len(c) != 1 {
		t.Errorf("game %s/%s after %d plies, actions %v; want our resignation at ply 2", g.Status, g.Winner, len(g.Moves), c)
	}
}

// After a grace period, EndGames aborts what can be aborted and resigns the
// rest; OnOpponentGone "wait" claims nothing.
func TestEndGamesAndWait(t *testing.T) {
	h := newHarness(t)
	h.addHuman("sleeper")
	h.addHouse("mover", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, Moves: []string{"e7e5"}})
	early := h.startGame("sleeper", true, lichesstest.ChallengeParams{})
	late := h.startGame("mover", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(Settings{Challenge: ChallengePolicy{MaxGames: 2}, Game: GameSettings{OnOpponentGone: OpponentGoneWait}}, &playerPool{})
	h.waitFor("moves", func() bool { return len(h.game(early).Moves) == 1 && len(h.game(late).Moves) >= 3 })
	h.srv.RemoveHousePlayer("mover")
	if err := h.srv.SetGone(early, "sleeper", true, -1); err != nil {
		t.Fatal(err)
	}
	testsupport.WaitFor(t, "both games running", func() bool { return len(b.Games()) == 2 })
	time.Sleep(200 * time.Millisecond) // a claim, if any, would be sent now
	if err := b.EndGames(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.waitFor("games over", func() bool { return h.game(early).Finished && h.game(late).Finished })
	stop()
	if g, c := h.game(early), h.actions(early); g.Status != "aborted" || len(c) != 1 {
		t.Errorf("early game: %s, actions %v; want aborted and no claim", g.Status, c)
	}
	if g := h.game(late); g.Status != "resign" || g.Winner != "black" {
		t.Errorf("late game: %s/%s; want our resignation", g.Status, g.Winner)
	}
}
