package lichessbot

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
)

func (t *translator) matchmaking(m *section) {
	enabled := m.boolean("allow_matchmaking", false)
	if enabled && t.noGames {
		enabled = false // noted with challenge.concurrency
	}
	if enabled && t.noBotGames {
		t.r.note(KindChanged, m.keyLine("allow_matchmaking"), "matchmaking.allow_matchmaking",
			"challenge.games_reserved_for_humans reserves every slot for humans, so lichess-bot never challenges a bot: written as matchmaking.enabled: false")
		enabled = false
	}
	t.b.set(p("matchmaking.enabled"), enabled, from(m, "allow_matchmaking"))

	// Time controls: lichess-bot draws a base and an increment apart, so
	// every pair may be offered.
	bases := m.numList("challenge_initial_time")
	incs := m.numList("challenge_increment")
	if len(incs) == 0 && len(bases) > 0 {
		incs = []float64{0}
	}
	if len(bases) == 0 && len(incs) > 0 {
		bases = []float64{0}
	}
	var tcs []config.TimeControl
	for _, b := range bases {
		for _, i := range incs {
			tc := config.TimeControl{Base: secs(b), Increment: secs(i)}
			if why := badClock(tc); why != "" {
				t.r.note(KindChanged, m.keyLine("challenge_initial_time"), "matchmaking.challenge_initial_time",
					"%g s + %g s: %s: left out", b, i, why)
				continue
			}
			if !slices.Contains(tcs, tc) {
				tcs = append(tcs, tc)
			}
		}
	}
	days := t.matchDays(m, len(tcs) > 0)
	switch {
	case len(tcs) == 0 && len(days) == 0:
		if enabled {
			t.r.note(KindChanged, m.line, "matchmaking",
				"no time control to offer (challenge_initial_time, challenge_increment, challenge_days): written as matchmaking.enabled: false")
			t.b.set(p("matchmaking.enabled"), false, "")
		}
		// ponderosa's default stays; it is used by nobody while disabled.
	case len(tcs) == 0:
		// Written empty: correspondence only, as lichess-bot offers with
		// days and no clock.
		t.b.set(p("matchmaking.time_controls"), []config.TimeControl{},
			from(m, "challenge_initial_time", "challenge_increment")+": no clock, correspondence only")
	default:
		t.b.set(p("matchmaking.time_controls"), tcs, from(m, "challenge_initial_time", "challenge_increment")+" (every pair)")
	}
	if len(days) > 0 {
		comment := from(m, "challenge_days")
		if len(tcs) > 0 {
			comment += ": each challenge real-time or correspondence at random, as in lichess-bot"
		}
		t.b.set(p("matchmaking.correspondence_days"), days, comment)
	}

	// Variants: "random" picks among the accepted variants but fromPosition.
	variant := m.str("challenge_variant", "random")
	var variants []string
	if variant == "random" {
		for _, v := range t.variants {
			if v != "fromPosition" {
				variants = append(variants, v)
			}
		}
	} else if variant == "fromPosition" {
		t.r.note(KindChanged, m.keyLine("challenge_variant"), "matchmaking.challenge_variant",
			"fromPosition needs a position, which the matchmaker's challenges do not carry: left out")
	} else if slices.Contains(t.variants, variant) || slices.Contains(standardVariants, variant) {
		variants = []string{variant}
	} else {
		t.r.note(KindChanged, m.keyLine("challenge_variant"), "matchmaking.challenge_variant",
			"%q is not a variant ponderosa plays here: left out", variant)
	}
	if len(variants) == 0 {
		variants = []string{"standard"}
		if m.has("challenge_variant") || len(t.variants) > 0 {
			t.r.note(KindChanged, m.keyLine("challenge_variant"), "matchmaking.challenge_variant",
				"no variant left to offer: written as [standard]")
		}
	}
	t.b.set(p("matchmaking.variants"), variants, from(m, "challenge_variant")+", among challenge.variants")

	switch mode := m.str("challenge_mode", "random"); mode {
	case "rated":
		t.b.set(p("matchmaking.rated"), true, from(m, "challenge_mode"))
	case "casual":
		t.b.set(p("matchmaking.rated"), false, from(m, "challenge_mode"))
	case "random":
		// lichess-bot's default: written only where it says something
		// (a user who then writes rated: would be refused beside it).
		if m.has("challenge_mode") || enabled {
			t.b.set(p("matchmaking.mode"), config.ModeRandom, from(m, "challenge_mode")+": each challenge rated or casual at random")
		}
	default:
		t.r.note(KindUnknown, m.keyLine("challenge_mode"), "matchmaking.challenge_mode", "%q is not rated, casual or random", mode)
	}

	minR, maxR := m.integer("opponent_min_rating", 600), m.integer("opponent_max_rating", 4000)
	minR, maxR = min(max(minR, 0), 4000), min(max(maxR, 0), 4000)
	// lichess-bot's opponent_rating_difference, when set, takes the place
	// of the rating bounds (for a bot with a rating in the speed, which
	// Lichess gives every account); ponderosa applies both, so the bounds
	// are written open.
	diffFrom := from(m, "opponent_rating_difference")
	if m.has("opponent_rating_difference") {
		diff := m.integer("opponent_rating_difference", 0)
		switch {
		case diff < 0:
			if enabled {
				t.r.note(KindChanged, m.keyLine("opponent_rating_difference"), "matchmaking.opponent_rating_difference",
					"%d: no bot is rated that close to the bot, so lichess-bot challenges none: written as matchmaking.enabled: false", diff)
				t.b.set(p("matchmaking.enabled"), false, "")
				enabled = false
			}
			diff = 0
		case diff == 0:
			// lichess-bot: only bots rated exactly as ours; ponderosa's 0 is no limit.
			t.r.note(KindChanged, m.keyLine("opponent_rating_difference"), "matchmaking.opponent_rating_difference",
				"0: lichess-bot challenges only bots rated exactly as the bot; ponderosa takes 1 as the smallest difference: written as 1")
			diff = 1
		case diff > 4000:
			diff = 4000
		}
		t.b.set(p("matchmaking.rating_difference"), diff, diffFrom)
		if diff > 0 && (m.has("opponent_min_rating") || m.has("opponent_max_rating")) {
			t.r.note(KindChanged, m.keyLine("opponent_min_rating"), "matchmaking.opponent_min_rating",
				"lichess-bot does not look at opponent_min_rating and opponent_max_rating when opponent_rating_difference is set; "+
					"ponderosa applies both: written as opponent_rating 0 to 4000")
		}
		if diff > 0 {
			minR, maxR = 0, 4000
		}
	}
	if minR > maxR {
		if enabled {
			t.r.note(KindChanged, m.keyLine("opponent_min_rating"), "matchmaking.opponent_min_rating",
				"opponent_min_rating (%d) is above opponent_max_rating (%d), so lichess-bot finds no bot to challenge: written as matchmaking.enabled: false", minR, maxR)
			t.b.set(p("matchmaking.enabled"), false, "")
			enabled = false
		}
		minR = maxR
	}
	t.b.set(p("matchmaking.opponent_rating.min"), minR, "")
	t.b.set(p("matchmaking.opponent_rating.max"), maxR, "")
	t.b.flow(p("matchmaking.opponent_rating"), from(m, "opponent_min_rating", "opponent_max_rating"))
	if m.written("opponent_rating_difference") && !m.has("opponent_rating_difference") {
		m.take("opponent_rating_difference")
		t.r.note(KindSame, m.keyLine("opponent_rating_difference"), "matchmaking.opponent_rating_difference",
			"empty: no limit, as matchmaking.rating_difference's default")
	}

	// The false friend: lichess-bot's challenge_timeout is the idle time
	// before challenging, in minutes; ponderosa's challenge_timeout is the
	// wait for an answer.
	idle := max(m.number("challenge_timeout", 30), 1)
	if idle > 24*60 {
		t.r.note(KindChanged, m.keyLine("challenge_timeout"), "matchmaking.challenge_timeout",
			"%g minutes is more than ponderosa's longest idle time: written as 24h", idle)
		idle = 24 * 60
	}
	t.b.set(p("matchmaking.idle_time"), time.Duration(math.Round(idle*60))*time.Second,
		inUnit(from(m, "challenge_timeout"), "minutes idle before challenging; not ponderosa's challenge_timeout"))
	if m.has("challenge_timeout") {
		t.r.note(KindChanged, m.keyLine("challenge_timeout"), "matchmaking.challenge_timeout",
			"is the idle time before challenging in lichess-bot, in minutes: written as matchmaking.idle_time. "+
				"ponderosa's matchmaking.challenge_timeout is another setting, how long to wait for an answer (default 1m)")
	}

	block, _ := m.strList("block_list")
	block = t.usernames(m, "block_list", block)
	t.b.set(p("matchmaking.block_list"), nonNil(block), from(m, "block_list"))
	if m.has("include_challenge_block_list") && !m.boolean("include_challenge_block_list", false) && len(t.challengeBlock) > 0 {
		t.r.note(KindChanged, m.keyLine("include_challenge_block_list"), "matchmaking.include_challenge_block_list",
			"false: ponderosa never challenges the players of challenge.block_list either")
	} else if m.has("include_challenge_block_list") {
		m.take("include_challenge_block_list")
		t.r.note(KindSame, m.keyLine("include_challenge_block_list"), "matchmaking.include_challenge_block_list",
			"ponderosa always leaves the players of challenge.block_list out of matchmaking")
	}

	m.dropUnless("allow_during_games", "true", "true: ponderosa too challenges while games run, whenever a slot is free",
		"ponderosa challenges whenever a slot of challenge.concurrency is free (matchmaking.idle_time after it freed), games running or not")
	m.dropUnless("rating_preference", "none", "none: ponderosa too picks at random among the bots in matchmaking.opponent_rating",
		"ponderosa picks among the bots in matchmaking.opponent_rating at random, without a preference")
	// challenge_filter: ponderosa remembers each decline with the kind of
	// challenge it answered, and blocks that kind (a reason about the
	// kind) or the bot (a reason about the bot) after block_after_declines
	// of them within block_days: lichess-bot's fine filter, after one
	// decline, is block_after_declines: 1.
	if m.written("challenge_filter") {
		switch filter := m.str("challenge_filter", "none"); filter {
		case "none":
			t.b.set(p("matchmaking.block_after_declines"), 0, from(m, "challenge_filter"))
		case "fine", "coarse":
			t.b.set(p("matchmaking.block_after_declines"), 1, from(m, "challenge_filter"))
			why := "ponderosa too remembers declines per kind of challenge: a reason about the kind (tooFast, variant, rated, ...) blocks that kind, " +
				"one about the bot (generic, noBot, ...) the bot; written as block_after_declines: 1, the block lasting block_days (default 7) instead of for good"
			if filter == "coarse" {
				why = "ponderosa blocks the bot for every kind of challenge only for a reason about the bot (generic, noBot, ...); " +
					"a reason about the kind (tooFast, variant, rated, ...) blocks that kind, as lichess-bot's fine does; " +
					"written as block_after_declines: 1, the block lasting block_days (default 7) instead of for good"
			}
			t.r.note(KindChanged, m.keyLine("challenge_filter"), "matchmaking.challenge_filter", "%s: %s", filter, why)
		default:
			t.r.note(KindUnknown, m.keyLine("challenge_filter"), "matchmaking.challenge_filter", "%q is not none, coarse or fine", filter)
		}
	}
	m.dropUnless("delay_after_decline", "none", "none: nothing to carry over",
		"ponderosa waits a fixed hour after a decline before offering that bot such a challenge again (any challenge, for a reason about the bot)")
	m.dropUnless("online_block_list", "", "empty: nothing to carry over",
		"ponderosa fetches no block lists from the web: copy the names into matchmaking.block_list")
	m.dropUnless("challenge_decliner_file_name", "", "empty: nothing to carry over",
		"ponderosa does not keep a file of bots that declined")
	if m.has("overrides") {
		o := m.sub("overrides")
		names := make([]string, len(o.keys))
		for i, k := range o.keys {
			names[i] = k.Value
			o.take(k.Value)
		}
		t.r.note(KindNoEquivalent, m.keyLine("overrides"), "matchmaking.overrides",
			"ponderosa has one matchmaking specification, no alternatives drawn at random: left out %s", strings.Join(names, ", "))
	} else {
		m.drop(KindNoEquivalent, "overrides", "empty: nothing to carry over")
	}
	m.rest()
}

// matchDays is lichess-bot's challenge_days that ponderosa offers: days
// Lichess takes, while correspondence challenges are accepted (ponderosa
// offers no game its own rules decline), within the days accepted. The
// others are noted and left out. A null beside days is noted too: lichess-bot
// draws it like a day (a challenge without days), so it changes the mix of
// kinds, which ponderosa's draw (clocks or days at even odds) does not
// follow; clocks tells whether there are clocks to draw.
func (t *translator) matchDays(m *section, clocks bool) []int {
	var days []int
	list, nulls := m.numListNulls("challenge_days")
	for _, f := range list {
		d := int(f)
		switch {
		case float64(d) != f || !slices.Contains(config.CorrespondenceDaysAllowed, d):
			t.r.note(KindChanged, m.keyLine("challenge_days"), "matchmaking.challenge_days",
				"%g: Lichess takes 1, 2, 3, 5, 7, 10 or 14 days per move: left out", f)
		case t.corrDays[0] == 0:
			t.r.note(KindChanged, m.keyLine("challenge_days"), "matchmaking.challenge_days",
				"%d: ponderosa offers correspondence only when it accepts correspondence challenges (correspondence in challenge.time_controls), "+
					"and takes them in the slots of correspondence.concurrency: left out", d)
		case d < t.corrDays[0] || d > t.corrDays[1]:
			t.r.note(KindChanged, m.keyLine("challenge_days"), "matchmaking.challenge_days",
				"%d: outside the days per move accepted (min_days, max_days: %d to %d), and ponderosa offers no game it would decline: left out",
				d, t.corrDays[0], t.corrDays[1])
		case !slices.Contains(days, d):
			days = append(days, d)
		}
	}
	if nulls > 0 && len(days) > 0 {
		how := "every challenge is a correspondence one (lichess-bot sends some with no days, and so no time control, when it draws null)"
		if clocks {
			how = "each challenge is real-time or correspondence at even odds (lichess-bot draws null like a day, a real-time challenge, so it sends fewer correspondence ones)"
		}
		t.r.note(KindChanged, m.keyLine("challenge_days"), "matchmaking.challenge_days", "null (no days): left out: %s", how)
	}
	return days
}

// badClock says why Lichess would refuse a matchmaking challenge with tc
// (the rules config.Validate applies to matchmaking.time_controls), or "".
func badClock(tc config.TimeControl) string {
	switch {
	case tc.Base < 0 || tc.Increment < 0:
		return "negative"
	case tc.Base == 0 && tc.Increment == 0:
		return "no time at all"
	case !validBase(tc.Base):
		return "Lichess takes a base of 0, 15, 30, 45, 60 or 90 seconds or whole minutes up to 180"
	case tc.Increment > time.Minute || tc.Increment%time.Second != 0:
		return "Lichess takes an increment of 0 to 60 whole seconds"
	case tc.Base+40*tc.Increment < 30*time.Second:
		return "ultraBullet, which Lichess does not let bots play"
	}
	return ""
}

func validBase(d time.Duration) bool {
	switch d {
	case 0, 15 * time.Second, 30 * time.Second, 45 * time.Second, 90 * time.Second:
		return true
	}
	return d > 0 && d <= 3*time.Hour && d%time.Minute == 0
}

func (t *translator) correspondence(c *section) {
	set := func(key string, def float64, lo, hi time.Duration) {
		d := secs(c.number(key, def))
		if d < lo || d > hi {
			nd := min(max(d, lo), hi)
			t.r.note(KindChanged, c.keyLine(key), "correspondence."+key, "%v is outside what ponderosa takes (%v to %v): written as %v", d, lo, hi, nd)
			d = nd
		}
		t.b.set(p("correspondence."+key), d, inUnit(from(c, key), "seconds"))
	}
	set("move_time", 60, time.Second, time.Hour)
	set("checkin_period", 600, 10*time.Second, config.MaxCheckinPeriod)
	set("disconnect_time", 300, time.Second, 24*time.Hour)
	ponder := c.boolean("ponder", false)
	if c.boolean("uci_ponder", false) {
		ponder = true
	}
	t.b.set(p("correspondence.ponder"), ponder, from(c, "ponder", "uci_ponder"))
	c.rest()
}

// maxChatLen is the longest chat line Lichess takes (and check-config
// allows).
const maxChatLen = 140

// translateGreeting reads msg as lichess-bot does (Python's str.format_map
// with a dictionary that gives "" for a word it does not know): "{{" and
// "}}" are a literal brace, {me} and {opponent} are replaced, and another
// {word} becomes nothing. ponderosa's messages have no literal braces
// (check-config reads any {word} as a placeholder), so they are left out.
// The result is cut to maxChatLen characters, never inside a placeholder.
// note reports each change.
func translateGreeting(msg string, note func(format string, args ...any)) string {
	var out strings.Builder
	braces, changed := false, false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case (c == '{' || c == '}') && i+1 < len(msg) && msg[i+1] == c:
			braces = true
			i++
		case c == '{':
			end := strings.IndexAny(msg[i+1:], "{}")
			if end < 0 || msg[i+1+end] != '}' {
				out.WriteByte(c) // Python refuses an unmatched brace; kept as written
				continue
			}
			ph := msg[i : i+end+2]
			i += end + 1
			if ph == "{me}" || ph == "{opponent}" {
				out.WriteString(ph)
				continue
			}
			changed = true
			note("%s: ponderosa knows only {me} and {opponent}; lichess-bot leaves other words in braces out, and so does the import", ph)
		default:
			out.WriteByte(c)
		}
	}
	if braces {
		changed = true
		note("\"{{\" and \"}}\" are a literal brace in lichess-bot; ponderosa's chat messages have no literal braces (a {word} is a placeholder): left out")
	}
	text := out.String()
	if changed {
		text = strings.Join(strings.Fields(text), " ")
	}
	r := []rune(text)
	if len(r) <= maxChatLen {
		return text
	}
	cut := string(r[:maxChatLen])
	// A placeholder cut in two is no placeholder: cut before it.
	if i := strings.LastIndexByte(cut, '{'); i >= 0 && !strings.Contains(cut[i:], "}") &&
		(strings.HasPrefix(text[i:], "{me}") || strings.HasPrefix(text[i:], "{opponent}")) {
		cut = cut[:i]
	}
	cut = strings.TrimSpace(cut)
	note("is %d characters long; Lichess chat takes at most %d: cut to %q", len(r), maxChatLen, cut)
	return cut
}

func (t *translator) game(top *section) {
	overhead := secs(top.number("move_overhead", 1000) / 1000)
	if overhead < 0 || overhead > 10*time.Second {
		nd := min(max(overhead, 0), 10*time.Second)
		t.r.note(KindChanged, top.keyLine("move_overhead"), "move_overhead", "%v is outside what ponderosa takes (0s to 10s): written as %v", overhead, nd)
		overhead = nd
	}
	t.b.set(p("game.move_overhead"), overhead, inUnit(from(top, "move_overhead"), "milliseconds"))

	g := top.sub("greeting")
	for _, m := range []struct{ key, path string }{
		{"hello", "game.greeting.player"},
		{"hello_spectators", "game.greeting.spectator"},
		{"goodbye", "game.goodbye.player"},
		{"goodbye_spectators", "game.goodbye.spectator"},
	} {
		kept := translateGreeting(g.str(m.key, ""), func(format string, args ...any) {
			t.r.note(KindChanged, g.keyLine(m.key), "greeting."+m.key, format, args...)
		})
		t.b.set(p(m.path), kept, from(g, m.key))
	}
	g.rest()

	abort := top.number("abort_time", 20)
	ad := secs(abort)
	if ad != 0 && (ad < 5*time.Second || ad > time.Hour) {
		nd := min(max(ad, 5*time.Second), time.Hour)
		t.r.note(KindChanged, top.keyLine("abort_time"), "abort_time", "%v is outside what ponderosa takes (5s to 1h): written as %v", ad, nd)
		ad = nd
	}
	t.b.set(p("game.abort_after"), ad, inUnit(from(top, "abort_time"), "seconds"))
	if top.has("abort_time") {
		t.r.note(KindChanged, top.keyLine("abort_time"), "abort_time",
			"ponderosa aborts when the opponent has not made a first move in game.abort_after; lichess-bot when a game that can still be aborted sees no activity that long")
	}

	pgn := top.str("pgn_directory", "")
	t.b.set(p("game.pgn_dir"), pgn, from(top, "pgn_directory"))
	if pgn != "" && !filepath.IsAbs(pgn) {
		t.r.note(KindChanged, top.keyLine("pgn_directory"), "pgn_directory",
			"%q: a relative game.pgn_dir lies under ponderosa's state_dir (e.g. /var/lib/ponderosa under systemd), "+
				"not lichess-bot's directory; games lichess-bot saved stay where they are: write an absolute path to keep saving there", pgn)
	}
	switch grouping := top.str("pgn_file_grouping", "game"); grouping {
	case "game":
		if top.has("pgn_file_grouping") {
			t.r.note(KindSame, top.keyLine("pgn_file_grouping"), "pgn_file_grouping", "\"game\": ponderosa too writes one file per game")
		}
	default:
		t.r.note(KindNoEquivalent, top.keyLine("pgn_file_grouping"), "pgn_file_grouping",
			"%q: ponderosa writes one file per game (lichess-bot's \"game\")", grouping)
	}

	takebacks := top.integer("max_takebacks_accepted", 0)
	t.b.set(p("game.accept_takebacks"), takebacks > 0, from(top, "max_takebacks_accepted"))
	if takebacks > 0 {
		t.r.note(KindChanged, top.keyLine("max_takebacks_accepted"), "max_takebacks_accepted",
			"%d: ponderosa accepts every takeback proposal when game.accept_takebacks is true, with no count", takebacks)
	}

	top.dropUnless("fake_think_time", "false", "false: ponderosa does not slow down either",
		"ponderosa does not slow its moves down to look human")
	top.dropUnless("rate_limiting_delay", "0", "0: ponderosa adds no delay either (it waits as Lichess asks after a 429 answer)",
		"ponderosa adds no delay after a move; it waits as Lichess asks when it answers 429 (Too Many Requests)")
	top.drop(KindNoEquivalent, "quit_after_all_games_finish",
		"on SIGTERM or Ctrl-C ponderosa lets running games go on for shutdown.grace_period (default 10m), then resigns or aborts them; raise it to wait longer")
}
