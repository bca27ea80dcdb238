package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// matchmaking.mode (lichess-bot's challenge_mode) takes rated's place and
// adds random; rated alone keeps working; the two may not contradict.
func TestMatchmakingMode(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"", ModeRated},
		{"matchmaking:\n  rated: false\n", ModeCasual},
		{"matchmaking:\n  mode: random\n", ModeRandom},
		{"matchmaking:\n  mode: casual\n", ModeCasual},
		{"matchmaking:\n  rated: true\n  mode: rated\n", ModeRated},
	} {
		c, err := Parse([]byte(tt.src), "config.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := c.Matchmaking.ChallengeMode(); got != tt.want {
			t.Errorf("%q: mode %q, want %q", tt.src, got, tt.want)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"matchmaking:\n  mode: sometimes\n", `matchmaking.mode: "sometimes" is not one of rated, casual, random`},
		{"matchmaking:\n  rated: true\n  mode: casual\n", `matchmaking.mode: "casual" contradicts matchmaking.rated: true`},
		{"matchmaking:\n  rated: false\n  mode: rated\n", `matchmaking.mode: "rated" contradicts matchmaking.rated: false`},
		// random ignores rated: a written rated is refused beside it.
		{"matchmaking:\n  rated: false\n  mode: random\n", `matchmaking.mode: "random" and matchmaking.rated: false are both written, and random ignores rated: keep one`},
		{"matchmaking:\n  rated: true\n  mode: random\n", `keep one of them`},
	} {
		if probs := problemsOf(t, tt.src); !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
	c, err := Parse([]byte("matchmaking:\n  enabled: true\n  mode: random\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Summary(); !strings.Contains(s, "free 10m0s: random 3+2 5+3 standard,") {
		t.Errorf("summary lacks the mode:\n%s", s)
	}
}

// matchmaking.variant_time_controls gives a variant its own clocks; the
// others keep time_controls. A variant not offered, an empty list and a
// clock Lichess would refuse are reported under the variant's key.
func TestMatchmakingVariantTimeControls(t *testing.T) {
	c, err := Parse([]byte("engine:\n  variants:\n    atomic: {path: /bin/true}\n"+
		"matchmaking:\n  enabled: true\n  variants: [standard, chess960, atomic]\n  time_controls: [\"3+2\"]\n"+
		"  variant_time_controls:\n    chess960: [\"10+5\", \"15+10\"]\n    atomic: [\"1+1\"]\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := c.Matchmaking
	tc := func(min, sec int) TimeControl {
		return TimeControl{Base: time.Duration(min) * time.Minute, Increment: time.Duration(sec) * time.Second}
	}
	// The clocks each variant is offered at (client's pickKind: its own,
	// or time_controls; client.TestPickKindModeAndVariantClocks).
	if got := m.VariantTimeControls["chess960"]; !slices.Equal(got, []TimeControl{tc(10, 5), tc(15, 10)}) {
		t.Errorf("chess960 clocks %v", got)
	}
	if got := m.VariantTimeControls["atomic"]; !slices.Equal(got, []TimeControl{tc(1, 1)}) {
		t.Errorf("atomic clocks %v", got)
	}
	if own, ok := m.VariantTimeControls["standard"]; ok || !slices.Equal(m.TimeControls, []TimeControl{tc(3, 2)}) {
		t.Errorf("standard clocks %v (own: %v), want time_controls", m.TimeControls, own)
	}
	if s := c.Summary(); !strings.Contains(s, "standard, chess960, atomic (atomic at 1+1; chess960 at 10+5 15+10)") {
		t.Errorf("summary lacks the per-variant clocks:\n%s", s)
	}
	// Every variant with its own clocks: time_controls may be empty.
	if _, err := Parse([]byte("matchmaking:\n  enabled: true\n  variants: [chess960]\n  time_controls: []\n"+
		"  variant_time_controls: {chess960: [\"5+3\"]}\n"), "config.yaml"); err != nil {
		t.Errorf("every variant with its own clocks, time_controls empty: %v", err)
	}
	for _, tt := range []struct{ src, want string }{
		{"matchmaking:\n  variant_time_controls: {chess960: [\"5+3\"]}\n",
			`matchmaking.variant_time_controls.chess960: "chess960" is not in matchmaking.variants`},
		{"matchmaking:\n  variants: [chess960]\n  variant_time_controls: {chess960: []}\n",
			"matchmaking.variant_time_controls.chess960: is empty"},
		{"matchmaking:\n  variants: [chess960]\n  variant_time_controls: {chess960: [\"5+3\", \"0.25+0\"]}\n",
			`matchmaking.variant_time_controls.chess960[1]: "0.25+0" is an ultraBullet time control`},
		{"matchmaking:\n  variants: [chess960]\n  variant_time_controls: {chess960: [\"5+90\"]}\n",
			"matchmaking.variant_time_controls.chess960[0]: \"5+90\": Lichess takes an increment of at most 60 seconds"},
		{"matchmaking:\n  enabled: true\n  variants: [standard, chess960]\n  time_controls: []\n  variant_time_controls: {chess960: [\"5+3\"]}\n",
			"matchmaking.time_controls: is empty"},
	} {
		if probs := problemsOf(t, tt.src); !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
}

// lichess-bot's challenge_mode, written in a ponderosa config, points to
// matchmaking.mode.
func TestChallengeModeHint(t *testing.T) {
	if probs := problemsOf(t, "matchmaking:\n  challenge_mode: random\n"); !strings.Contains(probs.Error(), "here matchmaking.mode: rated, casual or random") {
		t.Errorf("problems %q lack the hint to matchmaking.mode", probs.Error())
	}
}

// matchmaking.variants may not name fromPosition: the matchmaker's
// challenges carry no position.
func TestMatchmakingRefusesFromPosition(t *testing.T) {
	probs := problemsOf(t, "matchmaking:\n  variants: [standard, fromPosition]\n")
	if !strings.Contains(probs.Error(), "matchmaking.variants[1]: fromPosition needs a position") {
		t.Errorf("problems %q lack the refusal of fromPosition", probs.Error())
	}
}

// matchmaking.correspondence_days (lichess-bot's challenge_days) offers
// correspondence challenges: alone, only those (the default time controls
// stand only where it is not written, or time_controls is); beside
// time_controls, both. check-config refuses days Lichess does not take,
// days when correspondence is not accepted, and days outside
// challenge.time_controls.correspondence.
func TestMatchmakingCorrespondenceDays(t *testing.T) {
	const corr = "challenge:\n  speeds: [blitz, correspondence]\n  time_controls: {correspondence: {days_min: 1, days_max: 7}}\n"
	for _, tt := range []struct {
		name, src string
		days      []int
		clocks    []string
		summary   string
	}{
		{"days only", corr + "matchmaking:\n  enabled: true\n  correspondence_days: [1, 3]\n",
			[]int{1, 3}, nil, "free 10m0s: rated correspondence (1, 3 days a move) standard,"},
		{"days and clocks", corr + "matchmaking:\n  enabled: true\n  time_controls: [\"3+2\"]\n  correspondence_days: [7]\n",
			[]int{7}, []string{"3+2"}, "free 10m0s: rated 3+2 correspondence (7 days a move) standard,"},
		{"no days", corr + "matchmaking:\n  enabled: true\n",
			nil, []string{"3+2", "5+3"}, "free 10m0s: rated 3+2 5+3 standard,"},
		{"days written empty", "matchmaking:\n  enabled: true\n  correspondence_days: []\n",
			[]int{}, []string{"3+2", "5+3"}, "free 10m0s: rated 3+2 5+3 standard,"},
	} {
		c, err := Parse([]byte(tt.src), "config.yaml")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		m := c.Matchmaking
		var clocks []string
		for _, tc := range m.TimeControls {
			clocks = append(clocks, tc.String())
		}
		if !slices.Equal(m.CorrespondenceDays, tt.days) || !slices.Equal(clocks, tt.clocks) {
			t.Errorf("%s: days %v clocks %v, want %v %v", tt.name, m.CorrespondenceDays, clocks, tt.days, tt.clocks)
		}
		if s := c.Summary(); !strings.Contains(s, tt.summary) {
			t.Errorf("%s: summary lacks %q:\n%s", tt.name, tt.summary, s)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{corr + "matchmaking:\n  correspondence_days: [1, 4]\n",
			"matchmaking.correspondence_days[1]: 4: Lichess takes 1, 2, 3, 5, 7, 10 or 14 days per move"},
		{corr + "matchmaking:\n  correspondence_days: [0]\n",
			"matchmaking.correspondence_days[0]: 0: Lichess takes"},
		{corr + "matchmaking:\n  correspondence_days: [14]\n",
			"matchmaking.correspondence_days[0]: 14 days per move is outside challenge.time_controls.correspondence (1 to 7)"},
		{"matchmaking:\n  correspondence_days: [2]\n",
			"matchmaking.correspondence_days: offers correspondence games, but the bot does not accept them (challenge.speeds lacks correspondence): " +
				"add correspondence to challenge.speeds, or remove correspondence_days"},
		{"challenge:\n  accept: false\n  speeds: [correspondence]\nmatchmaking:\n  enabled: true\n  correspondence_days: [2]\n",
			"does not accept them (challenge.accept is false): set challenge.accept: true, or remove correspondence_days"},
		{"challenge:\n  accept: false\n  speeds: [blitz]\nmatchmaking:\n  enabled: true\n  correspondence_days: [2]\n",
			"does not accept them (challenge.accept is false, challenge.speeds lacks correspondence): " +
				"set challenge.accept: true and add correspondence to challenge.speeds, or remove correspondence_days"},
		{corr + "matchmaking:\n  enabled: true\n  time_controls: []\n  correspondence_days: []\n",
			"matchmaking.time_controls: is empty"},
	} {
		if probs := problemsOf(t, tt.src); !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
}
