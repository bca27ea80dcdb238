package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// onlineSources makes the enabled sources only, in online.order, with
// their rules.
func TestOnlineSourcesFromConfig(t *testing.T) {
	cfg := config.Default()
	if s := onlineSources(cfg, nil, nil); len(s) != 0 {
		t.Errorf("%d sources by default, want none", len(s))
	}
	cfg.Online.Order = []string{"chessdb", "cloud_eval", "tablebase", "explorer"}
	cfg.Online.ChessDB.Enabled, cfg.Online.ChessDB.MaxMisses = true, 7
	cfg.Online.Tablebase.Enabled, cfg.Online.Tablebase.Timeout = true, time.Second
	var names []string
	for _, s := range onlineSources(cfg, nil, nil) {
		names = append(names, s.Source.Name())
		switch s.Source.Name() {
		case "chessdb":
			if s.MaxMisses != 7 || s.Timeout != 2*time.Second || s.MinTime != 20*time.Second {
				t.Errorf("chessdb rules %+v", s)
			}
		case "online-tablebase":
			if s.Timeout != time.Second || s.MaxMisses != 5 {
				t.Errorf("tablebase rules %+v", s)
			}
		}
	}
	if strings.Join(names, ",") != "chessdb,online-tablebase" {
		t.Errorf("sources %v, want chessdb,online-tablebase", names)
	}
}

// The daemon asks the online sources of its configuration: the explorer
// with the bot's token, chessdb without; the move chessdb gives is played
// and logged with its source; the token is in no log line.
func TestRunDaemonOnlineSources(t *testing.T) {
	r := newRunEnv(t, true)
	u := r.srv.URL()
	extra := `online:
  order: [explorer, chessdb]
  explorer: {enabled: true, min_time: 1s, timeout: 1s, url: ` + u + lichesstest.ExplorerPath + `}
  chessdb: {enabled: true, min_time: 1s, timeout: 1s, url: ` + u + lichesstest.ChessDBPath + `}
`
	r.cfgPath = writeConfig(t, runConfig(t, u, extra))
	r.srv.SetOnlineFault(lichesstest.OnlineExplorer, lichesstest.OnlineNotFound)
	r.start(nil)
	id := r.challenge("alice")
	r.waitPlies(id, 4)
	r.waitLog(`"source":"chessdb"`)
	explorer, chessdb := 0, 0
	for _, a := range r.srv.OnlineAnswers() {
		switch a.Service {
		case lichesstest.OnlineExplorer:
			explorer++
			if !a.Authorized {
				t.Error("the explorer was asked without the token")
			}
		case lichesstest.OnlineChessDB:
			chessdb++
			if a.Authorized {
				t.Error("chessdb got an Authorization header")
			}
		}
	}
	if explorer == 0 || chessdb == 0 {
		t.Errorf("explorer asked %d times, chessdb %d; want both asked", explorer, chessdb)
	}
	if strings.Contains(r.logs.String(), runBotToken) {
		t.Error("the token is in the log")
	}
}

// With engine.syzygy.paths for the built-in engine, the Lichess tablebase
// skips the positions the local tables hold (their move is played at
// once); it is still asked where they do not (more pieces, a castling
// right, a material without both tables), and always with an external
// engine, which gets no tables from engine.syzygy.
func TestOnlineTablebaseSkipsLocalTables(t *testing.T) {
	abs := testsupport.SyzygyDir(t)
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n  syzygy:\n    paths: ["+abs+"]\n"+
		"online:\n  tablebase: {enabled: true}\n  cloud_eval: {enabled: true}\n")
	_, tables, err := playerFactoryTables(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tables == nil {
		t.Fatal("no tables for the built-in engine")
	}
	var tb client.OnlineSource
	for _, s := range onlineSources(cfg, nil, tables) {
		switch s.Source.Name() {
		case "online-tablebase":
			tb = s
		default:
			if s.Skip != nil {
				t.Errorf("%s skips positions: only the tablebase should", s.Source.Name())
			}
		}
	}
	if tb.Skip == nil {
		t.Fatal("the online tablebase does not skip the local tables' positions")
	}
	for _, tc := range []struct {
		fen  string
		skip bool
	}{
		{"4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true},
		{"8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", false},
		{"4k3/pp6/8/8/8/8/PP6/3QK3 w - - 0 1", false},
		{"4k3/8/8/8/8/8/8/b2QK3 w - - 0 1", false}, // KQvKB: WDL table only
		{"not a fen", false},
	} {
		if got := tb.Skip(online.Position{FEN: tc.fen}); got != tc.skip {
			t.Errorf("%s: skip %v, want %v", tc.fen, got, tc.skip)
		}
	}
	cfg.Engine.Type = config.EngineExternal
	cfg.Engine.External.Path = "/bin/true"
	_, tables, err = playerFactoryTables(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range onlineSources(cfg, nil, tables) {
		if s.Skip != nil {
			t.Errorf("external engine: %s skips positions", s.Source.Name())
		}
	}
}

// Under engine.syzygy.probe_limit the built-in engine does not use the
// tables of more pieces, so the online tablebase is asked there: with
// limit 3, a 3-piece position the local tables hold is skipped, a 4-piece
// one is not.
func TestOnlineTablebaseSkipsUnderProbeLimit(t *testing.T) {
	abs := testsupport.SyzygyDir(t)
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n  syzygy:\n    paths: ["+abs+"]\n    probe_limit: 3\n"+
		"online:\n  tablebase: {enabled: true}\n")
	_, tables, err := playerFactoryTables(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srcs := onlineSources(cfg, nil, tables)
	if len(srcs) != 1 || srcs[0].Skip == nil {
		t.Fatalf("sources %+v, want the tablebase skipping the local tables' positions", srcs)
	}
	for _, tc := range []struct {
		fen  string
		skip bool
	}{
		{"4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true},
		{"8/8/8/8/8/3k4/7r/QK6 w - - 0 1", false},
		{"8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", true},
	} {
		if got := srcs[0].Skip(online.Position{FEN: tc.fen}); got != tc.skip {
			t.Errorf("%s: skip %v, want %v", tc.fen, got, tc.skip)
		}
	}
}
