package lichesstest

import (
	"net/http"
	"strings"

	"github.com/notnil/chess"
)

// GameJson.yaml (the fields this server knows): GET /game/export/{id}
// with Accept: application/json.
type jsonExportGame struct {
	ID          string            `json:"id"`
	Rated       bool              `json:"rated"`
	Variant     string            `json:"variant"` // the key
	Speed       string            `json:"speed"`
	Perf        string            `json:"perf"`
	CreatedAt   int64             `json:"createdAt"`
	LastMoveAt  int64             `json:"lastMoveAt"`
	Status      string            `json:"status"`
	Source      string            `json:"source,omitempty"`
	Players     jsonExportPlayers `json:"players"`
	InitialFen  string            `json:"initialFen,omitempty"`
	Winner      string            `json:"winner,omitempty"`
	Moves       *string           `json:"moves,omitempty"`
	PGN         string            `json:"pgn,omitempty"`
	DaysPerTurn int               `json:"daysPerTurn,omitempty"`
	Clock       *jsonExportClock  `json:"clock,omitempty"`
	Tournament  *jsonExportArena  `json:"arenaTour,omitempty"`
}

// GamePlayers.yaml
type jsonExportPlayers struct {
	White jsonExportPlayer `json:"white"`
	Black jsonExportPlayer `json:"black"`
}

// GamePlayerUser.yaml (jsonGamePlayerUser with the rating change)
type jsonExportPlayer struct {
	User       jsonLightUser `json:"user"`
	Rating     int           `json:"rating"`
	RatingDiff *int          `json:"ratingDiff,omitempty"`
}

type jsonExportClock struct {
	Initial   int64 `json:"initial"` // seconds
	Increment int64 `json:"increment"`
	TotalTime int64 `json:"totalTime"`
}

type jsonExportArena struct {
	ID string `json:"id"`
}

// GET /game/export/{id}: one game, as PGN (the default) or, with Accept:
// application/json, as GameJson (its moves in SAN; pgnInJson=true adds the
// PGN, moves=false leaves the moves out). No token is needed. Unlike
// Lichess, the moves of a game in progress are not delayed.
func (s *Server) handleExportGame(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	g := s.games[r.PathValue("id")]
	if g == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "No such game")
		return
	}
	pgn := g.pgn()
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-chess-pgn")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write([]byte(pgn))
		return
	}
	q := r.URL.Query()
	ex := jsonExportGame{
		ID: g.id, Rated: g.rated, Variant: g.variant, Speed: g.speed, Perf: perfKey(g.variant, g.speed),
		CreatedAt: g.createdAt.UnixMilli(), LastMoveAt: g.lastMoveAt.UnixMilli(), Status: g.status,
		Source: "friend", InitialFen: g.fen, DaysPerTurn: g.days,
	}
	if !g.ongoing() && !g.finishedAt.IsZero() {
		ex.LastMoveAt = g.finishedAt.UnixMilli()
	}
	for col, p := range []*jsonExportPlayer{&ex.Players.White, &ex.Players.Black} {
		a := g.players[col]
		*p = jsonExportPlayer{User: jsonLightUser{ID: a.id, Name: a.username}, Rating: a.rating}
		if a.bot {
			p.User.Title = "BOT"
		}
		if g.ratingDiff != nil {
			d := g.ratingDiff[col]
			p.RatingDiff = &d
		}
	}
	if g.winner != none {
		ex.Winner = colorNames[g.winner]
	}
	if g.hasClock {
		ini, inc := int64(g.initial.Seconds()), int64(g.inc.Seconds())
		ex.Clock = &jsonExportClock{Initial: ini, Increment: inc, TotalTime: ini + 40*inc}
	}
	if g.tournamentID != "" {
		ex.Source = "arena"
		ex.Tournament = &jsonExportArena{ID: g.tournamentID}
	}
	if q.Get("moves") != "false" {
		m := strings.Join(g.sanMoves(), " ")
		ex.Moves = &m
	}
	if q.Get("pgnInJson") == "true" {
		ex.PGN = pgn
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, ex)
}

// sanMoves are the game's moves in SAN; in UCI for a variant the server
// does not follow (as its PGN has them).
func (g *game) sanMoves() []string {
	if g.cg == nil {
		return append([]string(nil), g.moves...)
	}
	positions, moves := g.cg.Positions(), g.cg.Moves()
	out := make([]string, 0, len(moves))
	for i, m := range moves {
		out = append(out, chess.AlgebraicNotation{}.Encode(positions[i], m))
	}
	return out
}
