package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Online source names, as online.order lists them.
const (
	OnlineTablebaseKey = "tablebase"
	OnlineCloudEvalKey = "cloud_eval"
	OnlineExplorerKey  = "explorer"
	OnlineChessDBKey   = "chessdb"
)

// OnlineSourceKeys are the online sources, in their default order.
var OnlineSourceKeys = []string{OnlineTablebaseKey, OnlineExplorerKey, OnlineCloudEvalKey, OnlineChessDBKey}

// Online configures the online knowledge sources asked for a move before
// the engine thinks, in standard chess and games from a position, and in
// Chess960 the tablebase and the cloud evaluation (package client/online). Each is off by default; any failure of one (no answer
// within its timeout, an HTTP error, an illegal move) leaves the move to
// the engine, which has at least half of the time left (OnlineRules).
type Online struct {
	// Order is the order in which the enabled sources are asked; every
	// enabled source must be in it. Default tablebase, explorer,
	// cloud_eval, chessdb.
	Order     []string        `yaml:"order"`
	Tablebase OnlineTablebase `yaml:"tablebase"`
	CloudEval OnlineCloudEval `yaml:"cloud_eval"`
	Explorer  OnlineExplorer  `yaml:"explorer"`
	ChessDB   OnlineChessDB   `yaml:"chessdb"`
}

// OnlineRules are the settings every online source has.
type OnlineRules struct {
	// Enabled asks the source. Default false.
	Enabled bool `yaml:"enabled"`
	// Timeout bounds one question. The sources of a move share half of
	// the time left until the move's deadline: a question gets the least
	// of its timeout and what the sources asked before left of that half
	// (a source left with less than 50ms is not asked). Their time comes
	// off our clock, since the engine starts only once the sources
	// missed, but the engine always has at least the other half.
	// Default 2s.
	Timeout time.Duration `yaml:"timeout"`
	// MinTime is the least time on our clock for the source to be asked
	// (before the clocks run: the whole clock, not the first-move
	// expiration). Default 20s.
	MinTime time.Duration `yaml:"min_time"`
	// MaxMisses stops asking the source for the rest of a game after so
	// many misses in a row (lichess-bot's max_out_of_book_moves); 0: never
	// stop. Default 5.
	MaxMisses int `yaml:"max_misses"`
}

// OnlineTablebase is the Lichess tablebase (up to 7 pieces). It is not
// asked in a position that the built-in engine's local tables
// (engine.syzygy) hold.
type OnlineTablebase struct {
	OnlineRules `yaml:",inline"`
	// MaxPieces is the most pieces (kings included) of a position asked
	// about, 3 to 7. Default 7.
	MaxPieces int `yaml:"max_pieces"`
	// URL is the tablebase server. Default https://tablebase.lichess.org.
	URL string `yaml:"url"`
}

// OnlineCloudEval is the Lichess cloud evaluation.
type OnlineCloudEval struct {
	OnlineRules `yaml:",inline"`
	// MultiPV is how many variations are asked for, 1 to 5. Default 1.
	MultiPV int `yaml:"multi_pv"`
	// MinDepth leaves out evaluations shallower than this. Default 20.
	MinDepth int `yaml:"min_depth"`
	// MaxCPLoss plays a random one of the variations within this many
	// centipawns of the best; 0 (the default) plays the best.
	MaxCPLoss int `yaml:"max_cp_loss"`
}

// OnlineExplorer is the Lichess opening explorer (it gets the bot's token).
type OnlineExplorer struct {
	OnlineRules `yaml:",inline"`
	// Database is masters or lichess. Default masters.
	Database string `yaml:"database"`
	// Sort is games (the move played most, the default) or score (the
	// move that scored best for the side to move).
	Sort string `yaml:"sort"`
	// MinGames leaves out moves played in fewer games. Default 10.
	MinGames int `yaml:"min_games"`
	// MaxPly stops asking after this many plies of the game; 0 (the
	// default): no limit.
	MaxPly int `yaml:"max_ply"`
	// Speeds and Ratings narrow the lichess database (ultraBullet, bullet,
	// blitz, rapid, classical, correspondence; rating groups 0, 1000,
	// 1200, 1400, 1600, 1800, 2000, 2200, 2500). Default: all.
	Speeds  []string `yaml:"speeds"`
	Ratings []int    `yaml:"ratings"`
	// URL is the explorer server. Default https://explorer.lichess.org.
	URL string `yaml:"url"`
}

// OnlineChessDB is chessdb (www.chessdb.cn), which never gets the token.
type OnlineChessDB struct {
	OnlineRules `yaml:",inline"`
	// Action is querybest (chessdb's best move, the default) or queryall
	// (a random one of its moves of rank min_rank or better and score
	// min_score or more).
	Action string `yaml:"action"`
	// MinRank is the least chessdb rank of a move for queryall: 2 the best
	// moves, 1 good ones, 0 any. Default 2.
	MinRank int `yaml:"min_rank"`
	// MinScore is the least score (centipawns, for the side to move) of
	// a move for queryall. Default -100.
	MinScore int `yaml:"min_score"`
	// URL is the chessdb server. Default https://www.chessdb.cn.
	URL string `yaml:"url"`
}

// Rules returns the settings of the source key (one of OnlineSourceKeys).
func (o Online) Rules(key string) OnlineRules {
	switch key {
	case OnlineTablebaseKey:
		return o.Tablebase.OnlineRules
	case OnlineCloudEvalKey:
		return o.CloudEval.OnlineRules
	case OnlineExplorerKey:
		return o.Explorer.OnlineRules
	case OnlineChessDBKey:
		return o.ChessDB.OnlineRules
	}
	return OnlineRules{}
}

// Enabled lists the enabled sources in the order they are asked.
func (o Online) Enabled() []string {
	var out []string
	for _, k := range o.Order {
		if o.Rules(k).Enabled && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func defaultOnline() Online {
	rules := OnlineRules{Timeout: 2 * time.Second, MinTime: 20 * time.Second, MaxMisses: 5}
	return Online{
		Order: slices.Clone(OnlineSourceKeys),
		Tablebase: OnlineTablebase{OnlineRules: rules,
			MaxPieces: 7, URL: "https://tablebase.lichess.org"},
		CloudEval: OnlineCloudEval{OnlineRules: rules,
			MultiPV: 1, MinDepth: 20},
		Explorer: OnlineExplorer{OnlineRules: rules,
			Database: "masters", Sort: "games", MinGames: 10, Speeds: []string{}, Ratings: []int{},
			URL: "https://explorer.lichess.org"},
		ChessDB: OnlineChessDB{OnlineRules: rules,
			Action: "querybest", MinRank: 2, MinScore: -100, URL: "https://www.chessdb.cn"},
	}
}

// explorerSpeeds and explorerRatings are what the lichess database of the
// explorer knows.
var (
	explorerSpeeds  = []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"}
	explorerRatings = []int{0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500}
)

// online checks the online section.
func (v *validator) online() {
	o := v.c.Online
	seen := map[string]bool{}
	for i, k := range o.Order {
		key := fmt.Sprintf("online.order[%d]", i)
		if !v.oneOf(key, k, OnlineSourceKeys) {
			continue
		}
		if seen[k] {
			v.add(key, "%s is listed twice", k)
		}
		seen[k] = true
	}
	for _, k := range OnlineSourceKeys {
		r := o.Rules(k)
		p := "online." + k
		v.durationIn(p+".timeout", r.Timeout, 100*time.Millisecond, time.Minute, "")
		v.durationIn(p+".min_time", r.MinTime, 0, 24*time.Hour, "the least time left on our clock to ask it")
		v.intIn(p+".max_misses", r.MaxMisses, 0, 1000, "misses in a row before it is not asked again in a game; 0: no limit")
		if r.Enabled && !seen[k] {
			v.add(p+".enabled", "%s is enabled but not in online.order: add it there", k)
		}
	}
	v.intIn("online.tablebase.max_pieces", o.Tablebase.MaxPieces, 3, 7, "the Lichess tablebase has up to 7 pieces")
	v.onlineURL("online.tablebase.url", o.Tablebase.URL, false)

	v.intIn("online.cloud_eval.multi_pv", o.CloudEval.MultiPV, 1, 5, "the cloud keeps up to 5 variations")
	v.intIn("online.cloud_eval.min_depth", o.CloudEval.MinDepth, 0, 100, "")
	v.intIn("online.cloud_eval.max_cp_loss", o.CloudEval.MaxCPLoss, 0, 1000, "0 plays the best variation")

	e := o.Explorer
	v.oneOf("online.explorer.database", e.Database, []string{"masters", "lichess"})
	v.oneOf("online.explorer.sort", e.Sort, []string{"games", "score"})
	v.intIn("online.explorer.min_games", e.MinGames, 0, 1000000000, "")
	v.intIn("online.explorer.max_ply", e.MaxPly, 0, 1000, "0: no limit")
	for i, s := range e.Speeds {
		v.oneOf(fmt.Sprintf("online.explorer.speeds[%d]", i), s, explorerSpeeds)
	}
	for i, r := range e.Ratings {
		if !slices.Contains(explorerRatings, r) {
			v.add(fmt.Sprintf("online.explorer.ratings[%d]", i), "%d is not a rating group of the explorer: use %s", r, joinInts(explorerRatings))
		}
	}
	if e.Database == "masters" && (len(e.Speeds) > 0 || len(e.Ratings) > 0) {
		v.add("online.explorer.database", "speeds and ratings narrow the lichess database only: set database: lichess, or remove them")
	}
	// The explorer gets the bot's token: https only (but for loopback).
	v.onlineURL("online.explorer.url", e.URL, true)

	d := o.ChessDB
	v.oneOf("online.chessdb.action", d.Action, []string{"querybest", "queryall"})
	v.intIn("online.chessdb.min_rank", d.MinRank, 0, 2, "chessdb's ranks: 2 the best moves, 1 good ones, 0 any")
	v.intIn("online.chessdb.min_score", d.MinScore, -30000, 30000, "centipawns for the side to move")
	v.onlineURL("online.chessdb.url", d.URL, false)
}

// onlineURL checks the address of a source's server; token says it gets
// the bot's token (https only, but for loopback).
func (v *validator) onlineURL(key, s string, token bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add(key, "%q is not an http(s) address such as https://host", s)
		return
	}
	if token && u.Scheme == "http" && !isLoopback(u.Hostname()) {
		v.add(key, "plain http would send the token unencrypted: use https (http is allowed only for localhost)")
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// onlineSummary describes the enabled online sources in one line.
func (c *Config) onlineSummary() string {
	o := c.Online
	var parts []string
	for _, k := range o.Enabled() {
		r := o.Rules(k)
		var what string
		switch k {
		case OnlineTablebaseKey:
			what = fmt.Sprintf("tablebase (up to %d pieces)", o.Tablebase.MaxPieces)
		case OnlineCloudEvalKey:
			what = fmt.Sprintf("cloud evaluation (depth %d or more)", o.CloudEval.MinDepth)
		case OnlineExplorerKey:
			what = fmt.Sprintf("explorer (%s, by %s, %d games or more)", o.Explorer.Database, o.Explorer.Sort, o.Explorer.MinGames)
		case OnlineChessDBKey:
			what = fmt.Sprintf("chessdb (%s)", o.ChessDB.Action)
		}
		misses := "no miss cap"
		if r.MaxMisses > 0 {
			misses = fmt.Sprintf("off after %d misses", r.MaxMisses)
		}
		parts = append(parts, fmt.Sprintf("%s, timeout %v, with %v left or more, %s", what, r.Timeout, r.MinTime, misses))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; then ")
}
