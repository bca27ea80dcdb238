package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/store"
)

// archiveGames records n games into the state store of dir through the
// daemon's adapter: game i against alice, bob or carol (win, loss, draw),
// bullet or blitz, ended i hours after t0.
func archiveGames(t testing.TB, dir string, n int, t0 time.Time) {
	t.Helper()
	a, err := store.OpenArchive(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := storeAdapter{a}
	for i := range n {
		opp := []string{"Alice", "Bob", "Carol"}[i%3]
		r := client.GameRecord{
			ID: fmt.Sprintf("game%04d", i), URL: fmt.Sprintf("https://lichess.org/game%04d", i),
			White: "Ponderosa", Black: opp, WhiteRating: 2000, BlackRating: 1800 + i, OurColor: "white",
			Speed: []string{"bullet", "blitz"}[i%2], Variant: "standard", Rated: true,
			Clock: true, ClockInitial: time.Minute, ClockIncrement: time.Second,
			Result: []string{"win", "loss", "draw"}[i%3], Termination: "resign",
			Started: t0.Add(time.Duration(i)*time.Hour - 5*time.Minute), Ended: t0.Add(time.Duration(i) * time.Hour),
			PGN: fmt.Sprintf("[Site \"https://lichess.org/game%04d\"]\n\n1. e4 { [%%eval 0.20] depth 9 } e5 *\n\n", i),
			Moves: []client.MoveRecord{
				{Ply: 0, UCI: "e2e4", SAN: "e4", Ours: true, HasScore: true, ScoreCP: 20, Depth: 9, Nodes: 1000, Time: time.Second, Source: "search"},
				{Ply: 1, UCI: "e7e5", SAN: "e5"},
			},
		}
		if err := s.RecordGame(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			plus, minus := 5, -5
			if err := s.RecordRatingDiffs(context.Background(), r.ID, &plus, &minus); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestGamesListAndPGN(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	archiveGames(t, dir, 6, t0)

	code, out, errOut := runWith(t, nil, "games", "list", "-state-dir", dir)
	if code != exitOK {
		t.Fatalf("games list: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "ENDED (UTC)") {
		t.Fatalf("games list:\n%s", out)
	}
	if !strings.Contains(lines[1], "game0005") || !strings.Contains(lines[6], "game0000") {
		t.Errorf("not newest first:\n%s", out)
	}
	for _, want := range []string{"2026-05-01 10:00", "bullet", "60+1", "rated", "white", "Alice (1800)", "win", "resign", "+5"} {
		if !strings.Contains(lines[6], want) {
			t.Errorf("row of game0000 lacks %q: %s", want, lines[6])
		}
	}

	count := func(args ...string) int {
		t.Helper()
		code, out, errOut := runWith(t, nil, append([]string{"games", "list", "-state-dir", dir}, args...)...)
		if code != exitOK {
			t.Fatalf("games list %v: %d %s", args, code, errOut)
		}
		return strings.Count(out, "game0")
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"-opponent", "alice"}, 2},
		{[]string{"-result", "loss"}, 2},
		{[]string{"-speed", "blitz"}, 3},
		{[]string{"-result", "draw", "-speed", "blitz"}, 1}, // game 5
		{[]string{"-since", "2026-05-01T13:00:00Z"}, 3},
		{[]string{"-since", "2026-05-02"}, 0},
		{[]string{"-limit", "2"}, 2},
	} {
		if got := count(c.args...); got != c.want {
			t.Errorf("games list %v: %d games, want %d", c.args, got, c.want)
		}
	}

	code, out, errOut = runWith(t, nil, "games", "pgn", "-state-dir", dir, "-opponent", "BOB")
	if code != exitOK {
		t.Fatalf("games pgn: %d %s", code, errOut)
	}
	if strings.Count(out, "[Site ") != 2 || strings.Index(out, "game0001") > strings.Index(out, "game0004") {
		t.Errorf("games pgn -opponent BOB: want games 1 then 4:\n%s", out)
	}
	if !strings.Contains(out, "1. e4 { [%eval 0.20] depth 9 } e5 *\n\n") {
		t.Errorf("PGN not as recorded:\n%s", out)
	}
}

func TestGamesCommandErrors(t *testing.T) {
	dir := t.TempDir()
	archiveGames(t, dir, 1, time.Now())
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"games"}, exitUsage, "usage"},
		{[]string{"games", "frob"}, exitUsage, `unknown command "frob"`},
		{[]string{"games", "list", "-result", "won"}, exitUsage, "-result"},
		{[]string{"games", "list", "-since", "yesterday"}, exitUsage, "not a date"},
		{[]string{"games", "list", "-limit", "-1"}, exitUsage, "-limit"},
		{[]string{"games", "list", "stray"}, exitUsage, "usage"},
		{[]string{"games", "list", "-config", filepath.Join(dir, "nope.yaml")}, exitConfig, "nope.yaml"},
		{[]string{"games", "pgn", "-state-dir", t.TempDir()}, exitFailure, "no game archive"},
	} {
		code, _, errOut := runWith(t, nil, c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.err)
		}
	}
	// The configuration's state_dir is used.
	cfg := writeConfig(t, "state_dir: "+dir+"\n")
	if code, out, errOut := runWith(t, nil, "games", "list", "-config", cfg); code != exitOK || !strings.Contains(out, "game0000") {
		t.Errorf("games list -config: %d\n%s%s", code, out, errOut)
	}
	// A database of a newer ponderosa is refused, saying so.
	d, err := store.Open(store.Path(dir), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL().Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if code, _, errOut := runWith(t, nil, "games", "list", "-state-dir", dir); code != exitFailure || !strings.Contains(errOut, "newer") {
		t.Errorf("newer schema: code %d, stderr %q", code, errOut)
	}
}

// TestRunDaemonArchivesGames: the daemon records a game played on
// lichesstest in the state store; `games list` and `games pgn` find it.
func TestRunDaemonArchivesGames(t *testing.T) {
	r := newRunEnv(t, true)
	r.start(nil)
	id := r.challenge("alice")
	r.waitPlies(id, 6)
	if err := r.srv.Resign(id, "alice"); err != nil {
		t.Fatal(err)
	}
	r.waitLog(`"message":"game archived"`)
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	g, _ := r.srv.Game(id)
	code, out, errOut := runWith(t, nil, "games", "list", "-config", r.cfgPath)
	if code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, "win") || !strings.Contains(out, "alice") {
		t.Fatalf("games list: %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runWith(t, nil, "games", "pgn", "-config", r.cfgPath, "-result", "win")
	if code != exitOK || !strings.Contains(out, `[Site "`+r.srv.URL()+"/"+id+`"]`) || !strings.Contains(out, `[Termination "resign"]`) {
		t.Fatalf("games pgn: %d\n%s", code, out)
	}
	d, err := store.OpenReadOnly(store.Path(filepath.Join(filepath.Dir(r.cfgPath), "state")))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ms, err := d.Moves(context.Background(), id)
	if err != nil || len(ms) != len(g.Moves) {
		t.Fatalf("%d moves archived (%v), the game had %d", len(ms), err, len(g.Moves))
	}
	ours := 0
	for i, m := range ms {
		if m.UCI != g.Moves[i] || m.SAN == "" {
			t.Errorf("move %d: %+v, played %s", i, m, g.Moves[i])
		}
		if m.Ours {
			ours++
			if m.Source == "" {
				t.Errorf("our move %d has no source: %+v", i, m)
			}
		}
	}
	if ours < len(ms)/2 {
		t.Errorf("%d of %d moves ours", ours, len(ms))
	}
}

// TestRunDaemonSpoolsWhileDatabaseDamaged: with a damaged database the
// daemon says so, plays, and spools the game; once the file is moved away
// the next start writes the spool into a new database.
func TestRunDaemonSpoolsWhileDatabaseDamaged(t *testing.T) {
	r := newRunEnv(t, true)
	state := filepath.Join(filepath.Dir(r.cfgPath), "state")
	if err := os.MkdirAll(state, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(state), bytes.Repeat([]byte("not a database\n"), 300), 0o640); err != nil {
		t.Fatal(err)
	}
	r.start(nil)
	r.waitLog("the bot plays on and spools its records")
	id := r.challenge("alice")
	r.waitPlies(id, 4)
	if err := r.srv.Resign(id, "alice"); err != nil {
		t.Fatal(err)
	}
	r.waitLog("it is spooled and will be written when the database works")
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	if g, _ := r.srv.Game(id); g.Status != "resign" {
		t.Fatalf("game ended %s", g.Status)
	}
	spool, err := os.ReadFile(filepath.Join(state, store.SpoolName))
	if err != nil || !strings.Contains(string(spool), `"id":"`+id+`"`) {
		t.Fatalf("spool: %v\n%s", err, spool)
	}
	if code, _, errOut := runWith(t, nil, "games", "list", "-config", r.cfgPath); code != exitFailure || !strings.Contains(errOut, "not a database") {
		t.Errorf("games list on the damaged file: %d %s", code, errOut)
	}

	if err := os.Rename(store.Path(state), store.Path(state)+".damaged"); err != nil {
		t.Fatal(err)
	}
	r.logs = &testsupport.SyncBuffer{}
	r.start(nil)
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runWith(t, nil, "games", "list", "-config", r.cfgPath)
	if code != exitOK || !strings.Contains(out, id) || strings.Contains(errOut, "wait in") {
		t.Fatalf("after the restart: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(state, store.SpoolName)); !os.IsNotExist(err) {
		t.Errorf("spool still there after draining: %v", err)
	}
}

// BenchmarkGamesList200 is `ponderosa games list -limit 0` on 200 games
// (the issue asks under 100 ms).
func BenchmarkGamesList200(b *testing.B) {
	dir := b.TempDir()
	archiveGames(b, dir, 200, time.Now().Add(-300*time.Hour))
	e := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	for b.Loop() {
		if code := run(e, []string{"games", "list", "-state-dir", dir, "-limit", "0"}); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkGamesPGN200 is `ponderosa games pgn` on 200 games.
func BenchmarkGamesPGN200(b *testing.B) {
	dir := b.TempDir()
	archiveGames(b, dir, 200, time.Now().Add(-300*time.Hour))
	e := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	for b.Loop() {
		if code := run(e, []string{"games", "pgn", "-state-dir", dir}); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
