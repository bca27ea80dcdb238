package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestOpenGamesNotedUntilArchived: a noted game is open until its record
// comes (in the record's transaction); a note that comes after the record
// is dropped; a recovered record does not replace the game's own record;
// while the database is locked the notes are spooled and written later.
func TestOpenGamesNotedUntilArchived(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := OpenArchive(ctx, dir, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	now := time.Now()
	open := func(want ...string) {
		t.Helper()
		got, err := a.OpenGames(ctx)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("open games %v (%v), want %v", got, err, want)
		}
	}
	g1, g2, g3 := testGame(1, now), testGame(2, now), testGame(3, now)
	for i, id := range []string{g1.ID, g2.ID, g3.ID, g1.ID} { // g1 twice
		if err := a.NoteGame(ctx, id, now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	open(g1.ID, g2.ID, g3.ID)
	if err := a.RecordGame(ctx, g1); err != nil {
		t.Fatal(err)
	}
	open(g2.ID, g3.ID)
	// A note written after the record (the store writer was behind).
	if err := a.NoteGame(ctx, g1.ID, now); err != nil {
		t.Fatal(err)
	}
	open(g2.ID, g3.ID)
	if err := a.ForgetGame(ctx, g3.ID); err != nil {
		t.Fatal(err)
	}
	open(g2.ID)

	// A recovered record: written when absent, never over the game's own.
	rec := g1
	rec.PGN, rec.Moves = "recovered", nil
	if err := a.RecordRecoveredGame(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec2 := g2
	rec2.PGN = "recovered"
	if err := a.RecordRecoveredGame(ctx, rec2); err != nil {
		t.Fatal(err)
	}
	open()
	gs, err := a.Games(ctx, Filter{})
	if err != nil || len(gs) != 2 {
		t.Fatalf("games %d (%v), want 2", len(gs), err)
	}
	for _, g := range gs {
		if want := map[string]string{g1.ID: g1.PGN, g2.ID: "recovered"}[g.ID]; g.PGN != want {
			t.Errorf("game %s PGN %q, want %q", g.ID, g.PGN, want)
		}
	}

	// Locked: the note is spooled, and OpenGames says it cannot tell.
	other, err := Open(Path(dir), Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.SQL().Begin()
	if err != nil {
		t.Fatal(err)
	}
	g4 := testGame(4, now)
	if err := a.NoteGame(ctx, g4.ID, now); !errors.Is(err, ErrSpooled) {
		t.Fatalf("note while locked: %v, want spooled", err)
	}
	if _, err := a.OpenGames(ctx); err == nil {
		t.Fatal("open games while locked: no error")
	}
	lock.Rollback()
	open(g4.ID)
}

// TestMigrationTakesAKillArchiveBranchFile: a state file that a build of
// the kill-archive branch made before its merge has schema version 5 with
// open_games (the branch's 5) and no arenas (main's 5). Opened now, it
// gets arenas and keeps its notes, rather than failing migration 6 on
// open_games, which it has.
func TestMigrationTakesAKillArchiveBranchFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:4] {
		if _, err := raw.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`CREATE TABLE open_games (game_id TEXT PRIMARY KEY, noted_at TEXT NOT NULL)`,
		`INSERT INTO open_games VALUES ('branch01', '2026-11-20T00:00:00.000Z')`,
		`PRAGMA user_version = 5`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	d, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open the branch's file: %v", err)
	}
	defer d.Close()
	var v int
	if err := d.SQL().QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("user_version %d (%v), want %d", v, err, SchemaVersion())
	}
	if got, err := d.OpenGames(ctx); err != nil || !slices.Equal(got, []string{"branch01"}) {
		t.Errorf("open games %v (%v), want the branch's note", got, err)
	}
	if err := d.AddArena(ctx, Arena{ID: "arena001", AddedAt: time.Now()}); err != nil {
		t.Errorf("add an arena: %v", err)
	}
	if got, err := d.Arenas(ctx); err != nil || len(got) != 1 {
		t.Errorf("arenas %v (%v), want one", got, err)
	}
}
