package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// The variants end to end: two daemons (`ponderosa run`, in-process), each
// with Fairy-Stockfish as its per-variant engine, play a crazyhouse and an
// atomic game against each other on lichesstest, which trusts the moves of
// these variants and ends such a game by the clock (an engine with no move
// left, mated or exploded, loses on time), by resignation or agreement, or
// as a draw at its ply limit (see lichesstest's package doc).
//
// Gated: PONDEROSA_VARIANTS_E2E=1 runs it; the engine is
// $PONDEROSA_FAIRY_STOCKFISH or fairy-stockfish on $PATH (skipped when
// there is none, and a variant is skipped when that build does not list it
// in its UCI_Variant: Debian's 11.1 has no atomic).
func TestE2EVariantsFairyStockfish(t *testing.T) {
	if os.Getenv("PONDEROSA_VARIANTS_E2E") == "" {
		t.Skip("set PONDEROSA_VARIANTS_E2E=1 to play crazyhouse and atomic with Fairy-Stockfish on both sides")
	}
	fsf := os.Getenv("PONDEROSA_FAIRY_STOCKFISH")
	if fsf == "" {
		p, err := exec.LookPath("fairy-stockfish")
		if err != nil {
			t.Skip("fairy-stockfish is not on $PATH (Debian package fairy-stockfish, in /usr/games)")
		}
		fsf = p
	}
	for _, variant := range []string{config.VariantCrazyhouse, config.VariantAtomic} {
		t.Run(variant, func(t *testing.T) { playVariantE2E(t, fsf, variant) })
	}
}

func playVariantE2E(t *testing.T, fsf, variant string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Skip a variant this build does not know (run and check-config would
	// refuse the configuration).
	e, err := uci.StartConfig(ctx, uci.ExternalConfig{Path: fsf})
	if err != nil {
		t.Fatalf("start %s: %v", fsf, err)
	}
	spec, _ := uci.FindOption(e.Options(), "UCI_Variant")
	name := e.Name()
	e.Close()
	if !strings.Contains(" "+strings.Join(spec.Vars, " ")+" ", " "+config.VariantUCINames[variant]+" ") {
		t.Skipf("%s (%s) does not play %s: its UCI_Variant does not list %q", fsf, name, variant, config.VariantUCINames[variant])
	}

	srv := lichesstest.NewStarted(lichesstest.WithKeepAlive(200*time.Millisecond), lichesstest.WithChallengeTTL(0),
		lichesstest.WithVariantPlyLimit(300))
	t.Cleanup(srv.Close)
	bots := [2]string{"WhiteFairy", "BlackFairy"}
	dirs := [2]string{}
	for i, b := range bots {
		srv.AddAccount(b, "lip_"+b, true, 1500)
		dirs[i] = t.TempDir()
		cfg := "state_dir: " + dirs[i] + "\nlichess:\n  base_url: " + srv.URL() + "\n" +
			"engine:\n  ponder: false\n  variants:\n    " + variant + ": {path: " + fsf + ", options: {Hash: 16, Threads: 1}}\n" +
			"challenge:\n  variants: [" + variant + "]\n" +
			"game:\n  pgn_dir: games\n  greeting: {player: \"\"}\n  goodbye: {player: \"\"}\n  abort_after: 0s\nlog:\n  level: info\n  format: json\n"
		startVariantDaemon(t, srv, b, cfg)
	}
	// White challenges (here through the server); Black's daemon accepts
	// by its rules. A short bullet clock, so that the game ends soon.
	id, err := srv.Challenge(bots[0], bots[1], lichesstest.ChallengeParams{
		ClockLimit: 20 * time.Second, ClockIncrement: 300 * time.Millisecond, Variant: variant, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g, err := srv.WaitGameOver(ctx, id)
	if err != nil {
		t.Fatalf("game %s not over: %v", id, err)
	}
	t.Logf("%s: %s, winner %q, after %d plies in %v: %s", variant, g.Status, g.Winner, len(g.Moves), time.Since(start).Round(time.Second), strings.Join(g.Moves, " "))
	if st, _ := srv.ChallengeStatus(id); st != "accepted" {
		t.Errorf("challenge %s", st)
	}
	if g.Status == "aborted" || len(g.Moves) < 10 {
		t.Errorf("no real game: %s after %d plies", g.Status, len(g.Moves))
	}
	if g.Status == "resign" {
		t.Errorf("a bot resigned (resigning is off)")
	}
	if st := srv.Stats(); st.IllegalMoves != 0 {
		t.Errorf("%d moves refused", st.IllegalMoves)
	}
	for i, dir := range dirs {
		path := filepath.Join(dir, "games", id+".pgn")
		var pgn []byte
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if pgn, err = os.ReadFile(path); err == nil {
				break
			}
		}
		want := `[Variant "` + map[string]string{"crazyhouse": "Crazyhouse", "atomic": "Atomic"}[variant] + `"]`
		if err != nil || !strings.Contains(string(pgn), want) || !strings.Contains(string(pgn), "{ Moves in UCI, as Lichess sent them. }") {
			t.Errorf("%s's PGN (%v):\n%s", bots[i], err, pgn)
		}
	}
}

// startVariantDaemon runs runDaemon for account name with the configuration
// cfg until the test ends; its log goes to the test's log on failure.
func startVariantDaemon(t *testing.T, srv *lichesstest.Server, name, cfg string) {
	t.Helper()
	path := writeConfig(t, cfg)
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan *client.Bot, 1)
	go func() {
		done <- runDaemon(ctx, daemonOpts{
			configPath: path,
			getenv:     func(k string) string { return map[string]string{"LICHESS_BOT_TOKEN": "lip_" + name}[k] },
			logOut:     logf,
			signals:    make(chan os.Signal),
			onReady:    func(b *client.Bot) { ready <- b },
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("%s stopped at start: %v", name, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s not ready", name)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s: runDaemon: %v", name, err)
		}
		logf.Close()
		if t.Failed() || testing.Verbose() {
			b, _ := os.ReadFile(logf.Name())
			var keep []string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, `"level":"warn"`) || strings.Contains(l, `"level":"error"`) || strings.Contains(l, "game over") {
					keep = append(keep, l)
				}
			}
			t.Logf("%s's warnings, errors and results:\n%s", name, strings.Join(keep, "\n"))
		}
	})
}
