package client

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

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
			// The Lichess tablebase is online-tablebase, apart from the
			// built-in engine's local tables (tablebase).
			src := map[string]string{"tablebase": "online-tablebase"}[name]
			if src == "" {
				src = name
			}
			if played["source"] != src || played["move"] != want {
				t.Errorf("move played logged %v, want source=%s move=%s", played, src, want)
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
				src := h.source(name)
				if f != lichesstest.OnlineSlow {
					// The fault, not the timeout, must make the miss: a
					// timeout of 300 ms can pass on a loaded machine before
					// the question reaches the server (the source is then
					// never asked). The answer comes at once, so a long
					// timeout costs nothing.
					src.Timeout = 10 * time.Second
				} else {
					// Long enough for the question to reach the server
					// on a loaded machine, far shorter than the slowness.
					src.Timeout = 2 * time.Second
				}
				withOnline(h, src)
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
				// after its 2 s timeout.
				if took > 20*time.Second {
					t.Errorf("the move took %v", took)
				}
				// The server records a question before it answers, but
				// after the client may have given up on a slow one: wait
				// for the record, then count.
				testsupport.WaitFor(t, "the source to be asked", func() bool { return len(h.srv.OnlineAnswers()) > 0 })
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

// fakeSource answers with move (or err, or a panic; when slow, nothing
// until its context ends) and records the deadline of each question.
type fakeSource struct {
	name   string // "fake" when empty
	move   string
	err    error
	panics bool
	slow   bool

	mu        sync.Mutex
	deadlines []time.Time
	applies   int // calls of Applies
}

func (f *fakeSource) Name() string {
	if f.name == "" {
		return "fake"
	}
	return f.name
}

func (f *fakeSource) Applies(online.Position) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applies++
	return true
}

func (f *fakeSource) Move(ctx context.Context, p online.Position) (online.Move, error) {
	d, _ := ctx.Deadline()
	f.mu.Lock()
	f.deadlines = append(f.deadlines, d)
	f.mu.Unlock()
	if f.panics {
		panic("fake source")
	}
	if f.slow {
		<-ctx.Done()
		return online.Move{}, ctx.Err()
	}
	return online.Move{UCI: f.move}, f.err
}

// asked returns the deadlines of the questions so far.
func (f *fakeSource) asked() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.deadlines)
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
	if err != nil || d.Source == "fake" || d.Move == "" {
		t.Fatalf("Think: %+v %v, want our engine's move", d, err)
	}
	inner.get(func(tp *testPlayer) {
		if tp.thinks != 1 {
			t.Errorf("our engine thought %d times, want 1", tp.thinks)
		}
	})
}

// Games the sources do not know (other variants, and Chess960 for a
// source that does not serve it: not an online.Chess960Source) never
// reach them.
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

// onlinePlayerWith returns an online player with sources in front of a
// test player, logging to log, in a new standard game at the start.
func onlinePlayerWith(t *testing.T, log zerolog.Logger, srcs ...OnlineSource) (Player, *testPlayer) {
	t.Helper()
	inner := &testPlayer{}
	f := NewOnlinePlayer(func(context.Context) (Player, error) { return inner, nil }, OnlineOptions{Sources: srcs, Logger: log})
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.NewGame(context.Background(), GameInfo{Variant: "standard", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return p, inner
}

// The sources of a move share one budget, half the time left when the
// first is asked: with several slow sources our engine still gets the
// other half (not 1/2^k of it), and a source left with too little of the
// budget is skipped, which is no miss.
func TestOnlinePlayerSourcesShareHalfTheTime(t *testing.T) {
	var srcs []OnlineSource
	var fakes []*fakeSource
	for i := range 4 {
		f := &fakeSource{name: fmt.Sprintf("s%d", i+1), slow: true}
		fakes = append(fakes, f)
		srcs = append(srcs, OnlineSource{Source: f, Timeout: 2 * time.Second, MaxMisses: 1})
	}
	p, inner := onlinePlayerWith(t, testsupport.Logger(t), srcs...)
	start := time.Now()
	deadline := start.Add(1600 * time.Millisecond)
	d, err := p.Think(context.Background(), MoveClock{White: true, Running: true, Deadline: deadline})
	took := time.Since(start)
	if err != nil || d.Source != "search" {
		t.Fatalf("Think: %+v %v, want our engine's move", d, err)
	}
	half := start.Add(800 * time.Millisecond)
	for _, f := range fakes {
		for _, dl := range f.asked() {
			if dl.After(half.Add(50 * time.Millisecond)) {
				t.Errorf("%s asked until %v after the start, past half the 1.6s left", f.name, dl.Sub(start))
			}
		}
	}
	if n := len(fakes[0].asked()); n != 1 {
		t.Errorf("the first source was asked %d times, want 1", n)
	}
	for _, f := range fakes[1:] {
		if n := len(f.asked()); n != 0 {
			t.Errorf("%s was asked with the budget spent", f.name)
		}
	}
	// Our engine thought with about half the time left, not 1/16 of it
	// (a generous bound: the sources took at most 0.8s).
	if left := deadline.Sub(start.Add(took)); left < 500*time.Millisecond {
		t.Errorf("our engine got the move with %v left of 1.6s, want about half", left)
	}
	inner.get(func(tp *testPlayer) {
		if tp.thinks != 1 {
			t.Errorf("our engine thought %d times, want 1", tp.thinks)
		}
	})
	// A skipped source has no miss: with max_misses 1 the second is asked
	// on the next move, the first (which missed) is not.
	fakes[1].slow, fakes[1].move = false, "e7e5"
	if err := p.Position(context.Background(), []string{"e2e4"}); err != nil {
		t.Fatal(err)
	}
	d, err = p.Think(context.Background(), MoveClock{Running: true, Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Source != "s2" || d.Move != "e7e5" {
		t.Errorf("next move: %+v %v, want s2's e7e5", d, err)
	}
	if n := len(fakes[0].asked()); n != 1 {
		t.Errorf("the first source, at max_misses, was asked %d times, want 1", n)
	}
}

// min_time is compared with our clock, not with the time until the
// deadline: before the clocks run the deadline is the first-move
// expiration (here 15s), while our clock holds its full 3 minutes, so a
// source with min_time 20s is asked on our first move, still within half
// of the time until the deadline. Once our clock is shorter than min_time
// the source is not asked.
func TestOnlinePlayerMinTimeOnOurClock(t *testing.T) {
	src := &fakeSource{move: "g1f3"}
	p, _ := onlinePlayerWith(t, testsupport.Logger(t), OnlineSource{Source: src, Timeout: time.Hour, MinTime: 20 * time.Second})
	start := time.Now()
	first := MoveClock{WTime: 3 * time.Minute, BTime: 3 * time.Minute, White: true, MoveTime: 2 * time.Second, Deadline: start.Add(15 * time.Second)}
	d, err := p.Think(context.Background(), first)
	if err != nil || d.Move != "g1f3" || d.Source != "fake" {
		t.Fatalf("first move: %+v %v, want the source's g1f3", d, err)
	}
	if dl := src.asked(); len(dl) != 1 || dl[0].After(start.Add(7500*time.Millisecond+50*time.Millisecond)) {
		t.Errorf("the source was asked until %v, want within half of the 15s until the deadline", dl)
	}
	if err := p.Position(context.Background(), []string{"g1f3", "g8f6"}); err != nil {
		t.Fatal(err)
	}
	short := MoveClock{WTime: 10 * time.Second, BTime: 3 * time.Minute, White: true, Running: true, Deadline: time.Now().Add(10 * time.Second)}
	if d, err := p.Think(context.Background(), short); err != nil || d.Source != "search" {
		t.Errorf("with 10s on our clock: %+v %v, want our engine's move", d, err)
	}
	if n := len(src.asked()); n != 1 {
		t.Errorf("the source was asked %d times, want once (not with 10s on our clock)", n)
	}
}

// A refusal inside a rate-limit cool-down (of the Lichess client or of
// chessdb) skips the source for the move and is no miss; other failures
// are misses.
func TestOnlinePlayerCoolDownIsNoMiss(t *testing.T) {
	for _, tc := range []struct {
		err    error
		asked  int
		reason string
	}{
		{fmt.Errorf("opening explorer masters: %w for explorer (59s left)", lichess.ErrCoolingDown), 3, "lichess cool-down"},
		{fmt.Errorf("%w (59s left)", online.ErrCoolingDown), 3, "chessdb cool-down"},
		{fmt.Errorf("opening explorer masters: HTTP 500"), 1, "a failure"},
	} {
		src := &fakeSource{err: tc.err}
		p, inner := onlinePlayerWith(t, testsupport.Logger(t), OnlineSource{Source: src, Timeout: time.Second, MaxMisses: 1})
		for i, moves := range [][]string{nil, {"e2e4", "e7e5"}, {"e2e4", "e7e5", "g1f3", "b8c6"}} {
			if i > 0 {
				if err := p.Position(context.Background(), moves); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.Think(context.Background(), MoveClock{White: true, Deadline: time.Now().Add(time.Minute)}); err != nil {
				t.Fatalf("%s: Think: %v", tc.reason, err)
			}
		}
		if n := len(src.asked()); n != tc.asked {
			t.Errorf("%s with max_misses 1: asked %d times in 3 moves, want %d", tc.reason, n, tc.asked)
		}
		inner.get(func(tp *testPlayer) {
			if tp.thinks != 3 {
				t.Errorf("%s: our engine thought %d times, want 3", tc.reason, tp.thinks)
			}
		})
	}
}

// The cheap rules come before the board: past the explorer's max_ply the
// game is not replayed at all (here it could not be: the moves are
// garbage, and a replay logs that).
func TestOnlinePlayerNoReplayWithoutSource(t *testing.T) {
	moves := []string{"e2e4", "e7e5", "zz", "zz"}
	for _, tc := range []struct {
		maxPly   int
		replayed bool
	}{{2, false}, {10, true}} {
		var buf bytes.Buffer
		p, inner := onlinePlayerWith(t, zerolog.New(&buf), OnlineSource{Source: &online.Explorer{MaxPly: tc.maxPly}, Timeout: time.Second})
		inner.illegal = true // no board in the test player either
		if err := p.Position(context.Background(), moves); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Think(context.Background(), MoveClock{Deadline: time.Now().Add(time.Minute)}); err != nil {
			t.Fatalf("max_ply %d: Think: %v", tc.maxPly, err)
		}
		if got := strings.Contains(buf.String(), "cannot replay the game"); got != tc.replayed {
			t.Errorf("explorer max_ply %d at ply 4: replayed %v, want %v (log %s)", tc.maxPly, got, tc.replayed, buf.String())
		}
	}
}

// A castling answer written as the king taking its rook (e1h1, as the
// cloud evaluation and the explorer write it) passes the online player's
// legality check and is posted in the canonical form (e1g1), end to end:
// our engine does not think.
func TestOnlineKingTakesRookCastling(t *testing.T) {
	const fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
	for _, name := range []string{"cloud", "explorer", "chessdb"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.SetOnlineFault(onlineServices[name], lichesstest.OnlineKingTakesRook)
			withOnline(h, h.source(name))
			pool := &playerPool{}
			h.runBot(Settings{}, pool)
			h.addHuman("Alice")
			id := h.startGame("Alice", true, lichesstest.ChallengeParams{Variant: "fromPosition", FEN: fen})
			h.waitPlies(id, 1)
			if a := h.srv.OnlineAnswers(); len(a) != 1 || a[0].Move != "e1h1" {
				t.Fatalf("the source answered %+v, want e1h1", a)
			}
			if g := h.game(id); g.Moves[0] != "e1g1" {
				t.Errorf("first move %s, want the source's castling e1g1", g.Moves[0])
			}
			if posted := h.lastSegments("POST /api/bot/game/" + id + "/move/*"); !slices.Equal(posted, []string{"e1g1"}) {
				t.Errorf("posted %v, want [e1g1]", posted)
			}
			thinks := 0
			for _, p := range pool.all() {
				p.get(func(p *testPlayer) { thinks += p.thinks })
			}
			if thinks != 0 {
				t.Errorf("our engine thought %d times, want 0 (the source's move played)", thinks)
			}
			h.noRefusedMoves()
		})
	}
}

// On a bullet clock (2s, and 2s for the first move) a source that never
// answers in its 2s timeout still leaves our move in time: each of our two
// moves (the first before the clocks run, the second on the running
// clock) is posted before the move's deadline, with time left on our
// clock, and the game goes on.
func TestOnlineSourceFaultsFallBackBullet(t *testing.T) {
	for _, name := range []string{"cloud", "explorer", "chessdb"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, lichesstest.WithFirstMoveTimeout(2*time.Second))
			h.srv.SetOnlineFault(onlineServices[name], lichesstest.OnlineSlow)
			h.srv.SetOnlineSlowness(time.Minute)
			src := h.source(name)
			src.Timeout, src.MinTime = 2*time.Second, time.Second
			withOnline(h, src)
			pool := &playerPool{}
			h.runBot(Settings{}, pool)
			h.addHuman("Alice")
			id := h.startGame("Alice", true, lichesstest.ChallengeParams{ClockLimit: 2 * time.Second})
			h.waitPlies(id, 1)
			first := time.Now()
			if err := h.srv.Move(id, "Alice", "a7a6"); err != nil {
				t.Fatal(err)
			}
			h.waitPlies(id, 3)
			second := time.Now()
			g := h.game(id)
			if g.Finished {
				t.Fatalf("game over after %d plies: %s", len(g.Moves), g.Status)
			}
			// Our clock stopped at our second move: what is left of it is
			// at least the reserve the deadline keeps (and far more: the
			// source had at most half of the time).
			if g.WhiteTime < 100*time.Millisecond {
				t.Errorf("our clock after our second move: %v left of 2s", g.WhiteTime)
			}
			var clocks []MoveClock
			for _, p := range pool.all() {
				p.get(func(p *testPlayer) { clocks = append(clocks, p.clocks...) })
			}
			if len(clocks) != 2 {
				t.Fatalf("our engine thought %d times, want 2", len(clocks))
			}
			// The moves were on the server by when the test saw them.
			for i, seen := range []time.Time{first, second} {
				if seen.After(clocks[i].Deadline) {
					t.Errorf("move %d on the server %v after its deadline", i+1, seen.Sub(clocks[i].Deadline))
				}
			}
			if n := len(h.srv.OnlineAnswers()); n != 2 {
				t.Errorf("the source was asked %d times, want 2", n)
			}
			h.noRefusedMoves()
			h.noDuplicatePosts(id)
		})
	}
}

// The online tablebase's result reaches the worker: the move's log line
// says it, and, with game.draw.tablebase on, it answers the opponent's
// draw offer made with their move (a win for us, by the fake: declined)
// with our next move, whose result is for the position of the offer.
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
	// The offer comes with the move: our next move answers it, by its
	// own tablebase result.
	if err := h.srv.MoveOfferingDraw(id, "Alice", b.LegalMoves()[0]); err != nil {
		t.Fatal(err)
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

// A source whose Skip reports the position is not asked (the Lichess
// tablebase where the local tables hold the position): our own engine
// moves, and the position Skip saw is the game's; without a skip, or with
// one that reports false, the source is asked and its move played.
func TestOnlineSourceSkip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		skip  bool
		asked bool
	}{
		{"skipped", true, false},
		{"not skipped", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			src := h.source("tablebase")
			var mu sync.Mutex
			var seen []online.Position
			src.Skip = func(pos online.Position) bool {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, pos)
				return tc.skip
			}
			withOnline(h, src)
			h.runBot(Settings{}, &playerPool{})
			id, fen := onlineGame(h, "tablebase")
			h.waitPlies(id, 1)
			asked := len(h.srv.OnlineAnswers()) > 0
			played := h.game(id).Moves[0]
			fromSource := played == lichesstest.OnlineMove(fen)
			mu.Lock()
			defer mu.Unlock()
			if asked != tc.asked || fromSource != tc.asked {
				t.Errorf("asked %v, played %s (the source's: %v); want asked and played %v", asked, played, fromSource, tc.asked)
			}
			if len(seen) != 1 || seen[0].FEN != fen || seen[0].Ply != 0 {
				t.Errorf("Skip saw %+v, want the start position %s once", seen, fen)
			}
		})
	}
}

// In a Chess960 game the sources that serve it are asked, the others are
// not: the cloud evaluation with variant=chess960 from a Chess960 start,
// the tablebase in a position without castling rights (the same as in
// standard chess); the explorer and chessdb, asked first, never.
// (lichesstest holds no Chess960 games: the online player is driven
// directly, against its fakes of the services.)
func TestOnlineChess960(t *testing.T) {
	const start960 = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
	for _, tc := range []struct {
		name, fen string
	}{{"cloud", start960}, {"tablebase", tablebaseFEN}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			srcs := []OnlineSource{h.source("explorer"), h.source("chessdb"), h.source(tc.name)}
			inner := &testPlayer{}
			f := NewOnlinePlayer(func(context.Context) (Player, error) { return inner, nil },
				OnlineOptions{Sources: srcs, Logger: testsupport.Logger(t)})
			p, err := f(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := p.NewGame(ctx, GameInfo{ID: "g", Variant: "chess960", Chess960: true, InitialFEN: tc.fen, White: true}); err != nil {
				t.Fatal(err)
			}
			if err := p.Position(ctx, nil); err != nil {
				t.Fatal(err)
			}
			d, err := p.Think(ctx, MoveClock{White: true, WTime: time.Minute, BTime: time.Minute, Deadline: time.Now().Add(time.Minute)})
			want := lichesstest.OnlineVariantMove("chess960", tc.fen)
			if err != nil || d.Move != want || d.Source != p.(*onlinePlayer).opts.Sources[2].Source.Name() {
				t.Errorf("Think: %+v %v, want %s's %s", d, err, tc.name, want)
			}
			a := h.srv.OnlineAnswers()
			if len(a) != 1 || a[0].Service != onlineServices[tc.name] || a[0].Move != want {
				t.Fatalf("the sources answered %+v, want %s alone with %s", a, tc.name, want)
			}
			if tc.name == "cloud" && a[0].Variant != "chess960" {
				t.Errorf("the cloud was asked with variant %q, want chess960", a[0].Variant)
			}
			inner.get(func(tp *testPlayer) {
				if tp.thinks != 0 {
					t.Errorf("our engine thought %d times, want 0", tp.thinks)
				}
			})
		})
	}
}

// The Lichess tablebase's move is archived with its own source,
// online-tablebase, apart from the built-in engine's local tables
// (tablebase), as in the log line and the metrics.
func TestOnlineTablebaseSourceArchived(t *testing.T) {
	h := newHarness(t)
	h.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	h.store = newMemStore()
	mem := h.store.(*memStore)
	withOnline(h, h.source("tablebase"))
	_, stop := h.runBot(Settings{}, &playerPool{})
	id := h.startGame("Greedy", true, lichesstest.ChallengeParams{Variant: "fromPosition", FEN: tablebaseFEN})
	h.resignAfter(id, "Greedy", 2)
	h.waitOver(id)
	testsupport.WaitFor(t, "archived game", func() bool { _, ok := mem.game(id); return ok })
	stop()
	r, _ := mem.game(id)
	if len(r.Moves) < 1 || !r.Moves[0].Ours || r.Moves[0].Source != "online-tablebase" || r.Moves[0].UCI != lichesstest.OnlineMove(tablebaseFEN) {
		t.Errorf("first move archived as %+v, want ours from online-tablebase", r.Moves)
	}
}

// In Chess960 the cloud evaluation's castling (the king taking its rook,
// here f1g1: king f1, rook g1, kingside) is checked legal on a Chess960
// board and played as it is written, king takes rook (the form Lichess
// takes in Chess960), without our engine thinking; so too in a game from a
// position flagged Chess960 (its board castles as Chess960, as the
// questions are asked). The position leaves castling the last legal move
// in UCI order, the fake's answer.
func TestOnlineChess960CloudCastling(t *testing.T) {
	for _, variant := range []string{"chess960", "fromPosition"} {
		t.Run(variant, func(t *testing.T) { testOnlineChess960CloudCastling(t, variant) })
	}
}

func testOnlineChess960CloudCastling(t *testing.T, variant string) {
	const fen = "k7/8/8/8/8/6p1/6P1/5KRB w G - 0 1"
	if want := lichesstest.OnlineVariantMove("chess960", fen); want != "f1g1" {
		t.Fatalf("the fake cloud recommends %q, the test wants castling f1g1", want)
	}
	h := newHarness(t)
	inner := &testPlayer{}
	f := NewOnlinePlayer(func(context.Context) (Player, error) { return inner, nil },
		OnlineOptions{Sources: []OnlineSource{h.source("cloud")}, Logger: testsupport.Logger(t)})
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.NewGame(ctx, GameInfo{ID: "g", Variant: variant, Chess960: true, InitialFEN: fen, White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, MoveClock{White: true, WTime: time.Minute, BTime: time.Minute, Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Move != "f1g1" || d.Source != (&online.Cloud{}).Name() {
		t.Errorf("Think: %+v %v, want the cloud's castling f1g1", d, err)
	}
	if a := h.srv.OnlineAnswers(); len(a) != 1 || a[0].Move != "f1g1" || a[0].Variant != "chess960" {
		t.Fatalf("the cloud answered %+v, want f1g1 for variant chess960", a)
	}
	inner.get(func(tp *testPlayer) {
		if tp.thinks != 0 {
			t.Errorf("our engine thought %d times, want 0", tp.thinks)
		}
	})
}
