package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/config"
)

// never stands for "no limit" where the client reads zero as "the default".
const never = 100 * 365 * 24 * time.Hour

// unlimitedBotGames stands for max_bot_games_per_day: 0 (only Lichess's
// own limit), which the client would read as its default.
const unlimitedBotGames = 1 << 30

// noOne is an allow list entry no Lichess username can match (usernames
// are letters, digits, '-' and '_'): with it alone the bot declines every
// challenge (reason "generic").
const noOne = "<nobody>"

// settingsFromConfig maps the configuration onto the client's settings.
// Where the client cannot do exactly what the file asks, the nearest
// setting is used and a note says what differs (run logs the notes as
// warnings).
func settingsFromConfig(cfg *config.Config) (client.Settings, []string) {
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	ch := cfg.Challenge
	pol := client.ChallengePolicy{
		Variants:          slices.Clone(ch.Variants),
		Speeds:            slices.Clone(ch.Speeds),
		AcceptRated:       ch.AcceptRated,
		AcceptCasual:      ch.AcceptCasual,
		AcceptBots:        ch.AcceptBots,
		AcceptHumans:      ch.AcceptHumans,
		MinRating:         ch.OpponentRating.Min,
		MaxRating:         ch.OpponentRating.Max,
		AllowList:         slices.Clone(ch.AllowList),
		BlockList:         slices.Clone(ch.BlockList),
		MaxGames:          ch.Concurrency,
		MaxBotGamesPerDay: ch.MaxBotGamesPerDay,
	}
	if pol.MaxBotGamesPerDay == 0 {
		pol.MaxBotGamesPerDay = unlimitedBotGames
	}
	// The client reads "both false" as "both accepted"; the config as
	// "neither" (validation allows it only with accept: false).
	if !ch.Accept || (!ch.AcceptRated && !ch.AcceptCasual) || (!ch.AcceptBots && !ch.AcceptHumans) {
		pol.AllowList = []string{noOne}
	}
	// One clock range for all speeds: the client has no per-speed ranges,
	// so take the smallest range holding those of the accepted speeds.
	first := true
	var ranges []config.ClockRange
	for _, s := range ch.Speeds {
		r, ok := ch.TimeControls.Clock(s)
		if !ok {
			continue
		}
		ranges = append(ranges, r)
		if first {
			pol.MinBase, pol.MaxBase, pol.MinIncrement, pol.MaxIncrement = r.BaseMin, r.BaseMax, r.IncrementMin, r.IncrementMax
			first = false
			continue
		}
		pol.MinBase, pol.MaxBase = min(pol.MinBase, r.BaseMin), max(pol.MaxBase, r.BaseMax)
		pol.MinIncrement, pol.MaxIncrement = min(pol.MinIncrement, r.IncrementMin), max(pol.MaxIncrement, r.IncrementMax)
	}
	for _, r := range ranges {
		if r != ranges[0] {
			note("challenge.time_controls differ between speeds; the bot applies one range to all accepted speeds: base %v to %v, increment %v to %v",
				pol.MinBase, pol.MaxBase, pol.MinIncrement, pol.MaxIncrement)
			break
		}
	}
	if slices.Contains(ch.Speeds, config.SpeedCorrespondence) {
		if d := ch.TimeControls.Correspondence; d.DaysMin != 1 || d.DaysMax != 14 {
			note("challenge.time_controls.correspondence is not applied: every correspondence challenge is accepted by days")
		}
	}

	mm := cfg.Matchmaking
	ms := client.MatchmakingSettings{
		Enabled:          mm.Enabled,
		Rated:            mm.Rated,
		IdleTime:         mm.IdleTime,
		ChallengeTimeout: mm.ChallengeTimeout,
		BlockList:        slices.Clone(mm.BlockList),
	}
	for _, tc := range mm.TimeControls {
		ms.TimeControls = append(ms.TimeControls, client.TimeControlSetting{Base: tc.Base, Increment: tc.Increment})
	}
	if len(mm.Variants) > 0 {
		ms.Variant = mm.Variants[0]
		if len(mm.Variants) > 1 && mm.Enabled {
			note("matchmaking.variants: only the first (%s) is offered", mm.Variants[0])
		}
	}
	if r := mm.OpponentRating; mm.Enabled && (r.Min > 0 || r.Max < 4000) {
		note("matchmaking.opponent_rating is not applied: any online bot may be challenged")
	}

	g := cfg.Game
	gs := client.GameSettings{
		AbortAfter:      g.AbortAfter,
		AcceptDraws:     g.Draw.Accept,
		DrawScoreCP:     g.Draw.WithinCP,
		DrawMinPly:      2 * max(g.Draw.AfterMove-1, 0),
		AcceptTakebacks: g.AcceptTakebacks,
	}
	if gs.AbortAfter == 0 {
		gs.AbortAfter = never
	}
	if g.OpponentGone != config.OpponentGoneClaimVictory {
		note("game.opponent_gone %s is not applied: the bot claims victory (a draw when it cannot win)", g.OpponentGone)
	}
	// The client writes one message in both rooms: the player one, or the
	// spectator one when only that is set.
	pick := func(key string, m config.Messages) string {
		msg := m.Player
		if msg == "" {
			msg = m.Spectator
		}
		if m.Spectator != "" && m.Spectator != m.Player {
			note("game.%s: the bot writes one message in both rooms: %q", key, msg)
		}
		return msg
	}
	chat := client.ChatSettings{Greeting: pick("greeting", g.Greeting), Goodbye: pick("goodbye", g.Goodbye), Name: "ponderosa " + version}

	return client.Settings{
		Challenge:   pol,
		Matchmaking: ms,
		Clock:       client.ClockSettings{MoveOverhead: g.MoveOverhead},
		Game:        gs,
		Chat:        chat,
		PGNDir:      g.PGNDir,
	}, notes
}
