package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"gopkg.in/yaml.v3"
)

// problemsOf parses src and returns its problems; it fails the test when
// parsing succeeds or the error is not Errors.
func problemsOf(t *testing.T, src string) Errors {
	t.Helper()
	c, err := Parse([]byte(src), "config.yaml")
	if err == nil {
		t.Fatalf("Parse accepted:\n%s", src)
	}
	if c != nil {
		t.Errorf("Parse returned a config together with an error")
	}
	var probs Errors
	if !errors.As(err, &probs) {
		t.Fatalf("error is %T, not Errors: %v", err, err)
	}
	return probs
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int    // line of the expected problem
		want string // the whole formatted problem, or a part of it
	}{
		{
			name: "unknown top-level key with suggestion",
			src:  "lichess:\n  base_url: https://lichess.org\nengin:\n  type: builtin\n",
			line: 3,
			want: `config.yaml line 3: unknown key "engin" at the top level (did you mean "engine"?)`,
		},
		{
			name: "misspelt nested key",
			src:  "challenge:\n  concurrency: 2\n  concurency: 2\n",
			line: 3,
			want: `config.yaml line 3: unknown key "concurency" in challenge (did you mean "concurrency"?)`,
		},
		{
			name: "misspelt deeply nested key suggests by part",
			src:  "challenge:\n  time_controls:\n    blitz:\n      incremnt_max: 5s\n",
			line: 4,
			want: `unknown key "incremnt_max" in challenge.time_controls.blitz (did you mean "increment_max"?)`,
		},
		{
			name: "truncated key suggests every key with that part",
			src:  "challenge:\n  time_controls:\n    blitz:\n      incremnt: 5s\n",
			line: 4,
			want: `(did you mean "increment_max" or "increment_min"?)`,
		},
		{
			name: "key in the wrong section",
			src:  "engine:\n  move_overhead: 100ms\n",
			line: 2,
			want: `unknown key "move_overhead" in engine (it belongs in game.move_overhead)`,
		},
		{
			name: "unknown key with nothing close lists the known keys",
			src:  "log:\n  colour: true\n",
			line: 2,
			want: `unknown key "colour" in log (known keys: file, format, level)`,
		},
		{
			name: "case and dashes are forgiven in suggestions",
			src:  "engine:\n  builtin:\n    Hash-MB: 32\n",
			line: 3,
			want: `(did you mean "hash_mb"?)`,
		},
		{
			name: "bad duration",
			src:  "lichess:\n  request_timeout: 10 minutes\n",
			line: 2,
			want: `config.yaml line 2: lichess.request_timeout: "10 minutes" is not a duration: write it like "150ms", "30s", "10m" or "1h30m"`,
		},
		{
			name: "duration without unit",
			src:  "game:\n  move_overhead: 150\n",
			line: 2,
			want: `game.move_overhead: 150 has no unit`,
		},
		{
			name: "long bad duration is quoted whole",
			src:  "shutdown:\n  grace_period: ten minutes please\n",
			line: 2,
			want: `shutdown.grace_period: "ten minutes please" is not a duration`,
		},
		{
			name: "bad time control",
			src:  "matchmaking:\n  time_controls: [\"3+2\", \"3 min\"]\n",
			line: 2,
			want: `matchmaking.time_controls[1]: time control "3 min" has no "+"`,
		},
		{
			name: "time control with a bad increment",
			src:  "matchmaking:\n  time_controls:\n    - 3+2\n    - 3+1.5\n",
			line: 4,
			want: `matchmaking.time_controls[1]: time control "3+1.5": increment "1.5" is not a whole number of seconds`,
		},
		{
			name: "time control Lichess does not offer",
			src:  "matchmaking:\n  time_controls: [\"2.5+0\"]\n",
			line: 2,
			want: `matchmaking.time_controls[0]: "2.5+0": Lichess takes a base of 0, 0.25, 0.5, 0.75, 1, 1.5 or a whole number of minutes up to 180`,
		},
		{
			name: "index stays right after a bad time control",
			src:  "matchmaking:\n  time_controls: [\"x\", \"0+0\"]\n",
			line: 2,
			want: `matchmaking.time_controls[1]: "0+0" has no time at all`,
		},
		{
			name: "increment above Lichess' challenge limit",
			src:  "matchmaking:\n  time_controls: [\"5+90\"]\n",
			line: 2,
			want: `at most 60 seconds`,
		},
		{
			name: "not a number",
			src:  "engine:\n  builtin:\n    hash_mb: lots\n",
			line: 3,
			want: `config.yaml line 3: engine.builtin.hash_mb: expected a whole number, got "lots"`,
		},
		{
			name: "not a bool",
			src:  "engine:\n  ponder: sometimes\n",
			line: 2,
			want: `engine.ponder: expected true or false, got "sometimes"`,
		},
		{
			name: "scalar instead of a list",
			src:  "challenge:\n  variants: standard\n",
			line: 2,
			want: `challenge.variants: expected a list such as [a, b], got "standard"`,
		},
		{
			name: "scalar instead of a section",
			src:  "challenge: 3\n",
			line: 1,
			want: `challenge: expected a section of keys (a mapping), got 3`,
		},
		{
			name: "concurrency out of range",
			src:  "challenge:\n  concurrency: 0\n",
			line: 2,
			want: `config.yaml line 2: challenge.concurrency: must be between 1 and 64, got 0`,
		},
		{
			name: "rating range upside down",
			src:  "challenge:\n  opponent_rating:\n    min: 2000\n    max: 1500\n",
			line: 2,
			want: `challenge.opponent_rating: min (2000) is above max (1500): lower min or raise max`,
		},
		{
			name: "matchmaking rating difference negative",
			src:  "matchmaking:\n  rating_difference: -100\n",
			line: 2,
			want: `config.yaml line 2: matchmaking.rating_difference: must be between 0 and 4000, got -100`,
		},
		{
			name: "clock range upside down",
			src:  "challenge:\n  time_controls:\n    rapid: {base_min: 15m, base_max: 10m}\n",
			line: 3,
			want: `challenge.time_controls.rapid: base_min (15m0s) is above base_max (10m0s)`,
		},
		{
			name: "negative increment",
			src:  "challenge:\n  time_controls:\n    bullet:\n      increment_min: -1s\n",
			line: 4,
			want: `challenge.time_controls.bullet.increment_min: must not be negative`,
		},
		{
			name: "correspondence days out of range",
			src:  "challenge:\n  time_controls:\n    correspondence: {days_max: 30}\n",
			line: 3,
			want: `challenge.time_controls.correspondence.days_max: must be between 1 and 14, got 30`,
		},
		{
			name: "unknown variant with suggestion",
			src:  "challenge:\n  variants: [standard, chess906]\n",
			line: 2,
			want: `challenge.variants[1]: "chess906" is not one of`,
		},
		{
			name: "variant the built-in engine cannot play",
			src:  "challenge:\n  variants: [standard, atomic]\n",
			line: 2,
			want: `challenge.variants[1]: no engine plays atomic: add engine.variants.atomic (an external UCI engine that knows its rules, such as Fairy-Stockfish), or remove "atomic"`,
		},
		{
			name: "unknown speed",
			src:  "challenge:\n  speeds: [blitz, bulet]\n",
			line: 2,
			want: `(did you mean "bullet"?)`,
		},
		{
			name: "empty variants",
			src:  "challenge:\n  variants: []\n",
			line: 2,
			want: `challenge.variants: is empty: list at least one variant`,
		},
		{
			name: "no mode accepted",
			src:  "challenge:\n  accept_rated: false\n  accept_casual: false\n",
			line: 1,
			want: `accept_rated and accept_casual are both false`,
		},
		{
			name: "player both allowed and blocked",
			src:  "challenge:\n  allow_list: [Alice]\n  block_list: [alice]\n",
			line: 2,
			want: `challenge.allow_list[0]: "Alice" is also in block_list`,
		},
		{
			name: "not a username",
			src:  "challenge:\n  block_list: [\"bad name!\"]\n",
			line: 2,
			want: `"bad name!" is not a Lichess username`,
		},
		{
			name: "engine type",
			src:  "engine:\n  type: extern\n",
			line: 2,
			want: `engine.type: "extern" is not one of builtin, external (did you mean "external"?)`,
		},
		{
			name: "external engine without a path",
			src:  "engine:\n  type: external\n",
			line: 1,
			want: `engine.external.path: is empty: give the engine program`,
		},
		{
			name: "external engine that does not exist",
			src:  "engine:\n  type: external\n  external:\n    path: /nonexistent/stockfish\n",
			line: 4,
			want: `engine.external.path: cannot run "/nonexistent/stockfish"`,
		},
		{
			name: "UCI option the bot owns",
			src:  "engine:\n  external:\n    options:\n      Ponder: true\n",
			line: 4,
			want: `engine.external.options.Ponder: is set by the bot: use engine.ponder instead`,
		},
		{
			name: "plain http to a remote server",
			src:  "lichess:\n  base_url: http://lichess.org\n",
			line: 2,
			want: `plain http would send the token unencrypted`,
		},
		{
			name: "base url without scheme",
			src:  "lichess:\n  base_url: lichess.org\n",
			line: 2,
			want: `"lichess.org" is not an http(s) address`,
		},
		{
			name: "stream timeout too short",
			src:  "lichess:\n  stream_read_timeout: 1s\n",
			line: 2,
			want: `lichess.stream_read_timeout: must be between 10s and 10m0s, got 1s`,
		},
		{
			name: "chat message too long",
			src:  "game:\n  greeting:\n    player: \"" + strings.Repeat("x", 141) + "\"\n",
			line: 3,
			want: `game.greeting.player: is 141 characters long; Lichess chat takes at most 140`,
		},
		{
			name: "unknown placeholder",
			src:  "game:\n  goodbye:\n    spectator: \"gg {oponent}\"\n",
			line: 3,
			want: `unknown placeholder {oponent} (did you mean {opponent}?)`,
		},
		{
			name: "opponent gone",
			src:  "game:\n  opponent_gone: claim\n",
			line: 2,
			want: `game.opponent_gone: "claim" is not one of claim_victory, claim_draw, wait`,
		},
		{
			name: "resign margin",
			src:  "game:\n  resign:\n    below_cp: -500\n",
			line: 3,
			want: `game.resign.below_cp: must be between 100 and 100000, got -500`,
		},
		{
			name: "draw offer moves",
			src:  "game:\n  draw:\n    offer: true\n    offer_moves: 0\n",
			line: 4,
			want: `game.draw.offer_moves: must be between 1 and 100, got 0 (our moves in a row with a level score)`,
		},
		{
			name: "draw offer pieces",
			src:  "game:\n  draw:\n    offer_pieces: 1\n",
			line: 3,
			want: `game.draw.offer_pieces: must be between 2 and 32, got 1 (0 offers with any number of pieces)`,
		},
		{
			name: "draw offer clock",
			src:  "game:\n  draw:\n    offer_min_opponent_clock: -5s\n",
			line: 3,
			want: `game.draw.offer_min_opponent_clock: must be between 0s and 1h0m0s, got -5s`,
		},
		{
			name: "log level",
			src:  "log:\n  level: verbose\n",
			line: 2,
			want: `log.level: "verbose" is not one of trace, debug, info, warn, error`,
		},
		{
			name: "log format",
			src:  "log:\n  format: jsn\n",
			line: 2,
			want: `(did you mean "json"?)`,
		},
		{
			name: "YAML syntax error",
			src:  "lichess:\n  base_url: https://lichess.org\n engine: x\n",
			line: 2,
			want: `YAML syntax`,
		},
		{
			name: "tab indentation",
			src:  "lichess:\n\tbase_url: x\n",
			line: 2,
			want: `YAML syntax`,
		},
		{
			name: "duplicate key",
			src:  "log:\n  level: info\n  level: debug\n",
			line: 3,
			want: `already defined at line 2`,
		},
		{
			name: "two documents",
			src:  "log:\n  level: info\n---\nlog:\n  level: debug\n",
			line: 3,
			want: `a second YAML document`,
		},
		{
			name: "top level is a list",
			src:  "- lichess\n- engine\n",
			line: 1,
			want: `the file must be a mapping of sections`,
		},
		{
			name: "unknown key inside a merged mapping",
			src:  "base: &b {levle: info}\nlog:\n  <<: *b\n",
			line: 1,
			want: `unknown key "levle" (not a setting of Log)`,
		},
		{
			name: "mapping inside a list names the right element",
			src:  "challenge:\n  variants: [standard, {a: b}, atomic]\n",
			line: 2,
			want: `challenge.variants[1]: expected text, got a mapping`,
		},
		{
			name: "UCI option value that is not a scalar",
			src:  "engine:\n  external:\n    options: {Hash: [1]}\n",
			line: 3,
			want: `engine.external.options.Hash: expected text, got a list`,
		},
		{
			name: "unknown key brought in by a merge key",
			src:  "base: &b\n  levle: info\nlog:\n  <<: *b\n",
			line: 1,
			want: `unknown key "base" at the top level`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := problemsOf(t, tt.src)
			for _, p := range probs {
				if strings.Contains(p.Error(), tt.want) {
					if p.Line != tt.line {
						t.Errorf("problem %q is at line %d, want line %d", p.Error(), p.Line, tt.line)
					}
					return
				}
			}
			t.Errorf("no problem contains %q; got:\n%v", tt.want, probs)
		})
	}
}

func TestAllProblemsReportedTogether(t *testing.T) {
	src := `lichess:
  request_timeout: soon
engine:
  builtin:
    hash_mb: 0
    threds: 2
challenge:
  concurrency: 100
log:
  level: loud
`
	probs := problemsOf(t, src)
	wantKeys := []struct {
		line int
		part string
	}{
		{2, "lichess.request_timeout"},
		{5, "engine.builtin.hash_mb"},
		{6, `unknown key "threds"`},
		{8, "challenge.concurrency"},
		{10, "log.level"},
	}
	if len(probs) != len(wantKeys) {
		t.Fatalf("got %d problems, want %d:\n%v", len(probs), len(wantKeys), probs)
	}
	for i, w := range wantKeys {
		if probs[i].Line != w.line || !strings.Contains(probs[i].Error(), w.part) {
			t.Errorf("problem %d = %q, want line %d mentioning %s", i, probs[i].Error(), w.line, w.part)
		}
	}
	// The error text lists them one a line, in file order.
	var err error = probs
	if got := strings.Count(err.Error(), "\n") + 1; got != len(wantKeys) {
		t.Errorf("error text has %d lines, want %d", got, len(wantKeys))
	}
}

func TestDefaultsApplied(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, c *Config)
	}{
		{"empty file", "", func(t *testing.T, c *Config) { sameAsDefault(t, c) }},
		{"comments only", "# nothing here\n", func(t *testing.T, c *Config) { sameAsDefault(t, c) }},
		{"empty sections", "lichess:\nengine:\nchallenge:\n", func(t *testing.T, c *Config) { sameAsDefault(t, c) }},
		{"one key keeps the rest", "challenge:\n  concurrency: 3\n", func(t *testing.T, c *Config) {
			if c.Challenge.Concurrency != 3 {
				t.Errorf("concurrency = %d, want 3", c.Challenge.Concurrency)
			}
			d := Default()
			if !slices.Equal(c.Challenge.Variants, d.Challenge.Variants) || !c.Challenge.AcceptBots || !c.Engine.Ponder ||
				c.Lichess.StreamReadTimeout != 20*time.Second || c.Challenge.MaxBotGamesPerDay != 100 ||
				c.Shutdown.GracePeriod != 10*time.Minute || c.Log.Format != LogAuto {
				t.Errorf("defaults lost: %+v", c)
			}
		}},
		{"nested key keeps its siblings", "challenge:\n  time_controls:\n    blitz:\n      increment_max: 5s\n", func(t *testing.T, c *Config) {
			b := c.Challenge.TimeControls.Blitz
			if b.IncrementMax != 5*time.Second || b.BaseMax != 3*time.Hour || c.Challenge.TimeControls.Rapid.IncrementMax != 3*time.Minute {
				t.Errorf("blitz = %+v, rapid = %+v", b, c.Challenge.TimeControls.Rapid)
			}
		}},
		{"a list replaces the default list", "challenge:\n  variants: [chess960]\n", func(t *testing.T, c *Config) {
			if !slices.Equal(c.Challenge.Variants, []string{"chess960"}) {
				t.Errorf("variants = %v", c.Challenge.Variants)
			}
		}},
		{"false overrides a true default", "engine:\n  ponder: false\n", func(t *testing.T, c *Config) {
			if c.Engine.Ponder {
				t.Error("ponder stayed true")
			}
		}},
		{"trailing slash of base_url dropped", "lichess:\n  base_url: http://127.0.0.1:8080/\n", func(t *testing.T, c *Config) {
			if c.Lichess.BaseURL != "http://127.0.0.1:8080" {
				t.Errorf("base_url = %q", c.Lichess.BaseURL)
			}
		}},
		{"time controls parsed", "matchmaking:\n  time_controls: [\"0.25+1\", \"1+1\", 15+10]\n", func(t *testing.T, c *Config) {
			want := []TimeControl{{Base: 15 * time.Second, Increment: time.Second}, {Base: time.Minute, Increment: time.Second}, {Base: 15 * time.Minute, Increment: 10 * time.Second}}
			if !slices.Equal(c.Matchmaking.TimeControls, want) {
				t.Errorf("time controls = %v, want %v", c.Matchmaking.TimeControls, want)
			}
		}},
		{"UCI option values of any scalar type", "engine:\n  external:\n    options: {Hash: 256, Threads: 2, SyzygyPath: /tb, Skill Level: 20, UCI_ShowWDL: true}\n", func(t *testing.T, c *Config) {
			want := map[string]string{"Hash": "256", "Threads": "2", "SyzygyPath": "/tb", "Skill Level": "20", "UCI_ShowWDL": "true"}
			if !reflect.DeepEqual(c.Engine.External.Options, want) {
				t.Errorf("options = %v", c.Engine.External.Options)
			}
		}},
		{"http allowed for localhost", "lichess:\n  base_url: http://localhost:9663\n", func(t *testing.T, c *Config) {}},
		{"external engine may play chess960", externalEngineYAML(t) + "challenge:\n  variants: [chess960]\n", func(t *testing.T, c *Config) {
			if c.Engine.Type != EngineExternal || c.Challenge.Variants[0] != "chess960" {
				t.Errorf("engine %q variants %v", c.Engine.Type, c.Challenge.Variants)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src), "config.yaml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.check(t, c)
		})
	}
}

// externalEngineYAML writes an executable stand-in engine and returns the
// engine section naming it.
func externalEngineYAML(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "engine")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return "engine:\n  type: external\n  external:\n    path: " + p + "\n"
}

// sameAsDefault compares everything a file can set.
func sameAsDefault(t *testing.T, c *Config) {
	t.Helper()
	got, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want, err := yaml.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("config differs from the defaults:\n%s\nwant:\n%s", got, want)
	}
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default() does not validate: %v", err)
	}
}

func TestValidateWithoutFile(t *testing.T) {
	c := Default()
	c.Challenge.Concurrency = -1
	err := c.Validate()
	if err == nil || err.Error() != "challenge.concurrency: must be between 1 and 64, got -1 (the number of games played at once)" {
		t.Errorf("Validate() = %v", err)
	}
}

// The example at the repository root must load, validate, hold exactly the
// defaults, and name every key of the schema.
func TestExampleFile(t *testing.T) {
	path := filepath.Join("..", "config.example.yaml")
	c, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	sameAsDefault(t, c)
	if w := c.Warnings(); len(w) > 0 {
		t.Errorf("warnings for the example: %v", w)
	}
	for name, paths := range keyIndex() {
		for _, p := range paths {
			if _, ok := c.keys[p]; !ok {
				t.Errorf("config.example.yaml does not show %s (key %q)", p, name)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(p, []byte("lichess:\n  token_file: secret/token\n  request_timout: 5s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.HasPrefix(err.Error(), p+" line 3: unknown key \"request_timout\" in lichess (did you mean \"request_timeout\"?)") {
		t.Errorf("Load error = %v", err)
	}

	if err := os.WriteFile(p, []byte("state_dir: state\nlichess:\n  token_file: secret/token\ngame:\n  pgn_dir: games\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "secret", "token"); c.Lichess.TokenFile != want {
		t.Errorf("token_file = %q, want %q (relative to the config file)", c.Lichess.TokenFile, want)
	}
	if want := filepath.Join(dir, "state"); c.StateDir != want {
		t.Errorf("state_dir = %q, want %q (relative to the config file)", c.StateDir, want)
	}
	// A relative pgn_dir lies under state_dir, not next to the config file.
	if want := filepath.Join(dir, "state", "games"); c.ResolvePGNDir(c.StateDir) != want {
		t.Errorf("pgn_dir resolves to %q, want %q", c.ResolvePGNDir(c.StateDir), want)
	}
	if c.Source() != p {
		t.Errorf("Source() = %q", c.Source())
	}

	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestWarnings(t *testing.T) {
	c := Default()
	c.Engine.External.Path = "/usr/games/stockfish"
	c.Challenge.Accept = false
	w := strings.Join(c.Warnings(), "\n")
	for _, want := range []string{"engine.external is filled in but engine.type is builtin", "the bot will never play"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

func TestProblemFormat(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.yaml", Line: 3, Key: "log.level", Msg: "bad"}, "a.yaml line 3: log.level: bad"},
		{Problem{File: "a.yaml", Key: "log.level", Msg: "bad"}, "a.yaml: log.level: bad"},
		{Problem{Line: 3, Msg: "bad"}, "line 3: bad"},
		{Problem{Key: "k", Msg: "bad"}, "k: bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"increment", "concurrency", "variants", "speeds", "ab"}
	tests := []struct{ word, want string }{
		{"incremnt", "increment"},
		{"concurency", "concurrency"},
		{"varaints", "variants"}, // transposition
		{"Speeds", "speeds"},
		{"zzzzzz", ""},
		{"xy", ""},
		{"variety", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.word, keys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"increment", "incremnt", 1}, {"same", "same", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTimeControl(t *testing.T) {
	tests := []struct {
		in      string
		want    TimeControl
		str     string
		wantErr bool
	}{
		{in: "3+2", want: TimeControl{Base: 3 * time.Minute, Increment: 2 * time.Second}, str: "3+2"},
		{in: " 0.5 + 0 ", want: TimeControl{Base: 30 * time.Second}, str: "0.5+0"},
		{in: "0.25+1", want: TimeControl{Base: 15 * time.Second, Increment: time.Second}, str: "0.25+1"},
		{in: "180+60", want: TimeControl{Base: 3 * time.Hour, Increment: time.Minute}, str: "180+60"},
		{in: "3", wantErr: true},
		{in: "+2", wantErr: true},
		{in: "3+", wantErr: true},
		{in: "-1+0", wantErr: true},
		{in: "3+-1", wantErr: true},
		{in: "inf+0", wantErr: true},
		{in: "1e2+0", wantErr: true},
		{in: "0x10+0", wantErr: true},
		{in: "3+2+1", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseTimeControl(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseTimeControl(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseTimeControl(%q) = %v (%q), %v; want %v (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
	}
}

func TestRanges(t *testing.T) {
	r := ClockRange{BaseMin: time.Minute, BaseMax: 5 * time.Minute, IncrementMin: 0, IncrementMax: 3 * time.Second}
	if !r.Contains(time.Minute, 0) || !r.Contains(5*time.Minute, 3*time.Second) {
		t.Error("ClockRange excludes its ends")
	}
	if r.Contains(30*time.Second, 0) || r.Contains(3*time.Minute, 5*time.Second) {
		t.Error("ClockRange includes values outside it")
	}
	if !(RatingRange{Min: 1500, Max: 2000}).Contains(1500) || (RatingRange{Min: 1500, Max: 2000}).Contains(2001) {
		t.Error("RatingRange.Contains is wrong")
	}
	if !(DaysRange{DaysMin: 1, DaysMax: 3}).Contains(3) || (DaysRange{DaysMin: 1, DaysMax: 3}).Contains(5) {
		t.Error("DaysRange.Contains is wrong")
	}
	tc := Default().Challenge.TimeControls
	tc.Blitz.IncrementMax = 7 * time.Second
	if b, ok := tc.Clock(SpeedBlitz); !ok || b.IncrementMax != 7*time.Second {
		t.Errorf("Clock(blitz) = %v, %v", b, ok)
	}
	if _, ok := tc.Clock(SpeedCorrespondence); ok {
		t.Error("Clock(correspondence) is a clock")
	}
}

func TestExpandMessage(t *testing.T) {
	if got := ExpandMessage("Hi {opponent}, I'm {me}. {opponent}!", "ponderbot", "alice"); got != "Hi alice, I'm ponderbot. alice!" {
		t.Errorf("ExpandMessage = %q", got)
	}
}

func TestSummaryAndString(t *testing.T) {
	c, err := Parse([]byte("challenge:\n  concurrency: 2\n  block_list: [troll]\nmatchmaking:\n  enabled: true\n  rating_difference: 250\n"), "bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Summary()
	for _, want := range []string{"https://lichess.org", "up to 2 game(s)", "never from troll", "3+2 5+3", "and within 250 of ours", "about 320 MiB",
		"up to 10 challenge(s) wait for a slot, in arrival order, for at most 10m0s; 0 slot(s) reserved for humans; at most 5 game(s) per opponent"} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary lacks %q:\n%s", want, s)
		}
	}
	// A continuation line has no label of its own (no stray ":").
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), ":") {
			t.Errorf("Summary line with an empty label: %q", l)
		}
	}
	if got := c.String(); got != "config bot.yaml: https://lichess.org, builtin engine, up to 2 games, matchmaking on" {
		t.Errorf("String() = %q", got)
	}
}

// A list element that failed to decode is not also reported, with a wrong
// index, by validation.
func TestNoShiftedIndexAfterDecodeProblem(t *testing.T) {
	probs := problemsOf(t, "challenge:\n  variants: [standard, {a: b}, atomic]\n")
	if len(probs) != 1 {
		t.Errorf("got %d problems, want 1:\n%v", len(probs), probs)
	}
}

func TestMarshalZerologObject(t *testing.T) {
	var buf strings.Builder
	l := zerolog.New(&buf)
	c := Default()
	l.Info().Object("config", c).Msg("")
	out := buf.String()
	for _, want := range []string{`"base_url":"https://lichess.org"`, `"engine":"builtin"`, `"concurrency":1`, `"hash_mb":64`} {
		if !strings.Contains(out, want) {
			t.Errorf("log %s lacks %s", out, want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "config.example.yaml")); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		"", "lichess:\n  base_url: x\n", "challenge: 3\n", "- a\n", "a: &a [*a]\n",
		"matchmaking:\n  time_controls: [\"3+2\", {a: 1}, [1]]\n",
		"engine:\n  external:\n    options: {a: [1], b: {c: d}}\n",
		"game:\n  greeting: {player: \"{me}{\"}\n",
		"log: {level: debug}\n---\n",
		"base: &b {levle: info}\nlog:\n  <<: *b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yaml")
		if err != nil {
			var probs Errors
			if !errors.As(err, &probs) || len(probs) == 0 {
				t.Fatalf("error is not a non-empty Errors: %T %v", err, err)
			}
			for _, p := range probs {
				if p.Msg == "" {
					t.Fatalf("problem without a message: %+v", p)
				}
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a config that does not validate: %v", err)
		}
		_ = c.Summary()
	})
}
