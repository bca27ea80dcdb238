package client

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// Games of variants without rules in the worker (crazyhouse, atomic, …):
// turn by ply parity, moves as the engine gives them, legality left to the
// engine and the server (lichesstest trusts such moves).

// crazyhouseScript is the bot's moves (White) by ply, a drop among them.
func crazyhouseScript(moves []string) string {
	return map[int]string{0: "e2e4", 2: "e4d5", 4: "P@e6", 6: "g1f3", 8: "f1e2"}[len(moves)]
}

// withLog makes the harness's bots log into a buffer, returned.
func withLog(h *harness) *testsupport.SyncBuffer {
	buf := &testsupport.SyncBuffer{}
	l := zerolog.New(io.MultiWriter(buf, zerolog.NewTestWriter(h.t)))
	h.log = &l
	return buf
}

func TestVariantGameWithoutRules(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	dir := t.TempDir()
	pool := &playerPool{next: func(i int, p *testPlayer) { p.script = crazyhouseScript; p.score = 20 }}
	_, stop := h.runBot(Settings{PGNDir: dir}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "crazyhouse"})
	for i, m := range []string{"d7d5", "d8d5", "f7e6"} {
		h.waitPlies(id, 2*i+1)
		if err := h.srv.Move(id, "Alice", m); err != nil {
			t.Fatal(err)
		}
	}
	h.waitPlies(id, 7)
	if err := h.srv.Resign(id, "Alice"); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id)
	testsupport.WaitFor(t, "record", func() bool { _, err := os.Stat(filepath.Join(dir, id+".pgn")); return err == nil })
	stop()
	g := h.game(id)
	if want := "e2e4 d7d5 e4d5 d8d5 P@e6 f7e6 g1f3"; strings.Join(g.Moves, " ") != want || g.Winner != "white" {
		t.Errorf("moves %v (want %s), winner %q", g.Moves, want, g.Winner)
	}
	h.noDuplicatePosts(id)
	if len(h.actions(id)) != 0 {
		t.Errorf("the bot ended the game itself: %v", h.actions(id))
	}
	pgn, err := os.ReadFile(filepath.Join(dir, id+".pgn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`[Variant "Crazyhouse"]`, `[Result "1-0"]`, "{ Moves in UCI, as Lichess sent them. }",
		"1. e2e4 { [%eval 0.20] depth 1 } d7d5 2. e4d5", "3. P@e6 { [%eval 0.20] depth 1 } f7e6 4. g1f3"} {
		if !strings.Contains(strings.Join(strings.Fields(string(pgn)), " "), want) {
			t.Errorf("PGN lacks %q:\n%s", want, pgn)
		}
	}
	ps := pool.all()
	if len(ps) != 1 {
		t.Fatalf("%d players made, want 1", len(ps))
	}
	ps[0].get(func(p *testPlayer) {
		if p.info.Variant != "crazyhouse" || p.info.Chess960 || p.thinks != 4 {
			t.Errorf("player: info %+v, %d thinks", p.info, p.thinks)
		}
	})
}

// An engine that does not answer in time in a variant game: there is no
// legal-move list for a fallback, so a fresh engine is asked for a quick
// move at once, the log says why, and the game goes on.
func TestVariantEngineTimeoutAsksFreshEngine(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	buf := withLog(h)
	pool := &playerPool{next: func(i int, p *testPlayer) {
		p.script = func(moves []string) string { return map[int]string{0: "e2e4", 2: "g1f3", 4: "f1c4"}[len(moves)] }
		if i == 0 {
			p.block, p.blockAt = make(chan struct{}), 2 // hangs from our second move on
		} else {
			p.delay = 300 * time.Millisecond // a fresh engine takes a while to start
		}
	}}
	// A short clock and the default move overhead: the engine is given up
	// early enough (quickReserve) for the fresh one's move to land before
	// the flag.
	_, stop := h.runBot(Settings{}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "atomic", ClockLimit: 4 * time.Second, ClockIncrement: time.Second})
	h.waitPlies(id, 1)
	if err := h.srv.Move(id, "Alice", "e7e5"); err != nil {
		t.Fatal(err)
	}
	h.waitPlies(id, 3)
	if err := h.srv.Move(id, "Alice", "b8c6"); err != nil {
		t.Fatal(err)
	}
	h.waitPlies(id, 5)
	if err := h.srv.Resign(id, "Alice"); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id)
	stop()
	g := h.game(id)
	if strings.Join(g.Moves, " ") != "e2e4 e7e5 g1f3 b8c6 f1c4" || g.Status != "resign" {
		t.Errorf("game %s after %v", g.Status, g.Moves)
	}
	ps := pool.all()
	if len(ps) != 2 {
		t.Fatalf("%d players made, want 2 (the hung one and a fresh one)", len(ps))
	}
	ps[0].get(func(p *testPlayer) {
		if !p.closed {
			t.Error("the hung player was not closed")
		}
	})
	ps[1].get(func(p *testPlayer) {
		if len(p.clocks) == 0 || p.clocks[0].MoveTime != quickMoveTime {
			t.Errorf("the fresh player's first move: %+v, want a quick move of %v", p.clocks, quickMoveTime)
		}
	})
	if log := buf.String(); !strings.Contains(log, "did not answer before the deadline") ||
		!strings.Contains(log, "no legal-move list in this variant: asking a fresh engine for a quick move") {
		t.Errorf("the log does not say why a fresh engine was asked:\n%s", log)
	}
}

// An engine with no legal move in a variant game (by its rules the game is
// over) makes the bot neither resign nor post anything, nor start another
// engine, which would say the same: it waits for Lichess to end the game.
func TestVariantEngineWithoutMoveWaits(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	buf := withLog(h)
	pool := &playerPool{next: func(i int, p *testPlayer) {
		p.script = func(moves []string) string { return "e2e4" }
		p.noMove, p.noMoveAt = true, 2 // no move from ply 2 on
	}}
	_, stop := h.runBot(Settings{}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "kingOfTheHill"})
	h.waitPlies(id, 1)
	if err := h.srv.Move(id, "Alice", "e7e5"); err != nil {
		t.Fatal(err)
	}
	testsupport.WaitFor(t, "the try at ply 2", func() bool {
		return strings.Contains(buf.String(), "the engine has no move in this variant position")
	})
	time.Sleep(100 * time.Millisecond) // room for a wrong second try or a resignation
	if err := h.srv.Resign(id, "Alice"); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id)
	stop()
	g := h.game(id)
	if len(g.Moves) != 2 || g.Winner != "white" {
		t.Errorf("game %s/%s after %v", g.Status, g.Winner, g.Moves)
	}
	if a := h.actions(id); len(a) != 0 {
		t.Errorf("the bot ended the game: %v", a)
	}
	if n := h.requests("POST /api/bot/game/" + id + "/move/*"); n != 1 {
		t.Errorf("%d move posts, want 1 (ply 0 only)", n)
	}
	thinks := 0
	for _, p := range pool.all() {
		p.get(func(p *testPlayer) { thinks += p.thinks })
	}
	if n := len(pool.all()); n != 1 || thinks != 2 {
		t.Errorf("%d players, %d thinks: want one player, thinking at ply 0 and once at ply 2", n, thinks)
	}
}

// Lichess refusing our move in a variant game (an illegal-move answer) is
// handled as in standard chess, a second try for the ply, which here asks
// a fresh engine since there is no list to pick another move from.
func TestVariantRefusedMoveAsksFreshEngine(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	pool := &playerPool{next: func(i int, p *testPlayer) { p.script = crazyhouseScript }}
	_, stop := h.runBot(Settings{}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "crazyhouse"})
	h.waitPlies(id, 1)
	h.srv.InjectError("POST /api/bot/game/"+id+"/move/*", 1, 400)
	if err := h.srv.Move(id, "Alice", "d7d5"); err != nil {
		t.Fatal(err)
	}
	h.waitPlies(id, 3)
	if err := h.srv.Resign(id, "Alice"); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id)
	stop()
	if g := h.game(id); strings.Join(g.Moves, " ") != "e2e4 d7d5 e4d5" {
		t.Errorf("moves %v", g.Moves)
	}
	posts := h.lastSegments("POST /api/bot/game/" + id + "/move/*")
	if !slices.Equal(posts, []string{"e2e4", "e4d5", "e4d5"}) {
		t.Errorf("posts %v, want e4d5 refused once then played", posts)
	}
	if ps := pool.all(); len(ps) != 2 {
		t.Errorf("%d players made, want 2 (a fresh one after the refusal)", len(ps))
	}
}

// The variant player hands each game to the factory of its variant, made
// at NewGame; a variant without one is refused there; without per-variant
// factories the standard factory is used as it is. The built-in engine
// refuses variants it has no rules for.
func TestVariantPlayerRoutes(t *testing.T) {
	ctx := context.Background()
	std, zh := &playerPool{}, &playerPool{}
	if f := NewVariantPlayer(std.factory, nil); f == nil {
		t.Fatal("nil factory")
	} else if p, _ := f(ctx); p == nil || len(std.all()) != 1 {
		t.Errorf("without per-variant factories: %T, %d standard players", p, len(std.all()))
	} else {
		p.Close()
	}
	f := NewVariantPlayer(std.factory, map[string]PlayerFactory{"crazyhouse": zh.factory})
	for _, tc := range []struct {
		variant     string
		std, zh     int
		errContains string
	}{
		{"crazyhouse", 1, 1, ""},
		{"chess960", 2, 1, ""},
		{"standard", 3, 1, ""},
		{"atomic", 3, 1, "no engine plays atomic"},
	} {
		p, err := f(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = p.NewGame(ctx, GameInfo{ID: "g", Variant: tc.variant, White: true})
		if (tc.errContains == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errContains)) {
			t.Errorf("%s: NewGame error %v", tc.variant, err)
		}
		if len(std.all()) != tc.std || len(zh.all()) != tc.zh {
			t.Errorf("%s: %d standard and %d crazyhouse players, want %d and %d", tc.variant, len(std.all()), len(zh.all()), tc.std, tc.zh)
		}
		if err == nil {
			if err := p.Position(ctx, nil); err != nil {
				t.Errorf("%s: Position: %v", tc.variant, err)
			}
		} else if _, err := p.Think(ctx, MoveClock{}); err == nil {
			t.Errorf("%s: Think without a game", tc.variant)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
	for _, pp := range append(std.all(), zh.all()...) {
		pp.get(func(p *testPlayer) {
			if !p.closed {
				t.Errorf("player of %s not closed", p.info.Variant)
			}
		})
	}
	zh.all()[0].get(func(p *testPlayer) {
		if p.info.Variant != "crazyhouse" || len(p.calls) != 1 {
			t.Errorf("crazyhouse player: %+v, calls %v", p.info, p.calls)
		}
	})

	b, _ := NewBuiltinPlayer(BuiltinOptions{HashMB: 1})(ctx)
	defer b.Close()
	if err := b.NewGame(ctx, GameInfo{ID: "g", Variant: "atomic"}); err == nil || !strings.Contains(err.Error(), "does not play atomic") {
		t.Errorf("built-in player and atomic: %v", err)
	}
	if err := b.NewGame(ctx, GameInfo{ID: "g", Variant: "chess960", Chess960: true, InitialFEN: "rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1"}); err != nil {
		t.Errorf("built-in player and chess960: %v", err)
	}
}

// A per-variant engine gets its UCI_Variant at each game, and its drop
// moves go both ways; a variant its UCI_Variant does not list is refused at
// NewGame, and a general engine (no Variant) refuses a variant without
// rules here, and is set to "chess" for standard games.
func TestUCIPlayerSetsVariant(t *testing.T) {
	ctx := testsupport.Context(t)
	eng := testsupport.NewFakeEngine(t, "variant")
	eng.Setenv(t)
	opts := UCIOptions{Path: eng.Path, Logger: testsupport.Logger(t), Variant: "crazyhouse"}
	p, err := NewUCIPlayer(opts)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", Variant: "crazyhouse", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, []string{"e2e4", "d7d5", "e4d5", "d8d5", "P@e4", "d5e4"}); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, MoveClock{MoveTime: 10 * time.Millisecond, White: true, Deadline: time.Now().Add(5 * time.Second)})
	if err != nil || d.Move != "N@f3" || d.ScoreCP != 31 || strings.Join(d.PV, " ") != "N@f3 e7e6" {
		t.Errorf("Think: %+v, %v", d, err)
	}
	for name, gi := range map[string]struct {
		opts UCIOptions
		gi   GameInfo
		want string
	}{
		"unlisted": {UCIOptions{Path: eng.Path, Variant: "atomic"}, GameInfo{ID: "a", Variant: "atomic"}, `cannot play atomic: its UCI_Variant does not list "atomic"`},
		"general":  {UCIOptions{Path: eng.Path}, GameInfo{ID: "b", Variant: "threeCheck"}, "is not configured for threeCheck"},
		"standard": {UCIOptions{Path: eng.Path}, GameInfo{ID: "c", Variant: "standard"}, ""},
	} {
		q, err := NewUCIPlayer(gi.opts)(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = q.NewGame(ctx, gi.gi)
		q.Close()
		if (gi.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), gi.want)) {
			t.Errorf("%s: NewGame error %v, want %q", name, err, gi.want)
		}
	}
	cmds := strings.Join(eng.Commands(t, false), "\n")
	for _, want := range []string{"setoption name UCI_Variant value crazyhouse", "position startpos moves e2e4 d7d5 e4d5 d8d5 P@e4 d5e4",
		"setoption name UCI_Variant value chess"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("the engine did not get %q:\n%s", want, cmds)
		}
	}
	if strings.Contains(cmds, "UCI_Variant value atomic") {
		t.Error("an unlisted variant was set")
	}
}
