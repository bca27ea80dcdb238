package lichessbot

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ponderosa-chess/ponderosa/config"
)

const uciEngine = "engine: {dir: /, name: bin/sh}\n"

// TestImportOnlyBotReserved: with only_bot, lichess-bot plays at most
// concurrency - games_reserved_for_humans games (all against bots).
func TestImportOnlyBotReserved(t *testing.T) {
	in := uciEngine + "challenge: {concurrency: 5, games_reserved_for_humans: 2, only_bot: true, accept_bot: true, " +
		"variants: [standard], time_controls: [blitz], modes: [rated]}\n"
	res := importText(t, in, Options{})
	c := loadYAML(t, res).Challenge
	if c.Concurrency != 3 || c.GamesReservedForHumans != 0 || !c.Accept || c.AcceptHumans {
		t.Errorf("concurrency %d reserved %d accept %v humans %v, want 3 games, none reserved, bots only",
			c.Concurrency, c.GamesReservedForHumans, c.Accept, c.AcceptHumans)
	}
	if n, ok := findNote(res, "challenge.games_reserved_for_humans"); !ok || n.Kind != KindChanged || !strings.Contains(n.Msg, "concurrency: 3") {
		t.Errorf("note %+v %v", n, ok)
	}
}

// TestImportEverySlotForHumans: when every slot is reserved for humans,
// lichess-bot neither accepts nor creates bot games: matchmaking is off.
func TestImportEverySlotForHumans(t *testing.T) {
	for _, acceptBot := range []string{"true", "false"} {
		in := uciEngine + "challenge: {concurrency: 2, games_reserved_for_humans: 2, accept_bot: " + acceptBot +
			", variants: [standard], time_controls: [blitz], modes: [rated]}\n" +
			"matchmaking: {allow_matchmaking: true, challenge_initial_time: [180], challenge_increment: [2]}\n"
		res := importText(t, in, Options{})
		cfg := loadYAML(t, res)
		if cfg.Matchmaking.Enabled || cfg.Challenge.AcceptBots || !cfg.Challenge.Accept || !cfg.Challenge.AcceptHumans {
			t.Errorf("accept_bot %s: matchmaking %v, bots %v, accept %v, humans %v; want matchmaking off, humans only",
				acceptBot, cfg.Matchmaking.Enabled, cfg.Challenge.AcceptBots, cfg.Challenge.Accept, cfg.Challenge.AcceptHumans)
		}
		if n, ok := findNote(res, "matchmaking.allow_matchmaking"); !ok || n.Kind != KindChanged {
			t.Errorf("accept_bot %s: matchmaking not reported: %+v", acceptBot, n)
		}
	}
}

// TestImportOutOfRangeLimits: values lichess-bot runs with, but that
// check-config refuses, are adjusted to what lichess-bot does, each with a
// note, and the result validates.
func TestImportOutOfRangeLimits(t *testing.T) {
	const base = "variants: [standard], modes: [rated]"
	for _, tc := range []struct {
		name, challenge, matchmaking string
		noteKey                      string
		check                        func(t *testing.T, r *Result)
	}{
		{"concurrency over 64", "{concurrency: 100, time_controls: [blitz], " + base + "}", "", "challenge.concurrency",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; c.Concurrency != 64 || !c.Accept || c.GamesReservedForHumans != 0 {
					t.Errorf("concurrency %d reserved %d accept %v", c.Concurrency, c.GamesReservedForHumans, c.Accept)
				}
			}},
		{"concurrency over 64 with slots for humans", "{concurrency: 100, games_reserved_for_humans: 60, accept_bot: true, time_controls: [blitz], " + base + "}",
			"", "challenge.concurrency",
			func(t *testing.T, r *Result) {
				// lichess-bot plays up to 40 bots: so does ponderosa.
				if c := loadYAML(t, r).Challenge; c.Concurrency != 64 || c.GamesReservedForHumans != 24 {
					t.Errorf("concurrency %d reserved %d, want 64 with 24 reserved", c.Concurrency, c.GamesReservedForHumans)
				}
			}},
		{"per user 0", "{max_simultaneous_games_per_user: 0, time_controls: [blitz], " + base + "}", "", "challenge.max_simultaneous_games_per_user",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; c.Accept {
					t.Error("challenge.accept is true, but lichess-bot declines every challenge")
				}
			}},
		{"per user over 64", "{max_simultaneous_games_per_user: 500, time_controls: [blitz], " + base + "}", "", "challenge.max_simultaneous_games_per_user",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; c.MaxSimultaneousGamesPerUser != 64 || !c.Accept {
					t.Errorf("per user %d accept %v", c.MaxSimultaneousGamesPerUser, c.Accept)
				}
			}},
		{"min_base above max_base", "{min_base: 600, max_base: 300, time_controls: [blitz, rapid, correspondence], " + base + "}", "", "challenge.min_base",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; !slices.Equal(c.Speeds, []string{"correspondence"}) || !c.Accept {
					t.Errorf("speeds %v accept %v, want [correspondence]", c.Speeds, c.Accept)
				}
			}},
		{"min_base above max_base, real-time only", "{min_base: 600, max_base: 300, time_controls: [blitz], " + base + "}", "", "challenge.min_base",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; c.Accept {
					t.Errorf("accept %v with no speed left", c.Accept)
				}
			}},
		{"min_days above max_days", "{min_days: 7, max_days: 3, time_controls: [blitz, correspondence], " + base + "}", "", "challenge.min_days",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; !slices.Equal(c.Speeds, []string{"blitz"}) || !c.Accept {
					t.Errorf("speeds %v accept %v, want [blitz]", c.Speeds, c.Accept)
				}
			}},
		{"min_rating above max_rating", "{min_rating: 2000, max_rating: 1500, time_controls: [blitz], " + base + "}", "", "challenge.min_rating",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; c.Accept {
					t.Error("challenge.accept is true, but lichess-bot accepts no rated challenger")
				}
			}},
		{"opponent ratings crossed", "{time_controls: [blitz], " + base + "}",
			"{allow_matchmaking: true, challenge_initial_time: [180], challenge_increment: [2], opponent_min_rating: 2500, opponent_max_rating: 2000}",
			"matchmaking.opponent_min_rating",
			func(t *testing.T, r *Result) {
				if m := loadYAML(t, r).Matchmaking; m.Enabled {
					t.Error("matchmaking on, but lichess-bot finds no bot to challenge")
				}
			}},
		{"names that are no usernames", "{time_controls: [blitz], block_list: [good_name, 'two words', x], allow_list: [Friend1, 'bad/name'], " + base + "}",
			"{block_list: [Bot-1, 'not a name!']}", "challenge.block_list",
			func(t *testing.T, r *Result) {
				cfg := loadYAML(t, r)
				if c := cfg.Challenge; !slices.Equal(c.BlockList, []string{"good_name"}) || !slices.Equal(c.AllowList, []string{"Friend1"}) || !c.Accept {
					t.Errorf("block %v allow %v accept %v", c.BlockList, c.AllowList, c.Accept)
				}
				if !slices.Equal(cfg.Matchmaking.BlockList, []string{"Bot-1"}) {
					t.Errorf("matchmaking block %v", cfg.Matchmaking.BlockList)
				}
				for _, k := range []string{"challenge.allow_list", "matchmaking.block_list"} {
					if _, ok := findNote(r, k); !ok {
						t.Errorf("%s: no note", k)
					}
				}
			}},
		{"allowed and blocked", "{time_controls: [blitz], block_list: [Rival], allow_list: [rival, Friend], " + base + "}", "", "challenge.allow_list",
			func(t *testing.T, r *Result) {
				if c := loadYAML(t, r).Challenge; !slices.Equal(c.AllowList, []string{"Friend"}) || !c.Accept {
					t.Errorf("allow %v accept %v", c.AllowList, c.Accept)
				}
			}},
		{"allow list emptied", "{time_controls: [blitz], block_list: [Rival], allow_list: [Rival], " + base + "}", "", "challenge.allow_list",
			func(t *testing.T, r *Result) {
				// lichess-bot accepts only the allow list's players, and
				// blocks its only one: no challenge is accepted.
				if c := loadYAML(t, r).Challenge; len(c.AllowList) != 0 || c.Accept {
					t.Errorf("allow %v accept %v, want none and accept false", c.AllowList, c.Accept)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := uciEngine + "challenge: " + tc.challenge + "\n"
			if tc.matchmaking != "" {
				in += "matchmaking: " + tc.matchmaking + "\n"
			}
			res := importText(t, in, Options{})
			if n, ok := findNote(res, tc.noteKey); !ok || n.Kind != KindChanged {
				t.Errorf("note %s: %+v %v (all: %+v)", tc.noteKey, n, ok, res.Notes)
			}
			tc.check(t, res)
		})
	}
}

func TestTranslateGreeting(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		notes    int
	}{
		{"Hi {opponent}, I'm {me}!", "Hi {opponent}, I'm {me}!", 0},
		{"Hi {opponent} {rating}!", "Hi {opponent} !", 1},
		// "{{x}}" is the text {x} in lichess-bot, not a placeholder.
		{"Type {{help}} for {me}", "Type help for {me}", 1},
		{"{{{me}}}", "{me}", 1},
		{"a }} b {{", "a b", 1},
		{"unmatched { brace", "unmatched { brace", 0},
	} {
		notes := 0
		got := translateGreeting(tc.in, func(string, ...any) { notes++ })
		if got != tc.want || notes != tc.notes {
			t.Errorf("translateGreeting(%q) = %q with %d notes, want %q with %d", tc.in, got, notes, tc.want, tc.notes)
		}
	}
	// Over 140 characters: cut, never inside a placeholder.
	long := strings.Repeat("é", 135) + " {opponent} and more"
	notes := 0
	got := translateGreeting(long, func(string, ...any) { notes++ })
	if got != strings.Repeat("é", 135) || notes != 1 {
		t.Errorf("long greeting cut to %q (%d characters), %d notes", got, utf8.RuneCountInString(got), notes)
	}
}

// TestImportGreetingFits: a greeting lichess-bot sends (its chat cuts
// nothing) but check-config refuses is carried over in a form that
// validates, with a note.
func TestImportGreetingFits(t *testing.T) {
	in := uciEngine + "challenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n" +
		"greeting:\n  hello: \"" + strings.Repeat("ab ", 60) + "\"\n  goodbye: \"GG {{opponent}}\"\n"
	res := importText(t, in, Options{})
	g := loadYAML(t, res).Game
	if n := utf8.RuneCountInString(g.Greeting.Player); n > 140 || n < 130 {
		t.Errorf("hello cut to %d characters: %q", n, g.Greeting.Player)
	}
	if g.Goodbye.Player != "GG opponent" {
		t.Errorf("goodbye %q, want the escaped braces left out", g.Goodbye.Player)
	}
	for _, k := range []string{"greeting.hello", "greeting.goodbye"} {
		if n, ok := findNote(res, k); !ok || n.Kind != KindChanged {
			t.Errorf("%s: %+v %v", k, n, ok)
		}
	}
}

// TestImportOpponentRatingDifference: lichess-bot's
// opponent_rating_difference becomes matchmaking.rating_difference; as it
// replaces the rating bounds in lichess-bot, the bounds are written open.
func TestImportOpponentRatingDifference(t *testing.T) {
	mm := "matchmaking: {allow_matchmaking: true, challenge_initial_time: [180], challenge_increment: [2], " +
		"opponent_min_rating: 1800, opponent_max_rating: 2200, opponent_rating_difference: %s}\n"
	for _, tc := range []struct {
		diff     string
		want     int
		enabled  bool
		bounds   [2]int
		noteKey  string
		noteKind Kind
	}{
		{"300", 300, true, [2]int{0, 4000}, "matchmaking.opponent_min_rating", KindChanged},
		{"-50", 0, false, [2]int{1800, 2200}, "matchmaking.opponent_rating_difference", KindChanged},
		{"0", 1, true, [2]int{0, 4000}, "matchmaking.opponent_rating_difference", KindChanged},
		{"null", 0, true, [2]int{1800, 2200}, "matchmaking.opponent_rating_difference", KindSame},
	} {
		in := uciEngine + plainChallenge + strings.Replace(mm, "%s", tc.diff, 1)
		res := importText(t, in, Options{})
		m := loadYAML(t, res).Matchmaking
		if m.RatingDifference != tc.want || m.Enabled != tc.enabled || m.OpponentRating.Min != tc.bounds[0] || m.OpponentRating.Max != tc.bounds[1] {
			t.Errorf("difference %s: rating_difference %d enabled %v bounds %+v", tc.diff, m.RatingDifference, m.Enabled, m.OpponentRating)
		}
		if n, ok := findNote(res, tc.noteKey); !ok || n.Kind != tc.noteKind {
			t.Errorf("difference %s: note %s: %+v %v", tc.diff, tc.noteKey, n, ok)
		}
	}
}

// TestImportMergeKeys: PyYAML's merge keys ("<<: *anchor", or a list of
// anchors) add the keys of the mappings they name, below the keys the
// section writes itself; "<<" is not reported as an unknown key.
func TestImportMergeKeys(t *testing.T) {
	in := `engine: {dir: /, name: bin/sh}
clocks: &clocks
  min_base: 60
  max_base: 600
who: &who
  accept_bot: true
  max_base: 900
challenge:
  <<: [*clocks, *who]
  variants: [standard]
  time_controls: [blitz]
  modes: [rated]
  min_base: 120
greeting:
  <<: {hello: "Hi {opponent}"}
`
	res := importText(t, in, Options{})
	cfg := loadYAML(t, res)
	c := cfg.Challenge
	// min_base written in the section wins; max_base from the first alias
	// of the list; accept_bot from the second.
	if c.TimeControls.Blitz.BaseMin.Seconds() != 120 || c.TimeControls.Blitz.BaseMax.Seconds() != 600 || !c.AcceptBots {
		t.Errorf("blitz %+v accept_bots %v", c.TimeControls.Blitz, c.AcceptBots)
	}
	if cfg.Game.Greeting.Player != "Hi {opponent}" {
		t.Errorf("greeting %q", cfg.Game.Greeting.Player)
	}
	for _, n := range res.Notes {
		if strings.Contains(n.Key, "<<") {
			t.Errorf("merge key reported: %+v", n)
		}
	}
	// The anchors' own top-level keys are not lichess-bot's: reported.
	if u := notesOf(res, KindUnknown); !slices.Equal(u, []string{"clocks", "who"}) {
		t.Errorf("unknown keys %v, want [clocks who]", u)
	}
	if _, err := Import([]byte("challenge:\n  <<: 5\n"), "c.yml", Options{}); err == nil || !strings.Contains(err.Error(), "merge key") {
		t.Errorf("a merge of a number: %v", err)
	}
}

// TestImportCheckinPeriodCapped: lichess-bot takes any checkin_period;
// ponderosa's is at most config.MaxCheckinPeriod, so a longer one is
// written as the cap, with a note, and the result validates.
func TestImportCheckinPeriodCapped(t *testing.T) {
	in := uciEngine + "challenge: {variants: [standard], time_controls: [correspondence], modes: [rated]}\n" +
		"correspondence: {checkin_period: 86400}\n"
	res := importText(t, in, Options{})
	if got := loadYAML(t, res).Correspondence.CheckinPeriod; got != config.MaxCheckinPeriod {
		t.Errorf("checkin_period %v, want the cap %v", got, config.MaxCheckinPeriod)
	}
	if n, ok := findNote(res, "correspondence.checkin_period"); !ok || n.Kind != KindChanged || !strings.Contains(n.Msg, "written as 6h") {
		t.Errorf("note %+v %v, want a change written as 6h", n, ok)
	}
}

// TestImportChallengeFilter: lichess-bot's challenge_filter carries over
// to the per-kind block list: fine and coarse block after one decline
// (reported: the block lasts block_days, and coarse is per kind for a
// reason about the kind), none never blocks.
func TestImportChallengeFilter(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   int
		noted  bool
	}{{"fine", 1, true}, {"coarse", 1, true}, {"none", 0, false}} {
		in := uciEngine + "challenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n" +
			"matchmaking: {allow_matchmaking: true, challenge_initial_time: [180], challenge_increment: [2], challenge_filter: " + tc.filter + "}\n"
		res := importText(t, in, Options{})
		if got := loadYAML(t, res).Matchmaking.BlockAfterDeclines; got != tc.want {
			t.Errorf("%s: block_after_declines %d, want %d", tc.filter, got, tc.want)
		}
		n, ok := findNote(res, "matchmaking.challenge_filter")
		if ok != tc.noted || (ok && (n.Kind != KindChanged || !strings.Contains(n.Msg, "per kind of challenge") && !strings.Contains(n.Msg, "blocks that kind"))) {
			t.Errorf("%s: note %+v %v", tc.filter, n, ok)
		}
	}
}
