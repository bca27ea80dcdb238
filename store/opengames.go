package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A game is noted when it begins (NoteGame) and the note goes with its
// record (RecordGame, in the same transaction): a note without a record
// is a game whose record a crash lost, or one still running. The daemon
// asks OpenGames at start and fetches those games from Lichess.

// openGamesSchema is the schema version that made the table open_games.
const openGamesSchema = 6

// NoteGame notes that game id began at t, until its record is archived;
// a game noted twice, or noted after its record, is noted once or not.
func (d *DB) NoteGame(ctx context.Context, id string, t time.Time) error {
	if id == "" {
		return errors.New("note game: no game id")
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO open_games (game_id, noted_at)
			SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM games WHERE id = ?)`, id, fmtTime(t), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: note game %s: %w", d.path, id, err)
	}
	return nil
}

// ForgetGame drops the note of game id.
func (d *DB) ForgetGame(ctx context.Context, id string) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM open_games WHERE game_id = ?`, id); err != nil {
		return fmt.Errorf("database %s: forget game %s: %w", d.path, id, err)
	}
	return nil
}

// OpenGames returns the games noted and not archived, oldest first (and
// drops the notes of archived games, which a note written after its
// record leaves).
func (d *DB) OpenGames(ctx context.Context) ([]string, error) {
	var out []string
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM open_games WHERE game_id IN (SELECT id FROM games)`); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT game_id FROM open_games ORDER BY noted_at, game_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("database %s: list open games: %w", d.path, err)
	}
	return out, nil
}

// RecordGameIfAbsent records g unless the archive has a game of its id
// (a game's own record, with the bot's figures, is better than one
// recovered from Lichess); either way the game's note goes. It reports
// whether g was written.
func (d *DB) RecordGameIfAbsent(ctx context.Context, g Game) (bool, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM games WHERE id = ?`, g.ID).Scan(&n); err != nil {
		return false, fmt.Errorf("database %s: record game %s: %w", d.path, g.ID, err)
	}
	if n > 0 {
		return false, d.ForgetGame(ctx, g.ID)
	}
	return true, d.RecordGame(ctx, g)
}
