package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Decline is a bot's answer "no" to our challenge, with the kind of
// challenge it answered ("" where unknown: the declines of before schema
// version 3).
type Decline struct {
	Opponent string    `json:"opponent"` // lower-case id
	Reason   string    `json:"reason"`   // Lichess' decline reason key
	At       time.Time `json:"at"`
	Variant  string    `json:"variant,omitempty"` // Lichess' variant key
	Speed    string    `json:"speed,omitempty"`   // bullet, blitz, ...
	Mode     string    `json:"mode,omitempty"`    // rated or casual
}

// keepCounters is how long counter rows are kept: the daily limit looks
// back 24 hours, the decline cool-down is at most a few days.
const keepCounters = 30 * 24 * time.Hour

// AddBotGame counts a game against a bot, started at t, for the daily
// limit; a game counted again is counted once. Rows older than 30 days are
// pruned.
func (d *DB) AddBotGame(ctx context.Context, id string, t time.Time) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO bot_games (game_id, started_at) VALUES (?, ?)`, id, fmtTime(t)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM bot_games WHERE started_at < ?`, fmtTime(t.Add(-keepCounters)))
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: count bot game %s: %w", d.path, id, err)
	}
	return nil
}

// BotGamesSince returns the start times of the bot games counted at or
// after t, oldest first.
func (d *DB) BotGamesSince(ctx context.Context, t time.Time) ([]time.Time, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT started_at FROM bot_games WHERE started_at >= ? ORDER BY started_at`, fmtTime(t))
	if err != nil {
		return nil, fmt.Errorf("database %s: read bot games: %w", d.path, err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("database %s: read bot games: %w", d.path, err)
		}
		out = append(out, parseTime(s))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("database %s: read bot games: %w", d.path, err)
	}
	return out, nil
}

// AddDecline remembers a decline of our challenge.
func (d *DB) AddDecline(ctx context.Context, dc Decline) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO declines (opponent, reason, at, variant, speed, mode) VALUES (?, ?, ?, ?, ?, ?)`,
			strings.ToLower(dc.Opponent), dc.Reason, fmtTime(dc.At), dc.Variant, dc.Speed, dc.Mode); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM declines WHERE at < ?`, fmtTime(dc.At.Add(-keepCounters)))
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: remember decline by %s: %w", d.path, dc.Opponent, err)
	}
	return nil
}

// DeclinesSince returns the declines at or after t, oldest first.
func (d *DB) DeclinesSince(ctx context.Context, t time.Time) ([]Decline, error) {
	if err := d.needSchema(3, "read declines"); err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT opponent, reason, at, variant, speed, mode FROM declines WHERE at >= ? ORDER BY at`, fmtTime(t))
	if err != nil {
		return nil, fmt.Errorf("database %s: read declines: %w", d.path, err)
	}
	defer rows.Close()
	var out []Decline
	for rows.Next() {
		var dc Decline
		var at sql.NullString
		if err := rows.Scan(&dc.Opponent, &dc.Reason, &at, &dc.Variant, &dc.Speed, &dc.Mode); err != nil {
			return nil, fmt.Errorf("database %s: read declines: %w", d.path, err)
		}
		dc.At = parseTime(at)
		out = append(out, dc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("database %s: read declines: %w", d.path, err)
	}
	return out, nil
}

// SetPause remembers that name is paused until until (a later call
// replaces it; a zero until ends the pause).
func (d *DB) SetPause(ctx context.Context, name string, until time.Time) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if until.IsZero() {
			_, err := tx.ExecContext(ctx, `DELETE FROM pauses WHERE name = ?`, name)
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO pauses (name, until) VALUES (?, ?)`, name, fmtTime(until))
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: remember pause %s: %w", d.path, name, err)
	}
	return nil
}

// PauseUntil returns the end of name's pause; zero when none is
// remembered.
func (d *DB) PauseUntil(ctx context.Context, name string) (time.Time, error) {
	if err := d.needSchema(2, "read pause "+name); err != nil {
		return time.Time{}, err
	}
	var s sql.NullString
	err := d.db.QueryRowContext(ctx, `SELECT until FROM pauses WHERE name = ?`, name).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("database %s: read pause %s: %w", d.path, name, err)
	}
	return parseTime(s), nil
}
