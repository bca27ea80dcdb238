package main

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// variantEngineConfig is a configuration whose engine.variants entries
// (keys) run the fake engine's variant mode, whose UCI_Variant lists
// crazyhouse and 3check but not atomic.
func variantEngineConfig(t *testing.T, keys ...string) string {
	t.Helper()
	eng := testsupport.NewFakeEngine(t, "variant")
	eng.Setenv(t) // for the engine processes (children)
	src := "engine:\n  variants:\n"
	for _, k := range keys {
		src += "    " + k + ": {path: " + eng.Path + "}\n"
	}
	return src + "challenge:\n  variants: [standard, " + strings.Join(keys, ", ") + "]\n"
}

// check-config starts each per-variant engine once and refuses one whose
// UCI_Variant does not list its variant (or that has no UCI_Variant); an
// engine that knows it passes, and the summary names it.
func TestCheckConfigVariantEngines(t *testing.T) {
	ok := writeConfig(t, variantEngineConfig(t, "crazyhouse", "threeCheck"))
	code, stdout, stderr := runWith(t, nil, "check-config", "-config", ok)
	if code != 0 || !strings.Contains(stdout, "crazyhouse: external ") || !strings.Contains(stdout, "(UCI_Variant 3check)") {
		t.Errorf("engines that know their variants: code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	bad := writeConfig(t, variantEngineConfig(t, "crazyhouse", "atomic"))
	code, stdout, stderr = runWith(t, nil, "check-config", "-config", bad)
	if code != exitConfig || !strings.Contains(stderr, `engine.variants.atomic: `) || !strings.Contains(stderr, `(Fake Variant Engine) does not play atomic: its UCI_Variant does not list "atomic"`) ||
		strings.Contains(stderr, "engine.variants.crazyhouse") || !strings.Contains(stderr, "config NOT OK") || strings.Contains(stdout, "config OK") {
		t.Errorf("an engine that does not know atomic: code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	legal := testsupport.NewFakeEngine(t, "legal") // a chess engine: no UCI_Variant
	legal.Setenv(t)
	none := writeConfig(t, "engine:\n  variants:\n    horde: {path: "+legal.Path+"}\n")
	code, _, stderr = runWith(t, nil, "check-config", "-config", none)
	if code != exitConfig || !strings.Contains(stderr, "engine.variants.horde: ") || !strings.Contains(stderr, "has no UCI_Variant option, so it plays no variant") {
		t.Errorf("a chess engine for horde: code %d\nstderr:\n%s", code, stderr)
	}
}

// The factory from a configuration with engine.variants plays each game
// with the engine of its variant, and refuses a variant no engine plays.
func TestPlayerFactoryVariants(t *testing.T) {
	src := strings.Replace(variantEngineConfig(t, "crazyhouse"), "engine:\n", "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n", 1)
	cfg := parseConfig(t, src)
	f, err := playerFactory(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testsupport.Context(t)
	clock := client.MoveClock{WTime: time.Second, BTime: time.Second, White: true, Running: true, Deadline: time.Now().Add(5 * time.Second)}
	for variant, want := range map[string]string{"crazyhouse": "N@f3", "standard": "", "atomic": "no engine plays atomic"} {
		p, err := f(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = p.NewGame(ctx, client.GameInfo{ID: "x", Variant: variant, White: true})
		switch {
		case strings.HasPrefix(want, "no engine"):
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: NewGame error %v, want %q", variant, err, want)
			}
		case err != nil:
			t.Errorf("%s: NewGame: %v", variant, err)
		default:
			if err := p.Position(ctx, nil); err != nil {
				t.Fatal(err)
			}
			d, err := p.Think(ctx, clock)
			if err != nil || d.Move == "" || (want != "" && d.Move != want) || (want == "" && d.Move == "N@f3") {
				t.Errorf("%s: Think %+v, %v (want %q)", variant, d, err, want)
			}
		}
		p.Close()
	}
}

// run refuses to start, as check-config, when a per-variant engine does
// not know its variant: it would accept games it cannot play.
func TestRunRefusesVariantEngineThatCannotPlay(t *testing.T) {
	bad := writeConfig(t, variantEngineConfig(t, "atomic"))
	code, _, stderr := runWith(t, map[string]string{"LICHESS_BOT_TOKEN": "lip_x"}, "run", "-config", bad)
	if code != exitConfig || !strings.Contains(stderr, "ponderosa run: configuration "+bad) || !strings.Contains(stderr, `its UCI_Variant does not list "atomic"`) {
		t.Errorf("code %d, stderr:\n%s", code, stderr)
	}
}

// A reload whose per-variant engine does not know its variant is refused,
// as at start: the old configuration stays.
func TestReloadRefusesVariantEngineThatCannotPlay(t *testing.T) {
	r := newRunEnv(t, true) // engines are the fake's legal mode: no UCI_Variant
	r.start(nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(runConfig(t, r.srv.URL(), "challenge:\n  variants: [standard, horde]\n"),
		"engine:\n", "engine:\n  variants:\n    horde: {path: "+exe+"}\n", 1)
	if err := os.WriteFile(r.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sigs <- syscall.SIGHUP
	if err := <-r.reloads; err == nil || !strings.Contains(err.Error(), "engine.variants.horde: ") || !strings.Contains(err.Error(), "has no UCI_Variant option") {
		t.Fatalf("reload: %v", err)
	}
	if v := r.bot.Settings().Challenge.Variants; slices.Contains(v, "horde") {
		t.Errorf("after a refused reload the bot accepts %v", v)
	}
}

// With chess960 accepted and moves from engine.external, check-config
// starts the engine and refuses one without UCI_Chess960 (every Chess960
// game would be refused at its start and played with fallback moves).
func TestCheckConfigExternalChess960(t *testing.T) {
	for _, tc := range []struct {
		mode, variants string
		ok             bool
	}{
		{"legal", "[standard, chess960]", true},   // has UCI_Chess960
		{"normal", "[standard, chess960]", false}, // has not
		{"normal", "[standard]", true},            // not asked for chess960
	} {
		eng := testsupport.NewFakeEngine(t, tc.mode)
		eng.Setenv(t)
		src := "engine:\n  type: external\n  external: {path: " + eng.Path + "}\nchallenge:\n  variants: " + tc.variants + "\n"
		code, stdout, stderr := runWith(t, nil, "check-config", "-config", writeConfig(t, src))
		if tc.ok != (code == 0) || !tc.ok && !strings.Contains(stderr, "has no UCI_Chess960 option, so it cannot play chess960") {
			t.Errorf("%s engine, variants %s: code %d\nstdout:\n%s\nstderr:\n%s", tc.mode, tc.variants, code, stdout, stderr)
		}
	}
}
