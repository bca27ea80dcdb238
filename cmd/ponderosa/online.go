package main

import (
	"net/http"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/online"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// onlineSources makes the enabled online sources of cfg, in the order of
// online.order. The Lichess ones talk through c (the explorer and the
// cloud evaluation with the bot's token); chessdb gets a client of its own,
// without it. The Lichess tablebase is not asked in a position that the
// built-in engine's local tables hold (local, nil: none): see
// localTablesHold.
func onlineSources(cfg *config.Config, c *lichess.Client, local *syzygy.Tablebase) []client.OnlineSource {
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
		src := client.OnlineSource{Source: s, Timeout: r.Timeout, MinTime: r.MinTime, MaxMisses: r.MaxMisses}
		if key == config.OnlineTablebaseKey && local != nil {
			src.Skip = localTablesHold(local, cfg.Engine.Syzygy.ProbeLimit)
		}
		out = append(out, src)
	}
	return out
}

// localTablesHold reports the positions that the local tables hold
// (syzygy.Tablebase.Holds: no castling right, at most their most pieces,
// both tables of the material, the tables its captures and promotions
// lead to) and that the built-in engine uses them
// for (at most limit pieces, engine.syzygy.probe_limit, when positive):
// there the engine keeps to the moves that keep the tables' result (a win
// known by DTZ played at once, the shortest; in a draw or a loss a short
// search among the moves kept), and the Lichess tablebase is not asked. A
// FEN that does not parse is not held.
//
// Its cost: past the cheap checks (pieces, castling rights) Holds runs a
// full DTZ root probe of the position, and the engine's own root probe then
// runs it again. It is not cached: it happens once per move, only in
// positions of at most the tables' pieces, and the tables the first probe
// reads are mapped and warm for the second.
func localTablesHold(tb *syzygy.Tablebase, limit int) func(online.Position) bool {
	return func(pos online.Position) bool {
		if !tb.Covers(pos.Pieces(), limit) || pos.CanCastle() {
			return false // the cheap checks first
		}
		p, err := board.ParseFEN(pos.FEN)
		return err == nil && tb.Holds(p)
	}
}

// withOnline puts the enabled online sources of cfg in front of the
// players of pf (pf itself when none is enabled); local is the built-in
// engine's Syzygy tables (nil: none), whose positions the Lichess
// tablebase is not asked about.
func withOnline(cfg *config.Config, c *lichess.Client, log zerolog.Logger, pf client.PlayerFactory, local *syzygy.Tablebase) client.PlayerFactory {
	return client.NewOnlinePlayer(pf, client.OnlineOptions{Sources: onlineSources(cfg, c, local), Logger: log})
}
