package config

import (
	"errors"
	"strings"
	"testing"
)

// TestLichessBotKeyHints: a lichess-bot key in a ponderosa configuration
// gets an error that says where the setting lives here, with its line, and
// the file as a whole gets the import command.
func TestLichessBotKeyHints(t *testing.T) {
	in := `token: lip_NotForTheErrorMessage
url: "https://lichess.org/"
engine:
  dir: ./engines/
  uci_options: {Hash: 256}
challenge:
  modes: [rated]
  time_controls: [blitz, rapid]
  accept_bot: true
matchmaking:
  allow_matchmaking: true
  challenge_timeout: 30
`
	_, err := Parse([]byte(in), "c.yaml")
	var probs Errors
	if !errors.As(err, &probs) {
		t.Fatalf("got %v, want Errors", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`c.yaml line 1: unknown key "token" at the top level (lichess-bot's "token": ponderosa never reads the token`,
		`c.yaml line 2: unknown key "url" at the top level (lichess-bot's "url": here lichess.base_url)`,
		`c.yaml line 4: unknown key "dir" in engine (lichess-bot's "dir": here engine.external.path`,
		`c.yaml line 5: unknown key "uci_options" in engine (lichess-bot's "uci_options": here engine.external.options)`,
		`c.yaml line 7: unknown key "modes" in challenge (lichess-bot's "modes": here challenge.accept_rated and challenge.accept_casual)`,
		`c.yaml line 8: challenge.time_controls: expected a section of keys (a mapping), got a list (lichess-bot's list of speeds is challenge.speeds here`,
		`c.yaml line 9: unknown key "accept_bot" in challenge (lichess-bot's "accept_bot": here challenge.accept_bots)`,
		`c.yaml line 11: unknown key "allow_matchmaking" in matchmaking (lichess-bot's "allow_matchmaking": here matchmaking.enabled)`,
		`c.yaml line 12: matchmaking.challenge_timeout: 30 has no unit`,
		`which is matchmaking.idle_time here`,
		"`ponderosa import-lichess-bot FILE > config.yaml`",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "lip_NotForTheErrorMessage") {
		t.Error("the token's value is in the error")
	}
	// The hint is for lichess-bot's place of the key only: elsewhere the
	// usual did-you-mean answers.
	_, err = Parse([]byte("game:\n  modes: [rated]\n"), "c.yaml")
	if err == nil || strings.Contains(err.Error(), "lichess-bot") {
		t.Errorf("modes under game: %v", err)
	}
	// lichess-bot's books, draw rules and tablebases point to engine.book,
	// game.draw / game.resign and engine.syzygy.
	_, err = Parse([]byte("engine:\n  polyglot: {enabled: true}\n  draw_or_resign: {resign_enabled: true}\n  lichess_bot_tbs: {syzygy: {enabled: true}}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), `lichess-bot's "polyglot": here engine.book (`) ||
		!strings.Contains(err.Error(), `lichess-bot's "draw_or_resign": here game.draw (`) ||
		!strings.Contains(err.Error(), `lichess-bot's "lichess_bot_tbs": here engine.syzygy (`) || strings.Contains(err.Error(), "not supported yet") {
		t.Errorf("polyglot, draw_or_resign and lichess_bot_tbs: %v", err)
	}
	// One lichess-bot key alone does not bring the import hint.
	_, err = Parse([]byte("url: https://lichess.org\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "lichess.base_url") || strings.Contains(err.Error(), "import-lichess-bot") {
		t.Errorf("url alone: %v", err)
	}
}

// TestLichessBotHintsNameRealKeys: every place a hint sends the reader to
// is a key of ponderosa's schema, so the hints cannot go stale silently.
func TestLichessBotHintsNameRealKeys(t *testing.T) {
	idx := keyIndex()
	valid := map[string]bool{}
	for _, paths := range idx {
		for _, p := range paths {
			valid[p] = true
		}
	}
	for key, hint := range lichessBotHints {
		if valid[key] {
			t.Errorf("%s is a ponderosa key, yet has a lichess-bot hint", key)
		}
		for _, w := range strings.Fields(hint) {
			w = strings.Trim(w, ",.;:()\"")
			w = strings.Replace(w, "<speed>", "blitz", 1)
			if strings.Count(w, ".") >= 1 && !strings.Contains(w, "/") && strings.IndexFunc(w, func(r rune) bool { return r >= 'A' && r <= 'Z' }) < 0 {
				if !valid[w] {
					t.Errorf("hint of %s names %q, which is not a ponderosa key", key, w)
				}
			}
		}
	}
}
