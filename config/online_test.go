package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Every online source is off by default, in the default order.
func TestOnlineDefaultsOff(t *testing.T) {
	c := Default()
	if got := c.Online.Enabled(); len(got) != 0 {
		t.Errorf("enabled by default: %v", got)
	}
	if !slices.Equal(c.Online.Order, OnlineSourceKeys) {
		t.Errorf("order %v", c.Online.Order)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if s := c.Summary(); !strings.Contains(s, "online:      none") {
		t.Errorf("summary without online sources:\n%s", s)
	}
}

// The online section reaches the config: the enabled sources in order,
// with their rules and settings, and the summary says them.
func TestOnlineSettings(t *testing.T) {
	src := `online:
  order: [explorer, chessdb, tablebase]
  explorer:
    enabled: true
    timeout: 500ms
    min_time: 1m
    max_misses: 3
    database: lichess
    sort: score
    min_games: 50
    speeds: [blitz, rapid]
    ratings: [2200, 2500]
  tablebase: {enabled: true, max_pieces: 6, max_misses: 0}
  chessdb: {enabled: true, action: queryall, min_rank: 1, min_score: 20}
`
	c, err := Parse([]byte(src), "bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := c.Online
	if got := o.Enabled(); !slices.Equal(got, []string{"explorer", "chessdb", "tablebase"}) {
		t.Errorf("enabled %v", got)
	}
	if r := o.Rules("explorer"); r != (OnlineRules{Enabled: true, Timeout: 500 * time.Millisecond, MinTime: time.Minute, MaxMisses: 3}) {
		t.Errorf("explorer rules %+v", r)
	}
	if r := o.Rules("tablebase"); r.MaxMisses != 0 || r.Timeout != 2*time.Second || r.MinTime != 20*time.Second {
		t.Errorf("tablebase rules %+v (defaults but max_misses 0)", r)
	}
	if e := o.Explorer; e.Database != "lichess" || e.Sort != "score" || e.MinGames != 50 || !slices.Equal(e.Speeds, []string{"blitz", "rapid"}) || !slices.Equal(e.Ratings, []int{2200, 2500}) {
		t.Errorf("explorer %+v", e)
	}
	if d := o.ChessDB; d.Action != "queryall" || d.MinRank != 1 || d.MinScore != 20 {
		t.Errorf("chessdb %+v", d)
	}
	s := c.Summary()
	for _, want := range []string{"explorer (lichess, by score, 50 games or more), timeout 500ms, with 1m0s left or more, off after 3 misses; then chessdb (queryall)",
		"tablebase (up to 6 pieces), timeout 2s, with 20s left or more, no miss cap"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// Bad online settings get one clear problem each, naming the key.
func TestOnlineValidation(t *testing.T) {
	tests := []struct{ src, want string }{
		{"online:\n  order: [tablebase, syzygy]\n", `online.order[1]: "syzygy" is not one of tablebase, explorer, cloud_eval, chessdb`},
		{"online:\n  order: [tablebase, tablebase]\n", "online.order[1]: tablebase is listed twice"},
		{"online:\n  order: [tablebase]\n  chessdb: {enabled: true}\n", "online.chessdb.enabled: chessdb is enabled but not in online.order"},
		{"online:\n  cloud_eval: {timeout: 0s}\n", "online.cloud_eval.timeout: must be between 100ms and 1m0s"},
		{"online:\n  explorer: {min_time: -1s}\n", "online.explorer.min_time: must be between"},
		{"online:\n  chessdb: {max_misses: -1}\n", "online.chessdb.max_misses"},
		{"online:\n  tablebase: {max_pieces: 8}\n", "online.tablebase.max_pieces"},
		{"online:\n  tablebase: {url: 'ftp://x'}\n", `online.tablebase.url: "ftp://x" is not an http(s) address`},
		{"online:\n  explorer: {url: 'http://explorer.example.org'}\n", "online.explorer.url: plain http would send the token unencrypted"},
		{"online:\n  explorer: {database: players}\n", "online.explorer.database"},
		{"online:\n  explorer: {sort: popularity}\n", "online.explorer.sort"},
		{"online:\n  explorer: {database: lichess, speeds: [blitz, hyper]}\n", "online.explorer.speeds[1]"},
		{"online:\n  explorer: {database: lichess, ratings: [1500]}\n", "online.explorer.ratings[0]: 1500 is not a rating group"},
		{"online:\n  explorer: {speeds: [blitz]}\n", "online.explorer.database: speeds and ratings narrow the lichess database only"},
		{"online:\n  cloud_eval: {multi_pv: 6}\n", "online.cloud_eval.multi_pv"},
		{"online:\n  chessdb: {action: querypv}\n", "online.chessdb.action"},
		{"online:\n  chessdb: {min_rank: 3}\n", "online.chessdb.min_rank"},
		{"online:\n  chessdb: {enabeld: true}\n", `unknown key "enabeld" in online.chessdb (did you mean "enabled"?)`},
	}
	for _, tc := range tests {
		probs := problemsOf(t, tc.src)
		if len(probs) != 1 || !strings.Contains(probs[0].Error(), tc.want) {
			t.Errorf("%q: problems %v, want one with %q", tc.src, probs, tc.want)
		}
	}
	// http is fine for a local explorer (a test server).
	if _, err := Parse([]byte("online:\n  explorer: {url: 'http://127.0.0.1:9002'}\n"), ""); err != nil {
		t.Errorf("a loopback explorer: %v", err)
	}
}

// lichess-bot's online_moves, under engine as lichess-bot has it or moved
// to online, gets a hint to ponderosa's keys.
func TestOnlineLichessBotHints(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"engine:\n  online_moves: {max_out_of_book_moves: 10}\n", `unknown key "online_moves" in engine (lichess-bot's "online_moves": here the top-level online section`},
		{"online:\n  lichess_cloud_analysis: {enabled: true}\n", `unknown key "lichess_cloud_analysis" in online (lichess-bot's "lichess_cloud_analysis": here online.cloud_eval)`},
		{"online:\n  max_out_of_book_moves: 10\n", "here max_misses of each source"},
	} {
		probs := problemsOf(t, tc.src)
		if len(probs) != 1 || !strings.Contains(probs[0].Error(), tc.want) {
			t.Errorf("%q: problems %v, want one with %q", tc.src, probs, tc.want)
		}
	}
}
