package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The online player's tests run the bot against lichesstest, whose fakes
// of the knowledge services recommend lichesstest.OnlineMove, a move the
// test player (the first legal move) does not play.

// A won pawn ending, for the tablebase (fromPosition).
const tablebaseFEN = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"

var onlineServices = map[string]lichesstest.OnlineService{
	"tablebase": lichesstest.OnlineTablebase,
	"cloud":     lichesstest.OnlineCloudEval,
	"explorer":  lichesstest.OnlineExplorer,
	"chessdb":   lichesstest.OnlineChessDB,
}

// onlineSource makes the source name, talking to the harness's server.
func (h *harness) onlineSource(name string) online.Source {
	c := h.client()
	switch name {
	case "tablebase":
		return &online.Tablebase{Client: c, BaseURL: h.srv.URL() + lichesstest.TablebasePath}
	case "cloud":
		return &online.Cloud{Client: c, MinDepth: 20}
	case "explorer":
		return &online.Explorer{Client: c, BaseURL: h.srv.URL() + lichesstest.ExplorerPath, Database: lichess.ExplorerMasters,
			Sort: online.SortGames, MinGames: 10}
	case "chessdb":
		return &online.ChessDB{BaseURL: h.srv.URL() + lichesstest.ChessDBPath, Action: online.ChessDBBest}
	}
	h.t.Fatalf("no source %s", name)
	return nil
}

// withOnline wraps the harness's players in an online player asking the
// sources given, each with a timeout of 300 ms, min time 1 s and no miss
// cap unless set.
func withOnline(h *harness, sources ...OnlineSource) {
	h.wrap = func(f PlayerFactory) PlayerFactory {
		log := h.log
		if log == nil {
			l := testsupport.Logger(h.t)
			log = &l
		}
		return NewOnlinePlayer(f, OnlineOptions{Sources: sources, Logger: *log})
	}
}

func (h *harness) source(name string) OnlineSource {
	return OnlineSource{Source: h.onlineSource(name), Timeout: 300 * time.Millisecond, MinTime: time.Second}
}

// onlineGame starts a game of the bot (White) against a silent opponent,
// from the tablebase position for the tablebase and from the start
// otherwise, and returns its id and initial FEN.
func onlineGame(h *harness, name string) (string, string) {
	h.addHuman("Alice")
	if name == "tablebase" {
		return h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "fromPosition", FEN: tablebaseFEN}), tablebaseFEN
	}
	return h.startGame("Alice", true, lichesstest.ChallengeParams{}), StartFEN
}

// A good answer of each source is played, and the move's log line names
// the source.
func TestOnlineSourceMovePlayed(t *testing.T) {
	for _, name := range []string{"tablebase", "cloud", "explorer", "chessdb"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			buf := withLog(h)
			withOnline(h, h.source(name))
			pool := &playerPool{}
			h.runBot(Settings{}, pool)
			id, fen := onlineGame(h, name)
			h.waitPlies(id, 1)
			want := lichesstest.OnlineMove(fen)
			// Our engine, which did not choose the move, is told it.
			testsupport.WaitFor(t, "the position after the online move", func() bool {
				told := false
				for _, p := range pool.all() {
					p.get(func(p *testPlayer) { told = told || slices.Contains(p.calls, "position "+want) })
				}
				return told
			})
			if g := h.game(id); g.Moves[0] != want {
				t.Errorf("first move %s, want the source's %s", g.Moves[0], want)
			}
			waitLogged(t, buf, "move played")
			var played map[string]any
			for _, ev := range logEvents(t, buf) {
				if ev["message"] == "move played" {
					played = ev
				}
			}
			if played["source"] != name || played["move"] != want {
				t.Errorf("move played logged %v, want source=%s move=%s", played, name, want)
			}
			h.noRefusedMoves()
		})
	}
}

// Whatever goes wrong with a source (slow past its timeout, 429, 500, an
// answer that is not JSON, an illegal move, a position it does not know),
// our own engine moves, in time: the move is legal, posted once, long
// before the slow source would have answered.
func TestOnlineSourceFaultsFallBack(t *testing.T) {
	faults := []lichesstest.OnlineFault{lichesstest.OnlineSlow, lichesstest.Online429, lichesstest.Online500,
		lichesstest.OnlineGarbage, lichesstest.OnlineIllegal, lichesstest.OnlineNotFound}
	for _, name := range []string{"tablebase", "cloud", "explorer", "chessdb"} {
		for _, f := range faults {
			t.Run(fmt.Sprintf("%s/%s", name, f), func(t *testing.T) {
				h := newHarness(t)
				h.srv.SetOnlineFault(onlineServices[name], f)
				h.srv.SetOnlineSlowness(time.Minute)
				withOnline(h, h.source(name))
				pool := &playerPool{}
				h.runBot(Settings{}, pool)
				id, fen := onlineGame(h, name)
				start := time.Now()
				h.waitPlies(id, 1)
				took := time.Since(start)
				g := h.game(id)
				if g.Moves[0] == lichesstest.OnlineMove(fen) {
					t.Errorf("played the source's move %s despite the fault", g.Moves[0])
				}
				// The slow source answers after a minute; the move comes
				// after its 300 ms timeout.
				if took > 20*time.Second {
					t.Errorf("the move took %v", took)
				}
				if n := len(h.srv.OnlineAnswers()); n != 1 {
					t.Errorf("the source was asked %d times, want 1", n)
				}
				thinks := 0
				for _, p := range pool.all() {
					p.get(func(p *testPlayer) { thinks += p.thinks })
				}
				if thinks != 1 {
					t.Errorf("our engine thought %d times, want 1", thinks)
				}
				h.noRefusedMoves()
				h.noDuplicatePosts(id)
			})
		}
	}
}

// After max_misses misses in a row a source is not asked again in the
// game; the game goes on with our own moves.
func TestOnlineMissCap(t *testing.T) {
	h := newHarness(t)
	h.srv.SetOnlineFault(lichesstest.OnlineExplorer, lichesstest.OnlineNotFound)
	src := h.source("explorer")
	src.MaxMisses = 2
	withOnline(h, src)
	h.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	h.runBot(Settings{}, &playerPool{})
	id := h.startGame("Greedy", true, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute, ClockIncrement: 3 * time.Second})
	h.waitPlies(id, 9) // five moves of ours
	if g := h.game(id); g.Finished {
		t.Fatalf("game over after %d plies: %s", len(g.Moves), g.Status)
	}
	if n := len(h.srv.OnlineAnswers()); n != 2 {
		t.Errorf("the explorer was asked %d times in five moves, want 2 (max_misses)", n)
	}
	h.noRefusedMoves()
}

// A hit resets the count: misses must be in a row.
func TestOnlineMissCapCountsInARow(t *testing.T) {
	h := newHarness(t)
	src := h.source("explorer")
	src.MaxMisses = 2
	withOnline(h, src)
	h.addHuman("Alice")
	h.runBot(Settings{}, &playerPool{})
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute, ClockIncrement: 3 * time.Second})
	// miss, hit, miss, miss, (no question)
	faults := []lichesstest.OnlineFault{lichesstest.OnlineNotFound, lichesstest.OnlineGood, lichesstest.OnlineNotFound, lichesstest.OnlineNotFound, lichesstest.OnlineGood}
	replies := []string{"a7a6", "b7b6", "c7c6", "d7d6"}
	for i, f := range faults {
		h.srv.SetOnlineFault(lichesstest.OnlineExplorer, f)
		if i > 0 {
			if err := h.srv.Move(id, "Alice", replies[i-1]); err != nil {
				t.Fatal(err)
			}
		}
		h.waitPlies(id, 2*i+1)
	}
	got := []lichesstest.OnlineFault{}
	for _, a := range h.srv.OnlineAnswers() {
		got = append(got, a.Fault)
	}
	if !slices.Equal(got, faults[:4]) {
		t.Errorf("explorer asked with answers %v, want %v (asked four times, not after the second miss in a row)", got, faults[:4])
	}
}

// On a clock shorter than min_time the source is not asked at all.
func TestOnlineMinTime(t *testing.T) {
	h := newHarness(t)
	src := h.source("cloud")
	src.MinTime = time.Hour
	withOnline(h, src)
	h.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	h.runBot(Settings{}, &playerPool{})
	id := h.startGame("Greedy", true, lichesstest.ChallengeParams{ClockLimit: 5 * time.Minute, ClockIncrement: 3 * time.Second})
	h.waitPlies(id, 5)
	if a := h.srv.OnlineAnswers(); len(a) != 0 {
		t.Errorf("the cloud was asked %d times with less than min_time left", len(a))
	}
}

// The explorer gets the bot's token; chessdb never does; the token is in
// no log line.
func TestOnlineTokenOnlyToLichess(t *testing.T) {
	h := newHarness(t)
	buf := withLog(h)
	h.srv.SetOnlineFault(lichesstest.OnlineExplorer, lichesstest.OnlineNotFound)
	withOnline(h, h.source("explorer"), h.source("chessdb"))
	h.runBot(Settings{}, &playerPool{})
	id, fen := onlineGame(h, "explorer")
	h.waitPlies(id, 1)
	if g := h.game(id); g.Moves[0] != lichesstest.OnlineMove(fen) {
		t.Errorf("first move %s, want chessdb's %s", g.Moves[0], lichesstest.OnlineMove(fen))
	}
	var asked []string
	for _, a := range h.srv.OnlineAnswers() {
		asked = append(asked, string(a.Service))
		switch a.Service {
		case lichesstest.OnlineExplorer:
			if !a.Authorized {
				t.Error("the explorer was asked without the token")
			}
		case lichesstest.OnlineChessDB:
			if a.Authorized {
				t.Error("chessdb was sent an Authorization header")
			}
		}
	}
	if !slices.Equal(asked, []string{"explorer", "chessdb"}) {
		t.Errorf("asked %v, want explorer then chessdb", asked)
	}
	for _, r := range h.srv.RequestsMatching("GET " + lichesstest.ExplorerPath + "/*") {
		if r.Account != botID {
			t.Errorf("explorer request from account %q, want %s", r.Account, botID)
		}
	}
	waitLogged(t, buf, "move played")
	if strings.Contains(buf.String(), botToken) {
		t.Error("the token is in the log")
	}
	if !strings.Contains(buf.String(), "online source missed") {
		t.Error("the explorer's miss is not logged")
	}
}

// fakeSource answers with move (or err, or a panic) and records the
// deadline of each question.
type fakeSource struct {
	move      string
	err       error
	panics    bool
	deadlines []time.Time
}

func (f *fakeSource) Name() string                 { return "fake" }
func (f *fakeSource) Applies(online.Position) bool { return true }
func (f *fakeSource) Move(ctx context.Context, p online.Position) (online.Move, error) {
	d, _ := ctx.Deadline()
	f.deadlines = append(f.deadlines, d)
	if f.panics {
		panic("fake source")
	}
	return online.Move{UCI: f.move}, f.err
}

// onlinePlayerFor returns an online player with source in front of a test
// player, in a new game of info.
func onlinePlayerFor(t *testing.T, info GameInfo, src OnlineSource) (Player, *testPlayer) {
	t.Helper()
	inner := &testPlayer{}
	f := NewOnlinePlayer(func(context.Context) (Player, error) { return inner, nil }, OnlineOptions{Sources: []OnlineSource{src}, Logger: testsupport.Logger(t)})
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.NewGame(context.Background(), info); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return p, inner
}

// A source's timeout is cut to half the time left until the deadline, so
// that our engine keeps the other half.
func TestOnlinePlayerTimeoutHalfTheTimeLeft(t *testing.T) {
	src := &fakeSource{move: "g1f3"}
	p, _ := onlinePlayerFor(t, GameInfo{Variant: "standard"}, OnlineSource{Source: src, Timeout: time.Hour, MinTime: time.Second})
	start := time.Now()
	c := MoveClock{Deadline: start.Add(10 * time.Minute)}
	d, err := p.Think(context.Background(), c)
	if err != nil || d.Move != "g1f3" || d.Source != "fake" {
		t.Fatalf("Think: %+v %v, want the source's g1f3", d, err)
	}
	if len(src.deadlines) != 1 || src.deadlines[0].After(start.Add(5*time.Minute+time.Second)) || src.deadlines[0].Before(start.Add(4*time.Minute)) {
		t.Errorf("the source's deadline is %v after the start, want about half the 10m left", src.deadlines[0].Sub(start))
	}
}

// A source that panics is a miss: our engine moves.
func TestOnlinePlayerSourcePanics(t *testing.T) {
	src := &fakeSource{panics: true}
	p, inner := onlinePlayerFor(t, GameInfo{Variant: "standard"}, OnlineSource{Source: src, Timeout: time.Second})
	d, err := p.Think(context.Background(), MoveClock{})
	if err != nil || d.Source != "" || d.Move == "" {
		t.Fatalf("Think: %+v %v, want our engine's move", d, err)
	}
	inner.get(func(tp *testPlayer) {
		if tp.thinks != 1 {
			t.Errorf("our engine thought %d times, want 1", tp.thinks)
		}
	})
}

// Games the sources do not know (Chess960, other variants) never reach
// them.
func TestOnlinePlayerStandardOnly(t *testing.T) {
	for _, info := range []GameInfo{{Variant: "chess960", Chess960: true}, {Variant: "atomic"}} {
		src := &fakeSource{move: "g1f3"}
		p, _ := onlinePlayerFor(t, info, OnlineSource{Source: src, Timeout: time.Second})
		if info.Variant == "atomic" {
			// no rules here: the test player answers by script
			p.(*onlinePlayer).inner.(*testPlayer).script = func([]string) string { return "e2e4" }
		}
		if _, err := p.Think(context.Background(), MoveClock{}); err != nil {
			t.Errorf("%s: %v", info.Variant, err)
		}
		if len(src.deadlines) != 0 {
			t.Errorf("%s: the source was asked", info.Variant)
		}
	}
}

// When an online move is played, the built-in engine's ponder search (on
// the position before) is stopped: it would otherwise run on, useless.
func TestOnlinePlayerStopsBuiltinPonder(t *testing.T) {
	src := &fakeSource{move: "g1f3"}
	inner := NewBuiltinPlayer(BuiltinOptions{HashMB: 1, TreeMB: 1, Ponder: true, Logger: testsupport.Logger(t)})
	f := NewOnlinePlayer(inner, OnlineOptions{Sources: []OnlineSource{{Source: src, Timeout: time.Second}}, Logger: testsupport.Logger(t)})
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	if err := p.NewGame(ctx, GameInfo{Variant: "standard", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, []string{"e2e4"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	g := p.(*onlinePlayer).inner.(*builtinPlayer).g
	if !g.Pondering() {
		t.Fatal("not pondering after Ponder")
	}
	if err := p.Position(ctx, []string{"e2e4", "e7e5"}); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, MoveClock{})
	if err != nil || d.Move != "g1f3" || d.Source != "fake" {
		t.Fatalf("Think: %+v %v, want the source's g1f3", d, err)
	}
	if g.Pondering() {
		t.Error("the built-in engine still ponders after the online move")
	}
}

// The online tablebase's result reaches the worker: the move's log line
// says it, and it answers the opponent's draw offer (a win for us, by the
// fake: declined) with game.draw.tablebase on.
func TestOnlineTablebaseResultAnswersDrawOffer(t *testing.T) {
	h := newHarness(t)
	buf := withLog(h)
	withOnline(h, h.source("tablebase"))
	h.runBot(Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 1000, DrawTablebase: true}}, &playerPool{})
	id, fen := onlineGame(h, "tablebase")
	h.waitPlies(id, 1)
	b, err := newBoard("fromPosition", fen, h.game(id).Moves)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{h.srv.Move(id, "Alice", b.LegalMoves()[0]), h.srv.Draw(id, "Alice", true)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	draw := "POST /api/bot/game/" + id + "/draw/*"
	h.waitFor("the answer", func() bool { return h.requests(draw) >= 1 })
	if d := h.lastSegments(draw); len(d) != 1 || d[0] != "no" {
		t.Errorf("draw answer %v, want no (the tablebase says we win)", d)
	}
	var played, offered map[string]any
	for _, ev := range logEvents(t, buf) {
		switch ev["message"] {
		case "move played":
			if played == nil {
				played = ev
			}
		case "draw offered":
			offered = ev
		}
	}
	if played["tablebase"] != "win" || offered["tablebase"] != "win" || offered["accept"] != false {
		t.Errorf("first move logged %v, the offer %v; want tablebase=win in both", played, offered)
	}
}
