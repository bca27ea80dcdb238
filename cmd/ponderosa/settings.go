package main

import (
	"cmp"
	"slices"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/config"
)

// unlimitedBotGames stands for max_bot_games_per_day: 0 (only Lichess's
// own limit), which the client would read as its default.
const unlimitedBotGames = 1 << 30

// settingsFromConfig maps the configuration onto the client's settings:
// the one place where config keys meet client fields. stateDir is the
// state directory in use (resolved and made at start); a relative
// game.pgn_dir lies under it.
func settingsFromConfig(cfg *config.Config, stateDir string) client.Settings {
	ch := cfg.Challenge
	pol := client.ChallengePolicy{
		// The client reads "both false" as "both accepted"; the config as
		// "neither" (validation allows it only with accept: false).
		DeclineAll:        !ch.Accept || (!ch.AcceptRated && !ch.AcceptCasual) || (!ch.AcceptBots && !ch.AcceptHumans),
		Variants:          slices.Clone(ch.Variants),
		Speeds:            slices.Clone(ch.Speeds),
		SpeedClocks:       map[string]client.ClockRange{},
		MinDays:           ch.TimeControls.Correspondence.DaysMin,
		MaxDays:           ch.TimeControls.Correspondence.DaysMax,
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
		ReservedForHumans: ch.GamesReservedForHumans,
		MaxGamesPerUser:   ch.MaxSimultaneousGamesPerUser,
		QueueLength:       ch.QueueLength,
		QueueMaxAge:       ch.QueueMaxAge,
		SortBy:            ch.SortBy,
	}
	if pol.MaxBotGamesPerDay == 0 {
		pol.MaxBotGamesPerDay = unlimitedBotGames
	}
	for _, s := range []string{config.SpeedUltraBullet, config.SpeedBullet, config.SpeedBlitz, config.SpeedRapid, config.SpeedClassical} {
		r, _ := ch.TimeControls.Clock(s)
		pol.SpeedClocks[s] = client.ClockRange{BaseMin: r.BaseMin, BaseMax: r.BaseMax, IncrementMin: r.IncrementMin, IncrementMax: r.IncrementMax}
	}

	mm := cfg.Matchmaking
	ms := client.MatchmakingSettings{
		Enabled:  mm.Enabled,
		Mode:     mm.ChallengeMode(),
		Variants: slices.Clone(mm.Variants),
		// The config refuses days that our own rules would decline;
		// the client offers only those it accepts all the same.
		CorrespondenceDays: slices.Clone(mm.CorrespondenceDays),
		IdleTime:           mm.IdleTime,
		ChallengeTimeout:   mm.ChallengeTimeout,
		MinRating:          mm.OpponentRating.Min,
		MaxRating:          mm.OpponentRating.Max,
		MaxRatingDiff:      mm.RatingDifference,
		BlockList:          slices.Clone(mm.BlockList),
		// 0 in the configuration is never; the client's 0 is its default.
		BlockAfterDeclines: cmp.Or(mm.BlockAfterDeclines, -1),
		BlockFor:           time.Duration(mm.BlockDays) * 24 * time.Hour,
	}
	clocks := func(tcs []config.TimeControl) []client.TimeControlSetting {
		out := make([]client.TimeControlSetting, 0, len(tcs))
		for _, tc := range tcs {
			out = append(out, client.TimeControlSetting{Base: tc.Base, Increment: tc.Increment})
		}
		return out
	}
	ms.TimeControls = clocks(mm.TimeControls)
	if len(mm.VariantTimeControls) > 0 {
		ms.VariantTimeControls = map[string][]client.TimeControlSetting{}
		for variant, tcs := range mm.VariantTimeControls {
			ms.VariantTimeControls[variant] = clocks(tcs)
		}
	}

	g := cfg.Game
	gs := client.GameSettings{
		AbortAfter:      g.AbortAfter,
		AcceptDraws:     g.Draw.Accept,
		DrawAfterMove:   g.Draw.AfterMove,
		DrawWithinCP:    g.Draw.WithinCP,
		DrawTablebase:   g.Draw.Tablebase,
		OfferDraws:      g.Draw.Offer,
		OfferWithinCP:   g.Draw.OfferWithinCP,
		OfferForMoves:   g.Draw.OfferMoves,
		OfferMaxPieces:  g.Draw.OfferPieces,
		OfferAfterMove:  g.Draw.OfferAfterMove,
		OfferPauseMoves: g.Draw.OfferPauseMoves,
		Resign:          g.Resign.Enabled,
		ResignBelowCP:   g.Resign.BelowCP,
		ResignForMoves:  g.Resign.ForMoves,
		ResignTablebase: g.Resign.Tablebase,
		AcceptTakebacks: g.AcceptTakebacks,
		OnOpponentGone:  g.OpponentGone,
	}
	gs.OfferMinOpponentClock = g.Draw.OfferMinOpponentClock
	if gs.AbortAfter == 0 { // config: never abort; client: 0 is its default
		gs.AbortAfter = -1
	}
	return client.Settings{
		Challenge:   pol,
		Matchmaking: ms,
		Clock:       client.ClockSettings{MoveOverhead: g.MoveOverhead},
		Game:        gs,
		Chat: client.ChatSettings{
			Greeting: client.ChatMessages{Player: g.Greeting.Player, Spectator: g.Greeting.Spectator},
			Goodbye:  client.ChatMessages{Player: g.Goodbye.Player, Spectator: g.Goodbye.Spectator},
			Name:     "ponderosa " + appVersion(),
		},
		Correspondence: client.CorrespondenceSettings{
			MoveTime:       cfg.Correspondence.MoveTime,
			CheckinPeriod:  cfg.Correspondence.CheckinPeriod,
			DisconnectTime: cfg.Correspondence.DisconnectTime,
			Ponder:         cfg.Correspondence.Ponder,
			Concurrency:    cfg.Correspondence.Concurrency,
		},
		Tournament: tournamentSettings(cfg), // tournament.go
		StateDir:   stateDir,
		PGNDir:     cfg.ResolvePGNDir(stateDir),
	}
}
