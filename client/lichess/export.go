package lichess

import (
	"context"
	"net/http"
)

// GameExport is one game as Lichess exports it (schema GameJson, the
// fields the bot reads): GET /game/export/{id}.
type GameExport struct {
	ID          string            `json:"id"`
	Rated       bool              `json:"rated"`
	Variant     string            `json:"variant"` // the key: standard, chess960, fromPosition, ...
	Speed       string            `json:"speed"`
	CreatedAt   int64             `json:"createdAt"`  // Unix milliseconds
	LastMoveAt  int64             `json:"lastMoveAt"` // Unix milliseconds
	Status      string            `json:"status"`     // GameStatusName: started, mate, resign, aborted, ...
	Players     GameExportPlayers `json:"players"`
	InitialFEN  string            `json:"initialFen,omitempty"` // "" for the standard start
	Winner      string            `json:"winner,omitempty"`     // white, black or "" (draw, abort, not over)
	Moves       string            `json:"moves"`                // SAN, space-separated
	PGN         string            `json:"pgn,omitempty"`
	DaysPerTurn int               `json:"daysPerTurn,omitempty"`
	Clock       *struct {
		Initial   int64 `json:"initial"`   // seconds
		Increment int64 `json:"increment"` // seconds
	} `json:"clock,omitempty"`
}

// GameExportPlayers are the players of a GameExport.
type GameExportPlayers struct {
	White GameExportPlayer `json:"white"`
	Black GameExportPlayer `json:"black"`
}

// GameExportPlayer is schema GamePlayerUser (an AI has no user, a level).
type GameExportPlayer struct {
	User struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Title string `json:"title,omitempty"`
	} `json:"user"`
	Rating     int  `json:"rating"`
	RatingDiff *int `json:"ratingDiff,omitempty"`
	AILevel    int  `json:"aiLevel,omitempty"`
}

// Finished reports whether the exported game is over.
func (g GameExport) Finished() bool {
	return g.Status != "" && g.Status != "created" && g.Status != "started"
}

// ExportLimitKey is the cool-down key of ExportGame (Client.Cooldown).
const ExportLimitKey = "game/export"

// ExportGame fetches game id with its moves and PGN (GET
// /game/export/{id}, as JSON). Lichess delays the moves of a game in
// progress by three; a 404 (StatusCode) says there is no such game.
func (c *Client) ExportGame(ctx context.Context, id string) (GameExport, error) {
	var g GameExport
	err := c.doJSON(ctx, request{op: "export game " + id, method: http.MethodGet,
		path:     "/game/export/" + pathEscape(id) + "?pgnInJson=true&clocks=false&evals=false&literate=false",
		limitKey: ExportLimitKey}, &g)
	return g, err
}
