package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
)

// The Config never holds the token, so what follows cannot leak it; these
// methods still print only chosen fields, so that a field added later is not
// logged by accident.

// String is a one-line description, safe to log.
func (c *Config) String() string {
	mm := "off"
	if c.Matchmaking.Enabled {
		mm = "on"
	}
	src := c.source
	if src == "" {
		src = "(built in)"
	}
	return fmt.Sprintf("config %s: %s, %s engine, up to %d games, matchmaking %s",
		src, c.Lichess.BaseURL, c.Engine.Type, c.Challenge.Concurrency, mm)
}

// MarshalZerologObject logs the main settings: log.Info().Object("config", cfg).
func (c *Config) MarshalZerologObject(e *zerolog.Event) {
	e.Str("source", c.source).
		Str("state_dir", c.StateDir).
		Str("base_url", c.Lichess.BaseURL).
		Str("engine", c.Engine.Type).
		Bool("ponder", c.Engine.Ponder).
		Int("concurrency", c.Challenge.Concurrency).
		Strs("variants", c.Challenge.Variants).
		Strs("speeds", c.Challenge.Speeds).
		Bool("matchmaking", c.Matchmaking.Enabled).
		Dur("move_overhead", c.Game.MoveOverhead).
		Dur("grace_period", c.Shutdown.GracePeriod).
		Strs("online", c.Online.Enabled()).
		Str("http_listen", c.HTTP.Listen).
		Bool("http_access_token", c.HTTP.AccessToken != "") // whether one is set, never the token
	if len(c.Engine.Variants) > 0 {
		e.Strs("variant_engines", slices.Sorted(maps.Keys(c.Engine.Variants)))
	}
	if c.Engine.Type == EngineExternal {
		e.Str("engine_path", c.Engine.External.Path)
	} else {
		e.Int("hash_mb", c.Engine.Builtin.HashMB).
			Int("threads", c.Engine.Builtin.Threads).
			Int("threads_total", c.Engine.Builtin.ThreadsTotalOrCores()).
			Int("hash_per_game_mb", c.HashPerGameMB()).
			Int("tree_memory_mb", c.Engine.Builtin.TreeMemoryMB).
			Str("eval", c.Engine.Builtin.Eval).
			Bool("learn", c.Engine.Builtin.Learn)
		if c.Engine.Builtin.Eval == EvalNNUE {
			e.Str("eval_file", c.Engine.Builtin.EvalFile)
		}
		for _, variant := range slices.Sorted(maps.Keys(c.Engine.Book.Files)) {
			e.Strs("book_"+variant, c.Engine.Book.Files[variant])
		}
		if len(c.Engine.Syzygy.Paths) > 0 {
			e.Strs("syzygy_paths", c.Engine.Syzygy.Paths)
		}
	}
}

// Summary describes the effective configuration in a few lines for people
// (ponderosa check-config).
func (c *Config) Summary() string {
	var b strings.Builder
	line := func(name, format string, args ...any) {
		if name != "" {
			name += ":"
		} // else a continuation of the line above
		fmt.Fprintf(&b, "  %-12s %s\n", name, fmt.Sprintf(format, args...))
	}
	onOff := func(x bool) string {
		if x {
			return "on"
		}
		return "off"
	}
	state := c.StateDir
	if state == "" {
		state = "default: $STATE_DIRECTORY under systemd, else $XDG_STATE_HOME/ponderosa or ~/.local/state/ponderosa"
	}
	line("state", "%s", state)
	line("lichess", "%s (requests time out after %v, streams after %v of silence)",
		c.Lichess.BaseURL, c.Lichess.RequestTimeout, c.Lichess.StreamReadTimeout)
	switch e := c.Engine; e.Type {
	case EngineExternal:
		line("engine", "external %s %s, pondering %s, %d UCI options",
			e.External.Path, strings.Join(e.External.Args, " "), onOff(e.Ponder), len(e.External.Options))
	default:
		bi := e.Builtin
		line("engine", "built-in, hash %d MiB (%d MiB per game, %d game(s) at once), %d thread(s) per search and %d in all, tree %d MiB per game, variety %d cp, pondering %s",
			bi.HashMB, c.HashPerGameMB(), c.GamesAtOnce(), bi.Threads, bi.ThreadsTotalOrCores(), bi.TreeMemoryMB, bi.VarietyCP, onOff(e.Ponder))
		if bi.Eval == EvalNNUE {
			file := bi.EvalFile
			if file == "" {
				file = "the embedded net"
			}
			line("eval", "network (%s)", file)
		} else {
			line("eval", "hand-crafted (classical)")
		}
		line("memory", "about %d MiB at most (hash + %d games × tree)",
			c.HashPerGameMB()*c.GamesAtOnce()+c.GamesAtOnce()*bi.TreeMemoryMB, c.GamesAtOnce())
		if bi.Learn {
			line("learn", "on: a learning memory of at most %d entries in the state database", bi.LearnMaxEntries)
		} else {
			line("learn", "off")
		}
		if bk := e.Book; len(bk.Files) > 0 {
			var per []string
			for _, variant := range slices.Sorted(maps.Keys(bk.Files)) {
				per = append(per, fmt.Sprintf("%s: %s", variant, strings.Join(bk.Files[variant], ", ")))
			}
			depth := "no ply limit"
			if bk.MaxDepth > 0 {
				depth = fmt.Sprintf("up to ply %d", bk.MaxDepth)
			}
			line("book", "%s (%s, min weight %d, %s)", strings.Join(per, "; "), bk.Selection, bk.MinWeight, depth)
		} else {
			line("book", "none")
		}
		if sz := e.Syzygy; len(sz.Paths) > 0 {
			rule := "fifty-move rule counted"
			if !sz.FiftyMoveRule {
				rule = "fifty-move rule ignored"
			}
			line("tablebases", "syzygy in %s (%s)", strings.Join(sz.Paths, ", "), rule)
		} else {
			line("tablebases", "none")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Engine.Variants)) {
		x := c.Engine.Variants[name]
		line("", "%s: external %s (UCI_Variant %s), %d UCI options",
			name, strings.Join(append([]string{x.Path}, x.Args...), " "), VariantUCINames[name], len(x.Options))
	}
	line("online", "%s", c.onlineSummary())
	ch := c.Challenge
	if ch.Accept {
		var modes, who []string
		if ch.AcceptRated {
			modes = append(modes, "rated")
		}
		if ch.AcceptCasual {
			modes = append(modes, "casual")
		}
		if ch.AcceptBots {
			who = append(who, "bots")
		}
		if ch.AcceptHumans {
			who = append(who, "humans")
		}
		line("challenges", "accepted, up to %d game(s) at once; %s; %s; %s from %s rated %d–%d; %d bot games a day",
			ch.Concurrency, strings.Join(ch.Variants, ", "), strings.Join(ch.Speeds, ", "),
			strings.Join(modes, "+"), strings.Join(who, "+"), ch.OpponentRating.Min, ch.OpponentRating.Max,
			ch.MaxBotGamesPerDay)
		queue := "no queue: a challenge that finds every slot busy is declined"
		if ch.QueueLength > 0 {
			order := "in arrival order"
			if ch.SortBy == SortBest {
				order = "best-rated first"
			}
			queue = fmt.Sprintf("up to %d challenge(s) wait for a slot, %s, for at most %v", ch.QueueLength, order, ch.QueueMaxAge)
		}
		line("queue", "%s; %d slot(s) reserved for humans; at most %d game(s) per opponent", queue, ch.GamesReservedForHumans, ch.MaxSimultaneousGamesPerUser)
		if len(ch.AllowList) > 0 {
			line("", "only from %s", strings.Join(ch.AllowList, ", "))
		}
		if len(ch.BlockList) > 0 {
			line("", "never from %s", strings.Join(ch.BlockList, ", "))
		}
	} else {
		line("challenges", "all declined")
	}
	if cr := c.Correspondence; c.Challenge.Accept && slices.Contains(c.Challenge.Speeds, SpeedCorrespondence) {
		ponder := "no pondering"
		if cr.Ponder {
			ponder = "pondering"
		}
		line("correspondence", "up to %d game(s) apart from the real-time ones; %v a move, stream let go %v after it (%s), check-in every %v",
			cr.Concurrency, cr.MoveTime, cr.DisconnectTime, ponder, cr.CheckinPeriod)
	}
	if m := c.Matchmaking; m.Enabled {
		tcs := make([]string, len(m.TimeControls))
		for i, tc := range m.TimeControls {
			tcs[i] = tc.String()
		}
		if len(m.CorrespondenceDays) > 0 {
			days := make([]string, len(m.CorrespondenceDays))
			for i, d := range m.CorrespondenceDays {
				days[i] = strconv.Itoa(d)
			}
			tcs = append(tcs, "correspondence ("+strings.Join(days, ", ")+" days a move)")
		}
		diff := ""
		if m.RatingDifference > 0 {
			diff = fmt.Sprintf(" and within %d of ours", m.RatingDifference)
		}
		block := "no block list"
		if m.BlockAfterDeclines > 0 {
			block = fmt.Sprintf("blocking a bot while it has declined %d times within %dd", m.BlockAfterDeclines, m.BlockDays)
		}
		var own []string
		for _, variant := range slices.Sorted(maps.Keys(m.VariantTimeControls)) {
			clocks := make([]string, len(m.VariantTimeControls[variant]))
			for i, tc := range m.VariantTimeControls[variant] {
				clocks[i] = tc.String()
			}
			own = append(own, variant+" at "+strings.Join(clocks, " "))
		}
		ownTCs := ""
		if len(own) > 0 {
			ownTCs = " (" + strings.Join(own, "; ") + ")"
		}
		line("matchmaking", "when a slot has been free %v: %s %s %s%s, bots rated %d–%d%s; %s", m.IdleTime, m.ChallengeMode(),
			strings.Join(tcs, " "), strings.Join(m.Variants, ", "), ownTCs, m.OpponentRating.Min, m.OpponentRating.Max, diff, block)
	} else {
		line("matchmaking", "off")
	}
	if len(c.Tournament.Join) > 0 {
		line("tournaments", "%s", c.Tournament.summary())
	}
	g := c.Game
	pgn := "not saved"
	switch p := c.ResolvePGNDir(c.StateDir); {
	case p == "":
	case c.StateDir == "" && !filepath.IsAbs(p):
		pgn = "saved in " + p + " under the state directory"
	default:
		pgn = "saved in " + p
	}
	resign := "never resigns"
	switch {
	case g.Resign.Enabled && g.Resign.Tablebase:
		resign = fmt.Sprintf("resigns at -%d cp for %d moves and tablebase losses", g.Resign.BelowCP, g.Resign.ForMoves)
	case g.Resign.Enabled:
		resign = fmt.Sprintf("resigns at -%d cp for %d moves", g.Resign.BelowCP, g.Resign.ForMoves)
	case g.Resign.Tablebase:
		resign = "resigns tablebase losses only"
	}
	tb := ""
	if g.Draw.Tablebase {
		tb = " or by tablebase"
	}
	draw := "declines draws"
	if g.Draw.Accept {
		draw = fmt.Sprintf("accepts draws within %d cp from move %d%s", g.Draw.WithinCP, g.Draw.AfterMove, tb)
	}
	if g.Draw.Offer {
		pieces := "any number of pieces"
		if g.Draw.OfferPieces > 0 {
			pieces = fmt.Sprintf("at most %d pieces", g.Draw.OfferPieces)
		}
		draw += fmt.Sprintf(", offers draws after %d moves within %d cp from move %d%s, with %s, not for %d moves after a refusal, "+
			"not to an opponent with less than %v or a quarter of our clock",
			g.Draw.OfferMoves, g.Draw.OfferWithinCP, g.Draw.OfferAfterMove, tb, pieces, g.Draw.OfferPauseMoves, g.Draw.OfferMinOpponentClock)
	} else {
		draw += ", offers none"
	}
	line("games", "move overhead %v, %s, %s, opponent gone: %s, PGN %s", g.MoveOverhead, draw, resign, g.OpponentGone, pgn)
	to := "stderr"
	if c.Log.File != "" {
		to = "file " + c.Log.File
	}
	line("log", "level %s, format %s, to %s", c.Log.Level, c.Log.Format, to)
	line("shutdown", "games may finish for %v", c.Shutdown.GracePeriod)
	line("http", "%s", c.httpSummary())
	return b.String()
}

// ExpandMessage fills the {me} and {opponent} placeholders of a chat message.
func ExpandMessage(msg, me, opponent string) string {
	return strings.NewReplacer("{me}", me, "{opponent}", opponent).Replace(msg)
}
