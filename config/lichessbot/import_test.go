package lichessbot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"gopkg.in/yaml.v3"
)

// fixtureToken is the made-up token of testdata/config.yml.
const fixtureToken = "lip_FixtureTokenNotReal0123"

// engineDir makes a directory like lichess-bot's, with an executable
// engines/stockfish-17 (a script: the validation only looks it up).
func engineDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "engines"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "engines", "stockfish-17"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func importFixture(t *testing.T) (*Result, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := engineDir(t)
	res, err := Import(data, "config.yml", Options{Dir: dir})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return res, dir
}

func report(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteReport(&b, "config.yml"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// loadYAML writes the imported YAML to a file and loads it with the
// config loader, as check-config does.
func loadYAML(t *testing.T, r *Result) *config.Config {
	t.Helper()
	if len(r.Problems) > 0 {
		t.Fatalf("the imported YAML does not validate:\n%v\n%s", r.Problems, r.YAML)
	}
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, r.YAML, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatalf("config.Load of the imported YAML: %v\n%s", err, r.YAML)
	}
	return cfg
}

// TestImportFixtureKeepsEditedSettings imports the operator's lichess-bot
// file and checks that ponderosa's loader accepts the result and that each
// edited setting is kept.
func TestImportFixtureKeepsEditedSettings(t *testing.T) {
	res, dir := importFixture(t)
	cfg := loadYAML(t, res)

	e := cfg.Engine
	if e.Type != config.EngineExternal || e.External.Path != filepath.Join(dir, "engines", "stockfish-17") || !e.Ponder {
		t.Errorf("engine: type %q path %q ponder %v", e.Type, e.External.Path, e.Ponder)
	}
	// lichess-bot runs the engine in its directory when working_dir is empty.
	if e.External.Dir != dir {
		t.Errorf("engine.external.dir %q, want lichess-bot's directory %q", e.External.Dir, dir)
	}
	if o := e.External.Options; o["Threads"] != "2" || o["Hash"] != "256" || o["Move Overhead"] != "100" || o["UCI_ShowWDL"] != "true" {
		t.Errorf("uci options %v", o)
	}
	if _, ok := e.External.Options["Ponder"]; ok {
		t.Error("the Ponder UCI option was carried over; the bot sets it itself")
	}
	if _, ok := e.External.Options["go_commands"]; ok {
		t.Error("go_commands was taken as a UCI option")
	}

	c := cfg.Challenge
	if !c.Accept || c.Concurrency != 3 || c.GamesReservedForHumans != 1 || c.MaxSimultaneousGamesPerUser != 2 || c.SortBy != config.SortFirst {
		t.Errorf("challenge: accept %v concurrency %d reserved %d per user %d sort %q",
			c.Accept, c.Concurrency, c.GamesReservedForHumans, c.MaxSimultaneousGamesPerUser, c.SortBy)
	}
	if !slices.Equal(c.Variants, []string{"standard", "chess960", "fromPosition"}) || !slices.Equal(c.Speeds, []string{"bullet", "blitz", "rapid"}) {
		t.Errorf("variants %v speeds %v", c.Variants, c.Speeds)
	}
	want := config.ClockRange{BaseMin: time.Minute, BaseMax: 30 * time.Minute, IncrementMin: 0, IncrementMax: 20 * time.Second}
	for _, s := range []string{"bullet", "blitz", "rapid", "classical"} {
		if r, _ := c.TimeControls.Clock(s); r != want {
			t.Errorf("time_controls.%s = %+v, want %+v", s, r, want)
		}
	}
	if d := c.TimeControls.Correspondence; d.DaysMin != 1 || d.DaysMax != 14 {
		t.Errorf("days %+v", d)
	}
	if !c.AcceptRated || !c.AcceptCasual || !c.AcceptBots || !c.AcceptHumans {
		t.Errorf("modes/opponents: rated %v casual %v bots %v humans %v", c.AcceptRated, c.AcceptCasual, c.AcceptBots, c.AcceptHumans)
	}
	if c.OpponentRating != (config.RatingRange{Min: 1000, Max: 3200}) {
		t.Errorf("opponent rating %+v", c.OpponentRating)
	}
	if !slices.Equal(c.BlockList, []string{"NoisyPatzer", "flagger-99"}) || len(c.AllowList) != 0 {
		t.Errorf("block list %v allow list %v", c.BlockList, c.AllowList)
	}

	g := cfg.Game
	if g.MoveOverhead != 1500*time.Millisecond {
		t.Errorf("move overhead %v, want 1.5s", g.MoveOverhead)
	}
	if g.Greeting.Player != "Hello {opponent}, I am {me}! Good luck." || g.Greeting.Spectator != "Hi! I'm {me}." {
		t.Errorf("greeting %+v", g.Greeting)
	}
	if g.Goodbye.Player != "Thanks for the game, {opponent}!" || g.Goodbye.Spectator != "Thanks for watching!" {
		t.Errorf("goodbye %+v", g.Goodbye)
	}
	if g.AbortAfter != 30*time.Second || g.PGNDir != "game_records" || g.AcceptTakebacks {
		t.Errorf("abort %v pgn %q takebacks %v", g.AbortAfter, g.PGNDir, g.AcceptTakebacks)
	}

	m := cfg.Matchmaking
	if !m.Enabled || m.IdleTime != 15*time.Minute || !m.Rated {
		t.Errorf("matchmaking: enabled %v idle %v rated %v", m.Enabled, m.IdleTime, m.Rated)
	}
	if m.ChallengeTimeout != config.Default().Matchmaking.ChallengeTimeout {
		t.Errorf("matchmaking.challenge_timeout = %v: lichess-bot's challenge_timeout (idle minutes) must not land there", m.ChallengeTimeout)
	}
	var tcs []string
	for _, tc := range m.TimeControls {
		tcs = append(tcs, tc.String())
	}
	if !slices.Equal(tcs, []string{"1+0", "1+2", "3+0", "3+2"}) {
		t.Errorf("matchmaking time controls %v", tcs)
	}
	if !slices.Equal(m.Variants, []string{"standard", "chess960"}) || m.OpponentRating != (config.RatingRange{Min: 1500, Max: 2600}) || m.RatingDifference != 0 {
		t.Errorf("matchmaking variants %v rating %+v difference %d", m.Variants, m.OpponentRating, m.RatingDifference)
	}
	if !slices.Equal(m.BlockList, []string{"TooStrongBot"}) {
		t.Errorf("matchmaking block list %v", m.BlockList)
	}

	co := cfg.Correspondence
	if co.MoveTime != 90*time.Second || co.CheckinPeriod != 5*time.Minute || co.DisconnectTime != 150*time.Second || co.Ponder {
		t.Errorf("correspondence %+v", co)
	}
	if cfg.Lichess.BaseURL != "https://lichess.org" {
		t.Errorf("base url %q", cfg.Lichess.BaseURL)
	}
}

func TestImportTokenNeverInOutput(t *testing.T) {
	res, _ := importFixture(t)
	rep := report(t, res)
	if strings.Contains(string(res.YAML), fixtureToken) || strings.Contains(rep, fixtureToken) {
		t.Fatal("the token is in the output")
	}
	if !res.HasToken || !strings.Contains(rep, "NOT copied") || !strings.Contains(rep, config.TokenEnv) ||
		!strings.Contains(rep, "lichess.token_file") || !strings.Contains(rep, "LoadCredential=token:") {
		t.Errorf("the report does not say how to hand over the token:\n%s", rep)
	}
	for _, n := range res.Notes {
		if strings.Contains(n.Msg, fixtureToken) {
			t.Errorf("note %+v holds the token", n)
		}
	}
	// A token of the wrong type is an error that does not quote it.
	_, err := Import([]byte("token: [lip_SecretInAList]\nengine: {dir: ., name: sf}\n"), "c.yml", Options{})
	if err == nil || strings.Contains(err.Error(), "lip_SecretInAList") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("token as a list: %v", err)
	}
}

// notesOf returns the notes of a kind as "line key" strings.
func notesOf(r *Result, k Kind) []string {
	var out []string
	for _, n := range r.Notes {
		if n.Kind == k {
			out = append(out, n.Key)
		}
	}
	return out
}

func findNote(r *Result, key string) (Note, bool) {
	for _, n := range r.Notes {
		if n.Key == key {
			return n, true
		}
	}
	return Note{}, false
}

func TestImportReportsUnknownKeys(t *testing.T) {
	in := `token: x
engine:
  dir: /usr/games
  name: stockfish
  protocl: uci
challenge:
  concurency: 2
  variants: [standard]
  time_controls: [blitz]
  modes: [rated]
matchmaking:
  allow_matchmaking: false
  challenge_timout: 5
greeting:
  helo: hi
correspondence:
  move_tme: 10
my_own_key: 1
`
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := notesOf(res, KindUnknown)
	want := []string{"engine.protocl", "challenge.concurency", "matchmaking.challenge_timout", "greeting.helo", "correspondence.move_tme", "my_own_key"}
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("unknown key %s not reported (got %v)", k, got)
		}
	}
	if n, _ := findNote(res, "challenge.concurency"); n.Line != 7 || !strings.Contains(n.Msg, `did you mean "concurrency"?`) {
		t.Errorf("challenge.concurency reported at line %d: %q; want line 7 and a did-you-mean", n.Line, n.Msg)
	}
	if n, _ := findNote(res, "matchmaking.challenge_timout"); !strings.Contains(n.Msg, `did you mean "challenge_timeout"?`) {
		t.Errorf("matchmaking.challenge_timout: %q", n.Msg)
	}
	if n, _ := findNote(res, "my_own_key"); strings.Contains(n.Msg, "did you mean") {
		t.Errorf("my_own_key got a guess: %q", n.Msg)
	}
	rep := report(t, res)
	if !strings.Contains(rep, "config.yml line 18: my_own_key:") {
		t.Errorf("report lacks the unknown top-level key with its line:\n%s", rep)
	}
}

func TestImportNotYAML(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
	}{
		{"syntax", "engine:\n  dir: .\n  name: [unclosed\nchallenge: {}\n", 3},
		{"tab indentation", "engine:\n\tdir: .\n", 2},
		{"prose", "This is my bot's readme, not a configuration.\n", 1},
		{"list", "- token\n- engine\n", 1},
		{"two documents", "engine: {dir: ., name: sf}\n---\nchallenge: {}\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Import([]byte(tc.in), "c.yml", Options{})
			var probs config.Errors
			if !errors.As(err, &probs) || res != nil {
				t.Fatalf("got %v, %v; want config.Errors", res, err)
			}
			if probs[0].Line < tc.line-1 || probs[0].Line > tc.line || !strings.Contains(err.Error(), "c.yml line ") {
				t.Errorf("error %q: want line %d", err, tc.line)
			}
		})
	}
	if _, err := Import(nil, "c.yml", Options{}); err == nil {
		t.Error("an empty file imported")
	}
}

func TestImportWrongTypes(t *testing.T) {
	in := `engine:
  dir: /usr/games
  name: stockfish
  ponder: "yes please"
challenge:
  concurrency: three
  variants: standard
  time_controls: {blitz: true}
  max_base: "1800"
  block_list: [ok_name, {a: b}]
move_overhead: [100]
matchmaking:
  challenge_initial_time: [60, fast]
`
	_, err := Import([]byte(in), "c.yml", Options{})
	var probs config.Errors
	if !errors.As(err, &probs) {
		t.Fatalf("got %v, want config.Errors", err)
	}
	want := map[string]int{
		"engine.ponder":                      4,
		"challenge.concurrency":              6,
		"challenge.time_controls":            8,
		"challenge.max_base":                 9,
		"challenge.block_list":               10,
		"move_overhead":                      11,
		"matchmaking.challenge_initial_time": 13,
	}
	got := map[string]int{}
	for _, p := range probs {
		got[p.Key] = p.Line
	}
	for k, line := range want {
		if got[k] != line {
			t.Errorf("%s: reported at line %d, want %d (all: %v)", k, got[k], line, err)
		}
	}
	if !strings.Contains(err.Error(), `c.yml line 6: challenge.concurrency: expected a whole number, got "three"`) {
		t.Errorf("message:\n%v", err)
	}
	// A single variant is a list of one, as lichess-bot reads it: no problem.
	if _, ok := got["challenge.variants"]; ok {
		t.Errorf("a single variant was refused: %v", err)
	}
}

func TestImportLaterSections(t *testing.T) {
	res, _ := importFixture(t)
	got := notesOf(res, KindLater)
	// The books (engine.polyglot), draw_or_resign (its tablebase and piece
	// rules included) and the local tablebases (lichess_bot_tbs) are all
	// translated now (knowledge_test.go): nothing is left for later.
	if len(got) != 0 {
		t.Errorf("not-yet-supported notes %v, want none", got)
	}
	// The fixture's tables are off: nothing to carry over, nothing lost.
	for _, k := range []string{"engine.lichess_bot_tbs.syzygy"} {
		if n, ok := findNote(res, k); !ok || n.Kind != KindSame || !strings.Contains(n.Msg, "enabled is false") {
			t.Errorf("%s: %+v %v", k, n, ok)
		}
	}
	// Every key of the fixture is accounted for: the unknown one is
	// reported, and nothing outside the notes and the YAML disappears.
	if n, ok := findNote(res, "challenge.decline_on_full_moon"); !ok || n.Kind != KindUnknown || n.Line != 114 {
		t.Errorf("unknown fixture key: %+v %v", n, ok)
	}
}

// TestImportChallengeTimeoutIsIdleTime: lichess-bot's
// matchmaking.challenge_timeout is minutes idle before challenging; it
// becomes matchmaking.idle_time, never ponderosa's challenge_timeout.
func TestImportChallengeTimeoutIsIdleTime(t *testing.T) {
	in := "engine: {dir: /, name: bin/sh}\nchallenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n" +
		"matchmaking:\n  allow_matchmaking: true\n  challenge_timeout: 45\n  challenge_initial_time: [300]\n  challenge_increment: [3]\n"
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	if cfg.Matchmaking.IdleTime != 45*time.Minute || cfg.Matchmaking.ChallengeTimeout != config.Default().Matchmaking.ChallengeTimeout {
		t.Errorf("idle %v challenge timeout %v", cfg.Matchmaking.IdleTime, cfg.Matchmaking.ChallengeTimeout)
	}
	if strings.Contains(string(res.YAML), "challenge_timeout:") {
		t.Errorf("the YAML sets ponderosa's challenge_timeout:\n%s", res.YAML)
	}
	if n, ok := findNote(res, "matchmaking.challenge_timeout"); !ok || n.Line != 5 || !strings.Contains(n.Msg, "idle_time") {
		t.Errorf("note %+v %v", n, ok)
	}
}

// TestImportUsesLichessBotDefaults: a key left out of the lichess-bot file
// gets lichess-bot's default, where ponderosa's differs.
func TestImportUsesLichessBotDefaults(t *testing.T) {
	in := "engine: {dir: /, name: bin/sh}\nchallenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n"
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	switch {
	case cfg.Challenge.AcceptBots: // lichess-bot's accept_bot defaults to false
		t.Error("accept_bots: true, want lichess-bot's default false")
	case cfg.Challenge.SortBy != config.SortBest:
		t.Errorf("sort_by %q, want best", cfg.Challenge.SortBy)
	case cfg.Game.MoveOverhead != time.Second || cfg.Game.AbortAfter != 20*time.Second:
		t.Errorf("overhead %v abort %v", cfg.Game.MoveOverhead, cfg.Game.AbortAfter)
	case cfg.Game.Greeting.Player != "" || cfg.Game.Goodbye.Player != "":
		t.Errorf("greetings %q %q, want none", cfg.Game.Greeting.Player, cfg.Game.Goodbye.Player)
	case cfg.Engine.Ponder:
		t.Error("ponder on, want lichess-bot's default off")
	case cfg.Matchmaking.IdleTime != 30*time.Minute || cfg.Matchmaking.OpponentRating.Min != 600:
		t.Errorf("matchmaking idle %v min rating %d", cfg.Matchmaking.IdleTime, cfg.Matchmaking.OpponentRating.Min)
	case cfg.Challenge.AcceptCasual || !cfg.Challenge.AcceptRated:
		t.Errorf("modes: rated %v casual %v", cfg.Challenge.AcceptRated, cfg.Challenge.AcceptCasual)
	case cfg.Challenge.TimeControls.Blitz.BaseMax != 3*time.Hour || cfg.Challenge.TimeControls.Blitz.IncrementMax != 3*time.Minute:
		t.Errorf("blitz %+v", cfg.Challenge.TimeControls.Blitz)
	}
}

func TestImportEngineProtocols(t *testing.T) {
	base := "challenge: {variants: [standard, crazyhouse], time_controls: [blitz], modes: [rated]}\n"
	// homemade and xboard: the built-in engine, reported.
	for _, proto := range []string{"homemade", "xboard"} {
		res, err := Import([]byte("engine: {dir: ./engines, name: mine, protocol: "+proto+", uci_options: {Hash: 1}}\n"+base), "c.yml", Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := loadYAML(t, res)
		if cfg.Engine.Type != config.EngineBuiltin || !slices.Equal(cfg.Challenge.Variants, []string{"standard"}) {
			t.Errorf("%s: engine %q variants %v", proto, cfg.Engine.Type, cfg.Challenge.Variants)
		}
		if n, ok := findNote(res, "engine.protocol"); !ok || n.Kind != KindNoEquivalent {
			t.Errorf("%s: protocol not reported: %+v", proto, n)
		}
		if !slices.Contains(notesOf(res, KindNoEquivalent), "challenge.variants") {
			t.Errorf("%s: crazyhouse dropped silently", proto)
		}
	}
	// An interpreter: the program is the interpreter, the engine an argument.
	lbDir := t.TempDir()
	res, err := Import([]byte("engine: {dir: engines, name: eng.jar, interpreter: sh, interpreter_options: [-x], engine_options: {cpuct: 3.1, quiet: null}}\n"+base),
		"c.yml", Options{Dir: lbDir})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	x := cfg.Engine.External
	if x.Path != "sh" || !slices.Equal(x.Args, []string{"-x", filepath.Join(lbDir, "engines", "eng.jar"), "--cpuct=3.1", "--quiet"}) {
		t.Errorf("interpreter: path %q args %q", x.Path, x.Args)
	}
	// A variant other than standard gets the same engine in engine.variants.
	if v, ok := cfg.Engine.Variants["crazyhouse"]; !ok || v.Path != "sh" || !slices.Equal(v.Args, x.Args) {
		t.Errorf("engine.variants.crazyhouse = %+v, %v", v, ok)
	}
}

func TestImportMatchmakingClocks(t *testing.T) {
	in := `engine: {dir: /, name: bin/sh}
challenge: {variants: [standard], time_controls: [blitz], modes: [rated]}
matchmaking:
  allow_matchmaking: true
  challenge_initial_time: [15, 20, 600]
  challenge_increment: [0, 90]
  challenge_days: [2]
  challenge_mode: random
`
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	var tcs []string
	for _, tc := range cfg.Matchmaking.TimeControls {
		tcs = append(tcs, tc.String())
	}
	// 15+0 is ultraBullet, 20 s is no Lichess base, 90 s increments are too long.
	if !slices.Equal(tcs, []string{"10+0"}) {
		t.Errorf("time controls %v, want [10+0]", tcs)
	}
	changed := 0
	for _, n := range res.Notes {
		if n.Key == "matchmaking.challenge_initial_time" {
			changed++
		}
	}
	if changed != 5 {
		t.Errorf("%d dropped clocks reported, want 5", changed)
	}
	// Correspondence is not accepted here (time_controls: [blitz]), so
	// the days are left out, and said so (TestImportMatchmakingDays).
	if !slices.Contains(notesOf(res, KindChanged), "matchmaking.challenge_days") || len(cfg.Matchmaking.CorrespondenceDays) > 0 {
		t.Errorf("days not reported, or carried over (%v) though correspondence is not accepted: %+v", cfg.Matchmaking.CorrespondenceDays, res.Notes)
	}
	// The random mode carries over (matchmaking.mode), without a note.
	if cfg.Matchmaking.ChallengeMode() != config.ModeRandom {
		t.Errorf("challenge_mode random written as mode %q", cfg.Matchmaking.ChallengeMode())
	}
	if _, ok := findNote(res, "matchmaking.challenge_mode"); ok {
		t.Errorf("challenge_mode random reported: %+v", res.Notes)
	}
}

// lichess-bot's challenge_days carry over as matchmaking.correspondence_days
// when ponderosa accepts correspondence, each day one Lichess takes and
// within min_days..max_days (the others noted and left out); days alone
// offer correspondence only (time_controls written empty); with no day
// and no clock left, matchmaking is off. A null beside days (lichess-bot
// draws it like a day) is noted, as it changes the mix of kinds.
func TestImportMatchmakingDays(t *testing.T) {
	for _, tt := range []struct {
		name, challenge, matchmaking string
		days                         []int
		clocks                       []string
		enabled                      bool
		notes                        int // notes on matchmaking.challenge_days
	}{
		{"days and clocks", "{variants: [standard], time_controls: [blitz, correspondence], modes: [rated], max_days: 7}",
			"challenge_initial_time: [180], challenge_increment: [2], challenge_days: [1, 2, 4, 14, 2, 1.5]",
			[]int{1, 2}, []string{"3+2"}, true, 3},
		{"days only", "{variants: [standard], time_controls: [correspondence], modes: [casual]}",
			"challenge_days: [3, null]", []int{3}, nil, true, 1},
		{"days only, no null", "{variants: [standard], time_controls: [correspondence], modes: [casual]}",
			"challenge_days: [3]", []int{3}, nil, true, 0},
		{"days and clocks, a null", "{variants: [standard], time_controls: [blitz, correspondence], modes: [rated]}",
			"challenge_initial_time: [180], challenge_increment: [2], challenge_days: [null, 2]", []int{2}, []string{"3+2"}, true, 1},
		{"correspondence not accepted, clocks", "{variants: [standard], time_controls: [blitz], modes: [rated]}",
			"challenge_initial_time: [180], challenge_increment: [2], challenge_days: [1]", nil, []string{"3+2"}, true, 1},
		{"correspondence not accepted, days only", "{variants: [standard], time_controls: [blitz], modes: [rated]}",
			"challenge_days: [1, 2]", nil, nil, false, 2},
	} {
		in := "engine: {dir: /, name: bin/sh}\nchallenge: " + tt.challenge + "\nmatchmaking: {allow_matchmaking: true, " + tt.matchmaking + "}\n"
		res, err := Import([]byte(in), "c.yml", Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := loadYAML(t, res)
		m := cfg.Matchmaking
		var clocks []string
		for _, tc := range m.TimeControls {
			clocks = append(clocks, tc.String())
		}
		if !slices.Equal(m.CorrespondenceDays, tt.days) || (tt.enabled && !slices.Equal(clocks, tt.clocks)) || m.Enabled != tt.enabled {
			t.Errorf("%s: days %v clocks %v enabled %v; want %v %v %v\n%s", tt.name, m.CorrespondenceDays, clocks, m.Enabled, tt.days, tt.clocks, tt.enabled, res.YAML)
		}
		notes := 0
		for _, n := range res.Notes {
			if n.Key == "matchmaking.challenge_days" {
				notes++
			}
		}
		if notes != tt.notes {
			t.Errorf("%s: %d notes on challenge_days, want %d: %+v", tt.name, notes, tt.notes, res.Notes)
		}
	}
}

// TestImportNoChallengeAccepted: settings with which lichess-bot accepts no
// challenge become challenge.accept: false, reported, and still validate.
func TestImportNoChallengeAccepted(t *testing.T) {
	for name, ch := range map[string]string{
		"no modes":      "{variants: [standard], time_controls: [blitz], modes: []}",
		"no speeds":     "{variants: [standard], modes: [rated]}",
		"concurrency 0": "{concurrency: 0, variants: [standard], time_controls: [blitz], modes: [rated]}",
		"nobody":        "{accept_bot: false, only_bot: true, variants: [standard], time_controls: [blitz], modes: [rated]}",
	} {
		res, err := Import([]byte("engine: {dir: /, name: bin/sh}\nmatchmaking: {allow_matchmaking: true, challenge_initial_time: [60], challenge_increment: [1]}\nchallenge: "+ch+"\n"), "c.yml", Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := loadYAML(t, res)
		if cfg.Challenge.Accept {
			t.Errorf("%s: challenge.accept is true", name)
		}
		if name == "concurrency 0" && cfg.Matchmaking.Enabled {
			t.Errorf("%s: matchmaking on", name)
		}
		if len(notesOf(res, KindChanged)) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 1500 * time.Millisecond: "1500ms", 90 * time.Second: "1m30s", 30 * time.Minute: "30m",
		3 * time.Hour: "3h", 90 * time.Minute: "1h30m", 20 * time.Second: "20s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(formatDuration(d)); err != nil || back != d {
			t.Errorf("%q does not parse back to %v", formatDuration(d), d)
		}
	}
}

// keyPaths lists the dotted paths of every key in a YAML file.
func keyPaths(t *testing.T, data []byte) []string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := join(path, n.Content[i].Value)
			out = append(out, p)
			walk(n.Content[i+1], p)
		}
	}
	walk(doc.Content[0], "")
	return out
}

// TestImportAccountsForEveryKey imports a file with every key lichess-bot
// knows: none is unknown, and each one is either named in the YAML's
// comments (the key it came from) or in a note of the report (itself or
// its section): nothing is dropped silently.
func TestImportAccountsForEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "every-key.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := engineDir(t)
	if err := os.WriteFile(filepath.Join(dir, "engines", "engine_name"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Import(data, "every-key.yml", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, data, res)
	if strings.Contains(string(res.YAML)+report(t, res), "lip_EveryKeyFixtureToken") {
		t.Error("the token is in the output")
	}
}

// checkAccounted checks that the import res of the lichess-bot file data
// validates, reports none of its keys as unknown, and names each key in
// the YAML's comments (the key it came from) or in a note of the report
// (itself or its section): nothing is dropped silently.
func checkAccounted(t *testing.T, data []byte, res *Result) {
	t.Helper()
	loadYAML(t, res)
	if u := notesOf(res, KindUnknown); len(u) > 0 {
		t.Errorf("lichess-bot keys reported as unknown: %v", u)
	}
	var comments strings.Builder
	for _, line := range strings.Split(string(res.YAML), "\n") {
		if _, c, ok := strings.Cut(line, "# "); ok {
			comments.WriteString(" " + c + " ")
		}
	}
	noted := func(p string) bool {
		for _, n := range res.Notes {
			if n.Key == p || strings.HasPrefix(p, n.Key+".") {
				return true
			}
		}
		return false
	}
	commented := func(p string) bool {
		for q := p; q != ""; {
			if strings.Contains(comments.String(), " "+q+" ") || strings.Contains(comments.String(), " "+q+",") ||
				strings.Contains(comments.String(), " "+q+":") {
				return true
			}
			// A parent section accounts for its keys, but not a top-level
			// section: "engine" is a word of many comments.
			i := strings.LastIndexByte(q, '.')
			if i < 0 || !strings.Contains(q[:i], ".") {
				break
			}
			q = q[:i]
		}
		return false
	}
	paths := keyPaths(t, data)
	for _, p := range paths {
		// A section whose keys are checked one by one.
		section := slices.ContainsFunc(paths, func(q string) bool { return strings.HasPrefix(q, p+".") })
		switch {
		case section && strings.Contains(p, "."):
		case p == "token":
			if !res.HasToken {
				t.Error("the token was not seen")
			}
		case slices.Contains([]string{"engine", "challenge", "matchmaking", "correspondence", "greeting"}, p):
		case !noted(p) && !commented(p):
			t.Errorf("%s is neither in the YAML's comments nor in the report", p)
		}
	}
}

// TestImportModeRandomOnlyWhenItSays: lichess-bot's default challenge_mode
// (random) is written only when challenge_mode was written or matchmaking
// is on: otherwise a rated: the user writes later would be refused beside
// it.
func TestImportModeRandomOnlyWhenItSays(t *testing.T) {
	for _, tt := range []struct {
		name, mm string
		random   bool
	}{
		{"matchmaking off, no challenge_mode", "matchmaking: {allow_matchmaking: false}\n", false},
		{"no matchmaking section", "", false},
		{"matchmaking on", "matchmaking: {allow_matchmaking: true, challenge_initial_time: [3], challenge_increment: [2]}\n", true},
		{"challenge_mode written", "matchmaking: {allow_matchmaking: false, challenge_mode: random}\n", true},
	} {
		in := "engine: {dir: /, name: bin/sh}\nchallenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n" + tt.mm
		res, err := Import([]byte(in), "c.yml", Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		cfg := loadYAML(t, res)
		if got := cfg.Matchmaking.Mode == config.ModeRandom; got != tt.random {
			t.Errorf("%s: mode %q, want random %v\n%s", tt.name, cfg.Matchmaking.Mode, tt.random, res.YAML)
		}
		if !tt.random {
			// The user may then write rated: beside what was imported.
			edited := append(append([]byte(nil), res.YAML...), "\n"...)
			edited = []byte(strings.Replace(string(edited), "matchmaking:\n", "matchmaking:\n  rated: false\n", 1))
			if !strings.Contains(string(edited), "  rated: false\n") {
				t.Fatalf("%s: no matchmaking section to add rated: to\n%s", tt.name, res.YAML)
			}
			if _, err := config.Parse(edited, "config.yaml"); err != nil {
				t.Errorf("%s: the import with rated: false added is refused: %v\n%s", tt.name, err, edited)
			}
		}
	}
}

// TestImportMatchmakingFromPosition: challenge_variant: fromPosition is
// left out (the matchmaker's challenges carry no position), noted, and
// the import validates.
func TestImportMatchmakingFromPosition(t *testing.T) {
	in := "engine: {dir: /, name: bin/sh}\nchallenge: {variants: [standard, fromPosition], time_controls: [blitz], modes: [rated]}\n" +
		"matchmaking: {allow_matchmaking: true, challenge_initial_time: [3], challenge_increment: [2], challenge_variant: fromPosition}\n"
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	if !slices.Equal(cfg.Matchmaking.Variants, []string{"standard"}) {
		t.Errorf("matchmaking variants %v, want [standard]", cfg.Matchmaking.Variants)
	}
	if n, ok := findNote(res, "matchmaking.challenge_variant"); !ok || !strings.Contains(n.Msg, "fromPosition needs a position") {
		t.Errorf("note %+v (%v), want fromPosition left out", n, ok)
	}
}
