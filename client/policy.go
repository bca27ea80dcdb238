package client

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// ChallengePolicy decides which incoming challenges the bot accepts. The
// zero value is usable: withDefaults fills what is unset.
//
// A decline is logged with Lichess' reason key and the rule behind it,
// named by the configuration key that sets the field (see
// cmd/ponderosa/settings.go), e.g. "variant not in challenge.variants".
type ChallengePolicy struct {
	// DeclineAll declines every challenge (e.g. with matchmaking only).
	DeclineAll bool
	// Variants accepted (variant keys). Default: standard, chess960,
	// fromPosition.
	Variants []string
	// Speeds accepted: bullet, blitz, rapid, classical, correspondence.
	// Default: bullet, blitz, rapid, classical. UltraBullet is always
	// declined.
	Speeds []string
	// Base time range (clock.limit) and increment range accepted; zero
	// Max means no upper bound.
	MinBase, MaxBase           time.Duration
	MinIncrement, MaxIncrement time.Duration
	// SpeedClocks narrows each speed (key: bullet, blitz, ...) further.
	SpeedClocks map[string]ClockRange
	// Days per move of correspondence games (when "correspondence" is in
	// Speeds); zero means no bound.
	MinDays, MaxDays int
	// Rated and casual games accepted. Both false means both are accepted.
	AcceptRated, AcceptCasual bool
	// Opponents: bots and humans. Both false means both are accepted.
	AcceptBots, AcceptHumans bool
	// Opponent rating range; zero means no bound.
	MinRating, MaxRating int
	// AllowList: if not empty, only these users (case-insensitive) may
	// challenge. BlockList users are always declined.
	AllowList, BlockList []string
	// MaxGames is the number of real-time games played at once
	// (correspondence games have CorrespondenceSettings.Concurrency).
	// Default 1.
	MaxGames int
	// ReservedForHumans of the MaxGames slots are for human opponents: a
	// bot's challenge is accepted only while fewer than MaxGames −
	// ReservedForHumans games run. Default 0.
	ReservedForHumans int
	// MaxGamesPerUser bounds the games against one opponent at once (a
	// further challenge of theirs waits in the queue, and the matchmaker
	// does not challenge them); 0 means no bound but MaxGames.
	MaxGamesPerUser int
	// QueueLength is how many challenges that pass the rules may wait for
	// a slot; a challenge that finds the queue full is declined "later".
	// 0 (the default) keeps no queue: every challenge that finds all slots
	// busy is declined "later".
	QueueLength int
	// QueueMaxAge: a challenge that has waited this long (since the bot
	// first saw it) is declined "later". Default 10 min.
	QueueMaxAge time.Duration
	// SortBy orders the queue: SortFirst (arrival order, the default) or
	// SortBest (the highest-rated challenger first).
	SortBy string
	// MaxBotGamesPerDay bounds bot-vs-bot games in any 24 hours (Lichess
	// limits them). Default 100.
	MaxBotGamesPerDay int
}

// ClockRange bounds a clock; zero maxima mean no upper bound.
type ClockRange struct {
	BaseMin, BaseMax           time.Duration
	IncrementMin, IncrementMax time.Duration
}

func (p ChallengePolicy) withDefaults() ChallengePolicy {
	if len(p.Variants) == 0 {
		p.Variants = []string{"standard", "chess960", "fromPosition"}
	}
	if len(p.Speeds) == 0 {
		p.Speeds = []string{"bullet", "blitz", "rapid", "classical"}
	}
	if !p.AcceptRated && !p.AcceptCasual {
		p.AcceptRated, p.AcceptCasual = true, true
	}
	if !p.AcceptBots && !p.AcceptHumans {
		p.AcceptBots, p.AcceptHumans = true, true
	}
	if p.MaxGames <= 0 {
		p.MaxGames = 1
	}
	if p.MaxBotGamesPerDay <= 0 {
		p.MaxBotGamesPerDay = 100
	}
	p.ReservedForHumans = max(p.ReservedForHumans, 0)
	p.MaxGamesPerUser = max(p.MaxGamesPerUser, 0)
	p.QueueLength = max(p.QueueLength, 0)
	if p.QueueMaxAge <= 0 {
		p.QueueMaxAge = 10 * time.Minute
	}
	if p.SortBy != SortBest {
		p.SortBy = SortFirst
	}
	return p
}

// policyState is what the decision needs besides the challenge.
type policyState struct {
	Me            string // our user id
	BotGamesToday int    // bot-vs-bot games in the last 24 hours
	Draining      bool   // the bot is shutting down
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// decide returns "" to accept ch, or the decline reason key.
func (p ChallengePolicy) decide(ch *lichess.Challenge, st policyState) string {
	reason, _ := p.verdict(ch, st)
	return reason
}

// verdict returns "" to accept ch, or the decline reason key (what
// Lichess shows the challenger) and the rule that declines it (for the
// log).
func (p ChallengePolicy) verdict(ch *lichess.Challenge, st policyState) (reason, rule string) {
	p = p.withDefaults()
	who := ch.Challenger
	switch {
	case st.Draining:
		return lichess.DeclineLater, "shutting down: no new games"
	case p.DeclineAll: // the config allows no mode or no kind of opponent only with accept: false
		return lichess.DeclineGeneric, "challenge.accept is false"
	case containsFold(p.BlockList, who.ID) || containsFold(p.BlockList, who.Name):
		return lichess.DeclineGeneric, "challenger in challenge.block_list"
	case len(p.AllowList) > 0 && !containsFold(p.AllowList, who.ID) && !containsFold(p.AllowList, who.Name):
		return lichess.DeclineGeneric, "challenger not in challenge.allow_list"
	}
	if reason, rule := p.variantVerdict(ch.Variant.Key); reason != "" {
		return reason, rule
	}
	tc := ch.TimeControl
	switch tc.Type {
	case "clock":
		base := time.Duration(tc.Limit) * time.Second
		inc := time.Duration(tc.Increment) * time.Second
		if ch.Speed == "ultraBullet" {
			return lichess.DeclineTooFast, "ultraBullet, which Lichess does not let bots play"
		}
		if base < p.MinBase {
			return lichess.DeclineTooFast, "base time under the policy's MinBase"
		}
		if p.MaxBase > 0 && base > p.MaxBase {
			return lichess.DeclineTooSlow, "base time over the policy's MaxBase"
		}
		if inc < p.MinIncrement || (p.MaxIncrement > 0 && inc > p.MaxIncrement) {
			return lichess.DeclineTimeControl, "increment outside the policy's MinIncrement..MaxIncrement"
		}
		if reason, rule := p.speedVerdict(ch.Speed); reason != "" {
			return reason, rule
		}
		if r, ok := p.SpeedClocks[ch.Speed]; ok {
			tcs := "challenge.time_controls." + ch.Speed
			switch {
			case base < r.BaseMin:
				return lichess.DeclineTooFast, "base time under " + tcs + ".base_min"
			case r.BaseMax > 0 && base > r.BaseMax:
				return lichess.DeclineTooSlow, "base time over " + tcs + ".base_max"
			case inc < r.IncrementMin:
				return lichess.DeclineTimeControl, "increment under " + tcs + ".increment_min"
			case r.IncrementMax > 0 && inc > r.IncrementMax:
				return lichess.DeclineTimeControl, "increment over " + tcs + ".increment_max"
			}
		}
	case "correspondence":
		if !containsFold(p.Speeds, "correspondence") {
			return lichess.DeclineTimeControl, "correspondence not in challenge.speeds"
		}
		if d := tc.DaysPerTurn; d < p.MinDays {
			return lichess.DeclineTimeControl, "days per move under challenge.time_controls.correspondence.days_min"
		} else if p.MaxDays > 0 && d > p.MaxDays {
			return lichess.DeclineTimeControl, "days per move over challenge.time_controls.correspondence.days_max"
		}
	default: // unlimited
		return lichess.DeclineTimeControl, "unlimited time, which the bot never plays"
	}
	if ch.Rated && !p.AcceptRated {
		return lichess.DeclineCasual, "rated, and challenge.accept_rated is false"
	}
	if !ch.Rated && !p.AcceptCasual {
		return lichess.DeclineRated, "casual, and challenge.accept_casual is false"
	}
	bot := who.IsBot()
	if bot && !p.AcceptBots {
		return lichess.DeclineNoBot, "a bot, and challenge.accept_bots is false"
	}
	if !bot && !p.AcceptHumans {
		return lichess.DeclineOnlyBot, "a human, and challenge.accept_humans is false"
	}
	if who.Rating > 0 && p.MinRating > 0 && who.Rating < p.MinRating {
		return lichess.DeclineGeneric, "rating under challenge.opponent_rating.min"
	}
	if who.Rating > 0 && p.MaxRating > 0 && who.Rating > p.MaxRating {
		return lichess.DeclineGeneric, "rating over challenge.opponent_rating.max"
	}
	if bot && st.BotGamesToday >= p.MaxBotGamesPerDay {
		return lichess.DeclineLater, "challenge.max_bot_games_per_day reached"
	}
	return "", ""
}

// variantVerdict is verdict's rule on a game's variant (key): "" when the
// bot plays it (challenge.variants, which check-config lets name only
// variants that a configured engine plays), else the decline reason and
// the rule. p has its defaults. An arena's variant is checked by it too.
func (p ChallengePolicy) variantVerdict(key string) (reason, rule string) {
	if containsFold(p.Variants, key) {
		return "", ""
	}
	if len(p.Variants) == 1 && p.Variants[0] == "standard" {
		return lichess.DeclineStandard, "variant not in challenge.variants"
	}
	return lichess.DeclineVariant, "variant not in challenge.variants"
}

// speedVerdict is verdict's rule on a real-time game's speed: "" when it
// is in challenge.speeds and not ultraBullet (which Lichess does not let
// bots play), else the decline reason and the rule. p has its defaults.
// An arena's speed is checked by it too.
func (p ChallengePolicy) speedVerdict(speed string) (reason, rule string) {
	switch {
	case speed == "ultraBullet":
		return lichess.DeclineTooFast, "ultraBullet, which Lichess does not let bots play"
	case !containsFold(p.Speeds, speed):
		return speedReason(p.Speeds, speed), "speed not in challenge.speeds"
	}
	return "", ""
}

// speedOrder is Lichess' speeds, fastest first. Read-only.
var speedOrder = []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"}

// speedReason says whether speed is faster or slower than all accepted speeds.
func speedReason(accepted []string, speed string) string {
	i := slices.Index(speedOrder, speed)
	lo, hi := len(speedOrder), -1
	for _, s := range accepted {
		if j := slices.Index(speedOrder, s); j >= 0 {
			lo, hi = min(lo, j), max(hi, j)
		}
	}
	switch {
	case i >= 0 && i < lo:
		return lichess.DeclineTooFast
	case i > hi:
		return lichess.DeclineTooSlow
	}
	return lichess.DeclineTimeControl
}

// dailyCounter counts events in a sliding 24-hour window.
type dailyCounter struct {
	mu    sync.Mutex
	times []time.Time
}

func (d *dailyCounter) add(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.times = append(d.times, t)
}

// load adds the times of earlier runs (from the state store).
func (d *dailyCounter) load(ts []time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.times = append(d.times, ts...)
	slices.SortFunc(d.times, time.Time.Compare)
}

// oldest is the earliest event of the 24 hours before now, if any.
func (d *dailyCounter) oldest(now time.Time) (time.Time, bool) {
	d.count(now) // forgets what is older
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.times) == 0 {
		return time.Time{}, false
	}
	return d.times[0], true
}

func (d *dailyCounter) count(now time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	cut := now.Add(-24 * time.Hour)
	i := 0
	for i < len(d.times) && !d.times[i].After(cut) {
		i++
	}
	d.times = d.times[i:]
	return len(d.times)
}
