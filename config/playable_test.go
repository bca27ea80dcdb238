package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// No configuration that check-config accepts leads to a game the bot must
// resign or a challenge it must decline by design: every variant × speed ×
// engine setup is accepted exactly when ponderosa can play it. standard,
// chess960 and fromPosition are played by engine.type (the built-in engine
// or a general external one); every other variant needs its own entry in
// engine.variants (a per-variant UCI engine, which the game worker follows
// without rules of its own), and an entry for one variant plays no other;
// ultraBullet is never accepted, since Lichess does not let bots play it.
// Matchmaking offers only what the bot can play too, and not fromPosition.
func TestPlayableVariantsAndSpeeds(t *testing.T) {
	prog := fakeProgram(t)
	other := func(variant string) string { // a per-variant key that is not variant
		if variant == VariantAtomic {
			return VariantCrazyhouse
		}
		return VariantAtomic
	}
	setups := []struct {
		name string
		yaml func(variant string) string // the engine section for a variant under test
		// plays says whether the setup plays variant.
		plays func(variant string) bool
	}{
		{EngineBuiltin, func(string) string { return "" }, isStandard},
		{EngineExternal, func(string) string { return externalEngineYAML(t) }, isStandard},
		{"per-variant", func(variant string) string {
			key := variant
			if isStandard(variant) {
				key = VariantCrazyhouse
			}
			return fmt.Sprintf("engine:\n  variants:\n    %s: {path: %s}\n", key, prog)
		}, func(string) bool { return true }},
		{"per-variant-other", func(variant string) string {
			return fmt.Sprintf("engine:\n  type: external\n  external: {path: %s}\n  variants:\n    %s: {path: %s}\n", prog, other(variant), prog)
		}, isStandard},
	}
	for _, setup := range setups {
		for _, variant := range lichessVariants {
			for _, speed := range lichessSpeeds {
				name := fmt.Sprintf("%s/%s/%s", setup.name, variant, speed)
				src := setup.yaml(variant) + fmt.Sprintf("challenge:\n  variants: [%s]\n  speeds: [%s]\n", variant, speed)
				playable := setup.plays(variant) && speed != SpeedUltraBullet
				c, err := Parse([]byte(src), "config.yaml")
				switch {
				case playable && err != nil:
					t.Errorf("%s: refused: %v", name, err)
				case playable && (!c.Plays(variant) || !slices.Equal(c.Challenge.Variants, []string{variant}) || !slices.Equal(c.Challenge.Speeds, []string{speed})):
					t.Errorf("%s: accepted as %v %v (plays %v)", name, c.Challenge.Variants, c.Challenge.Speeds, c.Plays(variant))
				case !playable && err == nil:
					t.Errorf("%s: accepted, though the bot cannot play it", name)
				case !playable:
					// The message names the key and says why.
					want := fmt.Sprintf("challenge.variants[0]: no engine plays %s: add engine.variants.%s (an external UCI engine that knows its rules, such as Fairy-Stockfish)", variant, variant)
					if speed == SpeedUltraBullet {
						want = "challenge.speeds[0]: Lichess does not let bots play ultraBullet"
					}
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error %q lacks %q", name, err, want)
					}
				}
			}
			// Matchmaking: the variant offered; never fromPosition,
			// whose position a challenge of the matchmaker does not
			// carry.
			src := setup.yaml(variant) + fmt.Sprintf("matchmaking:\n  enabled: true\n  variants: [%s]\n", variant)
			_, err := Parse([]byte(src), "config.yaml")
			if playable := setup.plays(variant) && variant != VariantFromPosition; playable != (err == nil) {
				t.Errorf("%s/%s matchmaking: playable %v, error %v", setup.name, variant, playable, err)
			}
		}
	}
}

func isStandard(variant string) bool { return slices.Contains(standardVariants, variant) }

// fakeProgram is an executable file, to stand for an engine program.
func fakeProgram(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fairy-engine")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// engine.variants names only variants that need an engine of their own,
// each an external program the bot can run, without the options the bot
// sets itself; every per-variant key has a UCI_Variant name.
func TestVariantEngines(t *testing.T) {
	prog := fakeProgram(t)
	for _, key := range perVariantKeys {
		if VariantUCINames[key] == "" {
			t.Errorf("%s has no UCI_Variant name", key)
		}
	}
	if len(VariantUCINames) != len(perVariantKeys) || len(perVariantKeys)+len(standardVariants) != len(lichessVariants) {
		t.Errorf("variant lists disagree: %d UCI names, %d per-variant keys, %d standard, %d Lichess variants",
			len(VariantUCINames), len(perVariantKeys), len(standardVariants), len(lichessVariants))
	}
	for src, want := range map[string]string{
		"engine:\n  variants:\n    standard: {path: " + prog + "}\n":                               "engine.variants.standard: standard is played by engine.type",
		"engine:\n  variants:\n    kingofthehill: {path: " + prog + "}\n":                          `engine.variants.kingofthehill: "kingofthehill" is not one of crazyhouse, antichess, atomic, horde, kingOfTheHill, racingKings, threeCheck (did you mean "kingOfTheHill"?)`,
		"engine:\n  variants:\n    atomic: {args: [x]}\n":                                          "engine.variants.atomic.path: is empty",
		"engine:\n  variants:\n    atomic: {path: /nonexistent/fsf}\n":                             `engine.variants.atomic.path: cannot run "/nonexistent/fsf"`,
		"engine:\n  variants:\n    atomic: {path: " + prog + ", dir: /nonexistent}\n":              `engine.variants.atomic.dir: "/nonexistent" is not a directory`,
		"engine:\n  variants:\n    atomic: {path: " + prog + ", options: {UCI_Variant: atomic}}\n": "engine.variants.atomic.options.UCI_Variant: is set by the bot for each game",
		"engine:\n  variants:\n    atomic: {path: " + prog + ", options: {Ponder: true}}\n":        "engine.variants.atomic.options.Ponder: is set by the bot: use engine.ponder instead",
		"engine:\n  variants:\n    atomic: {path: " + prog + ", command: fsf}\n":                   "command",
		"engine:\n  external: {options: {uci_variant: chess}}\n":                                   "engine.external.options.uci_variant: is set by the bot for each game",
	} {
		_, err := Parse([]byte(src), "config.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
	src := "engine:\n  variants:\n    atomic: {path: " + prog + ", args: [-x], options: {Threads: 2}}\n    threeCheck: {path: " + prog + "}\n" +
		"challenge:\n  variants: [standard, atomic, threeCheck]\n"
	c, err := Parse([]byte(src), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Engine.Variants[VariantAtomic]; a.Path != prog || !slices.Equal(a.Args, []string{"-x"}) || a.Options["Threads"] != "2" {
		t.Errorf("atomic engine: %+v", a)
	}
	if !c.Plays(VariantThreeCheck) || c.Plays(VariantHorde) || !c.Plays(VariantChess960) {
		t.Errorf("plays threeCheck %v, horde %v, chess960 %v", c.Plays(VariantThreeCheck), c.Plays(VariantHorde), c.Plays(VariantChess960))
	}
	if sum := c.Summary(); !strings.Contains(sum, "atomic: external "+prog+" -x (UCI_Variant atomic), 1 UCI options") ||
		!strings.Contains(sum, "threeCheck: external "+prog+" (UCI_Variant 3check), 0 UCI options") {
		t.Errorf("summary lacks the variant engines:\n%s", sum)
	}
}

// Matchmaking never offers an ultraBullet clock (base + 40 × increment
// under 30 seconds): Lichess refuses such a challenge between bots.
func TestMatchmakingRefusesUltraBullet(t *testing.T) {
	for tc, ok := range map[string]bool{
		"0.25+0": false, "0.5+0": true, "0+0": false, "0.25+1": true, "0+1": true, "0.75+0": true,
	} {
		src := fmt.Sprintf("matchmaking:\n  enabled: true\n  time_controls: [%q]\n", tc)
		_, err := Parse([]byte(src), "config.yaml")
		if ok != (err == nil) {
			t.Errorf("%s: accepted %v, error %v", tc, ok, err)
		}
		if tc == "0.25+0" && (err == nil || !strings.Contains(err.Error(), "matchmaking.time_controls[0]: \"0.25+0\" is an ultraBullet time control")) {
			t.Errorf("%s: error %v", tc, err)
		}
	}
}
