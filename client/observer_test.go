package client

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// observed records what an Observer is told.
type observed struct {
	mu         sync.Mutex
	started    []GameFacts
	finished   map[string]string // game id → result
	moves      map[string]int    // game id → moves played
	speeds     map[string]bool   // speeds of the moves played
	answers    []string          // outcome/reason
	reconnects int
	late       int // moves told after their game's end
}

func newObserved() *observed {
	return &observed{finished: map[string]string{}, moves: map[string]int{}, speeds: map[string]bool{}}
}

func (o *observed) GameStarted(g GameFacts) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started = append(o.started, g)
}

func (o *observed) GameFinished(g GameFacts, result string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, twice := o.finished[g.ID]; twice {
		o.finished[g.ID] = "twice"
		return
	}
	o.finished[g.ID] = result
}

func (o *observed) MovePlayed(g GameFacts, c Choice) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.moves[g.ID]++
	o.speeds[g.Speed] = true
	if _, over := o.finished[g.ID]; over {
		o.late++
	}
}

func (o *observed) ChallengeAnswered(outcome, reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.answers = append(o.answers, outcome+"/"+reason)
}

func (o *observed) StreamReconnect() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reconnects++
}

// The Observer hears of the challenges answered (a decline with its
// reason), the game's start, each of our moves and the end with our
// result, once.
func TestObserverSeesGame(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	o := newObserved()
	e.botOpts = []BotOption{WithObserver(o)}
	e.runBot(Settings{}, &playerPool{})
	atomic := e.challenge("Greedy", lichesstest.ChallengeParams{ClockLimit: blitz.ClockLimit, Variant: "atomic"})
	e.waitFor("the decline", func() bool { st, _ := e.srv.ChallengeStatus(atomic); return st == "declined" })
	id := e.challenge("Greedy", blitz)
	e.resignAfter(id, "Greedy", 8)
	e.waitOver(id)
	g := e.game(id)
	ours := 0
	for i := range g.Moves {
		if (i%2 == 0) == (g.White == botName) {
			ours++
		}
	}
	// A move's post returns after Lichess has it: the end may be heard
	// first.
	testsupport.WaitFor(t, "the observer to hear of the end and our moves", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		_, ok := o.finished[id]
		return ok && o.moves[id] >= ours
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	// A decline is told once it is done, which may be after the accept.
	if answers := slices.Sorted(slices.Values(o.answers)); !slices.Equal(answers, []string{"accepted/", "declined/variant"}) {
		t.Errorf("challenges answered %q, want accepted/ and declined/variant", o.answers)
	}
	if len(o.started) != 1 || o.started[0].ID != id || o.started[0].Speed != g.Speed || g.Speed == "" {
		t.Errorf("games started %+v, want %s with its speed", o.started, id)
	}
	if o.moves[id] != ours || ours == 0 {
		t.Errorf("moves observed %d, want our %d of %v", o.moves[id], ours, g.Moves)
	}
	if o.finished[id] != resultWin {
		t.Errorf("result observed %q, want win (the opponent resigned)", o.finished[id])
	}
}

// The built-in player's choices carry the engine's figures for the
// Observer: the hash table's size, the tree's memory, and from our second
// move on the re-rooting's kept share; a ponder hit is a predicted move.
func TestBuiltinPlayerEngineFacts(t *testing.T) {
	ctx := context.Background()
	f := NewBuiltinPlayer(BuiltinOptions{HashMB: 4, TreeMB: 4, Ponder: true, MaxDepth: 4, Seed: 1})
	p, err := f(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g1", White: true, Opponent: "x"}); err != nil {
		t.Fatal(err)
	}
	playAsWhite(t, p, []string{"e7e5", "b8c6", "g8f6"}, func(i int, _ []string, d Choice) {
		e := d.Engine
		switch {
		case e == nil:
			t.Fatalf("move %d: no engine figures", i)
		case e.HashBytes != 4<<20:
			t.Errorf("move %d: hash %d bytes, want 4 MiB", i, e.HashBytes)
		case e.TreeBytes <= 0:
			t.Errorf("move %d: tree %d bytes", i, e.TreeBytes)
		case i > 0 && !e.Rerooted:
			t.Errorf("move %d: no re-rooting after our earlier move", i)
		case e.KeptFraction < 0 || e.KeptFraction > 1:
			t.Errorf("move %d: kept fraction %v", i, e.KeptFraction)
		case e.PonderHit && !e.Predicted, e.PonderHit && !e.PonderTop3:
			t.Errorf("move %d: a ponder hit not predicted or not in the top 3: %+v", i, e)
		}
	})
}

// A decline is counted once it is done: one that fails is not, and the
// same challenge declined again when Lichess sends it again is counted
// once.
func TestObserverCountsDeclineOnce(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	o := newObserved()
	e.botOpts = []BotOption{WithObserver(o)}
	e.srv.InjectError("POST /api/challenge/*/decline", 1, http.StatusBadGateway)
	b, _ := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("Greedy", lichesstest.ChallengeParams{ClockLimit: blitz.ClockLimit, Variant: "atomic"})
	// The bot forgets a decline that failed (it is noted before it is sent).
	testsupport.WaitFor(t, "the failed decline", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, noted := b.declined[id]
		return e.requests("POST /api/challenge/"+id+"/decline") == 1 && !noted
	})
	// A new event stream brings the open challenge again.
	e.srv.DropEventStream(botName)
	e.waitFor("the decline", func() bool { st, _ := e.srv.ChallengeStatus(id); return st == "declined" })
	testsupport.WaitFor(t, "the observer to hear of the decline", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return len(o.answers) > 0
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.answers) != 1 || o.answers[0] != "declined/variant" {
		t.Errorf("challenges answered %q, want [declined/variant] (two declines sent, one done)", o.answers)
	}
}

// A move whose post was cut short by the end of the game (its answer lost,
// the opponent resigning before the retry) is told before the end.
func TestObserverMoveCutShortBeforeEnd(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(2))
	id := h.startGame("opponent", false, lichesstest.ChallengeParams{})
	h.srv.InjectLostAnswer("POST /api/bot/game/"+id+"/move/*", 1)
	o := newObserved()
	h.botOpts = []BotOption{WithObserver(o)}
	_, stop := h.runBot(Settings{}, &playerPool{})
	g := h.waitOver(id)
	testsupport.WaitFor(t, "the observer to hear of the end", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		_, ok := o.finished[id]
		return ok
	})
	stop()
	if g.Status != "resign" || len(g.Moves) != 2 {
		t.Fatalf("game ended %s after %v, want a resignation after our first move", g.Status, g.Moves)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.moves[id] != 1 || o.late != 0 || o.finished[id] != resultWin {
		t.Errorf("observer heard %d moves (%d after the end) and %q, want our move before the win", o.moves[id], o.late, o.finished[id])
	}
}

// A game's end is told once, whichever of its workers hears it: the
// worker rebuilt after a panic in finish (after the end was told) does
// the rest of the end's work (the record) without telling it or saying
// goodbye again, and a late gameStart of a game that ended here (the
// event stream's opening lists the games in progress; read after the
// worker saw the end, it made a second worker, which told the end again)
// starts no worker, nor leaves its arena counting it as playing.
func TestObserverGameEndToldOnce(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	if err := h.srv.Resign(id, "opponent"); err != nil { // before any move: aborted
		t.Fatal(err)
	}
	o := newObserved()
	dir := t.TempDir()
	// A worker's game stream, closed by the server after the end, is
	// opened again only after ReconnectMin: the worker has left by then,
	// so the streams counted below do not depend on its speed.
	s := Settings{PGNDir: dir, ReconnectMin: time.Hour, Chat: ChatSettings{Goodbye: ChatMessages{Player: "gg"}}}
	b := NewBot(h.client(), nil, s, testsupport.Logger(t), WithObserver(o))
	var goodbyes atomic.Int32
	b.hooks = &testHooks{saidGoodbye: func(string) {
		if goodbyes.Add(1) == 1 {
			panic("injected panic in finish, after the end was told")
		}
	}}
	told := func(what string, started int) {
		t.Helper()
		o.mu.Lock()
		defer o.mu.Unlock()
		if len(o.started) != started || o.finished[id] != resultAborted {
			t.Fatalf("%s: observer heard %d starts and the end %q, want %d and %q once", what, len(o.started), o.finished[id], started, resultAborted)
		}
	}
	streams := func() int { return h.requests("GET /api/bot/game/stream/" + id) }
	// The game is listed as an arena's: while it is thought to run, the
	// bot asks that arena for no pairing.
	const arena = "arena1"
	gameStart := lichess.Event{Type: lichess.EventGameStart, Game: &lichess.GameEventInfo{GameID: id,
		TournamentID: arena, Opponent: lichess.GameOpponent{Username: "opponent"}}}
	arenaFree := func(what string) {
		t.Helper()
		b.mu.Lock()
		playing := b.playingInLocked(arena)
		b.mu.Unlock()
		if playing {
			t.Errorf("%s: the arena still counts as playing the game over (no pairing asked there again)", what)
		}
	}

	// The worker of the game hears its end, tells it and panics after its
	// goodbye; the worker rebuilt from the game stream hears the end again.
	b.handleEvent(h.ctx, gameStart)
	b.wg.Wait()
	told("the worker and its rebuild", 1) // the rebuilt worker is not told started either (noteStarted)
	if n := streams(); n != 2 {
		t.Fatalf("game stream opened %d times, want twice (the worker, its rebuild)", n)
	}
	if n := goodbyes.Load(); n != 1 {
		t.Errorf("goodbye said %d times, want once", n)
	}
	if _, err := os.Stat(filepath.Join(dir, id+".pgn")); err != nil {
		t.Errorf("the rebuilt worker saved no record (the first panicked before): %v", err)
	}
	arenaFree("the worker and its rebuild")

	// Lichess lists it as in progress once more.
	b.handleEvent(h.ctx, gameStart)
	b.wg.Wait()
	told("a late gameStart", 1)
	if n := streams(); n != 2 {
		t.Errorf("game stream opened %d times, want twice (a worker for a game over)", n)
	}
	arenaFree("a late gameStart")
	// Nor is it parked, as a correspondence game listed waiting for the
	// opponent would be.
	b.mu.Lock()
	b.parkLocked(id, "opponent")
	parked := len(b.parked)
	b.mu.Unlock()
	if parked != 0 {
		t.Errorf("a game over here parked")
	}
}

// A game the worker cannot follow (its position unreadable) is not told
// to the Observer as started: it would never be told as finished.
func TestObserverGameNotFollowed(t *testing.T) {
	h := newHarness(t)
	o := newObserved()
	h.botOpts = []BotOption{WithObserver(o)}
	b := NewBot(h.client(), nil, Settings{}, testsupport.Logger(t), h.botOpts...)
	g := newGameWorker(b, "g1", Settings{}, "x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the resignation is not sent
	g.bgctx = ctx
	g.onFull(ctx, &lichess.GameFull{ID: "g1", Variant: lichess.Variant{Key: "standard"}, Speed: "blitz",
		InitialFEN: "not a position", White: lichess.GamePlayer{ID: botID}})
	if !g.finished {
		t.Fatal("the worker follows a game it cannot read")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.started) != 0 {
		t.Errorf("games started %+v, want none", o.started)
	}
}

type panickingObserver struct{ nopObserver }

func (panickingObserver) GameStarted(GameFacts)        { panic("observer bug") }
func (panickingObserver) MovePlayed(GameFacts, Choice) { panic("observer bug") }

// A panicking Observer does not stop a game: the game is played to its
// end, each method's panic logged once.
func TestObserverPanicContained(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(6))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	var logs bytes.Buffer // the Bot does not run yet: one goroutine writes
	b := NewBot(h.client(), nil, Settings{}, zerolog.New(&logs), WithObserver(panickingObserver{}))
	b.obs.GameStarted(GameFacts{ID: id})
	b.obs.GameStarted(GameFacts{ID: id})
	b.obs.MovePlayed(GameFacts{ID: id}, Choice{})
	b.obs.GameFinished(GameFacts{ID: id}, resultWin)
	for _, method := range []string{"GameStarted", "MovePlayed"} {
		if n := strings.Count(logs.String(), "observer "+method+" panicked"); n != 1 {
			t.Errorf("%s's panic logged %d times, want once:\n%s", method, n, logs.String())
		}
	}
	h.botOpts = []BotOption{WithObserver(panickingObserver{})}
	_, stop := h.runBot(Settings{}, &playerPool{})
	g := h.waitOver(id)
	stop()
	if g.Status != "resign" {
		t.Errorf("game ended %s, want the opponent's resignation", g.Status)
	}
}

// A game is told started once, however many workers it has: here a
// correspondence game taken up again after it let its stream go (a
// worker rebuilt after a panic is TestObserverGameEndToldOnce's). The
// Observer is told no start without its end (monitor's Metrics keeps
// each game started until it hears the end).
func TestObserverGameStartedOnce(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	o := newObserved()
	h.botOpts = append(h.botOpts, WithObserver(o))
	b, _ := h.runBot(corrSettings(time.Millisecond, time.Hour), &playerPool{})
	id := h.challenge("corr", lichesstest.ChallengeParams{Days: 1, Color: "black"}) // the bot plays white
	h.waitPlies(id, 1)
	h.waitParked(b, id)
	h.opponentMoves(id, "corr") // its gameStart takes the game up again
	h.waitPlies(id, 3)
	h.waitParked(b, id)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.started) != 1 || o.started[0].ID != id {
		t.Errorf("observer heard the game start %d times (%+v), want once", len(o.started), o.started)
	}
}

// The Bot forgets a game's end endedMemory after it, checked at most once
// an hour (endedPruneEvery) as a game ends, not at every end: each check
// scans every end under the Bot's lock.
func TestNoteEndedForgetsOldEnds(t *testing.T) {
	b := NewBot(nil, nil, Settings{}, zerolog.Nop())
	ended := func(id string) bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.endedLocked(id)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if !b.noteEnded("old", t0) || b.noteEnded("old", t0.Add(time.Minute)) {
		t.Fatal("a game's end is not first once")
	}
	// The check at t0 ran; "old" expires at t0+endedMemory.
	b.noteEnded("a", t0.Add(endedMemory-30*time.Minute)) // a check: "old" kept
	b.noteEnded("b", t0.Add(endedMemory+10*time.Minute)) // under an hour since: no check
	if !ended("old") {
		t.Error("an end forgotten between the hourly checks")
	}
	b.noteEnded("c", t0.Add(endedMemory+31*time.Minute)) // an hour since the last check
	if ended("old") {
		t.Error("an end older than endedMemory kept at the hourly check")
	}
	for _, id := range []string{"a", "b", "c"} {
		if !ended(id) {
			t.Errorf("game %s's end forgotten before endedMemory", id)
		}
	}
}
