package client

import (
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
