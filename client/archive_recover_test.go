package client

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// noteStore is a memStore that is also an OpenGameStore.
type noteStore struct {
	*memStore
	nmu   sync.Mutex
	notes map[string]bool
	ever  map[string]bool // every game noted
	// onNote, when set, is called as a game is noted (before it is),
	// on the noting goroutine.
	onNote func(id string)
}

func (n *noteStore) RecordGame(ctx context.Context, r GameRecord) error {
	n.nmu.Lock()
	delete(n.notes, r.ID)
	n.nmu.Unlock()
	return n.memStore.RecordGame(ctx, r)
}

func (n *noteStore) NoteGame(ctx context.Context, id string, t time.Time) error {
	if n.onNote != nil {
		n.onNote(id)
	}
	n.nmu.Lock()
	defer n.nmu.Unlock()
	if n.ever == nil {
		n.ever = map[string]bool{}
	}
	n.ever[id] = true
	if _, ok := n.game(id); !ok {
		n.notes[id] = true
	}
	return nil
}

func (n *noteStore) OpenGames(ctx context.Context) ([]string, error) {
	n.nmu.Lock()
	defer n.nmu.Unlock()
	var out []string
	for id := range n.notes {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

func (n *noteStore) ForgetGame(ctx context.Context, id string) error {
	n.nmu.Lock()
	defer n.nmu.Unlock()
	delete(n.notes, id)
	return nil
}

func (n *noteStore) RecordRecoveredGame(ctx context.Context, r GameRecord) error {
	if _, ok := n.game(r.ID); ok {
		return n.ForgetGame(ctx, r.ID)
	}
	return n.RecordGame(ctx, r)
}

func (n *noteStore) noted(id string) bool {
	n.nmu.Lock()
	defer n.nmu.Unlock()
	return n.notes[id]
}

// TestRecoverGamesArchivesWhatACrashLost: at its start the bot archives,
// from Lichess' game export, a noted game that ended while no bot ran (its
// record lost), forgets a noted id Lichess does not know, and leaves a
// noted game in progress to its worker; a game it begins is noted.
func TestRecoverGamesArchivesWhatACrashLost(t *testing.T) {
	e := newHarness(t)
	e.addHuman("Crashed")
	e.addHuman("Running")
	lost := e.startGame("Crashed", true, blitz)
	for i, m := range []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"} {
		who := botName
		if i%2 == 1 {
			who = "Crashed"
		}
		if err := e.srv.Move(lost, who, m); err != nil {
			t.Fatalf("move %s: %v", m, err)
		}
	}
	if err := e.srv.Resign(lost, "Crashed"); err != nil {
		t.Fatal(err)
	}
	running := e.startGame("Running", false, blitz)
	st := &noteStore{memStore: newMemStore(), notes: map[string]bool{lost: true, running: true, "nosuch12": true}}
	e.store = st
	_, stop := e.runBot(Settings{}, &playerPool{})
	testsupport.WaitFor(t, "the recovered game", func() bool { _, ok := st.game(lost); return ok })
	testsupport.WaitFor(t, "the unknown id forgotten", func() bool { return !st.noted("nosuch12") })
	stop()

	r, _ := st.game(lost)
	srvGame := e.game(lost)
	var ucis, sans []string
	for i, m := range r.Moves {
		ucis, sans = append(ucis, m.UCI), append(sans, m.SAN)
		if m.Ply != i || m.Ours != (i%2 == 0) || m.HasScore {
			t.Errorf("move %d: %+v", i, m)
		}
	}
	if !slices.Equal(ucis, srvGame.Moves) || strings.Join(sans, " ") != "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O" {
		t.Errorf("moves %v %v, want %v", ucis, sans, srvGame.Moves)
	}
	if r.OurColor != "white" || r.Result != "win" || r.Termination != "resign" || r.White != botName || r.Black != "Crashed" ||
		!r.Clock || r.ClockInitial != blitz.ClockLimit || r.ClockIncrement != blitz.ClockIncrement || r.Speed != srvGame.Speed ||
		!strings.HasSuffix(r.URL, "/"+lost) || r.Started.IsZero() || r.Ended.Before(r.Started) {
		t.Errorf("record: %+v", r)
	}
	if !strings.Contains(r.PGN, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O 1-0") || !strings.Contains(r.PGN, `[Termination "resign"]`) {
		t.Errorf("PGN:\n%s", r.PGN)
	}
	if st.noted(lost) {
		t.Error("the recovered game is still noted")
	}
	if _, ok := st.game(running); ok || !st.noted(running) {
		t.Errorf("the game in progress: archived %v, noted %v; want only noted", ok, st.noted(running))
	}
}

// TestAcceptedAndStartedGamesAreNoted: a game the bot plays is noted (at
// the challenge's acceptance: its game has the challenge's id; and at its
// start), and its record takes the note away.
func TestAcceptedAndStartedGamesAreNoted(t *testing.T) {
	e := newHarness(t)
	e.addHouse("House", lichesstest.HouseOptions{ResignAt: 6, ThinkTime: 30 * time.Millisecond})
	st := &noteStore{memStore: newMemStore(), notes: map[string]bool{}}
	e.store = st
	_, stop := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("House", blitz)
	e.waitOver(id)
	testsupport.WaitFor(t, "the game archived", func() bool { _, ok := st.game(id); return ok })
	stop()
	st.nmu.Lock()
	defer st.nmu.Unlock()
	if !st.ever[id] || st.notes[id] {
		t.Errorf("the game: noted %v, still noted after its record %v; want noted, then not", st.ever[id], st.notes[id])
	}
}

// TestAcceptNotesTheGameFirst: the game of a challenge the bot accepts is
// noted before the accept is sent (the challenge is still open on the
// server as it is noted), so that no moment of the game goes unnoted.
func TestAcceptNotesTheGameFirst(t *testing.T) {
	e := newHarness(t)
	e.addHouse("House", lichesstest.HouseOptions{ResignAt: 4, ThinkTime: 10 * time.Millisecond})
	st := &noteStore{memStore: newMemStore(), notes: map[string]bool{}}
	var mu sync.Mutex
	atNote := map[string]string{} // the challenge's status on the server as it was first noted
	st.onNote = func(id string) {
		status, _ := e.srv.ChallengeStatus(id)
		mu.Lock()
		defer mu.Unlock()
		if _, ok := atNote[id]; !ok {
			atNote[id] = status
		}
	}
	e.store = st
	_, stop := e.runBot(Settings{}, &playerPool{})
	id := e.challenge("House", blitz)
	e.waitOver(id)
	testsupport.WaitFor(t, "the game archived", func() bool { _, ok := st.game(id); return ok })
	stop()
	mu.Lock()
	defer mu.Unlock()
	if got, ok := atNote[id]; !ok || got != "created" {
		t.Errorf("the challenge was %q (noted %v) as its game was first noted; want noted while still \"created\"", got, ok)
	}
}

func TestUCIMovesFromSAN(t *testing.T) {
	got, err := uciMoves("standard", "", strings.Fields("e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6 Nf3 Bf5 Bc4 e6 O-O Bb4 Bd2 Nbd7 Re1 O-O-O"))
	want := strings.Fields("e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 g8f6 g1f3 c8f5 f1c4 e7e6 e1g1 f8b4 c1d2 b8d7 f1e1 e8c8")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("uciMoves: %v (%v), want %v", got, err, want)
	}
	got, err = uciMoves("fromPosition", "8/P6k/8/8/8/8/8/K7 w - - 0 1", []string{"a8=Q+"})
	if err != nil || !slices.Equal(got, []string{"a7a8q"}) {
		t.Errorf("promotion: %v (%v)", got, err)
	}
	if _, err := uciMoves("standard", "", []string{"e4", "Ke3"}); err == nil {
		t.Error("an illegal move: no error")
	}
	if _, err := uciMoves("crazyhouse", "", []string{"e2e4", "N@f3"}); err != nil {
		t.Errorf("UCI of a variant without rules here: %v", err)
	}
	if _, err := uciMoves("crazyhouse", "", []string{"e4"}); err == nil {
		t.Error("SAN of a variant without rules here: no error")
	}
}

// TestParkedCorrespondenceGameIsNoted: a correspondence game that starts
// on the opponent's move (here our own challenge's, accepted by the
// opponent) is parked with no worker, and noted all the same: were the
// bot down when it ends, the next start recovers it.
func TestParkedCorrespondenceGameIsNoted(t *testing.T) {
	h := newHarness(t, lichesstest.WithCorrespondenceDay(corrDay))
	h.addHuman("corr")
	st := &noteStore{memStore: newMemStore(), notes: map[string]bool{}}
	h.store = st
	b, stop := h.runBot(corrSettings(time.Hour, time.Hour), &playerPool{})
	// Our challenge, accepted by the opponent, who plays white: its move.
	id, err := h.srv.Challenge(botName, "corr", lichesstest.ChallengeParams{Days: 1, Color: "black"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.srv.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	h.waitParked(b, id)
	testsupport.WaitFor(t, "the parked game noted", func() bool { return st.noted(id) })
	stop()
	if len(b.Games()) != 0 {
		t.Errorf("workers %v, want none (parked)", b.Games())
	}
}

// endedGame plays a short game of the bot (white) against opp on the
// server, with no bot running, and has opp resign it.
func endedGame(t *testing.T, e *harness, opp string) string {
	t.Helper()
	id := e.startGame(opp, true, blitz)
	for i, m := range []string{"e2e4", "e7e5", "g1f3"} {
		who := botName
		if i%2 == 1 {
			who = opp
		}
		if err := e.srv.Move(id, who, m); err != nil {
			t.Fatalf("move %s: %v", m, err)
		}
	}
	if err := e.srv.Resign(id, opp); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRecoveryPacesAndWaitsOutA429: the recovery asks for one game at a
// time, at least recoverPace apart; a 429 is waited out and the game
// asked for again, so that every game is recovered in the first pass
// (no retry here); a game the start-up list shows in progress is left to
// its worker without being fetched.
func TestRecoveryPacesAndWaitsOutA429(t *testing.T) {
	e := newHarness(t)
	e.addHuman("Crashed")
	e.addHuman("Running")
	var lost []string
	for range 3 {
		lost = append(lost, endedGame(t, e, "Crashed"))
	}
	running := e.startGame("Running", false, blitz)
	// Listed last (ids sort so), an id Lichess does not know ends the
	// pass: once it is forgotten, every other id has been handled.
	const last = "zzzzzzzz"
	notes := map[string]bool{running: true, last: true}
	for _, id := range lost {
		notes[id] = true
	}
	st := &noteStore{memStore: newMemStore(), notes: notes}
	e.store = st
	const pace = 150 * time.Millisecond
	e.botOpts = append(e.botOpts, func(b *Bot) { b.recoverPace, b.recoverRetry = pace, time.Hour })
	e.srv.Inject429("GET /game/export/*", 1, time.Second)
	_, stop := e.runBot(Settings{}, &playerPool{})
	testsupport.WaitFor(t, "the recovered games, the pass over", func() bool {
		for _, id := range lost {
			if _, ok := st.game(id); !ok {
				return false
			}
		}
		return !st.noted(last)
	})
	stop()
	reqs := e.srv.RequestsMatching("GET /game/export/*")
	if len(reqs) != len(lost)+2 {
		t.Errorf("%d exports, want %d (one answered 429, then one a game, and the unknown id)", len(reqs), len(lost)+2)
	}
	for i, r := range reqs {
		if r.Path == "/game/export/"+running {
			t.Errorf("the game in progress (listed at start) was fetched")
		}
		if r.InCoolDown {
			t.Errorf("export %d sent during the cool-down", i)
		}
		if i > 0 && r.Time.Sub(reqs[i-1].Time) < pace {
			t.Errorf("exports %d and %d %v apart, want at least %v", i-1, i, r.Time.Sub(reqs[i-1].Time), pace)
		}
	}
	if _, ok := st.game(running); ok || !st.noted(running) {
		t.Errorf("the game in progress: archived %v, noted %v; want only noted", ok, st.noted(running))
	}
}

// TestRecoveryRetriedLater: a pass that Lichess failed (a 503) is run
// again later in the same run, and recovers the game then; so is one
// that the database failed (OpenGames).
func TestRecoveryRetriedLater(t *testing.T) {
	e := newHarness(t)
	e.addHuman("Crashed")
	lost := endedGame(t, e, "Crashed")
	st := &noteStore{memStore: newMemStore(), notes: map[string]bool{lost: true}}
	fst := &failingOpenGames{noteStore: st, fails: 1}
	e.store = fst
	e.botOpts = append(e.botOpts, func(b *Bot) { b.recoverPace, b.recoverRetry = 0, 50*time.Millisecond })
	e.srv.InjectError("GET /game/export/*", 1, http.StatusServiceUnavailable)
	_, stop := e.runBot(Settings{}, &playerPool{})
	testsupport.WaitFor(t, "the recovered game", func() bool { _, ok := st.game(lost); return ok })
	stop()
	if n := e.requests("GET /game/export/" + lost); n != 2 {
		t.Errorf("%d exports, want 2 (a 503, then the game)", n)
	}
	fst.mu.Lock()
	defer fst.mu.Unlock()
	if fst.calls < 3 {
		t.Errorf("open games listed %d times, want 3 or more (a failure, a pass Lichess failed, the last)", fst.calls)
	}
}

// failingOpenGames is a noteStore whose OpenGames fails the first fails
// times.
type failingOpenGames struct {
	*noteStore
	mu           sync.Mutex
	fails, calls int
}

func (f *failingOpenGames) OpenGames(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	f.calls++
	fail := f.calls <= f.fails
	f.mu.Unlock()
	if fail {
		return nil, errors.New("database is locked")
	}
	return f.noteStore.OpenGames(ctx)
}
