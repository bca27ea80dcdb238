package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

func openMemory(t *testing.T, path string, o MemoryOptions) *Memory {
	t.Helper()
	m, err := OpenMemory(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func learnt(key uint64, depth int) ponder.Learnt {
	return ponder.Learnt{Key: key, FEN: fmt.Sprintf("fen %d", key), Move: "e2e4", Score: int(key % 200), Bound: search.BoundExact, Depth: depth}
}

func lookupOne(t *testing.T, m *Memory, eval string, key uint64) (ponder.Learnt, bool) {
	t.Helper()
	got, err := m.Lookup(eval, []uint64{key})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 1 {
		t.Fatalf("lookup of one key: %d entries", len(got))
	}
	if len(got) == 0 {
		return ponder.Learnt{}, false
	}
	return got[0], true
}

func TestLearnMigratesFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	// A database as the previous ponderosa left it: schema version 1
	// with a game.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO bot_games (game_id, started_at) VALUES ('old1', '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	m := openMemory(t, path, MemoryOptions{})
	var v, games int
	if err := m.db.SQL().QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != SchemaVersion() || SchemaVersion() < 5 {
		t.Fatalf("user_version %d (%v), schema %d: want the schema's, 5 or more", v, err, SchemaVersion())
	}
	if err := m.db.SQL().QueryRow(`SELECT count(*) FROM bot_games WHERE game_id = 'old1'`).Scan(&games); err != nil || games != 1 {
		t.Fatalf("the old rows: %d (%v)", games, err)
	}
	m.Record("e", "g", []ponder.Learnt{learnt(7, 12)})
	m.Flush()
	if e, ok := lookupOne(t, m, "e", 7); !ok || e.Depth != 12 {
		t.Fatalf("after the migration: %+v %v", e, ok)
	}
}

func TestLearnRecordLookupRoundTrip(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	big := uint64(0xfedcba9876543210) // above int64: stored as a negative INTEGER
	want := []ponder.Learnt{
		{Key: big, FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Move: "g1f3", Score: 25, Bound: search.BoundExact, Depth: 14},
		{Key: 2, FEN: "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", Move: "", Score: search.MateScore - 5, Bound: search.BoundLower, Depth: 9},
		{Key: 3, FEN: "x", Move: "e7e8q", Score: -310, Bound: search.BoundUpper, Depth: 11},
	}
	m.Record("e", "g1", want)
	m.Flush()
	got, err := m.Lookup("e", []uint64{3, 99, big, 2})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Depth > got[j].Depth })
	if len(got) != 3 {
		t.Fatalf("lookup: %+v, want the 3 recorded", got)
	}
	for i, w := range []ponder.Learnt{want[0], want[2], want[1]} {
		var fen string
		if err := m.db.SQL().QueryRow(`SELECT fen FROM learn WHERE eval = 'e' AND key = ?`, int64(w.Key)).Scan(&fen); err != nil || fen != w.FEN {
			t.Errorf("entry %d: FEN in the database %q (%v), want %q", i, fen, err, w.FEN)
		}
		w.FEN = "" // Lookup leaves it out
		if got[i] != w {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], w)
		}
	}
	// A shallower entry does not replace a deeper one; a deeper one does.
	m.Record("e", "g2", []ponder.Learnt{{Key: 2, FEN: "y", Score: 1, Bound: search.BoundExact, Depth: 5}})
	m.Record("e", "g2", []ponder.Learnt{{Key: 3, FEN: "z", Move: "a2a4", Score: 7, Bound: search.BoundExact, Depth: 20}})
	m.Flush()
	if e, _ := lookupOne(t, m, "e", 2); e.Depth != 9 || e.Score != want[1].Score {
		t.Errorf("a shallower entry replaced a deeper one: %+v", e)
	}
	if e, _ := lookupOne(t, m, "e", 3); e.Depth != 20 || e.Move != "a2a4" || e.Score != 7 {
		t.Errorf("a deeper entry did not replace: %+v", e)
	}
	// Many keys in one lookup.
	var many []ponder.Learnt
	var keys []uint64
	for k := uint64(1000); k < 2007; k++ {
		many = append(many, learnt(k, 10))
		keys = append(keys, k)
	}
	m.Record("e", "g3", many)
	m.Flush()
	if got, err := m.Lookup("e", keys); err != nil || len(got) != len(keys) {
		t.Fatalf("lookup of %d keys: %d (%v)", len(keys), len(got), err)
	}
	// Reopened, the memory reads the same back from the file.
	path := m.Path()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	again := openMemory(t, path, MemoryOptions{})
	if e, ok := lookupOne(t, again, "e", 3); !ok || e.Depth != 20 || e.Move != "a2a4" {
		t.Errorf("reopened: %+v %v", e, ok)
	}
	if got, err := again.Lookup("e", keys); err != nil || len(got) != len(keys) {
		t.Errorf("reopened: lookup of %d keys: %d (%v)", len(keys), len(got), err)
	}
}

func TestLearnOtherEvaluationIgnored(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	m.Record("hce-1", "g", []ponder.Learnt{learnt(5, 12)})
	m.Flush()
	if _, ok := lookupOne(t, m, "nnue-2", 5); ok {
		t.Fatal("an entry of another evaluation was returned")
	}
	if _, ok := lookupOne(t, m, "hce-1", 5); !ok {
		t.Fatal("the entry of its own evaluation was not returned")
	}
	// The other evaluation keeps its own entry of the same position.
	m.Record("nnue-2", "g", []ponder.Learnt{learnt(5, 3)})
	m.Flush()
	if e, _ := lookupOne(t, m, "hce-1", 5); e.Depth != 12 {
		t.Fatalf("another evaluation's entry replaced ours: %+v", e)
	}
}

func TestLearnEvictionKeepsTheBound(t *testing.T) {
	const max = 50
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{MaxEntries: max})
	m.Record("old", "g", []ponder.Learnt{learnt(9999, 60)}) // another evaluation's: goes first, deep as it is
	for batch := range 6 {
		var es []ponder.Learnt
		for i := range 20 {
			d := 1 + batch*20 + i // depths 1..120, each key once
			es = append(es, learnt(uint64(d), d))
		}
		m.Record("e", "g", es)
	}
	m.Flush()
	n, err := m.Count(context.Background(), "")
	if err != nil || n != max {
		t.Fatalf("%d entries (%v), want the bound %d", n, err, max)
	}
	if _, ok := lookupOne(t, m, "old", 9999); ok {
		t.Error("another evaluation's entry was kept before ours")
	}
	reopened := openMemory(t, m.Path(), MemoryOptions{MaxEntries: max})
	for _, mm := range []*Memory{m, reopened} { // the cache, and the file
		for d := 1; d <= 120; d++ {
			_, ok := lookupOne(t, mm, "e", uint64(d))
			if keep := d > 120-max; ok != keep {
				t.Errorf("depth %d: kept %v, want %v (the shallowest go first)", d, ok, keep)
			}
		}
	}
}

// TestLearnTwoMemoriesKeepTheBound: two memories on one file (two
// processes) each count the other's inserts before evicting, so the table
// stays within MaxEntries without a Refresh.
func TestLearnTwoMemoriesKeepTheBound(t *testing.T) {
	const max = 50
	path := filepath.Join(t.TempDir(), FileName)
	a := openMemory(t, path, MemoryOptions{MaxEntries: max})
	b := openMemory(t, path, MemoryOptions{MaxEntries: max})
	batch := func(m *Memory, from, n int) {
		var es []ponder.Learnt
		for k := from; k < from+n; k++ {
			es = append(es, learnt(uint64(k), 10))
		}
		m.Record("e", "g", es)
		m.Flush()
	}
	batch(a, 1000, 5) // each has written once: later records go by data_version
	batch(b, 2000, 5)
	batch(a, 1100, 40)
	batch(b, 2100, 40)
	batch(a, 2100, 5) // updates of b's keys: no new rows
	n, err := a.Count(context.Background(), "")
	if err != nil || n > max {
		t.Fatalf("%d entries (%v), want at most %d", n, err, max)
	}
	if n < max {
		t.Errorf("%d entries, want the bound %d (nothing evicted beyond it)", n, max)
	}
}

// TestLearnEvictionLeastRecentlyUsed: among entries of one depth, the one
// neither written nor found for longest goes first.
func TestLearnEvictionLeastRecentlyUsed(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{MaxEntries: 3})
	m.Record("e", "g", []ponder.Learnt{learnt(1, 10), learnt(2, 10), learnt(3, 10)})
	m.Flush()
	time.Sleep(5 * time.Millisecond) // used_at counts milliseconds
	if got, err := m.Lookup("e", []uint64{1, 2}); err != nil || len(got) != 2 {
		t.Fatalf("lookup: %v %v", got, err)
	}
	time.Sleep(5 * time.Millisecond)
	m.Record("e", "g", []ponder.Learnt{learnt(4, 10)})
	m.Flush()
	for k, keep := range map[uint64]bool{1: true, 2: true, 3: false, 4: true} {
		if _, ok := lookupOne(t, m, "e", k); ok != keep {
			t.Errorf("key %d: kept %v, want %v (3 was used least recently)", k, ok, keep)
		}
	}
}

func TestLearnLostGameIsTrustedLess(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	m.Record("e", "lost", []ponder.Learnt{learnt(1, 12), learnt(2, 1)})
	m.Record("e", "won", []ponder.Learnt{learnt(3, 12)})
	m.Record("e", "drawn", []ponder.Learnt{learnt(4, 12)})
	m.GameOver("lost", ponder.ResultLoss)
	m.GameOver("won", ponder.ResultWin)
	m.GameOver("drawn", ponder.ResultDraw)
	m.Flush()
	if e, ok := lookupOne(t, m, "e", 1); !ok || e.Depth != 6 {
		t.Errorf("entry of the lost game: %+v %v, want depth 6 (halved)", e, ok)
	}
	if _, ok := lookupOne(t, m, "e", 2); ok {
		t.Error("an entry of the lost game halved to depth 0 was kept")
	}
	for _, k := range []uint64{3, 4} {
		if e, _ := lookupOne(t, m, "e", k); e.Depth != 12 {
			t.Errorf("entry %d of a game not lost: depth %d, want 12", k, e.Depth)
		}
	}
	var lost int
	if err := m.db.SQL().QueryRow(`SELECT lost FROM learn WHERE key = 1`).Scan(&lost); err != nil || lost != 1 {
		t.Errorf("lost count %d (%v), want 1", lost, err)
	}
	// A later game that finds the position as deep again restores it.
	m.Record("e", "next", []ponder.Learnt{learnt(1, 12)})
	m.Flush()
	if e, _ := lookupOne(t, m, "e", 1); e.Depth != 12 {
		t.Errorf("re-searched entry: depth %d, want 12", e.Depth)
	}
}

// TestLearnHelperProcess is the second process of
// TestLearnTwoProcessesShareOneFile (skipped otherwise).
func TestLearnHelperProcess(t *testing.T) {
	path := os.Getenv("PONDEROSA_LEARN_HELPER_DB")
	if path == "" {
		t.Skip("helper process only")
	}
	m, err := OpenMemory(path, MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		m.Record("e", "helper", []ponder.Learnt{learnt(uint64(100_000+i), 10), learnt(uint64(i%7), 10+i)})
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLearnTwoProcessesShareOneFile: two processes (and two stores in
// this one) write one file at the same time; nothing is lost.
func TestLearnTwoProcessesShareOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "learn.db")
	a := openMemory(t, path, MemoryOptions{})
	b := openMemory(t, path, MemoryOptions{})
	cmd := exec.Command(os.Args[0], "-test.run=^TestLearnHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PONDEROSA_LEARN_HELPER_DB="+path)
	var out []byte
	var cerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		out, cerr = cmd.CombinedOutput()
	}()
	for i := range 40 {
		a.Record("e", "a", []ponder.Learnt{learnt(uint64(200_000+i), 10)})
		b.Record("e", "b", []ponder.Learnt{learnt(uint64(300_000+i), 10)})
		time.Sleep(time.Millisecond)
	}
	a.Flush()
	b.Flush()
	wg.Wait()
	if cerr != nil {
		t.Fatalf("helper process: %v\n%s", cerr, out)
	}
	a.Refresh() // the other store's and process's entries
	b.Refresh()
	a.Flush()
	b.Flush()
	if a.Dropped() != 0 || b.Dropped() != 0 {
		t.Fatalf("dropped writes: %d, %d", a.Dropped(), b.Dropped())
	}
	for name, base := range map[string]uint64{"helper": 100_000, "a": 200_000, "b": 300_000} {
		var keys []uint64
		for i := range 40 {
			keys = append(keys, base+uint64(i))
		}
		for _, m := range []*Memory{a, b} {
			if got, err := m.Lookup("e", keys); err != nil || len(got) != 40 {
				t.Errorf("%s's entries seen by one store: %d (%v), want 40", name, len(got), err)
			}
		}
	}
	// The helper's deepest entry of a shared key won.
	if e, _ := lookupOne(t, a, "e", 39%7); e.Depth != 10+39 {
		t.Errorf("shared key: depth %d, want %d", e.Depth, 10+39)
	}
}

// TestLearnHalvesNodesWithSQLite is the key figure of the learning memory
// (see ponder's TestMemoryHalvesNodesToSameDepth) through this store: a
// second game reaches the same depth in at most half the nodes (counted,
// not timed), with a fresh hash table and the store's entries.
func TestLearnHalvesNodesWithSQLite(t *testing.T) {
	const (
		fen   = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
		depth = 11 // see ponder's TestMemoryHalvesNodesToSameDepth
	)
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	search1 := func(game string) ponder.Decision {
		g := ponder.NewGame(ponder.Options{HashMB: 16, Memory: m, MemoryGame: game, LearnMinDepth: 3})
		defer g.Close()
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
		d, err := g.Think(context.Background(), ponder.ThinkLimits{Depth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g.WaitLearning()
		m.Flush()
		return d
	}
	d1 := search1("first")
	n, err := m.Count(context.Background(), search.EvalID(nil))
	if err != nil || n == 0 {
		t.Fatalf("recorded %d (%v)", n, err)
	}
	var fenGot string
	if err := m.db.SQL().QueryRow(`SELECT fen FROM learn WHERE key = ?`, int64(testsupport.MustFEN(t, fen).Key())).Scan(&fenGot); err != nil || fenGot != fen {
		t.Errorf("the root's FEN: %q (%v)", fenGot, err)
	}
	d2 := search1("second")
	t.Logf("depth %d: %d nodes from nothing, %d with the memory (%d entries)", depth, d1.Nodes, d2.Nodes, n)
	if d2.Depth < depth || 2*d2.Nodes > d1.Nodes {
		t.Fatalf("with the memory: depth %d in %d nodes, want depth %d in at most half of %d", d2.Depth, d2.Nodes, depth, d1.Nodes)
	}
}

// TestLearnLossNeverDropped: a loss reported while the write queue is
// full (the writer waiting on another process's lock) waits for room
// instead of being dropped, and halves what the game recorded.
func TestLearnLossNeverDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "learn.db")
	m := openMemory(t, path, MemoryOptions{Queue: 1})
	const eval = "e"
	m.Record(eval, "lost", []ponder.Learnt{learnt(1, 20)})
	m.Flush()

	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	// The writer waits on the lock with the first; the queue (1) fills.
	for i := range 3 {
		m.Record(eval, "other", []ponder.Learnt{learnt(uint64(100+i), 10)})
	}
	over := make(chan struct{})
	go func() {
		m.GameOver("lost", ponder.ResultLoss)
		close(over)
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	<-over
	m.Flush()
	if e, ok := lookupOne(t, m, eval, 1); !ok || e.Depth != 10 {
		t.Fatalf("after a loss reported on a full queue: %+v (found %v), want depth 10", e, ok)
	}
}

// TestLearnLossHalvesWhatTheGameUsed: a game seeded from an entry another
// game wrote (Used) and then lost halves that entry too (a trusted line
// that lost is searched again), once, and not the entries it did not use;
// a game won forgets its uses.
func TestLearnLossHalvesWhatTheGameUsed(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), "learn.db"), MemoryOptions{})
	m.Record("e", "first", []ponder.Learnt{learnt(1, 20), learnt(2, 20), learnt(3, 20)})
	m.Used("e", "second", []uint64{1, 1})
	m.Used("e", "third", []uint64{3})
	m.GameOver("third", ponder.ResultWin)
	m.GameOver("second", ponder.ResultLoss)
	m.GameOver("third", ponder.ResultLoss) // its uses were forgotten with its win
	m.Flush()
	for k, want := range map[uint64]int{1: 10, 2: 20, 3: 20} {
		if e, ok := lookupOne(t, m, "e", k); !ok || e.Depth != want {
			t.Errorf("entry %d: %+v (found %v), want depth %d", k, e, ok, want)
		}
	}
}

// The eviction queries use the table's indexes: neither sorts the table
// (a write at the bound would sort 100,000 entries) nor scans it for the
// other evaluations' entries.
func TestLearnEvictionUsesIndexes(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	plan := func(q string, args ...any) string {
		rows, err := m.db.SQL().Query(`EXPLAIN QUERY PLAN `+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out += detail + "\n"
		}
		return out
	}
	for _, c := range []struct {
		q    string
		args []any
		want string
	}{
		{evictOtherEvals, []any{"e", 10}, "PRIMARY KEY"},
		{evictShallowest, []any{10}, "learn_evict"},
	} {
		p := plan(c.q, c.args...)
		t.Logf("%s\n%s", c.q, p)
		if strings.Contains(p, "TEMP B-TREE") || strings.Contains(p, "SCAN learn\n") || !strings.Contains(p, c.want) {
			t.Errorf("plan of %s:\n%s want it through %s, without a sort or a scan of the table", c.q, p, c.want)
		}
	}
}

// TestLearnRecordSkipsUnchanged: an entry the memory holds deeper, or as
// deep with the same move, score and bound, is not written again (its
// game stays the one that wrote it); a deeper one, or a new result at the
// same depth, is.
func TestLearnRecordSkipsUnchanged(t *testing.T) {
	m := openMemory(t, filepath.Join(t.TempDir(), FileName), MemoryOptions{})
	m.Record("e", "g1", []ponder.Learnt{learnt(1, 10), learnt(2, 10), learnt(3, 10), learnt(4, 10)})
	m.Flush()
	changed := learnt(3, 10)
	changed.Score++
	m.Record("e", "g2", []ponder.Learnt{learnt(1, 10), learnt(2, 9), changed, learnt(4, 11)})
	m.Flush()
	for k, want := range map[int64]string{1: "g1", 2: "g1", 3: "g2", 4: "g2"} {
		var game string
		if err := m.db.SQL().QueryRow(`SELECT game FROM learn WHERE key = ?`, k).Scan(&game); err != nil || game != want {
			t.Errorf("entry %d: written by %q (%v), want %q", k, game, err, want)
		}
	}
	if d := m.HeldDepth("e", 4); d != 11 {
		t.Errorf("HeldDepth of entry 4: %d, want 11", d)
	}
	if d := m.HeldDepth("e", 99); d != 0 {
		t.Errorf("HeldDepth of an unknown entry: %d, want 0", d)
	}
}

// TestLearnWALStaysBounded: two memories on one file (two processes)
// writing many records keep its write-ahead log near WALLimit, where
// SQLite alone lets it grow with what is written.
func TestLearnWALStaysBounded(t *testing.T) {
	const limit = 256 << 10
	path := filepath.Join(t.TempDir(), FileName)
	a := openMemory(t, path, MemoryOptions{WALLimit: limit, MaxEntries: 5000})
	b := openMemory(t, path, MemoryOptions{WALLimit: limit, MaxEntries: 5000})
	fen := strings.Repeat("rnbqkbnr/pppppppp/8/8/", 3)
	var most int64
	key := uint64(1)
	for i := 0; i < 40; i++ {
		m := a
		if i%2 == 1 {
			m = b
		}
		es := make([]ponder.Learnt, 200)
		for j := range es {
			es[j] = learnt(key, 8+j%10)
			es[j].FEN = fen
			key++
		}
		m.Record("e", fmt.Sprintf("g%d", i), es)
		m.Refresh() // the other's entries: a read, as a process does between games
		m.Flush()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, fi.Size())
	}
	// 8,000 rows of some 100 bytes, with their indexes, and evictions:
	// several MB of log without the limit.
	if most > 2*limit {
		t.Fatalf("WAL grew to %d bytes, want at most %d (twice WALLimit)", most, 2*limit)
	}
	t.Logf("largest WAL %d bytes", most)
}
