package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the database's name in the state directory.
const FileName = "ponderosa.db"

// Path is the database's path in stateDir.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// ErrNewerSchema is returned by Open and OpenReadOnly for a database
// written by a newer ponderosa (its schema version is beyond migrations).
var ErrNewerSchema = errors.New("database schema is newer than this ponderosa knows")

// timeFormat is how times are stored: UTC text that sorts as it reads,
// so that the sqlite3 shell shows them and compares them with dates.
const timeFormat = "2006-01-02T15:04:05.000Z"

func fmtTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeFormat)
}

func parseTime(s sql.NullString) time.Time {
	if !s.Valid {
		return time.Time{}
	}
	t, err := time.Parse(timeFormat, s.String)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Options tune Open; the zero value is the daemon's.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock another
	// process holds before it fails. Default 5 s.
	BusyTimeout time.Duration
}

// DB is the state database.
type DB struct {
	db     *sql.DB
	path   string
	ro     bool
	schema int // the file's schema version (below len(migrations) only when ro)
}

// readersNeed is the oldest schema version whose games and moves tables
// are what Games and Moves read: a read-only reader (games list, games
// pgn) takes any file from it on, so that it reads the archive of an
// older daemon that still runs. Raise it only with a migration that
// changes those tables.
const readersNeed = 1

// Open opens (creating it, mode 0640, when missing) the database at path
// for reading and writing, in WAL mode with foreign keys on, and brings
// its schema up to date.
func Open(path string, o Options) (*DB, error) {
	return openN(path, o, len(migrations))
}

// openN is Open that migrates to schema version n only (tests make the
// database of an older ponderosa with it).
func openN(path string, o Options, n int) (*DB, error) {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	// Create the file ourselves so that it (and SQLite's -wal and -shm
	// files, which take its mode) is readable by the bot's group only.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	_ = f.Close()
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	// Not journal_mode(WAL) here: see enableWAL.
	// FULL: a committed game survives a power cut too, not only a kill.
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// One connection: the daemon's writes are few, and one connection
	// never waits on its own locks.
	db.SetMaxOpenConns(1)
	d := &DB{db: db, path: path}
	if err := d.enableWAL(context.Background(), o.BusyTimeout); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := d.migrate(context.Background(), migrations, n); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := d.persistWAL(context.Background()); err != nil {
		_ = db.Close()
		return nil, err
	}
	return d, nil
}

// enableWAL puts the file in WAL mode (a no-op once it is), waiting up to
// timeout for the lock that takes. SQLite switches a file to WAL in a
// transaction that begins as a read and then asks for the write lock, and
// a read that asks for the write lock while another connection has it
// gets SQLITE_BUSY at once, without the busy handler (the busy timeout):
// the other writer waits for that read to end before it commits, so
// waiting there would deadlock. So while another process writes a new
// file (creates it, switches it, migrates it: the daemon and `ponderosa
// tournament join` that start together), the switch fails at once, however
// long the busy timeout; enableWAL tries it again until timeout instead,
// each try a statement of its own that holds no lock while it sleeps.
func (d *DB) enableWAL(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		var mode string
		err := d.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil {
			if mode != "wal" {
				return fmt.Errorf("database %s: switch to WAL mode: the journal mode is still %q", d.path, mode)
			}
			return nil
		}
		left := time.Until(deadline)
		if !isBusy(err) || left <= 0 {
			return fmt.Errorf("database %s: switch to WAL mode: %w (%s)", d.path, err, damagedHint)
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("database %s: switch to WAL mode: %w", d.path, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// isBusy tells whether err is SQLite's SQLITE_BUSY (a lock another
// connection holds), extended codes included.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// persistWAL keeps the -wal and -shm files when the database closes, so
// that a reader who may not write the state directory (an admin in the
// bot's group) can open the database read-only while the bot is stopped
// too: a WAL reader needs the -shm file, and only a writer can create it.
func (d *DB) persistWAL(ctx context.Context) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("database %s: %w", d.path, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		if pw, ok := dc.(interface {
			FileControlPersistWAL(string, int) (int, error)
		}); ok {
			_, err := pw.FileControlPersistWAL("main", 1)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("database %s: keep the WAL files: %w", d.path, err)
	}
	return nil
}

// OpenReadOnly opens an existing database for reading (the commands that
// read the archive while the bot runs). It refuses a schema newer than
// this binary's; an older one (down to readersNeed) is read as it is, so
// that the archive of an older daemon that still runs can be listed: the
// reads that need a newer version (DeclinesSince, PauseUntil) say so.
func OpenReadOnly(path string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	d := &DB{db: db, path: path, ro: true}
	v, err := d.version(context.Background())
	if err != nil {
		_ = db.Close()
		if _, serr := os.Stat(path + "-shm"); errors.Is(serr, os.ErrNotExist) {
			// A WAL reader needs the -shm file, which only a writer makes.
			return nil, fmt.Errorf("%w (no %s-shm beside it: start the bot once, or read as a user who may write the directory)", err, path)
		}
		return nil, err
	}
	if err := d.checkVersion(v); err != nil {
		_ = db.Close()
		return nil, err
	}
	if v < readersNeed {
		_ = db.Close()
		return nil, fmt.Errorf("database %s has schema version %d, older than the %d this ponderosa reads: start the bot (ponderosa run) once to upgrade it", path, v, readersNeed)
	}
	d.schema = v
	return d, nil
}

// needSchema is the error of a read that needs schema version n on a
// read-only database of an older one; nil when the file has it.
func (d *DB) needSchema(n int, what string) error {
	if d.schema >= n {
		return nil
	}
	return fmt.Errorf("database %s: %s needs schema version %d, the file has %d (an older ponderosa wrote it): start this ponderosa (ponderosa run) once to upgrade it", d.path, what, n, d.schema)
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Path is the database file.
func (d *DB) Path() string { return d.path }

// SQL is the database handle, for tests and tools.
func (d *DB) SQL() *sql.DB { return d.db }

func (d *DB) version(ctx context.Context) (int, error) {
	var v int
	if err := d.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("database %s: read schema version: %w (%s)", d.path, err, damagedHint)
	}
	// A file that is not a database fails only when its pages are read.
	var n int
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return 0, fmt.Errorf("database %s: read schema: %w (%s)", d.path, err, damagedHint)
	}
	return v, nil
}

// damagedHint ends the error of a file that cannot be read as a database.
const damagedHint = "locked by another program, or damaged or not a database: if damaged, stop the bot, move the file (and its -wal and -shm files) away, and the bot starts a new one"

func (d *DB) checkVersion(v int) error { return d.checkKnown(v, len(migrations)) }

// checkKnown refuses a version beyond known, the migrations there are.
func (d *DB) checkKnown(v, known int) error {
	if v > known {
		return fmt.Errorf("database %s has schema version %d, this ponderosa knows up to %d: %w (run a newer ponderosa, or move the file away)", d.path, v, known, ErrNewerSchema)
	}
	return nil
}

// migrate applies the migrations of ms (migrations, but in tests) the
// database has not had up to version n, each in its own transaction with the new version (PRAGMA
// user_version). Each transaction is immediate and reads the version
// again inside it: another process (the learning memory's two ponderosa
// uci processes share one file) may have migrated the file meanwhile.
func (d *DB) migrate(ctx context.Context, ms []string, n int) error {
	v, err := d.version(ctx)
	if err != nil {
		return err
	}
	if err := d.checkKnown(v, len(ms)); err != nil {
		return err
	}
	for v < n {
		done, err := d.migrateStep(ctx, ms, v, n)
		if err != nil {
			return err
		}
		v = done
	}
	d.schema = v
	return nil
}

// migrateStep applies one migration in a transaction that holds the
// write lock from its start, to the version the file has then (at least
// seen), and returns the file's version after it.
func (d *DB) migrateStep(ctx context.Context, ms []string, seen, n int) (int, error) {
	fail := func(v int, err error) (int, error) {
		return 0, fmt.Errorf("database %s: migrate to version %d: %w", d.path, v+1, err)
	}
	tx, err := d.db.BeginTx(ctx, nil) // immediate: _txlock in Open
	if err != nil {
		return fail(seen, err)
	}
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		_ = tx.Rollback()
		return fail(seen, err)
	}
	if err := d.checkKnown(v, len(ms)); err != nil {
		_ = tx.Rollback()
		return 0, err
	}
	if v >= n {
		// Another process migrated it.
		_ = tx.Rollback()
		return v, nil
	}
	if _, err := tx.ExecContext(ctx, ms[v]); err != nil {
		_ = tx.Rollback()
		return fail(v, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		_ = tx.Rollback()
		return fail(v, err)
	}
	if err := tx.Commit(); err != nil {
		return fail(v, err)
	}
	return v + 1, nil
}

// SchemaVersion is the version of the schema this binary writes.
func SchemaVersion() int { return len(migrations) }

// migrations[i] takes the schema from version i to i+1. Never edit one
// that has shipped: append a new one.
var migrations = []string{
	// 1: the archive and the daemon's counters.
	`
CREATE TABLE games (
	id                 TEXT PRIMARY KEY,            -- the Lichess game id
	url                TEXT NOT NULL,
	white              TEXT NOT NULL,
	black              TEXT NOT NULL,
	white_rating       INTEGER,                     -- NULL: unknown
	black_rating       INTEGER,
	white_rating_diff  INTEGER,                     -- NULL: casual, or not (yet) known
	black_rating_diff  INTEGER,
	our_color          TEXT NOT NULL CHECK (our_color IN ('white', 'black')),
	opponent           TEXT NOT NULL,
	speed              TEXT NOT NULL,
	variant            TEXT NOT NULL,
	rated              INTEGER NOT NULL,
	clock_initial_ms   INTEGER,                     -- NULL: no clock (correspondence)
	clock_increment_ms INTEGER,
	result             TEXT NOT NULL CHECK (result IN ('win', 'loss', 'draw', 'aborted', 'unknown')),
	termination        TEXT NOT NULL,               -- Lichess' status: mate, resign, outoftime, ...
	initial_fen        TEXT,                        -- NULL: the standard start
	started_at         TEXT,                        -- UTC, 2006-01-02T15:04:05.000Z
	ended_at           TEXT NOT NULL,
	pgn                TEXT NOT NULL                -- with [%eval] comments on our moves
);
CREATE INDEX games_ended_at ON games (ended_at);
CREATE INDEX games_opponent ON games (opponent COLLATE NOCASE);

CREATE TABLE moves (
	game_id   TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	ply       INTEGER NOT NULL,                     -- 0: the first move of the game
	uci       TEXT NOT NULL,
	san       TEXT,                                 -- NULL: a variant without rules here
	ours      INTEGER NOT NULL,
	score_cp  INTEGER,                              -- from our side; NULL when no score
	mate      INTEGER,                              -- mate in N (>0 we mate); NULL when none
	depth     INTEGER,
	nodes     INTEGER,
	time_ms   INTEGER,
	source    TEXT,                                 -- search, ponder, tree, book, forced, fallback, ...
	PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

-- Rating changes that arrived (with Lichess' gameFinish) before the game.
CREATE TABLE pending_rating_diffs (
	game_id    TEXT PRIMARY KEY,
	white_diff INTEGER,
	black_diff INTEGER
);

-- Games against bots, for the daily limit (a sliding 24 hours).
CREATE TABLE bot_games (
	game_id    TEXT PRIMARY KEY,
	started_at TEXT NOT NULL
);
CREATE INDEX bot_games_started_at ON bot_games (started_at);

-- Bots that declined our challenges (lichess-bot's challenge_decliner_file).
CREATE TABLE declines (
	opponent TEXT NOT NULL,                         -- lower-case id
	reason   TEXT NOT NULL,
	at       TEXT NOT NULL,
	PRIMARY KEY (opponent, at)
);
`,
	// 2: pauses that must outlive a restart (the matchmaker's after
	// Lichess' daily bot-game limit).
	`
CREATE TABLE pauses (
	name  TEXT PRIMARY KEY,                         -- what is paused, e.g. matchmaking.bot_day_limit
	until TEXT NOT NULL                             -- UTC, 2006-01-02T15:04:05.000Z
);
`,
	// 3: the kind of challenge a decline answered, so that a reason about
	// the kind (tooFast, variant, rated, ...) keeps only that kind from
	// being offered again. The declines of before carry no kind ('').
	`
ALTER TABLE declines ADD COLUMN variant TEXT NOT NULL DEFAULT '';  -- Lichess' variant key
ALTER TABLE declines ADD COLUMN speed   TEXT NOT NULL DEFAULT '';  -- bullet, blitz, rapid, classical, correspondence
ALTER TABLE declines ADD COLUMN mode    TEXT NOT NULL DEFAULT '';  -- rated or casual
`,
	// 4: the learning memory (see Memory).
	`
CREATE TABLE learn (
	eval    TEXT NOT NULL,                          -- the evaluation that found it (search.EvalID)
	key     INTEGER NOT NULL,                       -- the position's Zobrist key (uint64 read as int64)
	fen     TEXT NOT NULL,                          -- the position, for inspection
	move    TEXT NOT NULL DEFAULT '',               -- its best move (UCI); '' none
	score   INTEGER NOT NULL,                       -- side to move's view; mate distances from this position
	bound   INTEGER NOT NULL CHECK (bound BETWEEN 1 AND 3), -- 1 upper, 2 lower, 3 exact
	depth   INTEGER NOT NULL,
	game    TEXT NOT NULL DEFAULT '',               -- the game that wrote it last
	lost    INTEGER NOT NULL DEFAULT 0,             -- losses of the games that wrote it (each halved its depth)
	used_at TEXT NOT NULL,                          -- UTC, last written or found
	PRIMARY KEY (eval, key)
) WITHOUT ROWID;
CREATE INDEX learn_evict ON learn (depth, used_at);
CREATE INDEX learn_game ON learn (game);
`,
	// 5: the arenas that `ponderosa tournament join` recorded for the
	// daemon (see Arena). IF NOT EXISTS here and in 6, where it is made
	// again: see 6.
	`
CREATE TABLE IF NOT EXISTS arenas (
	id       TEXT PRIMARY KEY,                      -- the Lichess arena id
	team     TEXT NOT NULL DEFAULT '',              -- the team to play for; '' none
	password TEXT NOT NULL DEFAULT '',              -- its password or entry code, as given; '' none
	added_at TEXT NOT NULL                          -- UTC, when first recorded
);
`,
	// 6: the games begun and not archived yet, so that a game whose record
	// a crash lost is fetched from Lichess at the next start (NoteGame).
	// A build of the kill-archive branch before its merge made open_games
	// as version 5 (and no arenas): its files come here at 5 with
	// open_games and without arenas, so both are made only if missing.
	`
CREATE TABLE IF NOT EXISTS open_games (
	game_id  TEXT PRIMARY KEY,                      -- the Lichess game id (an accepted challenge's)
	noted_at TEXT NOT NULL                          -- UTC, when it began
);
CREATE TABLE IF NOT EXISTS arenas (
	id       TEXT PRIMARY KEY,                      -- the Lichess arena id
	team     TEXT NOT NULL DEFAULT '',              -- the team to play for; '' none
	password TEXT NOT NULL DEFAULT '',              -- its password or entry code, as given; '' none
	added_at TEXT NOT NULL                          -- UTC, when first recorded
);
`,
}
