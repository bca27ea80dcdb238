package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
)

// `ponderosa tournament join ID` and `withdraw ID` with the config's token:
// the join sends the password and team and, with -pair, asks for a
// pairing; the exit
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
	cfg := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\n")
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
	// The flags may come before the id too.
	code, stdout, stderr = runWith(t, env, "tournament", "join", "-password", "s3cret-pw", "-team", "bot-team", "-pair", "-config", cfg, id)
	if code != exitOK || !strings.Contains(stdout, "joined arena "+id+" (Bots Only), started") || !strings.Contains(stdout, "tournament.join") {
		t.Fatalf("join: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !srv.ArenaWaiting(id, "ArenaBot") {
		t.Error("the join did not ask for a pairing (pairMeAsap)")
	}
	snap, _ := srv.Arena(id)
	if len(snap.Players) != 1 || snap.Players[0].Team != "bot-team" {
		t.Errorf("after the join: %+v", snap)
	}
	code, stdout, stderr = runWith(t, env, "tournament", "withdraw", id, "-config", cfg)
	if code != exitOK || !strings.Contains(stdout, "withdrew from arena "+id) {
		t.Fatalf("withdraw: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
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
	cfg := writeConfig(t, "lichess:\n  base_url: "+srv.URL()+"\n")
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
	down := writeConfig(t, "lichess:\n  base_url: http://127.0.0.1:1\n")
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
