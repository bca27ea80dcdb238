package main

// The archive survives SIGKILL (issue 13: "killing the daemon (SIGKILL)
// mid-write loses no finished game"): the daemon runs as a process of its
// own (this test binary, re-executed as `ponderosa run`), plays fast games
// against lichesstest house players in the test process, and is killed
// with SIGKILL again and again (as the server sees a game end, a moment
// after, at random, and in the middle of games that then end while it is
// down), restarted each time on the same state directory. At the end every
// game the server finished with the bot is in the archive once, the
// database passes PRAGMA integrity_check, and no game is left noted as
// open.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/store"
)

// killDaemonEnv, set to a configuration file, makes the test binary the
// daemon: `ponderosa run -config FILE` (runKillDaemonIfAsked, from
// TestMain). The daemon takes it out of its environment, so that the
// engines it starts (this binary again, as testsupport's fake engine) are
// engines.
const killDaemonEnv = "PONDEROSA_KILLTEST_DAEMON"

// runKillDaemonIfAsked runs the daemon and exits when killDaemonEnv is set.
func runKillDaemonIfAsked() {
	cfg := os.Getenv(killDaemonEnv)
	if cfg == "" {
		return
	}
	_ = os.Unsetenv(killDaemonEnv)
	os.Exit(run(env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, []string{"run", "-config", cfg}))
}

const (
	killBot      = "KillBot"
	killBotToken = "lip_killSecretToken"
)

// killRig is the server, the state directory and the daemon process of
// TestDaemonSIGKILLLosesNoFinishedGame.
type killRig struct {
	t       *testing.T
	ctx     context.Context
	srv     *lichesstest.Server
	dir     string
	cfgPath string
	engine  *testsupport.FakeEngine
	houses  []string
	cmd     *exec.Cmd
	runs    int
}

func (k *killRig) dbPath() string { return store.Path(filepath.Join(k.dir, "state")) }

// start runs the daemon and waits until its event stream is open.
func (k *killRig) start() {
	k.t.Helper()
	opened := len(k.srv.RequestsMatching("GET /api/stream/event"))
	k.runs++
	logf, err := os.Create(filepath.Join(k.dir, fmt.Sprintf("daemon-%02d.log", k.runs)))
	if err != nil {
		k.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(k.engine.Env(), killDaemonEnv+"="+k.cfgPath, "LICHESS_BOT_TOKEN="+killBotToken)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		k.t.Fatalf("start the daemon: %v", err)
	}
	k.cmd = cmd
	if err := k.srv.WaitFor(k.ctx, func() bool {
		return len(k.srv.RequestsMatching("GET /api/stream/event")) > opened && k.srv.EventStreamOpen(killBot)
	}); err != nil {
		k.t.Fatalf("daemon run %d never opened its event stream: %v (log %s)", k.runs, err, logf.Name())
	}
}

// kill sends SIGKILL and reaps the process.
func (k *killRig) kill() {
	k.t.Helper()
	if err := k.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		k.t.Fatalf("SIGKILL: %v", err)
	}
	_ = k.cmd.Wait()
	k.cmd = nil
}

// stop ends the daemon as systemd does (SIGTERM) and waits for it.
func (k *killRig) stop() {
	k.t.Helper()
	if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		k.t.Fatalf("SIGTERM: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- k.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			k.t.Errorf("daemon after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = k.cmd.Process.Kill()
		k.t.Fatalf("daemon did not stop after SIGTERM")
	}
	k.cmd = nil
}

// botGames returns the server's games of the bot: finished and running.
func (k *killRig) botGames() (finished, running []lichesstest.GameSnapshot) {
	for _, g := range k.srv.Games() {
		if g.White != killBot && g.Black != killBot {
			continue
		}
		if g.Finished {
			finished = append(finished, g)
		} else {
			running = append(running, g)
		}
	}
	return finished, running
}

// feed keeps conc games of the bot going (challenges from the house
// players, accepted by the daemon when it runs) until ctx ends, then
// cancels the challenges not answered yet.
func (k *killRig) feed(ctx context.Context, conc int) {
	params := lichesstest.ChallengeParams{ClockLimit: time.Minute, ClockIncrement: time.Second, Color: "random"}
	var pending []string
	defer func() {
		for _, id := range pending {
			_ = k.srv.CancelChallenge(id) // an answered one stays as it is
		}
	}()
	for n := 0; ctx.Err() == nil; {
		pending = slices.DeleteFunc(pending, func(id string) bool {
			st, _ := k.srv.ChallengeStatus(id)
			return st != "created"
		})
		if _, running := k.botGames(); len(running)+len(pending) < conc {
			id, err := k.srv.Challenge(k.houses[n%len(k.houses)], killBot, params)
			if err != nil {
				k.t.Errorf("challenge: %v", err)
				return
			}
			pending = append(pending, id)
			n++
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// archived returns the ids of the archive's games (nil while it cannot
// be read).
func (k *killRig) archived() map[string]int {
	d, err := store.OpenReadOnly(k.dbPath())
	if err != nil {
		return nil
	}
	defer d.Close()
	rows, err := d.SQL().Query(`SELECT id, count(*) FROM games GROUP BY id`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if rows.Scan(&id, &n) == nil {
			out[id] = n
		}
	}
	return out
}

// notedGame waits for a running game of the bot with at least plies
// plies that is noted in the archive's open_games, and returns its id.
// It polls through one read-only connection, every 20 ms, so as not to
// contend with the daemon's writes.
func (k *killRig) notedGame(plies int) (string, error) {
	var d *store.DB
	defer func() {
		if d != nil {
			d.Close()
		}
	}()
	for {
		if d == nil {
			d, _ = store.OpenReadOnly(k.dbPath())
		}
		if d != nil {
			_, running := k.botGames()
			for _, g := range running {
				if len(g.Moves) < plies {
					continue
				}
				var n int
				if d.SQL().QueryRow(`SELECT count(*) FROM open_games WHERE game_id = ?`, g.ID).Scan(&n) == nil && n > 0 {
					return g.ID, nil
				}
			}
		}
		select {
		case <-k.ctx.Done():
			return "", k.ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The kill moments, used in turn.
const (
	killAtFinish      = iota // as soon as the server sees a game of the bot end
	killAfterFinish          // a random moment up to 40 ms after that
	killWhileGameEnds        // mid-game; a running game then ends while the daemon is down
	killAtRandom             // at a random moment of play
	killKinds
)

var killKindNames = [killKinds]string{"at a game's end", "just after a game's end", "mid-game, a game ending while down", "at random"}

func TestDaemonSIGKILLLosesNoFinishedGame(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon as a process and kills it: not in -short")
	}
	// PONDEROSA_KILLSOAK=N: kill until N games are over (default: twelve
	// kills, three of each of the four kinds).
	target := soakEnvInt(t, "PONDEROSA_KILLSOAK", 0)
	kills := 12
	if target > 0 {
		kills = 1 << 30
	}
	srv := lichesstest.NewStarted(lichesstest.WithKeepAlive(50*time.Millisecond), lichesstest.WithChallengeTTL(0))
	t.Cleanup(srv.Close)
	srv.AddAccount(killBot, killBotToken, true, 2000)
	k := &killRig{t: t, ctx: testsupport.Context(t), srv: srv, dir: t.TempDir(), engine: testsupport.NewFakeEngine(t, "legal")}
	if target > 0 { // bounds the waits: a second a game and a minute more
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(target)*time.Second+time.Minute)
		t.Cleanup(cancel)
		k.ctx = ctx
	}
	// Short games (the house resigns after 8 to 16 plies), each house
	// player its own length, so that game ends spread over time.
	for i, resignAt := range []int{8, 11, 14, 16} {
		h := fmt.Sprintf("house%d", i+1)
		srv.AddAccount(h, "lip_"+h, false, 1800)
		if err := srv.SetHousePlayer(h, lichesstest.HouseOptions{ThinkTime: 15 * time.Millisecond, Strategy: lichesstest.HouseRandom, ResignAt: resignAt}); err != nil {
			t.Fatal(err)
		}
		k.houses = append(k.houses, h)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	k.cfgPath = filepath.Join(k.dir, "config.yaml")
	cfg := fmt.Sprintf(`state_dir: %q
lichess:
  base_url: %s
engine:
  type: external
  external:
    path: %s
challenge:
  concurrency: 2
game:
  greeting: {player: ""}
  goodbye: {player: ""}
  pgn_dir: games
log:
  level: debug
  format: json
`, filepath.Join(k.dir, "state"), srv.URL(), exe)
	if err := os.WriteFile(k.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if k.cmd != nil {
			_ = k.cmd.Process.Kill()
			_ = k.cmd.Wait()
		}
	})

	feedCtx, stopFeed := context.WithCancel(k.ctx)
	var feeding sync.WaitGroup
	feeding.Add(1)
	go func() { defer feeding.Done(); k.feed(feedCtx, 2) }()
	defer func() { stopFeed(); feeding.Wait() }()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	var endedWhileDown []string
	for i := 0; i < kills; i++ {
		if fin, _ := k.botGames(); target > 0 && len(fin) >= target {
			break
		}
		k.start()
		kind := i % killKinds
		switch kind {
		case killAtFinish, killAfterFinish:
			fin, _ := k.botGames()
			if err := srv.WaitFor(k.ctx, func() bool { f, _ := k.botGames(); return len(f) > len(fin) }); err != nil {
				t.Fatalf("run %d: no game ended: %v", k.runs, err)
			}
			if kind == killAfterFinish {
				time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
			}
			k.kill()
		case killWhileGameEnds:
			// A game with both sides' moves, so that the house resigns
			// it rather than aborting it, and noted in the archive: the
			// note is written by the store writer, after the game began
			// (on a loaded machine, some plies after), and a game not
			// noted yet is not one the daemon promises to recover.
			id, err := k.notedGame(3)
			if err != nil {
				k.logTrouble()
				t.Fatalf("run %d: no noted game in progress: %v", k.runs, err)
			}
			k.kill()
			g, _ := srv.Game(id)
			house := g.White
			if house == killBot {
				house = g.Black
			}
			if err := srv.Resign(id, house); err != nil {
				// It ended by itself as the daemon died: ended all
				// the same, by the house's resignation.
				t.Logf("run %d: resign %s: %v", k.runs, id, err)
			} else {
				endedWhileDown = append(endedWhileDown, id)
			}
		case killAtRandom:
			time.Sleep(time.Duration(100+rng.IntN(700)) * time.Millisecond)
			k.kill()
		}
		fin, running := k.botGames()
		t.Logf("run %d killed %s: %d games over, %d running", k.runs, killKindNames[kind], len(fin), len(running))
	}

	// The last run: no new games; those running are played out, and the
	// games of earlier runs are recovered.
	stopFeed()
	feeding.Wait()
	k.start()
	if err := srv.WaitFor(k.ctx, func() bool { _, running := k.botGames(); return len(running) == 0 }); err != nil {
		t.Fatalf("games still running: %v", err)
	}
	// Until the archive has every game over (recovered ones included).
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		finished, _ := k.botGames()
		got, missing := k.archived(), 0
		for _, g := range finished {
			if got[g.ID] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
	}
	k.stop()

	finished, running := k.botGames()
	if len(running) > 0 {
		t.Errorf("%d games still running after the last stop", len(running))
	}
	want := map[string]bool{}
	for _, g := range finished {
		want[g.ID] = true
	}
	got := k.archived()
	for _, g := range finished {
		if n := got[g.ID]; n != 1 {
			t.Errorf("game %s (%s, %d plies, %s vs %s) is in the archive %d times, want once", g.ID, g.Status, len(g.Moves), g.White, g.Black, n)
		}
	}
	for id := range got {
		if !want[id] {
			t.Errorf("the archive has game %s, which the server never finished with the bot", id)
		}
	}

	d, err := store.OpenReadOnly(k.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var check string
	if err := d.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("PRAGMA integrity_check: %q (%v)", check, err)
	}
	var open int
	if err := d.SQL().QueryRow(`SELECT count(*) FROM open_games`).Scan(&open); err != nil || open != 0 {
		t.Errorf("%d games still noted as open (%v), want none", open, err)
	}
	// The games that ended while the daemon was down: only the recovery
	// (Lichess' export at the next start) can have archived them.
	for _, id := range endedWhileDown {
		var result, term string
		var moves int
		if err := d.SQL().QueryRow(`SELECT result, termination, (SELECT count(*) FROM moves WHERE game_id = id) FROM games WHERE id = ?`, id).Scan(&result, &term, &moves); err != nil {
			t.Errorf("game %s, ended while the daemon was down: %v", id, err)
			continue
		}
		g, _ := srv.Game(id)
		if result != "win" || term != "resign" || moves != len(g.Moves) {
			t.Errorf("game %s, ended while the daemon was down: archived as %s by %s with %d moves, want win by resign with %d", id, result, term, moves, len(g.Moves))
		}
		// Recovered, not the bot's own record: no figures.
		var figured int
		if err := d.SQL().QueryRow(`SELECT count(*) FROM moves WHERE game_id = ? AND COALESCE(source, '') != ''`, id).Scan(&figured); err != nil || figured != 0 {
			t.Errorf("game %s, ended while the daemon was down: %d moves with the bot's figures (%v), want none (recovered from Lichess)", id, figured, err)
		}
	}
	// The bot's own records survive: every move a run played (its log's
	// "move played") in a game that run archived ("game archived") has
	// its figures in the archive (its source; depth and score unless it
	// was forced); a record recovered from Lichess over
	// the own one would have none.
	ownMoves := 0
	for i := 1; i <= k.runs; i++ {
		b, _ := os.ReadFile(filepath.Join(k.dir, fmt.Sprintf("daemon-%02d.log", i)))
		if strings.Contains(string(b), killBotToken) {
			t.Errorf("daemon run %d's log has the token", i)
		}
		played, archivedHere := map[string][]int{}, map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			var e struct {
				Message string `json:"message"`
				Game    string `json:"game"`
				Ply     *int   `json:"ply"`
			}
			if json.Unmarshal([]byte(l), &e) != nil || e.Game == "" {
				continue
			}
			switch e.Message {
			case "move played":
				if e.Ply != nil {
					played[e.Game] = append(played[e.Game], *e.Ply)
				}
			case "game archived":
				archivedHere[e.Game] = true
			}
		}
		for id := range archivedHere {
			for _, ply := range played[id] {
				var source string
				var depth int
				var hasScore bool
				err := d.SQL().QueryRow(`SELECT COALESCE(source, ''), COALESCE(depth, 0), score_cp IS NOT NULL FROM moves WHERE game_id = ? AND ply = ? AND ours`, id, ply).Scan(&source, &depth, &hasScore)
				// A forced (only) move has a source and no search figures.
				if err != nil || source == "" || source != "forced" && (depth <= 0 || !hasScore) {
					t.Errorf("game %s, archived by run %d: its move at ply %d has source %q, depth %d, a score %v (%v); want the bot's figures", id, i, ply, source, depth, hasScore, err)
				}
				ownMoves++
			}
		}
	}
	if ownMoves == 0 {
		t.Error("no move of a game archived by the run that played it: the own-record check saw nothing")
	}
	if _, err := os.Stat(filepath.Join(k.dir, "state", store.SpoolName)); err == nil {
		t.Errorf("the spool %s is left after the last run", store.SpoolName)
	}
	recovered := 0
	for i := 1; i <= k.runs; i++ {
		b, _ := os.ReadFile(filepath.Join(k.dir, fmt.Sprintf("daemon-%02d.log", i)))
		recovered += strings.Count(string(b), "game recovered from Lichess")
	}
	t.Logf("%d daemon runs (%d SIGKILLs), %d games over, %d archived; %d recovered from Lichess' export at a start (%d ended while the daemon was down); %d own moves checked",
		k.runs, k.runs-1, len(finished), len(got), recovered, len(endedWhileDown), ownMoves)
	if t.Failed() {
		k.logTrouble()
	}
}

// logTrouble logs the daemon's warnings, errors and archive lines.
func (k *killRig) logTrouble() {
	for i := 1; i <= k.runs; i++ {
		b, _ := os.ReadFile(filepath.Join(k.dir, fmt.Sprintf("daemon-%02d.log", i)))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"level":"warn"`) || strings.Contains(l, `"level":"error"`) || strings.Contains(l, "archive") || !strings.HasPrefix(l, "{") && l != "" {
				k.t.Logf("run %d: %s", i, l)
			}
		}
	}
}
