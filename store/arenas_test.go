package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestArenasAddRemoveList: arenas recorded come back first recorded
// first; recording one again takes its new team and password and keeps
// its place; removing one says whether it was there.
func TestArenasAddRemoveList(t *testing.T) {
	ctx := context.Background()
	d, err := Open(filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if as, err := d.Arenas(ctx); err != nil || len(as) != 0 {
		t.Fatalf("arenas of a fresh database: %+v (%v), want none", as, err)
	}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	if err := d.AddArena(ctx, Arena{ID: "arenaAAA", AddedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := d.AddArena(ctx, Arena{ID: "arenaBBB", Team: "red", Password: "pw", AddedAt: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := d.AddArena(ctx, Arena{ID: "arenaAAA", Team: "blue", Password: "new-pw", AddedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	as, err := d.Arenas(ctx)
	if err != nil || len(as) != 2 {
		t.Fatalf("arenas: %+v (%v), want 2", as, err)
	}
	// Recorded again, arenaAAA takes the new time (the daemon tries again
	// an arena it gave up on before it), and so comes after arenaBBB.
	if a := as[1]; a.ID != "arenaAAA" || a.Team != "blue" || a.Password != "new-pw" || !a.AddedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("the arena recorded again: %+v, want team blue, password new-pw, added at %v", a, t0.Add(time.Hour))
	}
	if a := as[0]; a.ID != "arenaBBB" || a.Team != "red" || a.Password != "pw" {
		t.Errorf("the second arena: %+v", a)
	}
	if removed, err := d.RemoveArena(ctx, "arenaAAA"); err != nil || !removed {
		t.Fatalf("remove arenaAAA: %v (%v), want removed", removed, err)
	}
	if removed, err := d.RemoveArena(ctx, "arenaAAA"); err != nil || removed {
		t.Fatalf("remove arenaAAA again: %v (%v), want not there", removed, err)
	}
	if as, err := d.Arenas(ctx); err != nil || len(as) != 1 || as[0].ID != "arenaBBB" {
		t.Fatalf("arenas after the removal: %+v (%v), want arenaBBB only", as, err)
	}
	// An arena recorded without a time gets the time of now.
	if err := d.AddArena(ctx, Arena{ID: "arenaCCC"}); err != nil {
		t.Fatal(err)
	}
	if as, _ := d.Arenas(ctx); len(as) != 2 || as[1].ID != "arenaCCC" || time.Since(as[1].AddedAt) > time.Hour {
		t.Errorf("arenas: %+v, want arenaCCC added now, last", as)
	}
}

// TestMigrateFromVersion4Arenas: the database of a ponderosa from before
// the recorded arenas (schema version 4, with a game and a learning
// entry) is taken to version 5 with its rows kept, and arenas can be
// recorded in it; a read-only reader of a version-4 file says that the
// arenas need version 5.
func TestMigrateFromVersion4Arenas(t *testing.T) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	g := testGame(1, now)
	var path string
	d := migratedDB(t, 4, func(d *DB) {
		path = d.Path()
		if err := d.RecordGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		if _, err := d.SQL().Exec(`INSERT INTO learn (eval, key, fen, score, bound, depth, used_at) VALUES ('e', 1, 'fen', 10, 3, 20, ?)`, fmtTime(now)); err != nil {
			t.Fatal(err)
		}
		r, err := OpenReadOnly(d.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Arenas(ctx); err == nil || !strings.Contains(err.Error(), "needs schema version 5") {
			t.Errorf("Arenas of a version-4 database: %v, want an error naming version 5", err)
		}
	})
	if d.schema != SchemaVersion() || SchemaVersion() < 5 {
		t.Fatalf("schema %d after the migration (this ponderosa's %d), want this ponderosa's, 5 or more", d.schema, SchemaVersion())
	}
	if gs, err := d.Games(ctx, Filter{}); err != nil || len(gs) != 1 || gs[0].ID != g.ID {
		t.Fatalf("games after the migration: %+v (%v)", gs, err)
	}
	var n int
	if err := d.SQL().QueryRow(`SELECT count(*) FROM learn`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("learn rows after the migration: %d (%v), want 1", n, err)
	}
	if as, err := d.Arenas(ctx); err != nil || len(as) != 0 {
		t.Fatalf("arenas after the migration: %+v (%v), want none", as, err)
	}
	if err := d.AddArena(ctx, Arena{ID: "arenaAAA", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if as, err := r.Arenas(ctx); err != nil || len(as) != 1 || as[0].Password != "pw" {
		t.Fatalf("arenas read-only after the migration: %+v (%v)", as, err)
	}
}

// TestArenaPasswordKeepsFilePrivate: the database is made 0640; before a
// password is written into it, a file that others may read (or the
// group write) loses that access, its -wal and -shm files too.
func TestArenaPasswordKeepsFilePrivate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if m, err := FileMode(path); err != nil || m&0o007 != 0 || m&0o200 == 0 {
		t.Fatalf("a new database has mode %04o (%v): want none for others", m, err)
	}
	if err := d.AddArena(ctx, Arena{ID: "open"}); err != nil { // makes the -wal file exist
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.AddArena(ctx, Arena{ID: "nopw"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := FileMode(path); m != 0o666 {
		t.Errorf("an arena without a password changed the mode to %04o", m)
	}
	if err := d.AddArena(ctx, Arena{ID: "secret", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if m, err := FileMode(p); err != nil || m != 0o660 { // group write kept: it shows no password
			t.Errorf("%s after a password was recorded: mode %04o (%v), want 0660", filepath.Base(p), m, err)
		}
	}
}

// TestArchiveArenas: the daemon's Archive reads and removes the arenas
// that a command recorded with its own DB.
func TestArchiveArenas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := OpenArchive(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cmd, err := Open(Path(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Close()
	if err := cmd.AddArena(ctx, Arena{ID: "arenaAAA", Team: "red"}); err != nil {
		t.Fatal(err)
	}
	as, err := a.Arenas(ctx)
	if err != nil || len(as) != 1 || as[0].ID != "arenaAAA" || as[0].Team != "red" {
		t.Fatalf("the archive's arenas: %+v (%v)", as, err)
	}
	if err := a.RemoveArena(ctx, "arenaAAA"); err != nil {
		t.Fatal(err)
	}
	if as, err := cmd.Arenas(ctx); err != nil || len(as) != 0 {
		t.Fatalf("arenas after the archive removed it: %+v (%v)", as, err)
	}
}
