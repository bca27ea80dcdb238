package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/store"
)

// arenaConfig writes a configuration for srv whose state_dir is a new
// directory, and returns both.
func arenaConfig(t *testing.T, srv *lichesstest.Server) (cfg, stateDir string) {
	t.Helper()
	stateDir = t.TempDir()
	return writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\nstate_dir: "+stateDir+"\n"), stateDir
}

// recordedArenas reads the arenas recorded in the database of stateDir.
func recordedArenas(t *testing.T, stateDir string) []store.Arena {
	t.Helper()
	db, err := store.OpenReadOnly(store.Path(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	as, err := db.Arenas(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// `ponderosa tournament join ID` and `withdraw ID` with the config's token:
// the join sends the password and team and, with -pair, asks for a
// pairing, and records the arena (password and team too) in the state
// directory's database for the bot; withdraw removes it there; the exit
// codes follow the others (64 usage, 77 a token without the scope, 78 no
// token, 1 a refusal); neither the token nor the password is printed.
func TestTournamentCmd(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	id := srv.CreateArena(lichesstest.ArenaParams{Name: "Bots Only", ClockLimit: time.Minute, BotsAllowed: true,
		Password: "s3cret-pw", Teams: []string{"bot-team"}})
	if err := srv.StartArena(id); err != nil {
		t.Fatal(err)
	}
	cfg, stateDir := arenaConfig(t, srv)
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	var printed strings.Builder // everything printed, for the secrets' check
	runWith := func(t *testing.T, environ map[string]string, args ...string) (int, string, string) {
		t.Helper()
		code, stdout, stderr := runWith(t, environ, args...)
		printed.WriteString(stdout + stderr)
		return code, stdout, stderr
	}

	// Without tournament:write: 77 and what to do.
	code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-password", "s3cret-pw", "-team", "bot-team", "-config", cfg)
	if code != exitNoPerm || !strings.Contains(stderr, "tournament:write") {
		t.Fatalf("join without the scope: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	code, stdout, stderr = runWith(t, env, "tournament", "join", id, "-password", "wrong", "-team", "bot-team", "-config", cfg)
	if code != exitFailure || !strings.Contains(stderr, "Wrong entry code") {
		t.Fatalf("wrong password: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if as := recordedArenas(t, stateDir); len(as) != 0 {
		t.Fatalf("a refused join was recorded: %+v", as)
	}
	// The flags may come before the id too.
	code, stdout, stderr = runWith(t, env, "tournament", "join", "-password", "s3cret-pw", "-team", "bot-team", "-pair", "-config", cfg, id)
	if code != exitOK || !strings.Contains(stdout, "joined arena "+id+" (Bots Only), started") ||
		!strings.Contains(stdout, "Recorded it for the bot in "+store.Path(stateDir)+" with its password (the file's mode is 0") ||
		!strings.Contains(stdout, "the bot plays the arena while it runs") {
		t.Fatalf("join: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if as := recordedArenas(t, stateDir); len(as) != 1 || as[0].ID != id || as[0].Password != "s3cret-pw" || as[0].Team != "bot-team" {
		t.Fatalf("recorded arenas after the join: %+v, want %s with its password and team", as, id)
	}
	if m, err := store.FileMode(store.Path(stateDir)); err != nil || m&0o007 != 0 {
		t.Errorf("the database holding the password has mode %04o (%v): open to others", m, err)
	}
	if !srv.ArenaWaiting(id, "ArenaBot") {
		t.Error("the join did not ask for a pairing (pairMeAsap)")
	}
	snap, _ := srv.Arena(id)
	if len(snap.Players) != 1 || snap.Players[0].Team != "bot-team" {
		t.Errorf("after the join: %+v", snap)
	}
	code, stdout, stderr = runWith(t, env, "tournament", "withdraw", id, "-config", cfg)
	if code != exitOK || !strings.Contains(stdout, "withdrew from arena "+id) || !strings.Contains(stdout, "Removed it from the bot's arenas in "+store.Path(stateDir)) {
		t.Fatalf("withdraw: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if as := recordedArenas(t, stateDir); len(as) != 0 {
		t.Fatalf("recorded arenas after the withdrawal: %+v, want none", as)
	}
	if snap, _ := srv.Arena(id); !snap.Players[0].Paused {
		t.Errorf("not paused after the withdrawal: %+v", snap)
	}
	if code, _, stderr := runWith(t, env, "tournament", "withdraw", "nosuchid", "-config", cfg); code != exitFailure || !strings.Contains(stderr, "No arena tournament") {
		t.Errorf("unknown arena: code %d, %s", code, stderr)
	}

	for _, args := range [][]string{
		{"tournament"}, {"tournament", "enter", id}, {"tournament", "join"}, {"tournament", "join", "bad-id!"},
		{"tournament", "join", id, "extra"}, {"tournament", "withdraw", id, "-password", "x"},
	} {
		if code, _, _ := runWith(t, env, append(args, "-config", cfg)...); code != exitUsage {
			t.Errorf("%v: code %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, stderr := runWith(t, nil, "tournament", "join", id, "-config", cfg); code != exitConfig || !strings.Contains(stderr, "no Lichess token") {
		t.Errorf("no token: code %d, %s", code, stderr)
	}
	for _, secret := range []string{"lip_arenabot", "s3cret-pw"} {
		if strings.Contains(printed.String(), secret) {
			t.Errorf("%q was printed", secret)
		}
	}
}

// `tournament join` asks for a pairing only with -pair (a pairing that no
// running bot plays is lost); the password may come from a file or from
// $PONDEROSA_ARENA_PASSWORD instead of the command line; a Lichess that
// cannot be reached exits 69.
func TestTournamentCmdPairPassword(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	id := srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "s3cret-pw"})
	if err := srv.StartArena(id); err != nil {
		t.Fatal(err)
	}
	cfg, _ := arenaConfig(t, srv)
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	pwFile := filepath.Join(t.TempDir(), "arena-password")
	if err := os.WriteFile(pwFile, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-password-file", pwFile, "-config", cfg); code != exitOK {
		t.Fatalf("join with -password-file: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if srv.ArenaWaiting(id, "ArenaBot") {
		t.Error("a join without -pair asked for a pairing")
	}
	envPw := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot", arenaPasswordEnv: "s3cret-pw"}
	if code, stdout, stderr := runWith(t, envPw, "tournament", "join", id, "-pair", "-config", cfg); code != exitOK || !strings.Contains(stdout, "paired") {
		t.Fatalf("join with $%s and -pair: code %d\nstdout %s\nstderr %s", arenaPasswordEnv, code, stdout, stderr)
	}
	if !srv.ArenaWaiting(id, "ArenaBot") {
		t.Error("a join with -pair did not ask for a pairing")
	}
	if code, _, _ := runWith(t, env, "tournament", "join", id, "-password", "x", "-password-file", pwFile, "-config", cfg); code != exitUsage {
		t.Errorf("-password and -password-file together: code %d, want %d", code, exitUsage)
	}
	down := writeConfig(t, "lichess:\n  base_url: http://127.0.0.1:1\nstate_dir: "+t.TempDir()+"\n")
	if code, _, stderr := runWith(t, env, "tournament", "withdraw", id, "-config", down); code != exitUnavailable {
		t.Errorf("Lichess unreachable: code %d, want %d (%s)", code, exitUnavailable, stderr)
	}
}

// tournament.join reaches the client's settings, passwords and teams
// included.
func TestTournamentSettings(t *testing.T) {
	cfg, err := config.Parse([]byte("tournament:\n  join: [hL7vMrFQ, {id: Xy12Ab34, password: pw, team: red}]\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j := settingsFromConfig(cfg, t.TempDir()).Tournament.Join
	if len(j) != 2 || j[0].ID != "hL7vMrFQ" || j[1].ID != "Xy12Ab34" || j[1].Password != "pw" || j[1].Team != "red" {
		t.Errorf("Tournament.Join = %+v", j)
	}
	if got := settingsFromConfig(cfg, t.TempDir()).Tournament.StoreEvery; got != arenaStoreEvery {
		t.Errorf("Tournament.StoreEvery = %v, want the %v that tournament join tells", got, arenaStoreEvery)
	}
}

// check-config -online refuses a token without tournament:write when
// tournament.join lists arenas (77), and passes it with the scope.
func TestCheckConfigTournamentScope(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	cfg := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\ntournament:\n  join: [hL7vMrFQ]\n")
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	code, stdout, stderr := runWith(t, env, "check-config", "-online", "-config", cfg)
	if code != exitNoPerm || !strings.Contains(stderr, "the token lacks the tournament:write scope that tournament.join needs") {
		t.Fatalf("without the scope: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	if code, stdout, stderr := runWith(t, env, "check-config", "-online", "-config", cfg); code != exitOK || !strings.Contains(stdout, "tournaments: joins arena(s) hL7vMrFQ") {
		t.Fatalf("with the scope: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// check-config -online asks Lichess about the arenas of tournament.join:
// a crazyhouse arena without crazyhouse in challenge.variants (so without
// an engine for it) and an arena of a speed outside challenge.speeds are
// configuration errors (78), as the daemon would not join them; an arena
// Lichess does not know is a warning.
func TestCheckConfigArenaVariantSpeed(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	zh := srv.CreateArena(lichesstest.ArenaParams{Name: "ZH", ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second,
		BotsAllowed: true, Variant: "crazyhouse"})
	classical := srv.CreateArena(lichesstest.ArenaParams{Name: "Slow", ClockLimit: 30 * time.Minute, BotsAllowed: true})
	blitz := srv.CreateArena(lichesstest.ArenaParams{Name: "Blitz", ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, BotsAllowed: true})
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	base := "lichess:\n  base_url: " + srv.URL() + "\nchallenge:\n  speeds: [bullet, blitz]\n"

	cfg := writeConfig(t, base+"tournament:\n  join: ["+zh+", "+classical+", "+blitz+"]\n")
	code, stdout, stderr := runWith(t, env, "check-config", "-online", "-config", cfg)
	if code != exitConfig || !strings.Contains(stderr, zh) || !strings.Contains(stderr, "crazyhouse") ||
		!strings.Contains(stderr, classical) || !strings.Contains(stderr, "classical") || strings.Contains(stderr, blitz) {
		t.Fatalf("unplayable arenas: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	cfg = writeConfig(t, base+"tournament:\n  join: ["+blitz+", hL7vMrFQ]\n")
	code, stdout, stderr = runWith(t, env, "check-config", "-online", "-config", cfg)
	if code != exitOK || !strings.Contains(stderr, "warning: tournament.join[1] hL7vMrFQ") {
		t.Fatalf("a playable arena and an unknown one: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// `tournament join` needs the bot's state directory: without one it
// exits 78, and with one it cannot write 73, both before asking Lichess
// (a join the bot would never hear of is not sent). withdraw of an arena
// of tournament.join says that a running bot joins it again; withdraw
// without a database withdraws on Lichess only; -state-dir overrides
// state_dir.
func TestTournamentCmdStateDir(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	id := srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"} // no HOME, no XDG_STATE_HOME, no STATE_DIRECTORY
	noDir := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\n")
	if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", noDir); code != exitConfig || !strings.Contains(stderr, "state directory") {
		t.Fatalf("no state directory: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", noDir, "-state-dir", notADir); code != exitCantCreat {
		t.Fatalf("a state directory that cannot be made: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if n := len(srv.RequestsMatching("POST /api/tournament/*/join")); n != 0 {
		t.Fatalf("%d joins sent although the arena could not be recorded", n)
	}

	// -state-dir wins over state_dir.
	listedCfg, cfgDir := arenaConfig(t, srv)
	if err := os.WriteFile(listedCfg, []byte("lichess:\n  base_url: "+srv.URL()+"\nstate_dir: "+cfgDir+"\ntournament:\n  join: ["+id+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flagDir := t.TempDir()
	if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", listedCfg, "-state-dir", flagDir); code != exitOK || strings.Contains(stdout, "with its password") ||
		!strings.Contains(stdout, "It is also in tournament.join of "+listedCfg+", whose password and team the bot uses") {
		t.Fatalf("join with -state-dir of an arena also in tournament.join: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if as := recordedArenas(t, flagDir); len(as) != 1 || as[0].ID != id {
		t.Fatalf("arenas in the -state-dir: %+v", as)
	}
	if _, err := os.Stat(store.Path(cfgDir)); err == nil {
		t.Error("state_dir got a database although -state-dir was given")
	}
	code, stdout, stderr := runWith(t, env, "tournament", "withdraw", id, "-config", listedCfg)
	if code != exitOK || strings.Contains(stdout, "Removed") || !strings.Contains(stdout, "still in tournament.join") {
		t.Fatalf("withdraw of a listed arena without a database: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(store.Path(cfgDir)); err == nil {
		t.Error("withdraw made a database")
	}
	if !strings.Contains(stdout, "No database at "+store.Path(cfgDir)) {
		t.Errorf("withdraw without a database does not say so:\n%s", stdout)
	}
	if n := len(srv.RequestsMatching("POST /api/tournament/*/withdraw")); n != 1 {
		t.Errorf("%d withdrawals, want 1", n)
	}
}

// `tournament withdraw` goes on without the database only when there is
// none: a database that cannot be looked at (a state directory that is a
// file here; one the user may not search, below) may record the arena,
// which a running bot would join again, so that is 73 and no withdrawal.
func TestTournamentWithdrawUnreadableDB(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	id := srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	cfg := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\n")
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runWith(t, env, "tournament", "withdraw", id, "-config", cfg, "-state-dir", notADir)
	if code != exitCantCreat || !strings.Contains(stderr, "not withdrawn") {
		t.Fatalf("withdraw with a state directory that is a file: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if os.Geteuid() != 0 { // root searches any directory
		closed := t.TempDir()
		if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", cfg, "-state-dir", closed); code != exitOK {
			t.Fatalf("join: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		if err := os.Chmod(closed, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(closed, 0o700) })
		code, stdout, stderr := runWith(t, env, "tournament", "withdraw", id, "-config", cfg, "-state-dir", closed)
		if code != exitCantCreat || !strings.Contains(stderr, "not withdrawn") {
			t.Fatalf("withdraw with a state directory of mode 0: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
	}
	if n := len(srv.RequestsMatching("POST /api/tournament/*/withdraw")); n != 0 {
		t.Errorf("%d withdrawals sent although the record could not be read", n)
	}
}

// `tournament join` checks what recording the arena may fail on before
// it asks Lichess: with another writer holding the database's write lock
// past the busy timeout, it exits 73 and sends no join (a join that the
// bot is not told of would be lost).
func TestTournamentJoinDBLockedFirst(t *testing.T) {
	srv := lichesstest.NewStarted()
	t.Cleanup(srv.Close)
	srv.AddAccount("ArenaBot", "lip_arenabot", true, 1500)
	srv.SetScopes("ArenaBot", lichesstest.ScopeBotPlay, lichesstest.ScopeTournamentWrite)
	id := srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	cfg, stateDir := arenaConfig(t, srv)
	env := map[string]string{"LICHESS_BOT_TOKEN": "lip_arenabot"}
	d, err := store.Open(store.Path(stateDir), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	ctx := context.Background()
	other, err := sql.Open("sqlite", "file:"+store.Path(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", cfg)
	if code != exitCantCreat || !strings.Contains(stderr, "not joined") {
		t.Fatalf("join with the write lock held: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if n := len(srv.RequestsMatching("POST /api/tournament/*/join")); n != 0 {
		t.Errorf("%d joins sent although the arena could not be recorded", n)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runWith(t, env, "tournament", "join", id, "-config", cfg); code != exitOK {
		t.Fatalf("join once the lock is free: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
