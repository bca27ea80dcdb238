package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// No configuration that check-config accepts leads to a game the bot must
// resign or a challenge it must decline by design: every variant × speed ×
// engine type is accepted exactly when ponderosa can play it (standard,
// chess960 and fromPosition, with either engine, since the game worker
// follows no other variant's rules; never ultraBullet, which Lichess does
// not let bots play). Matchmaking offers only what the bot can play too.
func TestPlayableVariantsAndSpeeds(t *testing.T) {
	engines := map[string]string{EngineBuiltin: "", EngineExternal: externalEngineYAML(t)}
	for _, engine := range []string{EngineBuiltin, EngineExternal} {
		for _, variant := range lichessVariants {
			for _, speed := range lichessSpeeds {
				name := fmt.Sprintf("%s/%s/%s", engine, variant, speed)
				src := engines[engine] + fmt.Sprintf("challenge:\n  variants: [%s]\n  speeds: [%s]\n", variant, speed)
				playable := slices.Contains([]string{VariantStandard, VariantChess960, VariantFromPosition}, variant) && speed != SpeedUltraBullet
				c, err := Parse([]byte(src), "config.yaml")
				switch {
				case playable && err != nil:
					t.Errorf("%s: refused: %v", name, err)
				case playable && (c.Engine.Type != engine || !slices.Equal(c.Challenge.Variants, []string{variant}) || !slices.Equal(c.Challenge.Speeds, []string{speed})):
					t.Errorf("%s: accepted as %s %v %v", name, c.Engine.Type, c.Challenge.Variants, c.Challenge.Speeds)
				case !playable && err == nil:
					t.Errorf("%s: accepted, though the bot cannot play it", name)
				case !playable:
					// The message names the key and says why.
					want := "challenge.variants[0]: ponderosa plays only standard, chess960, fromPosition today, with the built-in and with an external engine alike"
					if speed == SpeedUltraBullet {
						want = "challenge.speeds[0]: Lichess does not let bots play ultraBullet"
					}
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error %q lacks %q", name, err, want)
					}
				}
			}
			// Matchmaking: the variant offered.
			src := engines[engine] + fmt.Sprintf("matchmaking:\n  enabled: true\n  variants: [%s]\n", variant)
			_, err := Parse([]byte(src), "config.yaml")
			if playable := slices.Contains(playableVariants, variant); playable != (err == nil) {
				t.Errorf("%s/%s matchmaking: playable %v, error %v", engine, variant, playable, err)
			}
		}
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
