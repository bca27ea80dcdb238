package main

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// `ponderosa demo -http ADDR` serves the demo's metrics during the game
// and after it until stopped: the moves counted are the game's (both bots
// observed), the built-in engine's ponder and tree figures are there, and
// the server stops when its context ends.
func TestDemoServesHTTP(t *testing.T) {
	tc, err := config.ParseTimeControl("1+0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut testsupport.SyncBuffer
	addrC := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- demoServe(ctx, &out, &errOut, demoOpts{tc: tc, movesLimit: 6, depth: 3, hashMB: 4, ponder: true},
			"127.0.0.1:0", func(a net.Addr) { addrC <- a })
	}()
	addr := <-addrC
	testsupport.WaitFor(t, "the demo game's end", func() bool { return strings.Contains(out.String(), "still serving") })
	code, body := scrape(t, addr, "/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	// The printed game: one line per ply ("1. e4 ..." and "1... e5 ...").
	plies := len(regexp.MustCompile(`(?m)^ +\d+\.(\.\.)? `).FindAllString(out.String(), -1))
	if n := movesTotal(t, body); n != plies || n < 12 {
		t.Errorf("ponderosa_moves_total %d, want the %d plies printed (at least 12):\n%s", n, plies, out.String())
	}
	kept := regexp.MustCompile(`(?m)^ponderosa_tree_kept_fraction_count (\d+)$`).FindStringSubmatch(body)
	if kept == nil {
		t.Fatalf("no kept fraction in:\n%s", body)
	}
	if n, _ := strconv.Atoi(kept[1]); n < 1 {
		t.Errorf("no re-rooting counted in a pondering game:\n%s", body)
	}
	for _, want := range []string{"ponderosa_ponder_predictions_total ", `ponderosa_games_finished_total{result=`, "ponderosa_challenges_accepted_total 1\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	if code, _ := scrape(t, addr, "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz: %d", code)
	}
	promtoolCheck(t, body)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo -http did not stop when asked")
	}
	if _, err := net.Dial("tcp", addr.String()); err == nil {
		t.Error("still serving after the stop")
	}
}

func TestDemoHTTPFlag(t *testing.T) {
	if code, _, stderr := runWith(t, nil, "demo", "-http", "8080"); code != exitUsage || !strings.Contains(stderr, "host:port") {
		t.Errorf("demo -http 8080: code %d, stderr %q", code, stderr)
	}
}
