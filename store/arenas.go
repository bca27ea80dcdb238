package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Arena is an arena tournament recorded by `ponderosa tournament join`:
// the daemon plays it besides those of tournament.join, until it ends or
// `ponderosa tournament withdraw` removes it.
type Arena struct {
	ID       string `json:"id"`
	Team     string `json:"team,omitempty"`     // the team to play for, in a team battle
	Password string `json:"password,omitempty"` // its password or entry code; "" none
	// AddedAt: when it was last recorded. `tournament join` of an arena
	// recorded already records it anew (the daemon then follows again an
	// arena it left alone before: DB.AddArena).
	AddedAt time.Time `json:"added_at"`
}

// AddArena records arena a (an arena recorded again takes a's team,
// password and AddedAt: a daemon that gave up on it before the new
// AddedAt tries it again). A password is kept in the database file
// as it is: before writing one, AddArena takes away whatever access others
// than the bot's user and group have to the file (and to its -wal and
// -shm files), and refuses to write it when it cannot.
func (d *DB) AddArena(ctx context.Context, a Arena) error {
	if a.Password != "" {
		if err := d.keepPrivate(); err != nil {
			return fmt.Errorf("database %s: record arena %s: %w", d.path, a.ID, err)
		}
	}
	if a.AddedAt.IsZero() {
		a.AddedAt = time.Now()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO arenas (id, team, password, added_at) VALUES (?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET team = excluded.team, password = excluded.password, added_at = excluded.added_at`,
			a.ID, a.Team, a.Password, fmtTime(a.AddedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: record arena %s: %w", d.path, a.ID, err)
	}
	return nil
}

// CheckArenaWrite checks, without writing, what AddArena may fail on
// before the arena is joined on Lichess (`ponderosa tournament join`):
// with a password, that the file can be kept private (keepPrivate, which
// takes others' access away now); that the database takes the write lock
// (not read-only, not held by another writer past the busy timeout). A
// write may still fail after it (a full disk).
func (d *DB) CheckArenaWrite(ctx context.Context, password bool) error {
	if password {
		if err := d.keepPrivate(); err != nil {
			return fmt.Errorf("database %s: record an arena: %w", d.path, err)
		}
	}
	if err := d.needSchema(5, "record an arena"); err != nil {
		return err
	}
	if err := d.tx(ctx, func(*sql.Tx) error { return nil }); err != nil { // BEGIN IMMEDIATE: the write lock
		return fmt.Errorf("database %s: record an arena: %w", d.path, err)
	}
	return nil
}

// RemoveArena forgets arena id; removed says whether it was recorded.
func (d *DB) RemoveArena(ctx context.Context, id string) (removed bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM arenas WHERE id = ?`, id)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		removed = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("database %s: remove arena %s: %w", d.path, id, err)
	}
	return removed, nil
}

// Arenas returns the recorded arenas, the earliest recorded (AddedAt) first.
func (d *DB) Arenas(ctx context.Context) ([]Arena, error) {
	if err := d.needSchema(5, "read the recorded arenas"); err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, team, password, added_at FROM arenas ORDER BY added_at, id`)
	if err != nil {
		return nil, fmt.Errorf("database %s: read the recorded arenas: %w", d.path, err)
	}
	defer rows.Close()
	var out []Arena
	for rows.Next() {
		var a Arena
		var at sql.NullString
		if err := rows.Scan(&a.ID, &a.Team, &a.Password, &at); err != nil {
			return nil, fmt.Errorf("database %s: read the recorded arenas: %w", d.path, err)
		}
		a.AddedAt = parseTime(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("database %s: read the recorded arenas: %w", d.path, err)
	}
	return out, nil
}

// privateMask is the access the database file may not give once it holds
// a password: any to others than the bot's user and group. The file is
// made 0640 (Open): the bot's group (its admins, see deploy/INSTALL.md)
// reads the archive without root. Group write is left as it is: it does
// not show the password, and a setup where the daemon writes the file
// through its group (0660) needs it.
const privateMask fs.FileMode = 0o007

// keepPrivate takes privateMask's bits away from the database file and
// its -wal and -shm files (a file copied in place, or made under a loose
// umask by an older ponderosa, may have them).
func (d *DB) keepPrivate() error {
	for _, p := range []string{d.path, d.path + "-wal", d.path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return fmt.Errorf("check the mode of %s: %w", p, err)
		}
		if m := fi.Mode().Perm(); m&privateMask != 0 {
			if err := os.Chmod(p, m&^privateMask); err != nil {
				return fmt.Errorf("%s has mode %04o, open to others, and cannot be made %04o: %w", p, m, m&^privateMask, err)
			}
		}
	}
	return nil
}

// FileMode is the mode of the database file at path (for the commands
// that tell where a password went).
func FileMode(path string) (fs.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("database %s: %w", path, err)
	}
	return fi.Mode().Perm(), nil
}

// Arenas returns the recorded arenas (see DB.Arenas); an error when the
// database is away (nothing of them is spooled).
func (a *Archive) Arenas(ctx context.Context) ([]Arena, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.readyLocked(ctx); err != nil {
		return nil, fmt.Errorf("read the recorded arenas: %w", err)
	}
	as, err := a.db.Arenas(ctx)
	if err != nil {
		a.dropLocked()
		return nil, err
	}
	return as, nil
}

// RemoveArena forgets arena id (see DB.RemoveArena); an error when the
// database is away (the daemon removes it again at its next start, when it
// sees the arena over again).
func (a *Archive) RemoveArena(ctx context.Context, id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.readyLocked(ctx); err != nil {
		return fmt.Errorf("remove arena %s: %w", id, err)
	}
	if _, err := a.db.RemoveArena(ctx, id); err != nil {
		a.dropLocked()
		return err
	}
	return nil
}
