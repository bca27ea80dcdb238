package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Game is one finished game of the archive.
type Game struct {
	ID              string        `json:"id"`
	URL             string        `json:"url"`
	White           string        `json:"white"`
	Black           string        `json:"black"`
	WhiteRating     int           `json:"white_rating,omitempty"` // 0: unknown
	BlackRating     int           `json:"black_rating,omitempty"`
	WhiteRatingDiff *int          `json:"white_rating_diff,omitempty"` // nil: not known
	BlackRatingDiff *int          `json:"black_rating_diff,omitempty"`
	OurColor        string        `json:"our_color"` // "white" or "black"
	Speed           string        `json:"speed"`
	Variant         string        `json:"variant"`
	Rated           bool          `json:"rated"`
	Clock           bool          `json:"clock"` // false: no clock (correspondence)
	ClockInitial    time.Duration `json:"clock_initial,omitempty"`
	ClockIncrement  time.Duration `json:"clock_increment,omitempty"`
	Result          string        `json:"result"` // from our side: win, loss, draw, aborted, unknown
	Termination     string        `json:"termination"`
	InitialFEN      string        `json:"initial_fen,omitempty"` // "": the standard start
	Started         time.Time     `json:"started,omitzero"`
	Ended           time.Time     `json:"ended"`
	PGN             string        `json:"pgn"`
	Moves           []Move        `json:"moves,omitempty"`
	MoveCount       int           `json:"-"` // filled by Games
}

// Opponent is the name of the side we did not play.
func (g Game) Opponent() string {
	if g.OurColor == "white" {
		return g.Black
	}
	return g.White
}

// Move is one move of a game, with our figures when it was ours.
type Move struct {
	Ply      int           `json:"ply"`
	UCI      string        `json:"uci"`
	SAN      string        `json:"san,omitempty"`
	Ours     bool          `json:"ours,omitempty"`
	HasScore bool          `json:"has_score,omitempty"`
	ScoreCP  int           `json:"cp,omitempty"`   // from our side (Mate == 0)
	Mate     int           `json:"mate,omitempty"` // >0 we mate
	Depth    int           `json:"depth,omitempty"`
	Nodes    uint64        `json:"nodes,omitempty"`
	Time     time.Duration `json:"time,omitempty"`
	Source   string        `json:"source,omitempty"`
}

// Results from our side.
const (
	ResultWin     = "win"
	ResultLoss    = "loss"
	ResultDraw    = "draw"
	ResultAborted = "aborted"
	ResultUnknown = "unknown"
)

func nullInt(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ptrInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// RecordGame writes a finished game and its moves in one transaction (a
// game recorded again is replaced). A rating change that came first
// (RecordRatingDiffs) is applied.
func (d *DB) RecordGame(ctx context.Context, g Game) error {
	if g.ID == "" {
		return errors.New("record game: no game id")
	}
	if g.OurColor != "white" && g.OurColor != "black" {
		return fmt.Errorf("record game %s: our color %q is neither white nor black", g.ID, g.OurColor)
	}
	switch g.Result {
	case ResultWin, ResultLoss, ResultDraw, ResultAborted, ResultUnknown:
	default:
		return fmt.Errorf("record game %s: result %q is not one of win, loss, draw, aborted, unknown", g.ID, g.Result)
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		wd, bd := ptrInt(g.WhiteRatingDiff), ptrInt(g.BlackRatingDiff)
		// A game recorded again keeps the rating changes it had.
		var ow, ob sql.NullInt64
		switch err := tx.QueryRowContext(ctx, `SELECT white_rating_diff, black_rating_diff FROM games WHERE id = ?`, g.ID).Scan(&ow, &ob); {
		case err == nil:
			if wd == nil && ow.Valid {
				wd = ow.Int64
			}
			if bd == nil && ob.Valid {
				bd = ob.Int64
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM games WHERE id = ?`, g.ID); err != nil {
			return err
		}
		// Archived: no longer open (NoteGame; a file of an older schema,
		// which tests write, has no such table).
		if d.schema >= openGamesSchema {
			if _, err := tx.ExecContext(ctx, `DELETE FROM open_games WHERE game_id = ?`, g.ID); err != nil {
				return err
			}
		}
		var ci, cinc any
		if g.Clock {
			ci, cinc = g.ClockInitial.Milliseconds(), g.ClockIncrement.Milliseconds()
		}
		var pw, pb sql.NullInt64
		switch err := tx.QueryRowContext(ctx, `SELECT white_diff, black_diff FROM pending_rating_diffs WHERE game_id = ?`, g.ID).Scan(&pw, &pb); {
		case err == nil:
			if pw.Valid {
				wd = pw.Int64
			}
			if pb.Valid {
				bd = pb.Int64
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM pending_rating_diffs WHERE game_id = ?`, g.ID); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO games (id, url, white, black, white_rating, black_rating,
			white_rating_diff, black_rating_diff, our_color, opponent, speed, variant, rated,
			clock_initial_ms, clock_increment_ms, result, termination, initial_fen, started_at, ended_at, pgn)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.ID, g.URL, g.White, g.Black, nullInt(g.WhiteRating), nullInt(g.BlackRating), wd, bd,
			g.OurColor, g.Opponent(), g.Speed, g.Variant, g.Rated, ci, cinc, g.Result, g.Termination,
			nullStr(g.InitialFEN), fmtTime(g.Started), fmtTime(g.Ended), g.PGN); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO moves (game_id, ply, uci, san, ours, score_cp, mate, depth, nodes, time_ms, source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, m := range g.Moves {
			var cp, mate, depth, nodes, ms any
			if m.HasScore {
				if m.Mate != 0 {
					mate = m.Mate
				} else {
					cp = m.ScoreCP
				}
			}
			if m.Depth > 0 {
				depth = m.Depth
			}
			if m.Nodes > 0 {
				nodes = int64(m.Nodes)
			}
			if m.Time > 0 {
				ms = m.Time.Milliseconds()
			}
			if _, err := st.ExecContext(ctx, g.ID, m.Ply, m.UCI, nullStr(m.SAN), m.Ours, cp, mate, depth, nodes, ms, nullStr(m.Source)); err != nil {
				return fmt.Errorf("move %d: %w", m.Ply, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("database %s: record game %s: %w", d.path, g.ID, err)
	}
	return nil
}

// RecordRatingDiffs sets the rating changes of a game (nil: unknown),
// which Lichess tells in its gameFinish event, before or after the game
// itself is recorded.
func (d *DB) RecordRatingDiffs(ctx context.Context, id string, white, black *int) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE games SET white_rating_diff = coalesce(?, white_rating_diff),
			black_rating_diff = coalesce(?, black_rating_diff) WHERE id = ?`, ptrInt(white), ptrInt(black), id)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n > 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO pending_rating_diffs (game_id, white_diff, black_diff) VALUES (?, ?, ?)`,
			id, ptrInt(white), ptrInt(black))
		return err
	})
	if err != nil {
		return fmt.Errorf("database %s: record rating changes of game %s: %w", d.path, id, err)
	}
	return nil
}

func (d *DB) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Filter selects games; zero fields select all.
type Filter struct {
	Opponent string    // name or id, any case
	Result   string    // win, loss, draw, aborted, unknown
	Speed    string    // bullet, blitz, ...
	Since    time.Time // games that ended at or after it
	Limit    int       // the newest Limit games; 0: all
}

// Games returns the games the filter selects, newest first, without their
// moves (MoveCount says how many).
func (d *DB) Games(ctx context.Context, f Filter) ([]Game, error) {
	var where []string
	var args []any
	if f.Opponent != "" {
		where = append(where, "opponent = ? COLLATE NOCASE")
		args = append(args, f.Opponent)
	}
	if f.Result != "" {
		where = append(where, "result = ?")
		args = append(args, f.Result)
	}
	if f.Speed != "" {
		where = append(where, "speed = ?")
		args = append(args, f.Speed)
	}
	if !f.Since.IsZero() {
		where = append(where, "ended_at >= ?")
		args = append(args, fmtTime(f.Since))
	}
	q := `SELECT id, url, white, black, white_rating, black_rating, white_rating_diff, black_rating_diff,
		our_color, speed, variant, rated, clock_initial_ms, clock_increment_ms, result, termination,
		initial_fen, started_at, ended_at, pgn, (SELECT count(*) FROM moves WHERE game_id = games.id)
		FROM games`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY ended_at DESC, id"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("database %s: list games: %w", d.path, err)
	}
	defer rows.Close()
	var out []Game
	for rows.Next() {
		var g Game
		var wr, br, wd, bd, ci, cinc sql.NullInt64
		var fen, started, ended sql.NullString
		if err := rows.Scan(&g.ID, &g.URL, &g.White, &g.Black, &wr, &br, &wd, &bd, &g.OurColor, &g.Speed,
			&g.Variant, &g.Rated, &ci, &cinc, &g.Result, &g.Termination, &fen, &started, &ended, &g.PGN, &g.MoveCount); err != nil {
			return nil, fmt.Errorf("database %s: list games: %w", d.path, err)
		}
		g.WhiteRating, g.BlackRating = int(wr.Int64), int(br.Int64)
		if wd.Valid {
			v := int(wd.Int64)
			g.WhiteRatingDiff = &v
		}
		if bd.Valid {
			v := int(bd.Int64)
			g.BlackRatingDiff = &v
		}
		if ci.Valid {
			g.Clock = true
			g.ClockInitial = time.Duration(ci.Int64) * time.Millisecond
			g.ClockIncrement = time.Duration(cinc.Int64) * time.Millisecond
		}
		g.InitialFEN = fen.String
		g.Started, g.Ended = parseTime(started), parseTime(ended)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("database %s: list games: %w", d.path, err)
	}
	return out, nil
}

// Moves returns the moves of a game in order.
func (d *DB) Moves(ctx context.Context, id string) ([]Move, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT ply, uci, san, ours, score_cp, mate, depth, nodes, time_ms, source
		FROM moves WHERE game_id = ? ORDER BY ply`, id)
	if err != nil {
		return nil, fmt.Errorf("database %s: moves of game %s: %w", d.path, id, err)
	}
	defer rows.Close()
	var out []Move
	for rows.Next() {
		var m Move
		var san, src sql.NullString
		var cp, mate, depth, nodes, ms sql.NullInt64
		if err := rows.Scan(&m.Ply, &m.UCI, &san, &m.Ours, &cp, &mate, &depth, &nodes, &ms, &src); err != nil {
			return nil, fmt.Errorf("database %s: moves of game %s: %w", d.path, id, err)
		}
		m.SAN, m.Source = san.String, src.String
		m.HasScore = cp.Valid || mate.Valid
		m.ScoreCP, m.Mate, m.Depth = int(cp.Int64), int(mate.Int64), int(depth.Int64)
		m.Nodes, m.Time = uint64(nodes.Int64), time.Duration(ms.Int64)*time.Millisecond
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("database %s: moves of game %s: %w", d.path, id, err)
	}
	return out, nil
}
