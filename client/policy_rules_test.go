package client

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Every decline names its rule, and verdict agrees with decide.
func TestChallengePolicyRules(t *testing.T) {
	ch := func(mod func(c *lichess.Challenge)) *lichess.Challenge {
		c := &lichess.Challenge{ID: "c1", Challenger: lichess.ChallengeUser{ID: "alice", Name: "Alice", Rating: 1800},
			Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", Rated: true,
			TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}}
		if mod != nil {
			mod(c)
		}
		return c
	}
	corr := func(days int) func(c *lichess.Challenge) {
		return func(c *lichess.Challenge) {
			c.Speed = "correspondence"
			c.TimeControl = lichess.TimeControl{Type: "correspondence", DaysPerTurn: days}
		}
	}
	bot := func(c *lichess.Challenge) { c.Challenger.Title = "BOT" }
	open := policyState{Me: "ponderosa"}
	for _, tc := range []struct {
		p    ChallengePolicy
		ch   *lichess.Challenge
		st   policyState
		rule string
	}{
		{ChallengePolicy{}, ch(nil), policyState{Draining: true}, "shutting down: no new games"},
		{ChallengePolicy{DeclineAll: true}, ch(nil), open, "challenge.accept is false"},
		{ChallengePolicy{BlockList: []string{"alice"}}, ch(nil), open, "challenger in challenge.block_list"},
		{ChallengePolicy{AllowList: []string{"bob"}}, ch(nil), open, "challenger not in challenge.allow_list"},
		{ChallengePolicy{}, ch(func(c *lichess.Challenge) { c.Variant.Key = "atomic" }), open, "variant not in challenge.variants"},
		{ChallengePolicy{}, ch(func(c *lichess.Challenge) { c.Speed, c.TimeControl.Limit = "ultraBullet", 15 }), open, "ultraBullet, which Lichess does not let bots play"},
		{ChallengePolicy{Speeds: []string{"rapid"}}, ch(nil), open, "speed not in challenge.speeds"},
		{ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {BaseMin: 5 * time.Minute}}}, ch(nil), open, "base time under challenge.time_controls.blitz.base_min"},
		{ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {BaseMax: time.Minute}}}, ch(nil), open, "base time over challenge.time_controls.blitz.base_max"},
		{ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {IncrementMin: 3 * time.Second}}}, ch(nil), open, "increment under challenge.time_controls.blitz.increment_min"},
		{ChallengePolicy{SpeedClocks: map[string]ClockRange{"blitz": {IncrementMax: time.Second}}}, ch(nil), open, "increment over challenge.time_controls.blitz.increment_max"},
		{ChallengePolicy{}, ch(corr(2)), open, "correspondence not in challenge.speeds"},
		{ChallengePolicy{Speeds: []string{"correspondence"}, MinDays: 3}, ch(corr(2)), open, "days per move under challenge.time_controls.correspondence.days_min"},
		{ChallengePolicy{Speeds: []string{"correspondence"}, MaxDays: 1}, ch(corr(2)), open, "days per move over challenge.time_controls.correspondence.days_max"},
		{ChallengePolicy{}, ch(func(c *lichess.Challenge) { c.TimeControl = lichess.TimeControl{Type: "unlimited"} }), open, "unlimited time, which the bot never plays"},
		{ChallengePolicy{AcceptCasual: true}, ch(nil), open, "rated, and challenge.accept_rated is false"},
		{ChallengePolicy{AcceptRated: true}, ch(func(c *lichess.Challenge) { c.Rated = false }), open, "casual, and challenge.accept_casual is false"},
		{ChallengePolicy{AcceptHumans: true}, ch(bot), open, "a bot, and challenge.accept_bots is false"},
		{ChallengePolicy{AcceptBots: true}, ch(nil), open, "a human, and challenge.accept_humans is false"},
		{ChallengePolicy{MinRating: 1900}, ch(nil), open, "rating under challenge.opponent_rating.min"},
		{ChallengePolicy{MaxRating: 1700}, ch(nil), open, "rating over challenge.opponent_rating.max"},
		{ChallengePolicy{MaxBotGamesPerDay: 3}, ch(bot), policyState{BotGamesToday: 3}, "challenge.max_bot_games_per_day reached"},
		{ChallengePolicy{}, ch(nil), open, ""},
	} {
		reason, rule := tc.p.verdict(tc.ch, tc.st)
		if rule != tc.rule {
			t.Errorf("rule %q, want %q", rule, tc.rule)
		}
		if (reason == "") != (rule == "") || reason != tc.p.decide(tc.ch, tc.st) {
			t.Errorf("%q: reason %q, decide %q", tc.rule, reason, tc.p.decide(tc.ch, tc.st))
		}
	}
}
