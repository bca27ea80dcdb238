package client

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

func TestChallengePolicy(t *testing.T) {
	base := func(mod func(c *lichess.Challenge)) *lichess.Challenge {
		c := &lichess.Challenge{ID: "c1", Challenger: lichess.ChallengeUser{ID: "alice", Name: "Alice", Rating: 1800},
			Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", Rated: true,
			TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}}
		if mod != nil {
			mod(c)
		}
		return c
	}
	bot := func(c *lichess.Challenge) { c.Challenger.Title = "BOT" }
	open := policyState{Me: "ponderosa"}
	for _, tc := range []struct {
		name string
		p    ChallengePolicy
		ch   *lichess.Challenge
		st   policyState
		want string
	}{
		{"defaults accept", ChallengePolicy{}, base(nil), open, ""},
		{"chess960 by default", ChallengePolicy{}, base(func(c *lichess.Challenge) { c.Variant.Key = "chess960" }), open, ""},
		{"fromPosition by default", ChallengePolicy{}, base(func(c *lichess.Challenge) { c.Variant.Key = "fromPosition" }), open, ""},
		{"crazyhouse declined", ChallengePolicy{}, base(func(c *lichess.Challenge) { c.Variant.Key = "crazyhouse" }), open, lichess.DeclineVariant},
		{"standard only", ChallengePolicy{Variants: []string{"standard"}}, base(func(c *lichess.Challenge) { c.Variant.Key = "chess960" }), open, lichess.DeclineStandard},
		{"ultrabullet always declined", ChallengePolicy{Speeds: []string{"ultraBullet", "bullet"}},
			base(func(c *lichess.Challenge) {
				c.Speed = "ultraBullet"
				c.TimeControl.Limit = 15
				c.TimeControl.Increment = 0
			}), open, lichess.DeclineTooFast},
		{"speed too fast", ChallengePolicy{Speeds: []string{"rapid", "classical"}}, base(nil), open, lichess.DeclineTooFast},
		{"speed too slow", ChallengePolicy{Speeds: []string{"bullet"}}, base(nil), open, lichess.DeclineTooSlow},
		{"base too short", ChallengePolicy{MinBase: 5 * time.Minute}, base(nil), open, lichess.DeclineTooFast},
		{"base too long", ChallengePolicy{MaxBase: time.Minute}, base(nil), open, lichess.DeclineTooSlow},
		{"increment out of range", ChallengePolicy{MaxIncrement: time.Second}, base(nil), open, lichess.DeclineTimeControl},
		{"increment too small", ChallengePolicy{MinIncrement: 3 * time.Second}, base(nil), open, lichess.DeclineTimeControl},
		{"correspondence declined", ChallengePolicy{}, base(func(c *lichess.Challenge) {
			c.Speed = "correspondence"
			c.TimeControl = lichess.TimeControl{Type: "correspondence", DaysPerTurn: 2}
		}), open, lichess.DeclineTimeControl},
		{"unlimited declined", ChallengePolicy{}, base(func(c *lichess.Challenge) { c.TimeControl = lichess.TimeControl{Type: "unlimited"} }), open, lichess.DeclineTimeControl},
		{"casual only", ChallengePolicy{AcceptCasual: true}, base(nil), open, lichess.DeclineCasual},
		{"rated only", ChallengePolicy{AcceptRated: true}, base(func(c *lichess.Challenge) { c.Rated = false }), open, lichess.DeclineRated},
		{"no bots", ChallengePolicy{AcceptHumans: true}, base(bot), open, lichess.DeclineNoBot},
		{"only bots", ChallengePolicy{AcceptBots: true}, base(nil), open, lichess.DeclineOnlyBot},
		{"bots welcome", ChallengePolicy{AcceptBots: true}, base(bot), open, ""},
		{"rating too low", ChallengePolicy{MinRating: 1900}, base(nil), open, lichess.DeclineGeneric},
		{"rating too high", ChallengePolicy{MaxRating: 1700}, base(nil), open, lichess.DeclineGeneric},
		{"rating in range", ChallengePolicy{MinRating: 1700, MaxRating: 1900}, base(nil), open, ""},
		{"block list", ChallengePolicy{BlockList: []string{"ALICE"}}, base(nil), open, lichess.DeclineGeneric},
		{"allow list miss", ChallengePolicy{AllowList: []string{"bob"}}, base(nil), open, lichess.DeclineGeneric},
		{"allow list hit", ChallengePolicy{AllowList: []string{"Alice"}}, base(nil), open, ""},
		{"bot daily limit", ChallengePolicy{MaxGames: 5}, base(bot), policyState{BotGamesToday: 100}, lichess.DeclineLater},
		{"daily limit only for bots", ChallengePolicy{MaxGames: 5}, base(nil), policyState{BotGamesToday: 100}, ""},
		{"custom daily limit", ChallengePolicy{MaxBotGamesPerDay: 3}, base(bot), policyState{BotGamesToday: 3}, lichess.DeclineLater},
		{"draining", ChallengePolicy{}, base(nil), policyState{Draining: true}, lichess.DeclineLater},
		{"decline all", ChallengePolicy{DeclineAll: true}, base(nil), open, lichess.DeclineGeneric},
		{"blitz range: base too short", ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {BaseMin: 5 * time.Minute}}}, base(nil), open, lichess.DeclineTooFast},
		{"blitz range: base too long", ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {BaseMax: 2 * time.Minute}}}, base(nil), open, lichess.DeclineTooSlow},
		{"blitz range: increment", ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {IncrementMax: time.Second}}}, base(nil), open, lichess.DeclineTimeControl},
		{"range of another speed", ChallengePolicy{SpeedClocks: map[string]ClockRange{"rapid": {BaseMin: time.Hour}}}, base(nil), open, ""},
		{"correspondence accepted", ChallengePolicy{Speeds: []string{"correspondence"}, MinDays: 1, MaxDays: 3}, base(func(c *lichess.Challenge) {
			c.Speed = "correspondence"
			c.TimeControl = lichess.TimeControl{Type: "correspondence", DaysPerTurn: 2}
		}), open, ""},
		{"correspondence too slow", ChallengePolicy{Speeds: []string{"correspondence"}, MaxDays: 3}, base(func(c *lichess.Challenge) {
			c.Speed = "correspondence"
			c.TimeControl = lichess.TimeControl{Type: "correspondence", DaysPerTurn: 7}
		}), open, lichess.DeclineTimeControl},
	} {
		if got := tc.p.decide(tc.ch, tc.st); got != tc.want {
			t.Errorf("%s: decide = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The decline reasons are the keys of the decline endpoint in the spec.
func TestDeclineReasonKeys(t *testing.T) {
	spec := []string{"generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "standard", "variant", "noBot", "onlyBot"}
	ours := []string{lichess.DeclineGeneric, lichess.DeclineLater, lichess.DeclineTooFast, lichess.DeclineTooSlow, lichess.DeclineTimeControl, lichess.DeclineRated,
		lichess.DeclineCasual, lichess.DeclineStandard, lichess.DeclineVariant, lichess.DeclineNoBot, lichess.DeclineOnlyBot}
	for i := range spec {
		if spec[i] != ours[i] {
			t.Errorf("reason %d: %q, spec says %q", i, ours[i], spec[i])
		}
	}
}

func TestDailyCounter(t *testing.T) {
	var d dailyCounter
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d.add(t0)
	d.add(t0.Add(time.Hour))
	d.add(t0.Add(23 * time.Hour))
	if n := d.count(t0.Add(23 * time.Hour)); n != 3 {
		t.Errorf("count within a day = %d, want 3", n)
	}
	if n := d.count(t0.Add(24*time.Hour + time.Minute)); n != 2 {
		t.Errorf("count after the first left the window = %d, want 2", n)
	}
	if n := d.count(t0.Add(48 * time.Hour)); n != 0 {
		t.Errorf("count two days later = %d, want 0", n)
	}
}
