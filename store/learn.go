package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// DefaultLearnMaxEntries is MemoryOptions.MaxEntries when not set: about
// 15 MB of database.
const DefaultLearnMaxEntries = 100_000

// MemoryOptions tune OpenMemory.
type MemoryOptions struct {
	// MaxEntries bounds the table learn (all evaluations together; <1:
	// DefaultLearnMaxEntries). Beyond it the entries of other evaluations
	// go first, then the shallowest, then the least recently used (written
	// or found).
	MaxEntries int
	// Queue is how many writes may wait (default 64); when it is full a
	// Record is dropped (and logged), never waited for. A loss (GameOver)
	// is never dropped: it waits for room (the writer keeps emptying the
	// queue).
	Queue int
	// WALLimit bounds the write-ahead log (the file's -wal) in bytes
	// (<1: DefaultLearnWALLimit): after a write that leaves it larger, the
	// writer checkpoints it and truncates it (see checkpoint).
	WALLimit int64
	Logger   zerolog.Logger // write errors and drops (zero value: silent)
}

// DefaultLearnWALLimit is MemoryOptions.WALLimit when not set. Two
// processes that share a file, each reading and writing as it plays, once
// grew it to 316 MB: SQLite's automatic checkpoints reuse the log but never
// shrink it, and cannot restart it while the other process reads.
const DefaultLearnWALLimit = 4 << 20

// Memory is the learning memory in a database file (a ponder.Memory):
// positions searched deeply in earlier games, per evaluation. Lookups
// answer from a copy of the entries in memory (loaded when it opens, and
// again by Refresh), so a search never waits on the database; writes go
// through a queue to one goroutine, which updates both. Two processes may
// share one file (SQLite's locks, with a busy timeout): each sees the
// other's entries from its next Refresh. Its methods are safe for
// concurrent use.
//
// A game's result feeds back: after a loss (GameOver) every entry that
// game wrote last, and every entry it was seeded from at the root of one
// of its searches (Used, noted in this process), has its depth halved (it
// is then searched again rather than trusted) and its loss counted; one
// that falls to depth 0 goes.
type Memory struct {
	db      *DB     // the writer's (migrations, writes)
	rd      *sql.DB // lookups
	opts    MemoryOptions
	log     zerolog.Logger
	ops     chan memoryOp // never closed: see quit
	quit    chan struct{} // closed by Close: the writer writes what is queued and ends
	quitter sync.Once
	done    chan struct{} // closed when the writer has ended
	dropped atomic.Int64
	// rows is the number of entries of the table (all evaluations) as
	// this process knows it: counted at each load, kept by the writer
	// (which alone uses it) as it inserts and deletes. When another
	// connection (another process) has committed since the writer's last
	// record (its PRAGMA data_version changed: dataVersion, set when
	// versionKnown), record counts the table again instead.
	rows         int
	dataVersion  int64
	versionKnown bool
	// The entries without their FEN, for lookups that never wait on the
	// database: loaded at OpenMemory and by Refresh, kept up to date by
	// the writer.
	cmu   sync.RWMutex
	cache map[string]map[uint64]cachedEntry
	// touched are the keys found by lookups whose used_at is not yet
	// written (see takeTouched).
	tmu     sync.Mutex
	touched map[string]map[uint64]bool
	// uses are the entries each game was seeded from at its searches'
	// roots (Used), for its GameOver; kept in this process only (a game's
	// result comes from the process that played it), for the last
	// learnUseGames games.
	umu    sync.Mutex
	uses   map[string]map[evalKey]bool
	useSeq []string // the games of uses, oldest first
}

// evalKey names an entry.
type evalKey struct {
	eval string
	key  uint64
}

// learnUseGames bounds the games whose uses are kept (an aborted game
// never tells its result), learnUseKeys the uses kept per game.
const (
	learnUseGames = 256
	learnUseKeys  = 4096
)

// cachedEntry is a learn row in memory (no FEN: that is for inspection).
type cachedEntry struct {
	move  string
	score int32
	depth int16
	bound search.Bound
}

// memoryOp is one queued write.
type memoryOp struct {
	eval, game string
	entries    []ponder.Learnt
	result     ponder.GameResult
	used       []evalKey     // a loss: the entries the game was seeded from
	refresh    bool          // reload the cache from the database
	flushed    chan struct{} // Flush: closed when everything before it is written
}

var _ ponder.Memory = (*Memory)(nil)

// OpenMemory opens (creating, migrating) the database at path for the
// learning memory and starts its writer.
func OpenMemory(path string, o MemoryOptions) (*Memory, error) {
	if o.MaxEntries < 1 {
		o.MaxEntries = DefaultLearnMaxEntries
	}
	if o.Queue < 1 {
		o.Queue = 64
	}
	if o.WALLimit < 1 {
		o.WALLimit = DefaultLearnWALLimit
	}
	db, err := Open(path, Options{})
	if err != nil {
		return nil, fmt.Errorf("learning memory: %w", err)
	}
	// The writer's connection (the only one: SetMaxOpenConns(1)) truncates
	// the log to the limit whenever it restarts it.
	if _, err := db.db.Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", o.WALLimit)); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("learning memory: database %s: limit the WAL: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(1000)")
	q.Add("_pragma", "query_only(1)")
	rd, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("learning memory: open database %s: %w", path, err)
	}
	rd.SetMaxOpenConns(4)
	m := &Memory{db: db, rd: rd, opts: o, log: o.Logger, ops: make(chan memoryOp, o.Queue),
		quit: make(chan struct{}), done: make(chan struct{})}
	if err := m.reload(); err != nil {
		_ = rd.Close()
		_ = db.Close()
		return nil, err
	}
	go m.writer()
	return m, nil
}

// Close writes what is queued and closes the database. Calls after it do
// nothing (Lookup finds nothing).
func (m *Memory) Close() error {
	first := false
	m.quitter.Do(func() { close(m.quit); first = true })
	<-m.done
	if !first {
		return nil
	}
	return errors.Join(m.rd.Close(), m.db.Close())
}

// Path is the database file.
func (m *Memory) Path() string { return m.db.Path() }

// Dropped is the number of writes dropped because the queue was full.
func (m *Memory) Dropped() int64 { return m.dropped.Load() }

// closed tells whether Close has begun: send and sendWait check it first,
// so that nothing is queued after it even while the queue has room.
func (m *Memory) closed() bool {
	select {
	case <-m.quit:
		return true
	default:
		return false
	}
}

// send queues op without waiting; false when closed or full.
func (m *Memory) send(op memoryOp) bool {
	if m.closed() {
		return false
	}
	select {
	case m.ops <- op:
		return true
	default:
		m.dropped.Add(1)
		m.log.Warn().Int("entries", len(op.entries)).Msg("learning memory: write queue full; dropped")
		return false
	}
}

// sendWait queues op, waiting for room (no lock is held meanwhile, so
// Record and Close never wait on it); false when closed.
func (m *Memory) sendWait(op memoryOp) bool {
	if m.closed() {
		return false
	}
	select {
	case m.ops <- op:
		return true
	case <-m.quit:
		return false
	}
}

// Flush waits until everything queued so far is written (tests, and
// before a process exits).
func (m *Memory) Flush() {
	ch := make(chan struct{})
	if !m.sendWait(memoryOp{flushed: ch}) {
		return
	}
	select {
	case <-ch:
	case <-m.done: // closed meanwhile
	}
}

// Record implements ponder.Memory: it queues the entries (it keeps the
// slice) and returns at once. An entry replaces the one of its position
// when it is at least as deep.
func (m *Memory) Record(eval, game string, entries []ponder.Learnt) {
	if len(entries) > 0 {
		m.send(memoryOp{eval: eval, game: game, entries: entries})
	}
}

// Used implements ponder.Memory: it notes the entries game was seeded
// from (in this process), for its GameOver.
func (m *Memory) Used(eval, game string, keys []uint64) {
	m.umu.Lock()
	defer m.umu.Unlock()
	if m.uses == nil {
		m.uses = map[string]map[evalKey]bool{}
	}
	u := m.uses[game]
	if u == nil {
		u = map[evalKey]bool{}
		m.uses[game] = u
		m.useSeq = append(m.useSeq, game)
		if len(m.useSeq) > learnUseGames {
			delete(m.uses, m.useSeq[0])
			m.useSeq = m.useSeq[1:]
		}
	}
	for _, k := range keys {
		if len(u) < learnUseKeys {
			u[evalKey{eval, k}] = true
		}
	}
}

// takeUses returns (and forgets) the entries game was seeded from.
func (m *Memory) takeUses(game string) []evalKey {
	m.umu.Lock()
	defer m.umu.Unlock()
	u := m.uses[game]
	if u == nil {
		return nil
	}
	delete(m.uses, game)
	for i, g := range m.useSeq {
		if g == game {
			m.useSeq = append(m.useSeq[:i], m.useSeq[i+1:]...)
			break
		}
	}
	out := make([]evalKey, 0, len(u))
	for k := range u {
		out = append(out, k)
	}
	return out
}

// GameOver implements ponder.Memory: after a loss, the entries game wrote
// last and those it was seeded from at its searches' roots (Used) are
// trusted less (see Memory). A loss is never dropped: when the queue is
// full, it waits for room.
func (m *Memory) GameOver(game string, result ponder.GameResult) {
	used := m.takeUses(game)
	if result == ponder.ResultLoss {
		m.sendWait(memoryOp{game: game, result: result, used: used})
	}
}

// Lookup implements ponder.Memory: the entries of eval among keys, from
// the copy in memory (their FEN is left empty: it is in the database).
func (m *Memory) Lookup(eval string, keys []uint64) ([]ponder.Learnt, error) {
	var out []ponder.Learnt
	m.cmu.RLock()
	if c := m.cache[eval]; c != nil {
		for _, k := range keys {
			if e, ok := c[k]; ok {
				out = append(out, ponder.Learnt{Key: k, Move: e.move, Score: int(e.score), Bound: e.bound, Depth: int(e.depth)})
			}
		}
	}
	m.cmu.RUnlock()
	if len(out) > 0 {
		// Their used_at is written with the next write (see takeTouched).
		m.tmu.Lock()
		if m.touched == nil {
			m.touched = map[string]map[uint64]bool{}
		}
		t := m.touched[eval]
		if t == nil {
			t = map[uint64]bool{}
			m.touched[eval] = t
		}
		for _, e := range out {
			t[e.Key] = true
		}
		m.tmu.Unlock()
	}
	return out, nil
}

// Refresh reloads the entries from the database (those another process
// wrote) once the writes queued before it are done; it returns at once.
func (m *Memory) Refresh() { m.send(memoryOp{refresh: true}) }

// reload reads every entry into a new cache.
func (m *Memory) reload() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := m.rd.QueryContext(ctx, `SELECT eval, key, move, score, bound, depth FROM learn`)
	if err != nil {
		return fmt.Errorf("learning memory %s: load: %w", m.db.Path(), err)
	}
	defer rows.Close()
	cache := map[string]map[uint64]cachedEntry{}
	n := 0
	for rows.Next() {
		n++
		var eval, move string
		var key int64
		var score, bound, depth int
		if err := rows.Scan(&eval, &key, &move, &score, &bound, &depth); err != nil {
			return fmt.Errorf("learning memory %s: load: %w", m.db.Path(), err)
		}
		c := cache[eval]
		if c == nil {
			c = map[uint64]cachedEntry{}
			cache[eval] = c
		}
		c[uint64(key)] = cachedEntry{move: move, score: int32(score), depth: int16(depth), bound: search.Bound(bound)}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("learning memory %s: load: %w", m.db.Path(), err)
	}
	m.cmu.Lock()
	m.cache = cache
	m.cmu.Unlock()
	m.rows = n
	return nil
}

// known reports whether the cache holds the entry (eval, key).
func (m *Memory) known(eval string, key uint64) bool {
	_, ok := m.cached(eval, key)
	return ok
}

// cached is the cache's entry (eval, key).
func (m *Memory) cached(eval string, key uint64) (cachedEntry, bool) {
	m.cmu.RLock()
	defer m.cmu.RUnlock()
	e, ok := m.cache[eval][key]
	return e, ok
}

// HeldDepth implements ponder.HeldDepther: the depth of the entry (eval,
// key) as this process knows it (0: none), from the cache, touching
// nothing.
func (m *Memory) HeldDepth(eval string, key uint64) int {
	e, _ := m.cached(eval, key)
	return int(e.depth)
}

// unchanged reports whether recording e would change nothing the memory
// knows: the cache holds the position deeper, or as deep with the same
// move, score and bound (only the game and used_at would be written).
func (m *Memory) unchanged(eval string, e ponder.Learnt) bool {
	c, ok := m.cached(eval, e.Key)
	return ok && (int(c.depth) > e.Depth ||
		int(c.depth) == e.Depth && c.move == e.Move && int(c.score) == e.Score && c.bound == e.Bound)
}

// cacheSet and cacheDel change the cache (called by the writer).
func (m *Memory) cacheSet(eval string, key uint64, e cachedEntry) {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	c := m.cache[eval]
	if c == nil {
		c = map[uint64]cachedEntry{}
		m.cache[eval] = c
	}
	c[key] = e
}

func (m *Memory) cacheDel(eval string, key uint64) {
	m.cmu.Lock()
	defer m.cmu.Unlock()
	delete(m.cache[eval], key)
}

// Count is the number of entries of eval ("" for all).
func (m *Memory) Count(ctx context.Context, eval string) (int, error) {
	var n int
	var err error
	if eval == "" {
		err = m.rd.QueryRowContext(ctx, `SELECT count(*) FROM learn`).Scan(&n)
	} else {
		err = m.rd.QueryRowContext(ctx, `SELECT count(*) FROM learn WHERE eval = ?`, eval).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("learning memory %s: count: %w", m.db.Path(), err)
	}
	return n, nil
}

// writer applies the queued writes in order until Close, then those
// still queued.
func (m *Memory) writer() {
	defer close(m.done)
	for {
		select {
		case op := <-m.ops:
			m.write(op)
			continue
		case <-m.quit:
		}
		for {
			select {
			case op := <-m.ops:
				m.write(op)
				continue
			default:
			}
			if err := m.writeTouched(); err != nil {
				m.log.Warn().Err(err).Msg("learning memory: write failed")
			}
			return
		}
	}
}

// write applies one queued write.
func (m *Memory) write(op memoryOp) {
	if err := m.writeTouched(); err != nil {
		m.log.Warn().Err(err).Msg("learning memory: write failed; playing on")
	}
	var err error
	switch {
	case op.flushed != nil:
		close(op.flushed)
	case op.refresh:
		err = m.reload()
	case op.entries != nil:
		if err = m.record(op.eval, op.game, op.entries); err == nil {
			err = m.checkpoint()
		}
	case op.result == ponder.ResultLoss:
		err = m.lost(op.game, op.used)
	}
	if err != nil {
		m.log.Warn().Err(err).Msg("learning memory: write failed; playing on")
	}
}

// cacheChange is a row a write changed, applied to the cache once the
// write is committed.
type cacheChange struct {
	eval string
	key  uint64
	e    cachedEntry
	gone bool
}

func (m *Memory) apply(changes []cacheChange) {
	for _, c := range changes {
		if c.gone {
			m.cacheDel(c.eval, c.key)
		} else {
			m.cacheSet(c.eval, c.key, c.e)
		}
	}
}

// The eviction rule's queries (see record): other evaluations' entries
// first, through the primary key; then, the table holding only eval's,
// the shallowest and least recently used, through the index learn_evict.
// Neither sorts nor counts the table.
const (
	evictOtherEvals = `DELETE FROM learn WHERE (eval, key) IN (
	SELECT eval, key FROM learn WHERE eval < ?1 OR eval > ?1 LIMIT ?2) RETURNING eval, key`
	evictShallowest = `DELETE FROM learn WHERE (eval, key) IN (
	SELECT eval, key FROM learn ORDER BY depth, used_at LIMIT ?) RETURNING eval, key`
)

func (m *Memory) record(eval, game string, entries []ponder.Learnt) error {
	ctx := context.Background()
	now := fmtTime(time.Now())
	var changes []cacheChange
	total := m.rows
	var version int64
	err := m.db.tx(ctx, func(tx *sql.Tx) error {
		changes = changes[:0]
		total = m.rows
		// data_version changes when another connection commits: then
		// m.rows and the cache (which tells inserts from updates) may be
		// stale, and the table is counted after the inserts.
		if err := tx.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
			return err
		}
		stale := !m.versionKnown || version != m.dataVersion
		st, err := tx.PrepareContext(ctx, `
INSERT INTO learn (eval, key, fen, move, score, bound, depth, game, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (eval, key) DO UPDATE SET fen = excluded.fen, move = excluded.move, score = excluded.score,
	bound = excluded.bound, depth = excluded.depth, game = excluded.game, used_at = excluded.used_at
	WHERE excluded.depth >= learn.depth
RETURNING key`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, e := range entries {
			if e.Bound < search.BoundUpper || e.Bound > search.BoundExact || m.unchanged(eval, e) {
				continue
			}
			rows, err := st.QueryContext(ctx, eval, int64(e.Key), e.FEN, e.Move, e.Score, int(e.Bound), e.Depth, game, now)
			if err != nil {
				return err
			}
			changed := rows.Next() // a row back: inserted or replaced
			err = errors.Join(rows.Err(), rows.Close())
			if err != nil {
				return err
			}
			if changed {
				if !stale && !m.known(eval, e.Key) {
					total++
				}
				changes = append(changes, cacheChange{eval: eval, key: e.Key,
					e: cachedEntry{move: e.Move, score: int32(e.Score), depth: int16(e.Depth), bound: e.Bound}})
			}
		}
		if stale {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM learn`).Scan(&total); err != nil {
				return err
			}
		}
		// The eviction rule: other evaluations first, then the
		// shallowest, then the least recently used.
		for _, q := range []string{evictOtherEvals, evictShallowest} {
			excess := total - m.opts.MaxEntries
			if excess <= 0 {
				break
			}
			args := []any{excess}
			if q == evictOtherEvals {
				args = []any{eval, excess}
			}
			r, err := tx.QueryContext(ctx, q, args...)
			if err != nil {
				return err
			}
			before := len(changes)
			if changes, err = appendGone(changes, r); err != nil {
				return err
			}
			total -= len(changes) - before
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("learning memory %s: record %d entries of game %s: %w", m.db.Path(), len(entries), game, err)
	}
	m.rows = total
	m.dataVersion, m.versionKnown = version, true // our own commit leaves it as it was
	m.apply(changes)
	return nil
}

// checkpoint copies the write-ahead log into the database and truncates
// it when it has grown beyond opts.WALLimit. It waits (the busy timeout at
// most) for the other process's readers and writer, off any search's path
// (the writer's goroutine); one that cannot finish meanwhile is tried
// again after the next write.
func (m *Memory) checkpoint() error {
	fi, err := os.Stat(m.db.Path() + "-wal")
	if err != nil || fi.Size() <= m.opts.WALLimit {
		return nil // no log (yet): nothing to do
	}
	var busy, logged, done int
	if err := m.db.db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil {
		return fmt.Errorf("learning memory %s: checkpoint a WAL of %d bytes: %w", m.db.Path(), fi.Size(), err)
	}
	if busy != 0 {
		m.log.Debug().Int64("wal_bytes", fi.Size()).Msg("learning memory: checkpoint blocked by another connection; trying again after the next write")
	}
	return nil
}

// appendGone adds the (eval, key) rows of a DELETE … RETURNING to changes
// as removals, and closes rows.
func appendGone(changes []cacheChange, rows *sql.Rows) ([]cacheChange, error) {
	defer rows.Close()
	for rows.Next() {
		var c cacheChange
		var key int64
		if err := rows.Scan(&c.eval, &key); err != nil {
			return changes, err
		}
		c.key, c.gone = uint64(key), true
		changes = append(changes, c)
	}
	return changes, rows.Err()
}

// writeTouched writes the used_at of the entries lookups found since the
// last write (the least recently used go first when the table is full).
func (m *Memory) writeTouched() error {
	m.tmu.Lock()
	touched := m.touched
	m.touched = nil
	m.tmu.Unlock()
	if len(touched) == 0 {
		return nil
	}
	ctx := context.Background()
	now := fmtTime(time.Now())
	n := 0
	err := m.db.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `UPDATE learn SET used_at = ? WHERE eval = ? AND key = ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		for eval, keys := range touched {
			for k := range keys {
				n++
				if _, err := st.ExecContext(ctx, now, eval, int64(k)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("learning memory %s: mark %d entries used: %w", m.db.Path(), n, err)
	}
	return nil
}

// lost halves the depth of the entries game wrote last and of those it
// used (each once), counting the loss; an entry that falls to depth 0
// goes.
func (m *Memory) lost(game string, used []evalKey) error {
	ctx := context.Background()
	var changes []cacheChange
	gone := 0
	err := m.db.tx(ctx, func(tx *sql.Tx) error {
		changes = changes[:0]
		halve := func(rows *sql.Rows, err error) error {
			if err != nil {
				return err
			}
			for rows.Next() {
				var c cacheChange
				var key int64
				var score, bound, depth int
				if err := rows.Scan(&c.eval, &key, &c.e.move, &score, &bound, &depth); err != nil {
					rows.Close()
					return err
				}
				c.key, c.e.score, c.e.bound, c.e.depth = uint64(key), int32(score), search.Bound(bound), int16(depth)
				c.gone = depth < 1
				changes = append(changes, c)
			}
			return errors.Join(rows.Err(), rows.Close())
		}
		if err := halve(tx.QueryContext(ctx, `UPDATE learn SET depth = depth / 2, lost = lost + 1 WHERE game = ?
RETURNING eval, key, move, score, bound, depth`, game)); err != nil {
			return err
		}
		for _, u := range used { // those of other games (the game's own are halved)
			if err := halve(tx.QueryContext(ctx, `UPDATE learn SET depth = depth / 2, lost = lost + 1
WHERE eval = ? AND key = ? AND game != ? RETURNING eval, key, move, score, bound, depth`, u.eval, int64(u.key), game)); err != nil {
				return err
			}
		}
		gone = 0
		for _, c := range changes {
			if c.gone {
				if _, err := tx.ExecContext(ctx, `DELETE FROM learn WHERE eval = ? AND key = ? AND depth < 1`, c.eval, int64(c.key)); err != nil {
					return err
				}
				gone++
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("learning memory %s: lost game %s: %w", m.db.Path(), game, err)
	}
	m.rows -= gone
	m.apply(changes)
	return nil
}
