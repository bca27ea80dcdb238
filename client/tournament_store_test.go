package client

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// arenaMemStore is a memStore that records arenas too (an ArenaStore, as
// `ponderosa tournament join` fills cmd/ponderosa's): tests add and
// remove them while the bot runs, and wait for its reads.
type arenaMemStore struct {
	*memStore
	mu      sync.Mutex
	arenas  []ArenaEntry
	reads   int
	changed chan struct{} // closed and replaced at every read or change
}

func newArenaMemStore() *arenaMemStore {
	return &arenaMemStore{memStore: newMemStore(), changed: make(chan struct{})}
}

func (m *arenaMemStore) notifyLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

func (m *arenaMemStore) Arenas(ctx context.Context) ([]ArenaEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	m.notifyLocked()
	return slices.Clone(m.arenas), nil
}

func (m *arenaMemStore) RemoveArena(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.arenas = slices.DeleteFunc(m.arenas, func(e ArenaEntry) bool { return e.ID == id })
	m.notifyLocked()
	return nil
}

// add records e, as `ponderosa tournament join` does.
func (m *arenaMemStore) add(e ArenaEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.arenas = append(m.arenas, e)
	m.notifyLocked()
}

// recorded reports whether arena id is recorded.
func (m *arenaMemStore) recorded(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.ContainsFunc(m.arenas, func(e ArenaEntry) bool { return e.ID == id })
}

// readCount is how often the bot read the arenas.
func (m *arenaMemStore) readCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads
}

// waitFor waits until cond holds, checked after every read or change.
func (m *arenaMemStore) waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for {
		m.mu.Lock()
		ch := m.changed
		m.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// waitReads waits until the bot has read the arenas n more times.
func (m *arenaMemStore) waitReads(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	want := m.readCount() + n
	m.waitFor(t, ctx, "the bot to read the recorded arenas", func() bool { return m.readCount() >= want })
}

// The tournament-pairing test for an arena the store records after the
// bot started (`ponderosa tournament join` while the daemon runs; no
// entry in the settings): the running bot asks for pairings in it, plays
// the pairing to a result and asks again; once the store no longer
// records it (`ponderosa tournament withdraw`), the bot withdraws and
// asks there no more.
func TestArenaFromStore(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	h.addHouse("ArenaFoe", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	id := h.srv.CreateArena(lichesstest.ArenaParams{Name: "Recorded Arena", ClockLimit: time.Minute, ClockIncrement: time.Second,
		Minutes: 30, BotsAllowed: true, Password: "arena-pw"})
	if err := h.srv.JoinArena(id, "ArenaFoe", "arena-pw", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.StartArena(id); err != nil {
		t.Fatal(err)
	}
	st := newArenaMemStore()
	h.store = st
	s := Settings{
		Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{CheckEvery: 100 * time.Millisecond, PairEvery: 30 * time.Second,
			StoreEvery: 50 * time.Millisecond},
	}
	_, stop := h.runBot(s, &playerPool{})
	st.waitReads(t, h.ctx, 2)
	if n := h.requests("POST /api/tournament/*/join"); n != 0 {
		t.Fatalf("%d joins before any arena was recorded", n)
	}

	st.add(ArenaEntry{ID: id, Password: "arena-pw"})
	h.waitFor("the bot to wait for a pairing in the recorded arena", func() bool { return h.srv.ArenaWaiting(id, botName) })
	gid, err := h.srv.PairArena(id, botName, "ArenaFoe")
	if err != nil {
		t.Fatal(err)
	}
	h.resignAfter(gid, "ArenaFoe", 10)
	if g := h.waitOver(gid); g.Status != "resign" || g.Winner != "white" {
		t.Errorf("arena game %s ended %s, winner %q: want the house player's resignation", gid, g.Status, g.Winner)
	}
	h.waitFor("the bot to ask for the next pairing", func() bool { return h.srv.ArenaWaiting(id, botName) })

	withdrawn := func() (bool, lichesstest.ArenaPlayerSnapshot) {
		snap, _ := h.srv.Arena(id)
		for _, p := range snap.Players {
			if strings.EqualFold(p.Username, botName) {
				return p.Withdrawals == 1 && p.Paused, p
			}
		}
		return false, lichesstest.ArenaPlayerSnapshot{}
	}
	if err := st.RemoveArena(h.ctx, id); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the withdrawal", func() bool { ok, _ := withdrawn(); return ok })
	if h.srv.ArenaWaiting(id, botName) {
		t.Error("the bot still waits for a pairing after the withdrawal")
	}
	// A few reads later, the bot has asked there no more.
	st.waitReads(t, h.ctx, 3)
	ws := h.srv.RequestsMatching("POST /api/tournament/" + id + "/withdraw")
	if len(ws) != 1 {
		t.Fatalf("%d withdrawals, want 1", len(ws))
	}
	for _, r := range h.srv.RequestsMatching("POST /api/tournament/" + id + "/join") {
		if r.Time.After(ws[0].Time) {
			t.Errorf("a join at %v, after the withdrawal at %v", r.Time, ws[0].Time)
		}
	}
	if snap, _ := h.srv.Arena(id); len(snap.Games) != 1 || snap.Games[0] != gid {
		t.Errorf("arena games %v, want [%s]", snap.Games, gid)
	}
	stop()
	if n := h.requests("POST /api/tournament/*/withdraw"); n != 1 {
		t.Errorf("%d withdrawals after stopping, want 1 (Run's end has nothing left to withdraw)", n)
	}
	h.noRefusedMoves()
}

// The store's arenas are read when Run starts and at a reload (StoreEvery
// is an hour here); a recorded arena that is over is removed from the
// store, and the others stay.
func TestArenaFromStoreReloadAndOver(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	first := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	second := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "pw2"})
	players := func(id string) int { snap, _ := h.srv.Arena(id); return len(snap.Players) }
	st := newArenaMemStore()
	st.add(ArenaEntry{ID: first})
	h.store = st
	s := Settings{Tournament: TournamentSettings{CheckEvery: 50 * time.Millisecond, StoreEvery: time.Hour}}
	b, stop := h.runBot(s, &playerPool{})
	h.waitFor("the join of the arena recorded before the start", func() bool { return players(first) == 1 })

	st.add(ArenaEntry{ID: second, Password: "pw2"})
	b.UpdateSettings(s)
	h.waitFor("the join of the arena recorded before the reload", func() bool { return players(second) == 1 })

	if err := h.srv.FinishArena(first); err != nil {
		t.Fatal(err)
	}
	st.waitFor(t, h.ctx, "the arena over to leave the store", func() bool { return !st.recorded(first) })
	if !st.recorded(second) {
		t.Error("the arena still to come left the store too")
	}
	stop()
	if n := h.requests("POST /api/tournament/" + first + "/join"); n != 1 {
		t.Errorf("%d joins of the arena now over, want 1", n)
	}
}

// set replaces the record of arena e (or adds it), as `ponderosa
// tournament join` of an arena recorded already does.
func (m *arenaMemStore) set(e ArenaEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.arenas = slices.DeleteFunc(m.arenas, func(a ArenaEntry) bool { return a.ID == e.ID })
	m.arenas = append(m.arenas, e)
	m.notifyLocked()
}

// An arena recorded in the store that the bot gave up on (here Lichess
// refused the join with a 403: the token lacked tournament:write) is
// followed again once the store records it anew, with the same values
// (`ponderosa tournament join` again, once the cause is mended): the
// record is newer than the give-up.
func TestArenaFromStoreRecordedAgain(t *testing.T) {
	h := newHarness(t)
	h.srv.SetScopes(botName, lichesstest.ScopeBotPlay, lichesstest.ScopeChallengeRead, lichesstest.ScopeChallengeWrite)
	id := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	players := func() int { snap, _ := h.srv.Arena(id); return len(snap.Players) }
	st := newArenaMemStore()
	st.add(ArenaEntry{ID: id, Recorded: time.Now().Add(-time.Minute)})
	h.store = st
	s := Settings{Tournament: TournamentSettings{CheckEvery: 50 * time.Millisecond, StoreEvery: 20 * time.Millisecond}}
	_, stop := h.runBot(s, &playerPool{})
	defer stop()
	h.waitFor("the refused join", func() bool { return h.requests("POST /api/tournament/"+id+"/join") == 1 })
	st.waitReads(t, h.ctx, 3)
	if n := h.requests("POST /api/tournament/" + id + "/join"); n != 1 || players() != 0 {
		t.Fatalf("%d joins, %d players after the refusal: want 1 join, no player (left alone)", n, players())
	}

	h.arenaScopes()
	st.set(ArenaEntry{ID: id, Recorded: time.Now()})
	h.waitFor("the join of the arena recorded again", func() bool { return players() == 1 })
}

// An arena that only the store lists is looked up in the store before
// each join and renewal of its pairing (StoreEvery is an hour here): once
// `ponderosa tournament withdraw` removed it, the bot does not join it
// again (which would unpause it) before the store's next read, but
// withdraws.
func TestArenaFromStoreCheckedBeforeRenewal(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	id := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	st := newArenaMemStore()
	st.add(ArenaEntry{ID: id})
	h.store = st
	s := Settings{
		Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{CheckEvery: time.Hour, PairEvery: 50 * time.Millisecond,
			StoreEvery: time.Hour},
	}
	_, stop := h.runBot(s, &playerPool{})
	defer stop()
	h.waitFor("a renewal of the pairing", func() bool { return h.requests("POST /api/tournament/"+id+"/join") >= 2 })
	if err := st.RemoveArena(h.ctx, id); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the withdrawal", func() bool { return h.requests("POST /api/tournament/"+id+"/withdraw") == 1 })
	ws := h.srv.RequestsMatching("POST /api/tournament/" + id + "/withdraw")
	time.Sleep(5 * s.Tournament.PairEvery) // renewals that would come
	for _, r := range h.srv.RequestsMatching("POST /api/tournament/" + id + "/join") {
		if r.Time.After(ws[0].Time) {
			t.Errorf("a join at %v, after the withdrawal at %v", r.Time, ws[0].Time)
		}
	}
	if snap, _ := h.srv.Arena(id); len(snap.Players) != 1 || !snap.Players[0].Paused {
		t.Errorf("after the withdrawal: %+v, want the bot paused", snap)
	}
}

// A recorded arena that Lichess answers 404 for is removed from the store
// only after a second 404 at least arenaGoneAfter(CheckEvery) after the
// first: one stray 404 does not drop the operator's record.
func TestArenaFromStoreNotFoundTwice(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	const id = "gone1234" // no such arena on the server
	logs := withLog(h)
	st := newArenaMemStore()
	st.add(ArenaEntry{ID: id})
	h.store = st
	s := Settings{Tournament: TournamentSettings{CheckEvery: 20 * time.Millisecond, StoreEvery: time.Hour}}
	_, stop := h.runBot(s, &playerPool{})
	defer stop()
	st.waitFor(t, h.ctx, "the record's removal", func() bool { return !st.recorded(id) })
	gets := h.srv.RequestsMatching("GET /api/tournament/" + id)
	if len(gets) < 2 {
		t.Fatalf("removed after %d 404s, want 2", len(gets))
	}
	if d := gets[len(gets)-1].Time.Sub(gets[0].Time); d < arenaGoneAfter(s.Tournament.CheckEvery) {
		t.Errorf("removed after 404s %v apart, want at least %v", d, arenaGoneAfter(s.Tournament.CheckEvery))
	}
	if n := h.requests("POST /api/tournament/" + id + "/join"); n != 0 {
		t.Errorf("%d joins of an arena Lichess does not know", n)
	}
	if l := logs.String(); !strings.Contains(l, "no such arena tournament: not joining it (check the record of `ponderosa tournament join`") {
		t.Errorf("the log does not name where the arena came from:\n%s", l)
	}
}
