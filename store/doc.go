// Package store is the bot's state store: one SQLite database,
// <state_dir>/ponderosa.db (with SQLite's -wal and -shm files beside it),
// that holds the game archive (every finished game with its PGN and the
// figures of each move) and the daemon's counters that must survive a
// restart (the bot games of the last 24 hours, the bots that declined our
// challenges, the matchmaker's pause for Lichess' daily bot-game limit),
// and the arena tournaments that `ponderosa tournament join` recorded for
// the daemon (Arena: with their passwords, so the file stays the bot's
// user's and group's, mode 0640).
//
// The driver is modernc.org/sqlite, pure Go: no cgo, so `go install` and
// static builds keep working. The database runs in WAL mode, so that
// `ponderosa games` and the sqlite3 shell read it while the bot writes.
//
// DB is the database itself (Open, OpenReadOnly). Archive wraps a DB for
// the daemon: when the database cannot be opened or written (corrupt,
// locked, disk trouble) it spools what it was given to
// <state_dir>/archive-spool.jsonl (appended and fsynced) and writes it into
// the database once it works again, so that a finished game is never lost.
// It notes each game as it begins (NoteGame; the game's record takes the
// note away, in the same transaction), so that the daemon finds at start
// (OpenGames) the games whose records a crash lost, and fetches them from
// Lichess (RecordRecoveredGame).
//
// Memory (OpenMemory) is the learning memory (a ponder.Memory): positions
// searched deeply in earlier games, in the table learn of the same
// database (or of any file: the UCI option LearnFile), keyed by the
// evaluation that found them. Lookups answer from a copy in memory;
// writes are queued to one goroutine and never block a search. Its size is
// bounded (MemoryOptions.MaxEntries: other evaluations' entries go first,
// then the shallowest, then the least recently used), and a lost game
// halves the depth of what it wrote and of the entries its searches were
// seeded from at their roots.
//
// The client package does not import this one (it takes an interface);
// cmd/ponderosa wires them, and the engine never sees either.
package store
