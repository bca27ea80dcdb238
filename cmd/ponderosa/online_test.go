package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
)

// onlineSources makes the enabled sources only, in online.order, with
// their rules.
func TestOnlineSourcesFromConfig(t *testing.T) {
	cfg := config.Default()
	if s := onlineSources(cfg, nil); len(s) != 0 {
		t.Errorf("%d sources by default, want none", len(s))
	}
	cfg.Online.Order = []string{"chessdb", "cloud_eval", "tablebase", "explorer"}
	cfg.Online.ChessDB.Enabled, cfg.Online.ChessDB.MaxMisses = true, 7
	cfg.Online.Tablebase.Enabled, cfg.Online.Tablebase.Timeout = true, time.Second
	var names []string
	for _, s := range onlineSources(cfg, nil) {
		names = append(names, s.Source.Name())
		switch s.Source.Name() {
		case "chessdb":
			if s.MaxMisses != 7 || s.Timeout != 2*time.Second || s.MinTime != 20*time.Second {
				t.Errorf("chessdb rules %+v", s)
			}
		case "tablebase":
			if s.Timeout != time.Second || s.MaxMisses != 5 {
				t.Errorf("tablebase rules %+v", s)
			}
		}
	}
	if strings.Join(names, ",") != "chessdb,tablebase" {
		t.Errorf("sources %v, want chessdb,tablebase", names)
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
