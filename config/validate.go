package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// lichessVariants are the variant keys Lichess knows.
var lichessVariants = []string{
	"standard", "chess960", "fromPosition", "crazyhouse", "antichess", "atomic",
	"horde", "kingOfTheHill", "racingKings", "threeCheck",
}

// standardVariants are the variants engine.type plays (the built-in engine
// or a general external engine); the others need an engine.variants entry.
var standardVariants = []string{VariantStandard, VariantChess960, VariantFromPosition}

// perVariantKeys are the variants an engine.variants entry may name.
var perVariantKeys = []string{
	VariantCrazyhouse, VariantAntichess, VariantAtomic, VariantHorde,
	VariantKingOfTheHill, VariantRacingKings, VariantThreeCheck,
}

// realTimeSpeeds are the speeds played with a clock.
var realTimeSpeeds = []string{SpeedUltraBullet, SpeedBullet, SpeedBlitz, SpeedRapid, SpeedClassical}

var lichessSpeeds = append(slices.Clip(realTimeSpeeds), SpeedCorrespondence)

var logLevels = []string{"trace", "debug", "info", "warn", "error"}

// Lichess usernames: 2 to 30 letters, digits, "_" and "-".
var usernameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{1,29}$`)

// placeholderRE finds {name} placeholders in chat messages.
var placeholderRE = regexp.MustCompile(`\{[^{}]*\}`)

// messagePlaceholders are the placeholders chat messages may use.
var messagePlaceholders = []string{"{me}", "{opponent}"}

// maxChatLen is the longest chat line Lichess takes.
const maxChatLen = 140

type validator struct {
	c     *Config
	probs Errors
}

func (v *validator) add(key, format string, args ...any) {
	v.probs = append(v.probs, Problem{File: v.c.source, Line: v.c.line(key), Key: key, Msg: fmt.Sprintf(format, args...)})
}

// line finds the line of key, or of its closest written parent.
func (c *Config) line(key string) int {
	for key != "" {
		if l, ok := c.keys[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

// Validate checks every setting and returns all problems together as Errors,
// each saying what to change, or nil. It looks at the file system only for
// engine.external.path and engine.external.dir (when the engine is external),
// state_dir and game.pgn_dir (when their place is known without the
// environment), and log.file (its directory must exist).
func (c *Config) Validate() error {
	v := &validator{c: c}
	v.notFile("state_dir", c.StateDir)
	v.lichess()
	v.engine()
	v.online()
	v.challenge()
	v.matchmaking()
	v.correspondence()
	v.tournament()
	v.game()
	v.log()
	v.httpServer()
	if g := c.Shutdown.GracePeriod; g < 0 || g > 24*time.Hour {
		v.add("shutdown.grace_period", "must be between 0s and 24h, got %v", g)
	}
	if len(v.probs) == 0 {
		return nil
	}
	return v.probs.sorted()
}

func (v *validator) durationIn(key string, d, lo, hi time.Duration, why string) {
	if d < lo || d > hi {
		msg := fmt.Sprintf("must be between %v and %v, got %v", lo, hi, d)
		if why != "" {
			msg += " (" + why + ")"
		}
		v.add(key, "%s", msg)
	}
}

// intIn reports n outside [lo, hi]; it returns whether n is inside.
func (v *validator) intIn(key string, n, lo, hi int, why string) bool {
	if n < lo || n > hi {
		msg := fmt.Sprintf("must be between %d and %d, got %d", lo, hi, n)
		if why != "" {
			msg += " (" + why + ")"
		}
		v.add(key, "%s", msg)
		return false
	}
	return true
}

func (v *validator) oneOf(key, got string, allowed []string) bool {
	if slices.Contains(allowed, got) {
		return true
	}
	msg := fmt.Sprintf("%q is not one of %s", got, strings.Join(allowed, ", "))
	if s := suggest(got, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	v.add(key, "%s", msg)
	return false
}

func (v *validator) lichess() {
	l := v.c.Lichess
	u, err := url.Parse(l.BaseURL)
	switch {
	case l.BaseURL == "":
		v.add("lichess.base_url", "is empty: set it to https://lichess.org")
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		v.add("lichess.base_url", "%q is not an http(s) address: set it to https://lichess.org", l.BaseURL)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		v.add("lichess.base_url", "must be a plain address without user, query or fragment, such as https://lichess.org")
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		v.add("lichess.base_url", "plain http would send the token unencrypted: use https (http is allowed only for localhost)")
	}
	v.durationIn("lichess.request_timeout", l.RequestTimeout, time.Second, 10*time.Minute, "")
	v.durationIn("lichess.stream_read_timeout", l.StreamReadTimeout, 10*time.Second, 10*time.Minute,
		"Lichess sends a keep-alive line every 7 seconds")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (v *validator) engine() {
	e := v.c.Engine
	if !v.oneOf("engine.type", e.Type, []string{EngineBuiltin, EngineExternal}) {
		return
	}
	b := e.Builtin
	v.intIn("engine.builtin.hash_mb", b.HashMB, 1, 65536, "")
	v.intIn("engine.builtin.threads", b.Threads, 1, 256, "")
	if v.intIn("engine.builtin.threads_total", b.ThreadsTotal, 0, 1024, "the threads of all games together; 0: the machine's cores") &&
		b.ThreadsTotal > 0 && b.Threads > b.ThreadsTotal {
		v.add("engine.builtin.threads_total", "%d is below engine.builtin.threads (%d), the threads of one search: raise it, or lower threads",
			b.ThreadsTotal, b.Threads)
	}
	v.intIn("engine.builtin.tree_memory_mb", b.TreeMemoryMB, 1, 65536, "")
	v.intIn("engine.builtin.variety_cp", b.VarietyCP, 0, 300, "0 turns variety off")
	v.intIn("engine.builtin.learn_max_entries", b.LearnMaxEntries, 1000, 100_000_000, "")
	if v.oneOf("engine.builtin.eval", b.Eval, []string{EvalClassical, EvalNNUE}) && b.Eval == EvalNNUE && e.Type == EngineBuiltin {
		if _, err := nnue.Choose(true, b.EvalFile); err != nil {
			key := "engine.builtin.eval_file"
			if b.EvalFile == "" {
				key = "engine.builtin.eval"
			}
			v.add(key, "no network for eval: nnue: %v (give a net file in engine.builtin.eval_file, or eval: classical)", err)
		}
	}

	v.book()
	v.syzygy()

	v.externalOptions("engine.external", e.External.Options)
	if e.Type == EngineExternal {
		v.externalProgram("engine.external", e.External, "engine.type is external")
	}
	for _, name := range slices.Sorted(maps.Keys(e.Variants)) {
		k := "engine.variants." + name
		if slices.Contains(standardVariants, name) {
			v.add(k, "%s is played by engine.type (the built-in engine or engine.external), not by a per-variant engine: remove it", name)
			continue
		}
		if !v.oneOf(k, name, perVariantKeys) {
			continue
		}
		x := e.Variants[name]
		v.externalOptions(k, x.Options)
		v.externalProgram(k, x, "a variant's engine must be an external UCI engine that knows its rules, such as Fairy-Stockfish")
	}
}

// syzygy checks engine.syzygy.paths: every directory and table can be
// read (so that a bad table is found at start, never in a game).
func (v *validator) syzygy() {
	paths := v.c.Engine.Syzygy.Paths
	v.intIn("engine.syzygy.probe_depth", v.c.Engine.Syzygy.ProbeDepth, 1, 100, "")
	v.intIn("engine.syzygy.probe_limit", v.c.Engine.Syzygy.ProbeLimit, 0, 7, "0: the tables are not used at all")
	for i, path := range paths {
		if path == "" {
			v.add(fmt.Sprintf("engine.syzygy.paths[%d]", i), "empty: give a directory of Syzygy tables")
			return
		}
	}
	if len(paths) == 0 {
		return
	}
	tb, err := syzygy.Open(paths...)
	if err == nil {
		err = tb.Check()
		tb.Close()
	}
	if err != nil {
		v.add("engine.syzygy.paths", "%v", err)
	}
}

// book checks engine.book: the variants, the selection, the numbers, and
// that every book file can be read (so that a bad book is found at start,
// never in a game).
func (v *validator) book() {
	bk := v.c.Engine.Book
	if _, err := book.ParseMethod(bk.Selection); err != nil {
		v.oneOf("engine.book.selection", bk.Selection, []string{"weighted_random", "uniform_random", "best_move"})
	}
	v.intIn("engine.book.min_weight", bk.MinWeight, 0, 65535, "")
	v.intIn("engine.book.max_depth", bk.MaxDepth, 0, 10000, "0: no limit")
	for _, variant := range slices.Sorted(maps.Keys(bk.Files)) {
		k := "engine.book.files." + variant
		if !v.oneOf(k, variant, []string{VariantStandard, VariantChess960}) {
			continue
		}
		for i, path := range bk.Files[variant] {
			ki := fmt.Sprintf("%s[%d]", k, i)
			if path == "" {
				v.add(ki, "empty: give a Polyglot book file")
				continue
			}
			if _, err := book.Open(path); err != nil {
				v.add(ki, "%v", err)
			}
		}
	}
}

// externalOptions checks the UCI options of an external engine at key:
// those the bot sets itself may not appear.
func (v *validator) externalOptions(key string, opts map[string]string) {
	for name := range opts {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "":
			v.add(key+".options", "an option has an empty name")
		case "ponder":
			v.add(key+".options."+name, "is set by the bot: use engine.ponder instead")
		case "uci_chess960", "uci_variant":
			v.add(key+".options."+name, "is set by the bot for each game: remove it")
		}
	}
}

// externalProgram checks the program and directory of an external engine
// at key; why says why a path is needed.
func (v *validator) externalProgram(key string, x External, why string) {
	if x.Path == "" {
		v.add(key+".path", "is empty: give the engine program, e.g. /usr/games/stockfish (%s)", why)
	} else if _, err := exec.LookPath(x.Path); err != nil {
		v.add(key+".path", "cannot run %q (%v): give the full path of an executable engine program", x.Path, unwrapPathError(err))
	}
	if x.Dir != "" {
		if fi, err := os.Stat(x.Dir); err != nil || !fi.IsDir() {
			v.add(key+".dir", "%q is not a directory: create it or leave dir empty", x.Dir)
		}
	}
}

func unwrapPathError(err error) error {
	if e, ok := err.(*exec.Error); ok {
		return e.Err
	}
	if e, ok := err.(*os.PathError); ok {
		return e.Err
	}
	return err
}

func (v *validator) variants(key string, vs []string, need bool) {
	if len(vs) == 0 && need {
		v.add(key, "is empty: list at least one variant, e.g. [standard]")
	}
	for i, name := range vs {
		k := fmt.Sprintf("%s[%d]", key, i)
		if !v.oneOf(k, name, lichessVariants) {
			continue
		}
		if !v.c.Plays(name) {
			v.add(k, "no engine plays %s: add engine.variants.%s (an external UCI engine that knows its rules, such as Fairy-Stockfish), or remove %q",
				name, name, name)
		}
	}
}

// IsUsername reports whether name has the form of a Lichess username, as
// the block and allow lists require.
func IsUsername(name string) bool { return usernameRE.MatchString(name) }

func (v *validator) usernames(key string, names []string) {
	for i, n := range names {
		if !usernameRE.MatchString(n) {
			v.add(fmt.Sprintf("%s[%d]", key, i), "%q is not a Lichess username (2 to 30 letters, digits, _ or -)", n)
		}
	}
}

func (v *validator) rating(key string, r RatingRange) {
	v.intIn(key+".min", r.Min, 0, 4000, "")
	v.intIn(key+".max", r.Max, 0, 4000, "")
	if r.Min > r.Max {
		v.add(key, "min (%d) is above max (%d): lower min or raise max", r.Min, r.Max)
	}
}

// correspondence checks how correspondence games are played.
func (v *validator) correspondence() {
	c := v.c.Correspondence
	v.durationIn("correspondence.move_time", c.MoveTime, time.Second, time.Hour, "")
	v.durationIn("correspondence.checkin_period", c.CheckinPeriod, 10*time.Second, MaxCheckinPeriod,
		"a check-in must come well within the shortest correspondence clock, 1 day a move, should Lichess' word that the opponent moved be lost")
	v.durationIn("correspondence.disconnect_time", c.DisconnectTime, time.Second, 24*time.Hour, "")
	v.intIn("correspondence.concurrency", c.Concurrency, 1, 1000, "correspondence games in progress at once, apart from challenge.concurrency")
}

func (v *validator) challenge() {
	ch := v.c.Challenge
	v.intIn("challenge.concurrency", ch.Concurrency, 1, 64, "the number of games played at once")
	v.variants("challenge.variants", ch.Variants, ch.Accept)
	if len(ch.Speeds) == 0 && ch.Accept {
		v.add("challenge.speeds", "is empty: list at least one speed, e.g. [blitz, rapid]")
	}
	for i, s := range ch.Speeds {
		k := fmt.Sprintf("challenge.speeds[%d]", i)
		if v.oneOf(k, s, lichessSpeeds) && s == SpeedUltraBullet {
			v.add(k, "Lichess does not let bots play ultraBullet, so every such challenge would be declined: remove it")
		}
	}
	for _, s := range realTimeSpeeds {
		r, _ := ch.TimeControls.Clock(s)
		k := "challenge.time_controls." + s
		for _, d := range []struct {
			name string
			val  time.Duration
		}{{"base_min", r.BaseMin}, {"base_max", r.BaseMax}, {"increment_min", r.IncrementMin}, {"increment_max", r.IncrementMax}} {
			if d.val < 0 {
				v.add(k+"."+d.name, "must not be negative, got %v", d.val)
			}
		}
		if r.BaseMin > r.BaseMax {
			v.add(k, "base_min (%v) is above base_max (%v): lower base_min or raise base_max", r.BaseMin, r.BaseMax)
		}
		if r.IncrementMin > r.IncrementMax {
			v.add(k, "increment_min (%v) is above increment_max (%v): lower increment_min or raise increment_max", r.IncrementMin, r.IncrementMax)
		}
	}
	d := ch.TimeControls.Correspondence
	v.intIn("challenge.time_controls.correspondence.days_min", d.DaysMin, 1, 14, "")
	v.intIn("challenge.time_controls.correspondence.days_max", d.DaysMax, 1, 14, "")
	if d.DaysMin > d.DaysMax {
		v.add("challenge.time_controls.correspondence", "days_min (%d) is above days_max (%d)", d.DaysMin, d.DaysMax)
	}
	if ch.Accept && !ch.AcceptRated && !ch.AcceptCasual {
		v.add("challenge", "accept_rated and accept_casual are both false, so no challenge can be accepted: set one to true, or set accept: false")
	}
	if ch.Accept && !ch.AcceptBots && !ch.AcceptHumans {
		v.add("challenge", "accept_bots and accept_humans are both false, so no challenge can be accepted: set one to true, or set accept: false")
	}
	v.rating("challenge.opponent_rating", ch.OpponentRating)
	v.usernames("challenge.allow_list", ch.AllowList)
	v.usernames("challenge.block_list", ch.BlockList)
	for i, n := range ch.AllowList {
		if slices.ContainsFunc(ch.BlockList, func(b string) bool { return strings.EqualFold(b, n) }) {
			v.add(fmt.Sprintf("challenge.allow_list[%d]", i), "%q is also in block_list: remove it from one of them", n)
		}
	}
	v.intIn("challenge.max_bot_games_per_day", ch.MaxBotGamesPerDay, 0, 10000, "0 leaves only Lichess' own limit")
	v.queue()
}

// queue checks the challenge queue and the limits on who takes a slot.
func (v *validator) queue() {
	ch := v.c.Challenge
	if v.intIn("challenge.games_reserved_for_humans", ch.GamesReservedForHumans, 0, 64, "") && ch.Accept && ch.Concurrency >= 1 {
		switch {
		case ch.AcceptBots && ch.GamesReservedForHumans >= ch.Concurrency:
			v.add("challenge.games_reserved_for_humans", "%d of %d slots leaves none for bots though accept_bots is true, so every bot's challenge would wait and be declined: lower it below concurrency, or set accept_bots: false",
				ch.GamesReservedForHumans, ch.Concurrency)
		case !ch.AcceptHumans && ch.GamesReservedForHumans > 0:
			v.add("challenge.games_reserved_for_humans", "accept_humans is false, so the reserved slots would stay empty: set it to 0")
		}
	}
	v.intIn("challenge.max_simultaneous_games_per_user", ch.MaxSimultaneousGamesPerUser, 1, 64, "")
	v.intIn("challenge.queue_length", ch.QueueLength, 0, 100, "0 keeps no queue: a challenge that finds every slot busy is declined \"later\"")
	v.durationIn("challenge.queue_max_age", ch.QueueMaxAge, 10*time.Second, 7*24*time.Hour, "")
	v.oneOf("challenge.sort_by", ch.SortBy, []string{SortFirst, SortBest})
}

// validClockBase says whether Lichess accepts a challenge with this base
// time: 0, 15, 30, 45, 60 or 90 seconds, or whole minutes up to 180.
func validClockBase(d time.Duration) bool {
	switch d {
	case 0, 15 * time.Second, 30 * time.Second, 45 * time.Second, 90 * time.Second:
		return true
	}
	return d > 0 && d <= 3*time.Hour && d%time.Minute == 0
}

func (v *validator) matchmaking() {
	m := v.c.Matchmaking
	if m.Enabled && len(m.TimeControls) == 0 && len(m.CorrespondenceDays) == 0 && slices.ContainsFunc(m.Variants, func(variant string) bool {
		_, own := m.VariantTimeControls[variant]
		return !own
	}) {
		v.add("matchmaking.time_controls", `is empty: list at least one, e.g. ["3+2"] (or give every variant its own in matchmaking.variant_time_controls, or offer correspondence with matchmaking.correspondence_days)`)
	}
	v.matchClocks("matchmaking.time_controls", m.TimeControls)
	v.matchDays()
	for _, variant := range slices.Sorted(maps.Keys(m.VariantTimeControls)) {
		k := "matchmaking.variant_time_controls." + variant
		if !slices.Contains(m.Variants, variant) {
			v.add(k, "%q is not in matchmaking.variants, so it is never offered: add it there, or remove its time controls", variant)
			continue
		}
		if len(m.VariantTimeControls[variant]) == 0 {
			v.add(k, `is empty: list at least one time control, e.g. ["3+2"], or remove it to offer matchmaking.time_controls`)
		}
		v.matchClocks(k, m.VariantTimeControls[variant])
	}
	if m.Mode != "" && v.oneOf("matchmaking.mode", m.Mode, []string{ModeRated, ModeCasual, ModeRandom}) {
		_, written := v.c.keys["matchmaking.rated"]
		switch {
		case written && m.Mode == ModeRandom:
			v.add("matchmaking.mode", "%q and matchmaking.rated: %v are both written, and random ignores rated: keep one of them (mode: random offers rated and casual challenges at random)", m.Mode, m.Rated)
		case written && (m.Mode == ModeRated) != m.Rated:
			v.add("matchmaking.mode", "%q contradicts matchmaking.rated: %v: keep one of them (mode takes rated's place, and adds random)", m.Mode, m.Rated)
		}
	}
	v.variants("matchmaking.variants", m.Variants, m.Enabled)
	for i, name := range m.Variants {
		if name == VariantFromPosition {
			v.add(fmt.Sprintf("matchmaking.variants[%d]", i), "fromPosition needs a position, which the matchmaker's challenges do not carry (Lichess would start standard chess or refuse): remove it")
		}
	}
	v.rating("matchmaking.opponent_rating", m.OpponentRating)
	v.intIn("matchmaking.rating_difference", m.RatingDifference, 0, 4000, "0: no limit")
	v.durationIn("matchmaking.idle_time", m.IdleTime, 0, 24*time.Hour, "")
	v.durationIn("matchmaking.challenge_timeout", m.ChallengeTimeout, 5*time.Second, 10*time.Minute, "")
	v.usernames("matchmaking.block_list", m.BlockList)
	v.intIn("matchmaking.block_after_declines", m.BlockAfterDeclines, 0, 100, "0: never")
	v.intIn("matchmaking.block_days", m.BlockDays, 1, 30, "the state store keeps 30 days of declines")
}

// matchDays checks matchmaking.correspondence_days: days Lichess takes,
// and only when correspondence games are accepted, at days the bot
// accepts (a game our own rules would decline is not one to ask for).
func (v *validator) matchDays() {
	const key = "matchmaking.correspondence_days"
	days := v.c.Matchmaking.CorrespondenceDays
	if len(days) == 0 {
		return
	}
	if !v.c.AcceptsCorrespondence() {
		// The advice follows the cause: accept off, correspondence not
		// among the speeds, or both.
		var why, fix []string
		if !v.c.Challenge.Accept {
			why, fix = append(why, "challenge.accept is false"), append(fix, "set challenge.accept: true")
		}
		if !slices.Contains(v.c.Challenge.Speeds, SpeedCorrespondence) {
			why, fix = append(why, "challenge.speeds lacks correspondence"), append(fix, "add correspondence to challenge.speeds")
		}
		v.add(key, "offers correspondence games, but the bot does not accept them (%s): %s, or remove correspondence_days",
			strings.Join(why, ", "), strings.Join(fix, " and "))
		return
	}
	r := v.c.Challenge.TimeControls.Correspondence
	for i, d := range days {
		k := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case !slices.Contains(CorrespondenceDaysAllowed, d):
			v.add(k, "%d: Lichess takes 1, 2, 3, 5, 7, 10 or 14 days per move", d)
		case !r.Contains(d):
			v.add(k, "%d days per move is outside challenge.time_controls.correspondence (%d to %d), so the bot would decline such a game itself: "+
				"widen days_min/days_max, or remove it", d, r.DaysMin, r.DaysMax)
		}
	}
}

// matchClocks checks the time controls the matchmaker may offer: each one
// Lichess takes in a bot's challenge.
func (v *validator) matchClocks(key string, tcs []TimeControl) {
	for i, tc := range tcs {
		k := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case tc.bad != "":
			v.add(k, "%s", tc.bad)
		case !validClockBase(tc.Base):
			v.add(k, "%q: Lichess takes a base of 0, 0.25, 0.5, 0.75, 1, 1.5 or a whole number of minutes up to 180", tc.String())
		case tc.Increment > time.Minute:
			v.add(k, "%q: Lichess takes an increment of at most 60 seconds in a challenge", tc.String())
		case tc.Base == 0 && tc.Increment == 0:
			v.add(k, `"0+0" has no time at all: give a base or an increment, e.g. "1+0" or "0+1"`)
		case tc.Base+40*tc.Increment < 30*time.Second:
			v.add(k, "%q is an ultraBullet time control (base + 40 × increment under 30 seconds), which Lichess does not let bots play: give at least \"0.5+0\"", tc.String())
		}
	}
}

func (v *validator) message(key, msg string) {
	if len([]rune(msg)) > maxChatLen {
		v.add(key, "is %d characters long; Lichess chat takes at most %d: shorten it", len([]rune(msg)), maxChatLen)
	}
	for _, ph := range placeholderRE.FindAllString(msg, -1) {
		if !slices.Contains(messagePlaceholders, ph) {
			hint := ""
			if s := suggest(ph, messagePlaceholders); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			v.add(key, "unknown placeholder %s%s: use %s", ph, hint, strings.Join(messagePlaceholders, " or "))
		}
	}
}

func (v *validator) game() {
	g := v.c.Game
	v.durationIn("game.move_overhead", g.MoveOverhead, 0, 10*time.Second, "")
	v.message("game.greeting.player", g.Greeting.Player)
	v.message("game.greeting.spectator", g.Greeting.Spectator)
	v.message("game.goodbye.player", g.Goodbye.Player)
	v.message("game.goodbye.spectator", g.Goodbye.Spectator)
	v.intIn("game.draw.after_move", g.Draw.AfterMove, 0, 1000, "")
	v.intIn("game.draw.within_cp", g.Draw.WithinCP, 0, 1000, "")
	v.intIn("game.draw.offer_within_cp", g.Draw.OfferWithinCP, 0, 1000, "")
	v.intIn("game.draw.offer_moves", g.Draw.OfferMoves, 1, 100, "our moves in a row with a level score")
	if g.Draw.OfferPieces != 0 {
		v.intIn("game.draw.offer_pieces", g.Draw.OfferPieces, 2, 32, "0 offers with any number of pieces")
	}
	v.intIn("game.draw.offer_after_move", g.Draw.OfferAfterMove, 0, 1000, "")
	v.intIn("game.draw.offer_pause_moves", g.Draw.OfferPauseMoves, 0, 1000, "")
	v.durationIn("game.draw.offer_min_opponent_clock", g.Draw.OfferMinOpponentClock, 0, time.Hour, "")
	v.intIn("game.resign.below_cp", g.Resign.BelowCP, 100, 100000, "a positive losing margin, e.g. 1000 resigns at -10.00")
	v.intIn("game.resign.for_moves", g.Resign.ForMoves, 1, 100, "")
	if g.AbortAfter != 0 {
		v.durationIn("game.abort_after", g.AbortAfter, 5*time.Second, time.Hour, "0 never aborts")
	}
	v.notFile("game.pgn_dir", v.c.knownPGNDir())
	v.oneOf("game.opponent_gone", g.OpponentGone, []string{OpponentGoneClaimVictory, OpponentGoneClaimDraw, OpponentGoneWait})
}

// notFile reports a directory setting naming an existing file. dir "" is
// not checked.
func (v *validator) notFile(key, dir string) {
	if dir == "" {
		return
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		v.add(key, "%q is a file, not a directory: name a directory (the bot creates it when missing)", dir)
	}
}

// knownPGNDir is where PGNs are saved when that is known without the
// environment (game.pgn_dir absolute, or relative under a state_dir that
// is set and absolute); "" otherwise.
func (c *Config) knownPGNDir() string {
	if p := c.ResolvePGNDir(c.StateDir); filepath.IsAbs(p) {
		return p
	}
	return ""
}

func (v *validator) log() {
	v.oneOf("log.level", v.c.Log.Level, logLevels)
	v.oneOf("log.format", v.c.Log.Format, []string{LogAuto, LogJSON, LogConsole})
	v.logFile("log.file", v.c.Log.File)
}

// logFile checks a log file setting: its directory must exist (the bot
// creates the file, not directories) and the name must not be a directory.
// Whether the bot may write there is known only when it runs.
func (v *validator) logFile(key, p string) {
	if p == "" {
		return
	}
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			v.add(key, "%q is a directory: name a file in it, e.g. %q", p, filepath.Join(p, "ponderosa.log"))
		} else if !fi.Mode().IsRegular() {
			v.add(key, "%q is not a regular file: name a plain file (the bot appends to it)", p)
		}
		return
	}
	dir := filepath.Dir(p)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		v.add(key, "the directory %q does not exist: create it (the bot creates the file, not its directory), or name a file elsewhere", dir)
	case !fi.IsDir():
		v.add(key, "%q is not a directory: the log file must go in a directory", dir)
	}
}

// clamp takes a setting written beyond a limit that came after it (a
// config that an earlier ponderosa ran) at that limit, noting it for
// Clamped, rather than refusing it: an upgrade must not stop a running bot.
func (c *Config) clamp() {
	if p := c.Correspondence.CheckinPeriod; p > MaxCheckinPeriod {
		c.Correspondence.CheckinPeriod = MaxCheckinPeriod
		c.clamped = append(c.clamped, fmt.Sprintf("%scorrespondence.checkin_period %v is above the most ponderosa takes, %v, and is taken as %v: "+
			"a check-in must come well within the shortest correspondence clock, 1 day a move; write %v (or less) to silence this",
			c.lineRef("correspondence.checkin_period"), p, MaxCheckinPeriod, MaxCheckinPeriod, MaxCheckinPeriod))
	}
}

// lineRef is "file:line: " for key where known, else "".
func (c *Config) lineRef(key string) string {
	l := c.line(key)
	switch {
	case c.source != "" && l > 0:
		return fmt.Sprintf("%s:%d: ", c.source, l)
	case l > 0:
		return fmt.Sprintf("line %d: ", l)
	}
	return ""
}

// Clamped lists the settings taken at a limit instead of as written (the
// daemon logs them as warnings at start and at a reload; Warnings holds
// them too).
func (c *Config) Clamped() []string { return slices.Clone(c.clamped) }

// Warnings lists settings that are valid but probably not what was meant.
func (c *Config) Warnings() []string {
	w := c.Clamped()
	if b := c.Engine.Builtin; c.Engine.Type == EngineBuiltin && b.Eval == EvalClassical && b.EvalFile != "" {
		w = append(w, "engine.builtin.eval_file is set but engine.builtin.eval is classical, so it is ignored: set eval: nnue to use it")
	}
	if c.Engine.Type == EngineExternal && len(c.Engine.Syzygy.Paths) > 0 {
		w = append(w, "engine.syzygy is used by the built-in engine only, and engine.type is external: give the external engine its own SyzygyPath in its options")
	}
	if c.Engine.Type == EngineExternal && len(c.Engine.Book.Files) > 0 {
		w = append(w, "engine.book is used by the built-in engine only, and engine.type is external: give the external engine its own book in its options")
	}
	if c.Engine.Type == EngineBuiltin && (c.Engine.External.Path != "" || len(c.Engine.External.Options) > 0) {
		w = append(w, "engine.external is filled in but engine.type is builtin, so it is ignored: set engine.type: external to use it")
	}
	if b, n := c.Engine.Builtin, runtime.NumCPU(); c.Engine.Type == EngineBuiltin {
		switch {
		case b.ThreadsTotal > n:
			w = append(w, fmt.Sprintf("engine.builtin.threads_total (%d) is more than the %d CPUs here: searches will slow each other down", b.ThreadsTotal, n))
		case b.ThreadsTotal == 0 && b.Threads > n:
			w = append(w, fmt.Sprintf("engine.builtin.threads (%d) is more than the %d CPUs here, which threads_total (unset) defaults to: a search will get at most %d threads", b.Threads, n, n))
		}
	}
	if hw := c.HTTPWarning(); hw != "" {
		w = append(w, hw)
	}
	if !c.Challenge.Accept && !c.Matchmaking.Enabled {
		w = append(w, "challenge.accept is false and matchmaking is off: the bot will never play")
	}
	if p := c.knownPGNDir(); p != "" {
		if _, err := os.Stat(p); err != nil {
			w = append(w, fmt.Sprintf("game.pgn_dir %q does not exist yet: the bot will try to create it", p))
		}
	}
	// Before state_dir, a relative pgn_dir was taken from the config
	// file's directory: say where the games saved then are.
	if p := c.Game.PGNDir; p != "" && !filepath.IsAbs(p) && c.dir != "" {
		old := filepath.Join(c.dir, p)
		if fi, err := os.Stat(old); err == nil && fi.IsDir() && old != c.knownPGNDir() {
			w = append(w, fmt.Sprintf("game.pgn_dir %q is now taken under state_dir, no longer from the config file's directory: "+
				"games saved earlier stay in %s; write that absolute path to keep saving there", p, old))
		}
	}
	return w
}
