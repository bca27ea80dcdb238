package main

import (
	"net/http"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/config"
)

// onlineSources makes the enabled online sources of cfg, in the order of
// online.order. The Lichess ones talk through c (the explorer and the
// cloud evaluation with the bot's token); chessdb gets a client of its own,
// without it.
func onlineSources(cfg *config.Config, c *lichess.Client) []client.OnlineSource {
	o := cfg.Online
	var out []client.OnlineSource
	for _, key := range o.Enabled() {
		r := o.Rules(key)
		var s online.Source
		switch key {
		case config.OnlineTablebaseKey:
			s = &online.Tablebase{Client: c, BaseURL: o.Tablebase.URL, MaxPieces: o.Tablebase.MaxPieces}
		case config.OnlineCloudEvalKey:
			s = &online.Cloud{Client: c, MultiPV: o.CloudEval.MultiPV, MinDepth: o.CloudEval.MinDepth, MaxCPLoss: o.CloudEval.MaxCPLoss}
		case config.OnlineExplorerKey:
			e := o.Explorer
			s = &online.Explorer{Client: c, BaseURL: e.URL, Database: e.Database, Sort: e.Sort, MinGames: e.MinGames,
				MaxPly: e.MaxPly, Speeds: e.Speeds, Ratings: e.Ratings}
		case config.OnlineChessDBKey:
			d := o.ChessDB
			s = &online.ChessDB{HTTP: &http.Client{}, BaseURL: d.URL, UserAgent: "ponderosa/" + version,
				Action: d.Action, MinRank: d.MinRank, MinScore: d.MinScore}
		default:
			continue
		}
		out = append(out, client.OnlineSource{Source: s, Timeout: r.Timeout, MinTime: r.MinTime, MaxMisses: r.MaxMisses})
	}
	return out
}

// withOnline puts the enabled online sources of cfg in front of the
// players of pf (pf itself when none is enabled).
func withOnline(cfg *config.Config, c *lichess.Client, log zerolog.Logger, pf client.PlayerFactory) client.PlayerFactory {
	return client.NewOnlinePlayer(pf, client.OnlineOptions{Sources: onlineSources(cfg, c), Logger: log})
}
