package lichessbot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"gopkg.in/yaml.v3"
)

// Version is the lichess-bot version whose keys Import knows.
const Version = "2026.8.2.1"

// Kind sorts the notes of the report.
type Kind int

// Kinds of notes.
const (
	// KindChanged: translated, but ponderosa does it differently, or a
	// value was adjusted to what ponderosa accepts.
	KindChanged Kind = iota
	// KindNoEquivalent: a lichess-bot setting ponderosa has no counterpart
	// for; left out.
	KindNoEquivalent
	// KindLater: a setting ponderosa does not support yet (none today:
	// issue 12's books, tablebases, online sources and draw and resign
	// rules are translated).
	KindLater
	// KindUnknown: not a key of lichess-bot; left out.
	KindUnknown
	// KindSame: a setting ponderosa has no key for, written with the
	// value that asks for what ponderosa does anyway: nothing is lost.
	KindSame
)

// Note is one line of the report: a lichess-bot setting and what became of
// it. It never holds the token.
type Note struct {
	Kind Kind
	Line int    // line of the key in the lichess-bot file, 0 when not written there
	Key  string // dotted lichess-bot key path
	Msg  string
}

// Options are the choices of an import.
type Options struct {
	// Dir is the directory lichess-bot was started in: a relative
	// engine.dir, engine.working_dir and engine.lichess_bot_tbs paths are
	// taken from it (lichess-bot takes them from its current directory).
	// "" leaves them relative, with a note.
	Dir string
}

// Result is a translated configuration.
type Result struct {
	// YAML is the ponderosa configuration, without the token.
	YAML []byte
	// Notes are every lichess-bot setting that was not carried over as it
	// was: left out, changed, or unknown.
	Notes []Note
	// HasToken reports that the lichess-bot file held a token (which is
	// not in YAML).
	HasToken bool
	// Problems is what ponderosa's validation (the offline checks of
	// check-config) finds in YAML; nil when it passes.
	Problems config.Errors
	// Warnings are check-config's warnings about YAML.
	Warnings []string
}

// Import translates the lichess-bot configuration in data; name is used in
// messages. The error is config.Errors (each problem with its line) when
// the file is not YAML or a key has a wrong type; no YAML is made then.
func Import(data []byte, name string, opts Options) (*Result, error) {
	root, err := parse(data, name)
	if err != nil {
		return nil, err
	}
	r := &reader{file: name}
	t := &translator{r: r, b: newBuilder(), opts: opts}
	t.run(r.newSection(root, "", 0))
	if len(r.probs) > 0 {
		slices.SortStableFunc(r.probs, func(a, b config.Problem) int { return a.Line - b.Line })
		return nil, r.probs
	}
	header := fmt.Sprintf("ponderosa configuration translated from the lichess-bot configuration %s\n"+
		"by `ponderosa import-lichess-bot`. Each value names the lichess-bot key it\n"+
		"came from; keys left out keep ponderosa's defaults (config.example.yaml).\n"+
		"The Lichess token is not in this file: see the report of the import.\n"+
		"Check the file with: ponderosa check-config -config FILE", filepath.Base(name))
	out, err := t.b.encode(header)
	if err != nil {
		return nil, err
	}
	res := &Result{YAML: out, Notes: r.notes, HasToken: t.hasToken}
	slices.SortStableFunc(res.Notes, func(a, b Note) int {
		if a.Kind != b.Kind {
			return int(a.Kind) - int(b.Kind)
		}
		return a.Line - b.Line
	})
	cfg, err := config.Parse(out, "the imported configuration")
	var probs config.Errors
	switch {
	case errors.As(err, &probs):
		res.Problems = probs
	case err != nil:
		return nil, fmt.Errorf("check the imported configuration: %w", err)
	default:
		res.Warnings = cfg.Warnings()
	}
	return res, nil
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// parse reads data as one YAML document holding a mapping.
func parse(data []byte, name string) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := safeDecode(dec, &doc)
	switch {
	case errors.Is(err, io.EOF):
		return nil, config.Errors{{File: name, Msg: "the file is empty: it is not a lichess-bot configuration"}}
	case err != nil:
		p := config.Problem{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ") + " (not valid YAML)"}
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			p.Line, _ = strconv.Atoi(m[1])
			p.Msg = m[2] + " (not valid YAML: check indentation, colons and quotes)"
		}
		return nil, config.Errors{p}
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); !errors.Is(err, io.EOF) {
		line := 0
		if err == nil {
			line = extra.Line
		}
		return nil, config.Errors{{File: name, Line: line,
			Msg: `a second YAML document ("---") follows: lichess-bot reads a configuration of one document`}}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, config.Errors{{File: name, Line: root.Line,
			Msg: "not a lichess-bot configuration: expected a mapping of keys such as \"token:\", \"engine:\", \"challenge:\""}}
	}
	return root, nil
}

// safeDecode is dec.Decode(v), with a panic inside yaml.v3 turned into an
// error.
func safeDecode(dec *yaml.Decoder, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot read the file as YAML (parser failure: %v)", r)
		}
	}()
	return dec.Decode(v)
}

// translator maps the lichess-bot sections onto ponderosa's keys.
type translator struct {
	r        *reader
	b        *builder
	opts     Options
	hasToken bool

	external bool // the engine is an external UCI program
	ext      extEngine
	variants []string // challenge variants ponderosa will accept

	accept         bool     // challenges are accepted
	noGames        bool     // concurrency 0: lichess-bot plays no game at all
	noBotGames     bool     // every slot is reserved for humans: lichess-bot plays no bot
	challengeBlock []string // challenge.block_list
	// corrDays: the days per move of the correspondence challenges
	// accepted (challenge.time_controls.correspondence), when
	// correspondence challenges are accepted at all; corrDays[0] > 0 then.
	corrDays [2]int
}

type extEngine struct {
	path    string
	args    []string
	dir     string
	options map[string]string
}

// from is the comment naming where a value came from: the lichess-bot key,
// or its default when the key is not written.
func from(s *section, keys ...string) string {
	var paths []string
	for _, k := range keys {
		if s.has(k) {
			paths = append(paths, join(s.path, k))
		}
	}
	if len(paths) == 0 {
		return join(s.path, keys[0]) + " (not set: lichess-bot's default)"
	}
	return strings.Join(paths, " + ")
}

// inUnit adds the unit lichess-bot counts a key in to its comment.
func inUnit(comment, unit string) string {
	key, rest, _ := strings.Cut(comment, " (")
	if rest != "" {
		rest = " (" + rest
	}
	return key + ", in " + unit + rest
}

func p(path string) []string { return strings.Split(path, ".") }

func secs(f float64) time.Duration {
	return time.Duration(math.Round(f * float64(time.Second)))
}

func (t *translator) run(top *section) {
	if top.written("token") {
		top.take("token")
		if n := top.vals["token"]; !isNull(n) && n.Kind != yaml.ScalarNode {
			t.r.problem(n.Line, "token", "expected text (the token), got %s", describe(n, true))
		}
		t.hasToken = !isNull(top.vals["token"])
	}
	url := strings.TrimRight(top.str("url", "https://lichess.org/"), "/")
	t.b.set(p("lichess.base_url"), url, from(top, "url"))

	t.engine(top.sub("engine"))
	t.challenge(top.sub("challenge"))
	t.matchmaking(top.sub("matchmaking"))
	t.correspondence(top.sub("correspondence"))
	t.game(top)
	top.rest()
}

func (t *translator) absolute(key, dir string, line int) string {
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	if t.opts.Dir == "" {
		t.r.note(KindChanged, line, key, "%q is relative to the directory lichess-bot ran in, which is not known here: "+
			"it is kept relative (ponderosa takes it from its own working directory); write an absolute path", dir)
		return dir
	}
	return filepath.Join(t.opts.Dir, dir)
}

func (t *translator) engine(e *section) {
	protocol := e.str("protocol", "uci")
	ponder := e.boolean("ponder", false)
	if e.boolean("uci_ponder", false) {
		ponder = true
	}
	t.b.set(p("engine.ponder"), ponder, from(e, "ponder", "uci_ponder"))

	dir := e.str("dir", "")
	name := e.str("name", "")
	workingDir := e.str("working_dir", "")
	interpreter := e.str("interpreter", "")
	interpOpts, _ := e.strList("interpreter_options")
	engineOpts := e.sub("engine_options")
	uciOpts := e.sub("uci_options")

	switch protocol {
	case "uci":
		if name == "" {
			t.r.problem(e.keyLine("name"), "engine.name", "is missing or empty: name the engine program in engine.dir")
			return
		}
		t.external = true
		path := filepath.Join(dir, name)
		path = t.absolute("engine.dir", path, e.keyLine("dir"))
		x := extEngine{path: path, options: map[string]string{}}
		if interpreter != "" {
			x.path = interpreter
			x.args = append(slices.Clone(interpOpts), path)
		}
		for _, k := range engineOpts.keys {
			v := engineOpts.take(k.Value)
			switch {
			case v == nil:
				x.args = append(x.args, "--"+k.Value)
			case v.Kind == yaml.ScalarNode:
				// lichess-bot writes the value as Python prints it:
				// a YAML 1.1 boolean is True or False.
				val := v.Value
				if b, ok := pyBool(v); ok {
					val = map[bool]string{true: "True", false: "False"}[b]
				}
				x.args = append(x.args, "--"+k.Value+"="+val)
			default:
				engineOpts.wrongType(k.Value, v, "a value")
			}
		}
		// lichess-bot runs the engine in its own directory unless
		// working_dir says otherwise, so relative paths in uci_options
		// (SyzygyPath, EvalFile) start there; ponderosa's engine would
		// inherit ponderosa's directory instead.
		dirFrom := "engine.working_dir"
		x.dir = t.absolute("engine.working_dir", workingDir, e.keyLine("working_dir"))
		if x.dir == "" && t.opts.Dir != "" {
			x.dir, dirFrom = t.opts.Dir, "engine.working_dir (not set: lichess-bot's directory, where it runs the engine)"
		}
		t.uciOptions(uciOpts, x.options)
		t.ext = x
		t.b.set(p("engine.type"), config.EngineExternal, "engine.protocol: uci")
		t.b.set(p("engine.external.path"), x.path, from(e, "interpreter", "dir", "name"))
		if len(x.args) > 0 {
			t.b.set(p("engine.external.args"), x.args, from(e, "interpreter_options", "engine_options"))
		}
		if x.dir != "" {
			t.b.set(p("engine.external.dir"), x.dir, dirFrom)
		}
		if len(x.options) > 0 {
			t.b.set(p("engine.external.options"), x.options, "")
			t.b.mapping(p("engine.external.options")).HeadComment = "engine.uci_options"
		}
	case "xboard", "homemade":
		why := "ponderosa speaks UCI only, not XBoard: the built-in engine plays instead (engine.type: builtin); " +
			"to keep your engine, use a UCI build of it"
		if protocol == "homemade" {
			why = "a homemade engine is Python code run inside lichess-bot: ponderosa plays with its built-in engine instead " +
				"(engine.type: builtin); to keep your engine, give it a UCI front end and set engine.type: external"
		}
		t.r.note(KindNoEquivalent, e.keyLine("protocol"), "engine.protocol", "%s", why)
		t.b.set(p("engine.type"), config.EngineBuiltin, "engine.protocol: "+protocol)
		for _, k := range []string{"dir", "name", "working_dir", "interpreter", "interpreter_options", "engine_options", "uci_options"} {
			if e.written(k) {
				t.r.note(KindNoEquivalent, e.keyLine(k), "engine."+k, "belongs to the %s engine, which is not carried over", protocol)
			}
		}
		for _, k := range engineOpts.keys {
			engineOpts.take(k.Value)
		}
		for _, k := range uciOpts.keys {
			uciOpts.take(k.Value)
		}
	default:
		t.r.problem(e.keyLine("protocol"), "engine.protocol", "%q is not one of uci, xboard, homemade", protocol)
	}

	e.drop(KindNoEquivalent, "xboard_options", "ponderosa speaks UCI only: XBoard options have no use")
	e.dropUnless("homemade_options", "", "empty: nothing to carry over", "ponderosa runs no homemade (Python) engines")
	e.dropUnless("debug", "false", "false: nothing to carry over",
		"ponderosa logs every line exchanged with a UCI engine at log.level: trace")
	e.dropUnless("silence_stderr", "false", "false: ponderosa too shows an engine's stderr lines (logged at warning level)",
		"ponderosa always logs an engine's stderr lines, at warning level")
	t.polyglot(e)
	t.tablebases(e)
	t.drawOrResign(e)
	t.online(e.sub("online_moves"))
	engineOpts.rest()
	uciOpts.rest()
	e.rest()
}

// managedOptions are the UCI options python-chess manages itself, which
// lichess-bot therefore never sends to the engine from uci_options (it
// removes them); the import leaves them out too. ponderosa sets Ponder,
// UCI_Chess960 and UCI_Variant itself (engine.external.options may not
// hold them); MultiPV it neither sets nor forbids, but lichess-bot's
// engine never got it, so the engine keeps its own default.
var managedOptions = map[string]string{
	"ponder":       "lichess-bot never sent it, and ponderosa sets it itself from engine.ponder: left out",
	"uci_chess960": "lichess-bot never sent it, and ponderosa sets it itself for each game: left out",
	"uci_variant":  "lichess-bot never sent it, and ponderosa sets it itself for each game: left out",
	"multipv":      "lichess-bot never sent it: left out",
}

func (t *translator) uciOptions(s *section, into map[string]string) {
	for _, k := range s.keys {
		name := k.Value
		if name == "go_commands" {
			s.drop(KindNoEquivalent, name, "ponderosa gives the engine the clock (go wtime/btime) and has no fixed depth, nodes or movetime")
			continue
		}
		if why, ok := managedOptions[strings.ToLower(name)]; ok {
			s.drop(KindChanged, name, why)
			continue
		}
		v := s.take(name)
		switch {
		case v == nil:
			into[name] = ""
		case v.Kind == yaml.ScalarNode:
			// python-chess sends a boolean (YAML 1.1: yes, on, True...)
			// as true or false.
			into[name] = v.Value
			if b, ok := pyBool(v); ok {
				into[name] = strconv.FormatBool(b)
			}
		default:
			s.wrongType(name, v, "a value")
		}
	}
}

// Lichess' variant and speed keys.
var (
	lichessVariants = []string{"standard", "chess960", "fromPosition", "crazyhouse", "antichess", "atomic",
		"horde", "kingOfTheHill", "racingKings", "threeCheck"}
	standardVariants = []string{"standard", "chess960", "fromPosition"}
	realTimeSpeeds   = []string{"bullet", "blitz", "rapid", "classical"}
)

// maxConcurrency is the most games ponderosa's challenge.concurrency and
// max_simultaneous_games_per_user take.
const maxConcurrency = 64

func (t *translator) challenge(c *section) {
	concurrency := c.integer("concurrency", 1)
	reserved := c.integer("games_reserved_for_humans", 0)
	accept := true
	if concurrency < 1 {
		t.r.note(KindChanged, c.keyLine("concurrency"), "challenge.concurrency",
			"%d: lichess-bot then neither accepts nor creates challenges; ponderosa needs at least 1, so it is 1 with challenge.accept: false and matchmaking off",
			concurrency)
		concurrency, accept = 1, false
		t.noGames = true
	}
	if concurrency > maxConcurrency {
		t.r.note(KindChanged, c.keyLine("concurrency"), "challenge.concurrency",
			"%d: ponderosa plays at most %d real-time games at once: written as %d", concurrency, maxConcurrency, maxConcurrency)
		// Keep lichess-bot's number of bot slots where it fits.
		bots := concurrency - min(max(reserved, 0), concurrency)
		concurrency, reserved = maxConcurrency, max(maxConcurrency-bots, 0)
	}
	t.b.set(p("challenge.accept"), accept, "")
	concurrencyFrom := from(c, "concurrency")
	t.b.set(p("challenge.concurrency"), concurrency, concurrencyFrom)

	acceptBots := c.boolean("accept_bot", false)
	onlyBots := c.boolean("only_bot", false)
	acceptHumans := !onlyBots
	reserved = min(max(reserved, 0), concurrency)
	// lichess-bot plays at most concurrency - games_reserved_for_humans
	// bots at once, challengers and its own matchmaking challenges alike.
	botSlots := concurrency - reserved
	switch {
	case botSlots == 0 && !t.noGames:
		t.noBotGames = true // matchmaking off, noted there
		if acceptBots {
			t.r.note(KindChanged, c.keyLine("games_reserved_for_humans"), "challenge.games_reserved_for_humans",
				"reserves every slot for humans, so lichess-bot plays no bot: written as accept_bots: false and no reserved slots")
			acceptBots = false
		}
		reserved = 0
	case !acceptHumans && reserved > 0:
		t.r.note(KindChanged, c.keyLine("games_reserved_for_humans"), "challenge.games_reserved_for_humans",
			"only_bot is true, so lichess-bot plays bots only, at most concurrency - games_reserved_for_humans = %d at once: "+
				"written as concurrency: %d and no reserved slots", botSlots, botSlots)
		concurrency, reserved = botSlots, 0
		t.b.set(p("challenge.concurrency"), concurrency, concurrencyFrom+" - challenge.games_reserved_for_humans")
	}
	t.b.set(p("challenge.games_reserved_for_humans"), reserved, from(c, "games_reserved_for_humans"))
	perUser := c.integer("max_simultaneous_games_per_user", 5)
	switch {
	case perUser < 1:
		t.r.note(KindChanged, c.keyLine("max_simultaneous_games_per_user"), "challenge.max_simultaneous_games_per_user",
			"%d: lichess-bot then declines every challenge (\"later\"): written as challenge.accept: false", perUser)
		perUser, accept = 1, false
		t.b.set(p("challenge.accept"), false, "")
	case perUser > maxConcurrency:
		t.r.note(KindChanged, c.keyLine("max_simultaneous_games_per_user"), "challenge.max_simultaneous_games_per_user",
			"%d: ponderosa takes at most %d: written as %d (no more games than that are played at once anyway)", perUser, maxConcurrency, maxConcurrency)
		perUser = maxConcurrency
	}
	t.b.set(p("challenge.max_simultaneous_games_per_user"), perUser, from(c, "max_simultaneous_games_per_user"))
	t.b.set(p("challenge.sort_by"), c.str("sort_by", "best"), from(c, "sort_by"))

	// Variants.
	vs, _ := c.strList("variants")
	t.variants = nil
	for _, v := range vs {
		switch {
		case !slices.Contains(lichessVariants, v):
			t.r.note(KindUnknown, c.keyLine("variants"), "challenge.variants", "%q is not a Lichess variant: left out", v)
		case slices.Contains(t.variants, v):
		case slices.Contains(standardVariants, v) || t.external:
			t.variants = append(t.variants, v)
		default:
			t.r.note(KindNoEquivalent, c.keyLine("variants"), "challenge.variants",
				"%s: lichess-bot's engine is not carried over and ponderosa's built-in engine plays only standard, chess960 and fromPosition: left out", v)
		}
	}
	for _, v := range t.variants {
		if !slices.Contains(standardVariants, v) {
			t.r.note(KindChanged, c.keyLine("variants"), "challenge.variants",
				"%s: ponderosa runs one engine program per variant (engine.variants.%s); it is the engine of engine.dir + engine.name, "+
					"which must know the variant (Fairy-Stockfish does; check-config starts it to check)", v, v)
			x := t.ext
			t.b.set(p("engine.variants."+v+".path"), x.path, "the engine of engine.dir + engine.name")
			if len(x.args) > 0 {
				t.b.set(p("engine.variants."+v+".args"), x.args, "")
			}
			if x.dir != "" {
				t.b.set(p("engine.variants."+v+".dir"), x.dir, "")
			}
			if len(x.options) > 0 {
				t.b.set(p("engine.variants."+v+".options"), x.options, "")
			}
		}
	}

	// Speeds.
	speeds, _ := c.strList("time_controls")
	var ours []string
	for _, s := range speeds {
		switch {
		case s == "ultraBullet":
			t.r.note(KindChanged, c.keyLine("time_controls"), "challenge.time_controls",
				"ultraBullet: Lichess does not let bots play it: left out")
		case !slices.Contains(realTimeSpeeds, s) && s != "correspondence":
			t.r.note(KindUnknown, c.keyLine("time_controls"), "challenge.time_controls", "%q is not a Lichess speed: left out", s)
		case !slices.Contains(ours, s):
			ours = append(ours, s)
		}
	}

	// Time bounds: lichess-bot's apply to every real-time speed.
	minBase, maxBase := c.number("min_base", 0), c.number("max_base", math.Inf(1))
	minInc, maxInc := c.number("min_increment", 0), c.number("max_increment", 180)
	clamp := func(key string, f, hi float64) time.Duration {
		if f > hi {
			if !math.IsInf(f, 1) {
				t.r.note(KindChanged, c.keyLine(key), "challenge."+key, "%v seconds is more than Lichess allows: written as %v", f, secs(hi))
			}
			f = hi
		}
		return secs(f)
	}
	bmin, bmax := clamp("min_base", minBase, 10800), clamp("max_base", maxBase, 10800)
	imin, imax := clamp("min_increment", minInc, 180), clamp("max_increment", maxInc, 180)
	// A lower bound above the upper one lets no real-time clock through.
	var emptyRange []string
	if bmin > bmax {
		emptyRange = append(emptyRange, fmt.Sprintf("min_base (%v) is above max_base (%v)", bmin, bmax))
		bmin = bmax
	}
	if imin > imax {
		emptyRange = append(emptyRange, fmt.Sprintf("min_increment (%v) is above max_increment (%v)", imin, imax))
		imin = imax
	}
	if len(emptyRange) > 0 {
		var dropped []string
		ours = slices.DeleteFunc(ours, func(s string) bool {
			if slices.Contains(realTimeSpeeds, s) {
				dropped = append(dropped, s)
				return true
			}
			return false
		})
		msg := strings.Join(emptyRange, "; ") + ", so lichess-bot accepts no real-time challenge"
		if len(dropped) > 0 {
			msg += ": " + strings.Join(dropped, ", ") + " left out of challenge.speeds"
		}
		t.r.note(KindChanged, c.keyLine("min_base"), "challenge.min_base", "%s", msg)
	}

	// Days per move: lichess-bot accepts min_days <= days <= max_days;
	// Lichess offers 1 to 14.
	minDays, maxDays := c.number("min_days", 1), c.number("max_days", math.Inf(1))
	dmin := int(math.Ceil(math.Min(math.Max(minDays, 1), 15)))
	dmax := 14
	if maxDays < 14 {
		dmax = int(math.Floor(math.Max(maxDays, 0)))
	}
	if slices.Contains(ours, "correspondence") && maxDays > 14 {
		t.r.note(KindChanged, c.keyLine("max_days"), "challenge.max_days",
			"Lichess' longest correspondence is 14 days per move, and ponderosa declines games with no clock at all "+
				"(which lichess-bot accepts when max_days is unlimited): written as days_max: 14")
	}
	if dmin > dmax {
		if i := slices.Index(ours, "correspondence"); i >= 0 {
			ours = slices.Delete(ours, i, i+1)
			t.r.note(KindChanged, c.keyLine("min_days"), "challenge.min_days",
				"min_days (%g) and max_days (%g) leave no days per move from 1 to 14, so lichess-bot accepts no correspondence challenge: "+
					"correspondence left out of challenge.speeds", minDays, maxDays)
		}
		dmin, dmax = min(max(dmax, 1), 14), min(max(dmax, 1), 14)
	}
	dmin, dmax = min(max(dmin, 1), 14), min(max(dmax, 1), 14)

	modes, _ := c.strList("modes")
	for _, m := range modes {
		if m != "rated" && m != "casual" {
			t.r.note(KindUnknown, c.keyLine("modes"), "challenge.modes", "%q is not a mode (rated, casual): left out", m)
		}
	}
	rated, casual := slices.Contains(modes, "rated"), slices.Contains(modes, "casual")

	if accept {
		var why []string
		if len(t.variants) == 0 {
			why = append(why, "no variant is accepted")
		}
		if len(ours) == 0 {
			why = append(why, "no speed is accepted (challenge.time_controls)")
		}
		if !rated && !casual {
			why = append(why, "no mode is accepted (challenge.modes)")
		}
		if !acceptBots && !acceptHumans {
			why = append(why, "accept_bot is false and only_bot is true")
		}
		if len(why) > 0 {
			t.r.note(KindChanged, c.line, "challenge", "%s, so lichess-bot accepts no challenge: written as challenge.accept: false", strings.Join(why, "; "))
			t.b.set(p("challenge.accept"), false, "")
			accept = false
		}
	}
	t.b.set(p("challenge.variants"), nonNil(t.variants), from(c, "variants"))
	t.b.set(p("challenge.speeds"), append([]string{}, ours...), from(c, "time_controls"))

	comment := from(c, "min_base", "max_base", "min_increment", "max_increment")
	for _, s := range realTimeSpeeds {
		base := "challenge.time_controls." + s
		t.b.set(p(base+".base_min"), bmin, "")
		t.b.set(p(base+".base_max"), bmax, "")
		t.b.set(p(base+".increment_min"), imin, "")
		t.b.set(p(base+".increment_max"), imax, "")
		t.b.flow(p(base), comment)
	}
	c.dropUnless("bullet_requires_increment", "false", "false: nothing to carry over",
		"ponderosa's time bounds apply to bots and humans alike: to require an increment in bullet from everyone, "+
			"set challenge.time_controls.bullet.increment_min: 1s")

	t.b.set(p("challenge.time_controls.correspondence.days_min"), dmin, "")
	t.b.set(p("challenge.time_controls.correspondence.days_max"), dmax, "")
	t.b.flow(p("challenge.time_controls.correspondence"), from(c, "min_days", "max_days"))

	t.b.set(p("challenge.accept_rated"), rated, from(c, "modes"))
	t.b.set(p("challenge.accept_casual"), casual, from(c, "modes"))
	t.b.set(p("challenge.accept_bots"), acceptBots, from(c, "accept_bot"))
	t.b.set(p("challenge.accept_humans"), acceptHumans, from(c, "only_bot"))

	declineAll := func(key, format string, args ...any) {
		if accept {
			t.r.note(KindChanged, c.keyLine(key), "challenge."+key, format+": written as challenge.accept: false", args...)
			t.b.set(p("challenge.accept"), false, "")
			accept = false
		}
	}

	minR, maxR := c.integer("min_rating", 0), c.integer("max_rating", 4000)
	minR, maxR = min(max(minR, 0), 4000), min(max(maxR, 0), 4000)
	if minR > maxR {
		declineAll("min_rating", "min_rating (%d) is above max_rating (%d), so lichess-bot accepts no rated challenger", minR, maxR)
		minR = maxR
	}
	t.b.set(p("challenge.opponent_rating.min"), minR, "")
	t.b.set(p("challenge.opponent_rating.max"), maxR, "")
	t.b.flow(p("challenge.opponent_rating"), from(c, "min_rating", "max_rating"))
	c.dropUnless("rating_difference", "", "empty: nothing to carry over",
		"ponderosa bounds the challenger's rating by challenge.opponent_rating only, not by a difference from the bot's own rating")

	allow, _ := c.strList("allow_list")
	block, _ := c.strList("block_list")
	block = t.usernames(c, "block_list", block)
	hadAllow := slices.ContainsFunc(allow, func(n string) bool { return n != "" })
	allow = t.usernames(c, "allow_list", allow)
	allow = slices.DeleteFunc(allow, func(n string) bool {
		if slices.ContainsFunc(block, func(b string) bool { return strings.EqualFold(b, n) }) {
			t.r.note(KindChanged, c.keyLine("allow_list"), "challenge.allow_list",
				"%q is in block_list too, which lichess-bot looks at first: left out of allow_list", n)
			return true
		}
		return false
	})
	if hadAllow && len(allow) == 0 {
		declineAll("allow_list", "no name of allow_list is left, and lichess-bot accepts no one outside it")
	}
	t.b.set(p("challenge.allow_list"), nonNil(allow), from(c, "allow_list"))
	t.b.set(p("challenge.block_list"), nonNil(block), from(c, "block_list"))

	c.dropUnless("online_block_list", "", "empty: nothing to carry over",
		"ponderosa fetches no block lists from the web: copy the names into challenge.block_list")
	c.dropUnless("preference", "none", "none: ponderosa has no preference either",
		"ponderosa orders waiting challenges by challenge.sort_by only; to keep room for humans use challenge.games_reserved_for_humans")
	c.drop(KindNoEquivalent, "recent_bot_challenge_age",
		"ponderosa limits games per bot by challenge.max_simultaneous_games_per_user and all bot games by challenge.max_bot_games_per_day")
	c.drop(KindNoEquivalent, "max_recent_bot_challenges",
		"ponderosa limits games per bot by challenge.max_simultaneous_games_per_user and all bot games by challenge.max_bot_games_per_day")
	c.rest()
	t.challengeBlock = block
	t.accept = accept
	if accept && slices.Contains(ours, "correspondence") {
		t.corrDays = [2]int{dmin, dmax}
	}
}

// usernames keeps the names of a block or allow list that can be Lichess
// usernames (an empty one is no name, as lichess-bot reads it); another
// matches no player, and ponderosa refuses it.
func (t *translator) usernames(s *section, key string, names []string) []string {
	var kept []string
	for _, n := range names {
		switch {
		case n == "":
		case config.IsUsername(n):
			kept = append(kept, n)
		default:
			t.r.note(KindChanged, s.keyLine(key), join(s.path, key),
				"%q is not a Lichess username (2 to 30 letters, digits, _ or -), so it matches no player: left out", n)
		}
	}
	return kept
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
