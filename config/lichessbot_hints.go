package config

import "strings"

// lichessBotHints says where the setting of a lichess-bot config.yml key
// lives in ponderosa, keyed by the dotted path where lichess-bot writes it
// (its keys as of version 2026.8.2.1). An unknown-key error for such a key
// gives the hint instead of a did-you-mean: a lichess-bot user gets an
// answer, not a guess.
var lichessBotHints = map[string]string{
	"token": "ponderosa never reads the token from its configuration: put it in $" + TokenEnv +
		", the systemd credential \"" + CredentialName + "\", or a file named by lichess.token_file (chmod 600)",
	"url":                        "here lichess.base_url",
	"engine.dir":                 "here engine.external.path, the engine program's full path, with engine.type: external",
	"engine.name":                "here engine.external.path, the engine program's full path, with engine.type: external",
	"engine.protocol":            "here engine.type: external for a UCI engine, builtin for ponderosa's own; XBoard and homemade engines are not supported",
	"engine.working_dir":         "here engine.external.dir",
	"engine.interpreter":         "here engine.external.path names the interpreter, and engine.external.args its options and the engine file",
	"engine.interpreter_options": "here engine.external.args, before the engine file",
	"engine.engine_options":      "here engine.external.args, written as the command line wants them",
	"engine.uci_options":         "here engine.external.options",
	"engine.uci_ponder":          "here engine.ponder",
	"engine.debug":               "log.level: trace logs every line exchanged with a UCI engine",
	"engine.silence_stderr":      "ponderosa logs an engine's stderr lines at warning level; there is no switch",
	"engine.homemade_options":    "homemade (Python) engines are not supported",
	"engine.xboard_options":      "XBoard engines are not supported",
	"engine.polyglot": "here engine.book (files per variant, selection, min_weight, and max_depth in plies: twice lichess-bot's moves), " +
		"for the built-in engine; an external engine takes its book through its own UCI options in engine.external.options",
	"engine.lichess_bot_tbs": "here engine.syzygy (paths; a max_pieces below 7 as probe_limit) for the built-in engine; " +
		"an external engine takes its tables through its own SyzygyPath option in engine.external.options; Gaviota tables are not read",
	"engine.draw_or_resign": "here game.draw (accept, within_cp, after_move: accepting draw offers; offer, offer_within_cp, offer_moves, offer_pieces: " +
		"offering them; tablebase) and game.resign (enabled, below_cp: a positive margin, for_moves, tablebase)",
	"engine.online_moves":                      "here the top-level online section: online.tablebase, online.explorer, online.cloud_eval and online.chessdb, each with enabled, timeout, min_time and max_misses, asked in online.order; `ponderosa import-lichess-bot` translates it",
	"online.max_out_of_book_moves":             "here max_misses of each source, such as online.explorer.max_misses",
	"online.max_retries":                       "ponderosa asks each source once per move, within its timeout, such as online.explorer.timeout",
	"online.max_depth":                         "here online.explorer.max_ply, in plies",
	"online.online_egtb":                       "here online.tablebase (the Lichess tablebase; chessdb's is not used)",
	"online.lichess_cloud_analysis":            "here online.cloud_eval",
	"online.lichess_opening_explorer":          "here online.explorer",
	"online.chessdb_book":                      "here online.chessdb",
	"abort_time":                               "here game.abort_after, a duration such as 30s",
	"move_overhead":                            "here game.move_overhead, a duration such as 2s",
	"max_takebacks_accepted":                   "here game.accept_takebacks: true or false, with no count",
	"pgn_directory":                            "here game.pgn_dir (a relative path lies under state_dir)",
	"pgn_file_grouping":                        "ponderosa writes one PGN file per game",
	"greeting":                                 "here game.greeting (player, spectator) and game.goodbye (player, spectator) for lichess-bot's hello, hello_spectators, goodbye, goodbye_spectators",
	"quit_after_all_games_finish":              "here shutdown.grace_period: how long running games may go on after a stop is asked",
	"fake_think_time":                          "ponderosa has no equivalent",
	"rate_limiting_delay":                      "ponderosa has no equivalent; it waits as Lichess asks after a 429 answer",
	"challenge.accept_bot":                     "here challenge.accept_bots",
	"challenge.only_bot":                       "here challenge.accept_humans: false",
	"challenge.modes":                          "here challenge.accept_rated and challenge.accept_casual",
	"challenge.min_base":                       "here challenge.time_controls.<speed>.base_min, a duration, for each speed",
	"challenge.max_base":                       "here challenge.time_controls.<speed>.base_max, a duration, for each speed",
	"challenge.min_increment":                  "here challenge.time_controls.<speed>.increment_min, a duration, for each speed",
	"challenge.max_increment":                  "here challenge.time_controls.<speed>.increment_max, a duration, for each speed",
	"challenge.min_days":                       "here challenge.time_controls.correspondence.days_min",
	"challenge.max_days":                       "here challenge.time_controls.correspondence.days_max",
	"challenge.min_rating":                     "here challenge.opponent_rating.min",
	"challenge.max_rating":                     "here challenge.opponent_rating.max",
	"challenge.rating_difference":              "ponderosa has no equivalent: challenge.opponent_rating takes absolute bounds",
	"challenge.preference":                     "ponderosa has no equivalent: see challenge.sort_by and challenge.games_reserved_for_humans",
	"challenge.online_block_list":              "ponderosa has no equivalent: copy the names into challenge.block_list",
	"challenge.bullet_requires_increment":      "ponderosa has no bots-only rule: challenge.time_controls.bullet.increment_min applies to everyone",
	"challenge.recent_bot_challenge_age":       "ponderosa has no equivalent: see challenge.max_simultaneous_games_per_user and challenge.max_bot_games_per_day",
	"challenge.max_recent_bot_challenges":      "ponderosa has no equivalent: see challenge.max_simultaneous_games_per_user and challenge.max_bot_games_per_day",
	"matchmaking.allow_matchmaking":            "here matchmaking.enabled",
	"matchmaking.challenge_initial_time":       "here matchmaking.time_controls, written \"minutes+seconds\" such as \"3+2\"",
	"matchmaking.challenge_increment":          "here matchmaking.time_controls, written \"minutes+seconds\" such as \"3+2\"",
	"matchmaking.challenge_days":               "here matchmaking.correspondence_days, a list of days per move such as [1, 2, 3]",
	"matchmaking.challenge_variant":            "here matchmaking.variants, a list",
	"matchmaking.challenge_mode":               "here matchmaking.mode: rated, casual or random",
	"matchmaking.opponent_min_rating":          "here matchmaking.opponent_rating.min",
	"matchmaking.opponent_max_rating":          "here matchmaking.opponent_rating.max",
	"matchmaking.opponent_rating_difference":   "here matchmaking.rating_difference",
	"matchmaking.allow_during_games":           "ponderosa challenges whenever a slot is free (challenge.concurrency), games running or not",
	"matchmaking.rating_preference":            "ponderosa has no equivalent",
	"matchmaking.challenge_filter":             "here matchmaking.block_after_declines, per kind of challenge as lichess-bot's fine",
	"matchmaking.online_block_list":            "ponderosa has no equivalent: copy the names into matchmaking.block_list",
	"matchmaking.include_challenge_block_list": "ponderosa always applies challenge.block_list to matchmaking too",
	"matchmaking.challenge_decliner_file_name": "ponderosa has no equivalent",
	"matchmaking.overrides":                    "ponderosa has one matchmaking specification, no overrides",
	"correspondence.uci_ponder":                "here correspondence.ponder",
}

// lichessBotHint is the hint for a key unknown here that lichess-bot
// writes at path, or "".
func lichessBotHint(path string) string {
	h := lichessBotHints[path]
	if h == "" {
		return ""
	}
	key := path[strings.LastIndexByte(path, '.')+1:]
	return "lichess-bot's \"" + key + "\": " + h
}

// lichessBotTypeHint explains a type error at key when lichess-bot writes
// that key with another kind of value (tag, a YAML short tag), or "".
func lichessBotTypeHint(key, tag string) string {
	numeric := tag == "!!int" || tag == "!!float"
	switch {
	case key == "challenge.time_controls" && (tag == "!!seq" || tag == "!!str"):
		return "lichess-bot's list of speeds is challenge.speeds here; challenge.time_controls bounds the clock of each speed"
	case key == "matchmaking.challenge_timeout" && numeric:
		return "lichess-bot's challenge_timeout is the minutes idle before challenging, which is matchmaking.idle_time here (e.g. 30m); " +
			"here challenge_timeout is how long to wait for an answer (e.g. 1m)"
	case numeric && (key == "correspondence.move_time" || key == "correspondence.checkin_period" || key == "correspondence.disconnect_time"):
		return "lichess-bot counts it in seconds: write e.g. 60s"
	}
	return ""
}

// lichessBotImportHint is said once when a file has several lichess-bot
// keys.
const lichessBotImportHint = "this looks like a lichess-bot config.yml: `ponderosa import-lichess-bot FILE > config.yaml` translates it " +
	"into ponderosa's configuration and reports what has no equivalent"
