package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// engine.syzygy reaches the built-in player: in a position the tables hold
// it plays their move at once, without a search or a score.
func TestPlayerFactorySyzygy(t *testing.T) {
	abs := testsupport.SyzygyDir(t)
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n  syzygy:\n    paths: ["+abs+"]\n")
	f, err := playerFactory(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// KQvKR, White to move and win.
	gi := client.GameInfo{ID: "tb", White: true, Variant: "fromPosition", InitialFEN: "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"}
	c := thinkFirst(t, f, gi)
	if c.Move == "" || c.HasScore || c.Depth != 0 || c.Nodes != 0 {
		t.Errorf("tablebase position: %+v, want the tables' move without a search", c)
	}
	cfg.Engine.Syzygy.Paths = []string{filepath.Join(t.TempDir(), "gone")}
	if _, err := playerFactory(cfg, discardLogger(), nil); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing tablebase directory: %v", err)
	}
}

// check-config names a table it cannot read.
func TestCheckConfigBadSyzygy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "KRvK.rtbw")
	if err := os.WriteFile(bad, make([]byte, 64), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runWith(t, nil, "check-config", "-config", writeConfig(t, "engine:\n  syzygy:\n    paths: ["+dir+"]\n"))
	if code == 0 || !strings.Contains(stderr, "engine.syzygy.paths") || !strings.Contains(stderr, bad) {
		t.Errorf("code %d, stderr %s", code, stderr)
	}
}

// engine.syzygy.probe_limit 0 turns every use of the tables off, as UCI
// SyzygyProbeLimit 0 does: no local tables for the online player, and in a
// position the tables hold the built-in player searches.
func TestPlayerFactorySyzygyProbeLimitZero(t *testing.T) {
	abs := testsupport.SyzygyDir(t)
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n  syzygy:\n    paths: ["+abs+"]\n    probe_limit: 0\n")
	f, tables, err := playerFactoryTables(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tables != nil {
		t.Error("probe_limit 0: the online player gets local tables")
	}
	// KQvKR, White to move and win.
	gi := client.GameInfo{ID: "tb0", White: true, Variant: "fromPosition", InitialFEN: "8/8/8/8/8/3k4/7r/QK6 w - - 0 1"}
	c := thinkFirst(t, f, gi)
	if c.Move == "" || c.Nodes == 0 || c.TB.Known {
		t.Errorf("probe_limit 0: %+v, want a searched move and no tables' result", c)
	}
}
