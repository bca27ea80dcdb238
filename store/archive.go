package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SpoolName is the spool's name in the state directory: one JSON object a
// line, each a record the database could not take when it came.
const SpoolName = "archive-spool.jsonl"

// RejectedName holds spool lines that cannot be read back (a line cut
// short by a crash while it was written), kept for a person to look at.
const RejectedName = "archive-spool.rejected.jsonl"

// ErrSpooled wraps the error of a record that the database did not take
// and that was spooled instead: it will reach the database later.
var ErrSpooled = errors.New("spooled")

// spoolEntry is one line of the spool.
type spoolEntry struct {
	Op      string    `json:"op"` // game, recovered_game, rating_diffs, bot_game, decline, pause, open_game, forget_game
	Game    *Game     `json:"game,omitempty"`
	ID      string    `json:"id,omitempty"`
	White   *int      `json:"white,omitempty"`
	Black   *int      `json:"black,omitempty"`
	At      time.Time `json:"at,omitzero"`
	Decline *Decline  `json:"decline,omitempty"`
	Name    string    `json:"name,omitempty"` // pause: what is paused (At: until when)
}

// Archive is the daemon's view of the state store: every call either
// reaches the database or is spooled (appended to the spool file and
// fsynced) and reaches it later, at the next call or the next start. Its
// methods are safe for concurrent use.
type Archive struct {
	mu        sync.Mutex
	dbPath    string
	spoolPath string
	rejPath   string
	opts      Options
	db        *DB // nil while the database cannot be opened
}

// OpenArchive opens the state store of stateDir and writes into it what
// the spool holds. It always returns a usable Archive; the error says
// why the database cannot be used for now (the bot goes on, spooling).
func OpenArchive(ctx context.Context, stateDir string, o Options) (*Archive, error) {
	a := &Archive{
		dbPath:    Path(stateDir),
		spoolPath: filepath.Join(stateDir, SpoolName),
		rejPath:   filepath.Join(stateDir, RejectedName),
		opts:      o,
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a, a.readyLocked(ctx)
}

// Close closes the database (the spool needs no closing).
func (a *Archive) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.db == nil {
		return nil
	}
	err := a.db.Close()
	a.db = nil
	return err
}

// SpoolPath is the spool file.
func (a *Archive) SpoolPath() string { return a.spoolPath }

// DBPath is the database file.
func (a *Archive) DBPath() string { return a.dbPath }

// readyLocked opens the database if it is not open and drains the spool
// into it.
func (a *Archive) readyLocked(ctx context.Context) error {
	if a.db == nil {
		db, err := Open(a.dbPath, a.opts)
		if err != nil {
			return err
		}
		a.db = db
	}
	if err := a.drainLocked(ctx); err != nil {
		a.dropLocked()
		return err
	}
	return nil
}

// dropLocked closes the database after a failure: the next call opens
// the file again (it may have been replaced by then).
func (a *Archive) dropLocked() {
	if a.db != nil {
		_ = a.db.Close()
		a.db = nil
	}
}

func (a *Archive) apply(ctx context.Context, e spoolEntry) error {
	switch e.Op {
	case "game":
		if e.Game == nil {
			return errors.New("spool entry: game without its game")
		}
		return a.db.RecordGame(ctx, *e.Game)
	case "recovered_game":
		if e.Game == nil {
			return errors.New("spool entry: recovered game without its game")
		}
		_, err := a.db.RecordGameIfAbsent(ctx, *e.Game)
		return err
	case "open_game":
		return a.db.NoteGame(ctx, e.ID, e.At)
	case "forget_game":
		return a.db.ForgetGame(ctx, e.ID)
	case "rating_diffs":
		return a.db.RecordRatingDiffs(ctx, e.ID, e.White, e.Black)
	case "bot_game":
		return a.db.AddBotGame(ctx, e.ID, e.At)
	case "decline":
		if e.Decline == nil {
			return errors.New("spool entry: decline without its decline")
		}
		return a.db.AddDecline(ctx, *e.Decline)
	case "pause":
		return a.db.SetPause(ctx, e.Name, e.At)
	}
	return fmt.Errorf("spool entry: unknown op %q", e.Op)
}

// do applies e to the database, or spools it.
func (a *Archive) do(ctx context.Context, e spoolEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.readyLocked(ctx)
	if err == nil {
		if err = a.apply(ctx, e); err == nil {
			return nil
		}
		a.dropLocked()
	}
	if serr := a.spoolLocked(e); serr != nil {
		return fmt.Errorf("%w; and the spool %s failed too: %w", err, a.spoolPath, serr)
	}
	return fmt.Errorf("%w (%w to %s: written to the database when it works again)", err, ErrSpooled, a.spoolPath)
}

// spoolLocked appends e to the spool and syncs it to disk.
func (a *Archive) spoolLocked(e spoolEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return appendSync(a.spoolPath, append(line, '\n'))
}

func appendSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("spool %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("spool %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("spool %s: %w", path, err)
	}
	return nil
}

// drainLocked writes the spool into the database, in order; what the
// database does not take stays in the spool. Every record is idempotent,
// so a crash between writing and shortening the spool only writes a
// record twice.
func (a *Archive) drainLocked(ctx context.Context) error {
	data, err := os.ReadFile(a.spoolPath)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read spool: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var rest [][]byte
	var firstErr error
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if firstErr != nil {
			rest = append(rest, bytes.Clone(line))
			continue
		}
		var e spoolEntry
		if err := json.Unmarshal(line, &e); err != nil {
			if rerr := appendSync(a.rejPath, append(bytes.Clone(line), '\n')); rerr != nil {
				firstErr = fmt.Errorf("spool %s: a line cannot be read (%v) nor set aside: %w", a.spoolPath, err, rerr)
				rest = append(rest, bytes.Clone(line))
			}
			continue
		}
		if err := a.apply(ctx, e); err != nil {
			firstErr = fmt.Errorf("drain spool %s: %w", a.spoolPath, err)
			rest = append(rest, bytes.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read spool %s: %w", a.spoolPath, err)
	}
	if len(rest) == 0 {
		if err := os.Remove(a.spoolPath); err != nil {
			return fmt.Errorf("remove the drained spool %s: %w", a.spoolPath, err)
		}
		return nil
	}
	if err := rewrite(a.spoolPath, append(bytes.Join(rest, []byte("\n")), '\n')); err != nil {
		return errors.Join(firstErr, err)
	}
	return firstErr
}

// rewrite replaces path's content atomically (temporary file, fsync,
// rename).
func rewrite(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("rewrite spool: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("rewrite spool: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("rewrite spool: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rewrite spool: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rewrite spool: %w", err)
	}
	return nil
}

// spooled returns the spool's entries (for counters while the database is
// away).
func (a *Archive) spooledLocked() []spoolEntry {
	data, err := os.ReadFile(a.spoolPath)
	if err != nil {
		return nil
	}
	var out []spoolEntry
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var e spoolEntry
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// RecordGame archives a finished game.
func (a *Archive) RecordGame(ctx context.Context, g Game) error {
	return a.do(ctx, spoolEntry{Op: "game", Game: &g})
}

// RecordRecoveredGame archives a game recovered from Lichess unless the
// archive has it (DB.RecordGameIfAbsent).
func (a *Archive) RecordRecoveredGame(ctx context.Context, g Game) error {
	return a.do(ctx, spoolEntry{Op: "recovered_game", Game: &g})
}

// NoteGame notes that game id began at t, until its record is archived
// (DB.NoteGame).
func (a *Archive) NoteGame(ctx context.Context, id string, t time.Time) error {
	return a.do(ctx, spoolEntry{Op: "open_game", ID: id, At: t})
}

// ForgetGame drops the note of game id.
func (a *Archive) ForgetGame(ctx context.Context, id string) error {
	return a.do(ctx, spoolEntry{Op: "forget_game", ID: id})
}

// OpenGames returns the games noted and not archived, oldest first, once
// the spool is written into the database; it fails while the database
// cannot be used (the spool may hold their records).
func (a *Archive) OpenGames(ctx context.Context) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.readyLocked(ctx); err != nil {
		return nil, fmt.Errorf("list open games: %w", err)
	}
	ids, err := a.db.OpenGames(ctx)
	if err != nil {
		a.dropLocked()
		return nil, err
	}
	return ids, nil
}

// RecordRatingDiffs sets a game's rating changes (before or after the game
// is recorded).
func (a *Archive) RecordRatingDiffs(ctx context.Context, id string, white, black *int) error {
	return a.do(ctx, spoolEntry{Op: "rating_diffs", ID: id, White: white, Black: black})
}

// AddBotGame counts a game against a bot for the daily limit.
func (a *Archive) AddBotGame(ctx context.Context, id string, t time.Time) error {
	return a.do(ctx, spoolEntry{Op: "bot_game", ID: id, At: t})
}

// AddDecline remembers that a bot declined our challenge.
func (a *Archive) AddDecline(ctx context.Context, d Decline) error {
	return a.do(ctx, spoolEntry{Op: "decline", Decline: &d})
}

// SetPause remembers that name is paused until until (zero: no longer).
func (a *Archive) SetPause(ctx context.Context, name string, until time.Time) error {
	return a.do(ctx, spoolEntry{Op: "pause", Name: name, At: until})
}

// PauseUntil returns the end of name's pause (zero: none); from the spool
// when the database is away (the error says why).
func (a *Archive) PauseUntil(ctx context.Context, name string) (time.Time, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.readyLocked(ctx)
	if err == nil {
		var until time.Time
		if until, err = a.db.PauseUntil(ctx, name); err == nil {
			return until, nil
		}
		a.dropLocked()
	}
	var until time.Time
	for _, e := range a.spooledLocked() {
		if e.Op == "pause" && e.Name == name {
			until = e.At // the last one written wins
		}
	}
	return until, err
}

// Games returns the finished games the filter selects, newest first,
// without their moves (see DB.Games), for readers such as the web view.
// Games still in the spool are not listed until they reach the database.
func (a *Archive) Games(ctx context.Context, f Filter) ([]Game, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.readyLocked(ctx); err != nil {
		return nil, fmt.Errorf("list games: %w", err)
	}
	gs, err := a.db.Games(ctx, f)
	if err != nil {
		a.dropLocked()
		return nil, fmt.Errorf("list games: %w", err)
	}
	return gs, nil
}

// BotGamesSince returns the start times of the bot games counted since t,
// oldest first; from the spool when the database is away (the error says
// why).
func (a *Archive) BotGamesSince(ctx context.Context, t time.Time) ([]time.Time, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.readyLocked(ctx)
	if err == nil {
		var out []time.Time
		if out, err = a.db.BotGamesSince(ctx, t); err == nil {
			return out, nil
		}
		a.dropLocked()
	}
	var out []time.Time
	for _, e := range a.spooledLocked() {
		if e.Op == "bot_game" && !e.At.Before(t) {
			out = append(out, e.At)
		}
	}
	return out, err
}

// DeclinesSince returns the declines since t, oldest first; from the
// spool when the database is away (the error says why).
func (a *Archive) DeclinesSince(ctx context.Context, t time.Time) ([]Decline, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.readyLocked(ctx)
	if err == nil {
		var out []Decline
		if out, err = a.db.DeclinesSince(ctx, t); err == nil {
			return out, nil
		}
		a.dropLocked()
	}
	var out []Decline
	for _, e := range a.spooledLocked() {
		if e.Op == "decline" && e.Decline != nil && !e.Decline.At.Before(t) {
			out = append(out, *e.Decline)
		}
	}
	return out, err
}
