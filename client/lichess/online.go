package lichess

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Default addresses of the Lichess services that live outside lichess.org
// (the API specification's servers).
const (
	DefaultTablebaseURL = "https://tablebase.lichess.org"
	DefaultExplorerURL  = "https://explorer.lichess.org"
)

// Rate-limit keys of the knowledge endpoints: a 429 from one of them cools
// down that service only.
const (
	limitTablebase = "tablebase"
	limitCloudEval = "cloud-eval"
	limitExplorer  = "explorer"
)

// TablebaseEntry is the Lichess tablebase's answer for a standard chess
// position (GET /standard on the tablebase server). Category is from the
// side to move's point of view: win, unknown, syzygy-win, maybe-win,
// cursed-win, draw, blessed-loss, maybe-loss, syzygy-loss or loss. DTZ and
// DTM are in plies, nil when unknown.
type TablebaseEntry struct {
	Category  string          `json:"category"`
	DTZ       *int            `json:"dtz"`
	DTM       *int            `json:"dtm"`
	Checkmate bool            `json:"checkmate"`
	Stalemate bool            `json:"stalemate"`
	Moves     []TablebaseMove `json:"moves"`
}

// TablebaseMove is one legal move of a TablebaseEntry, with what the
// position after it is worth for the side to move there (the opponent of
// the mover): "loss" means the move wins.
type TablebaseMove struct {
	UCI       string `json:"uci"`
	SAN       string `json:"san"`
	Category  string `json:"category"`
	DTZ       *int   `json:"dtz"`
	DTM       *int   `json:"dtm"`
	Zeroing   bool   `json:"zeroing"`
	Checkmate bool   `json:"checkmate"`
	Stalemate bool   `json:"stalemate"`
}

// Tablebase looks up a standard chess position (X-FEN, up to 7 pieces) in
// the Lichess tablebase at base ("" for DefaultTablebaseURL). The request
// carries no token (the tablebase needs none). It fails at once, without a
// request, inside a cool-down that a 429 of the tablebase started.
func (c *Client) Tablebase(ctx context.Context, base, fen string) (*TablebaseEntry, error) {
	if base == "" {
		base = DefaultTablebaseURL
	}
	var out TablebaseEntry
	err := c.doJSON(ctx, request{op: "tablebase lookup", method: http.MethodGet, base: base,
		path: "/standard?" + url.Values{"fen": {fen}}.Encode(), limitKey: limitTablebase, direct: true, noAuth: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CloudEval is a cached evaluation of the Lichess cloud
// (GET /api/cloud-eval): up to five variations, the best first.
type CloudEval struct {
	FEN    string    `json:"fen"`
	Knodes int       `json:"knodes"`
	Depth  int       `json:"depth"`
	PVs    []CloudPV `json:"pvs"`
}

// CloudPV is one variation of a CloudEval. Moves are UCI, separated by
// spaces (castling as king takes rook). CP and Mate are from White's point
// of view; one of them is set.
type CloudPV struct {
	Moves string `json:"moves"`
	CP    *int   `json:"cp"`
	Mate  *int   `json:"mate"`
}

// VariantChess960 is the cloud evaluation's variant of Chess960.
const VariantChess960 = "chess960"

// CloudEval gets the cloud evaluation of a position (X-FEN) with multiPV
// variations, in variant ("" for standard chess, not sent; the cloud
// takes Lichess' variant keys, such as VariantChess960). A position the
// cloud does not know is an *APIError with status 404 (IsNotFound). It
// fails at once inside a cool-down of the endpoint.
func (c *Client) CloudEval(ctx context.Context, fen string, multiPV int, variant string) (*CloudEval, error) {
	q := url.Values{"fen": {fen}}
	if multiPV > 1 {
		q.Set("multiPv", strconv.Itoa(multiPV))
	}
	if variant != "" {
		q.Set("variant", variant)
	}
	var out CloudEval
	err := c.doJSON(ctx, request{op: "cloud evaluation", method: http.MethodGet,
		path: "/api/cloud-eval?" + q.Encode(), limitKey: limitCloudEval, direct: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Explorer databases.
const (
	ExplorerMasters = "masters"
	ExplorerLichess = "lichess"
)

// ExplorerQuery asks the opening explorer about one position.
type ExplorerQuery struct {
	// Base is the explorer server ("" for DefaultExplorerURL).
	Base string
	// Database is ExplorerMasters or ExplorerLichess.
	Database string
	// FEN is the position (X-FEN).
	FEN string
	// Speeds and Ratings narrow the lichess database (empty: the
	// explorer's defaults); the masters database ignores them.
	Speeds  []string
	Ratings []int
}

// ExplorerEntry is the opening explorer's answer: the games of the
// position and of each move played there, by result.
type ExplorerEntry struct {
	White int            `json:"white"`
	Draws int            `json:"draws"`
	Black int            `json:"black"`
	Moves []ExplorerMove `json:"moves"`
}

// ExplorerMove is one move of an ExplorerEntry (UCI; castling as the king
// takes its rook or to its square, as the explorer writes it) and the
// results of the games that went on with it.
type ExplorerMove struct {
	UCI           string `json:"uci"`
	SAN           string `json:"san"`
	White         int    `json:"white"`
	Draws         int    `json:"draws"`
	Black         int    `json:"black"`
	AverageRating int    `json:"averageRating"`
}

// Games is how many games went on with the move.
func (m ExplorerMove) Games() int { return m.White + m.Draws + m.Black }

// Explorer asks the Lichess opening explorer about a position. Since 2026
// the explorer wants the bot's token: the request carries it, as every
// request to lichess.org does (never in the URL, never logged). It fails
// at once inside a cool-down of the explorer.
func (c *Client) Explorer(ctx context.Context, q ExplorerQuery) (*ExplorerEntry, error) {
	base := q.Base
	if base == "" {
		base = DefaultExplorerURL
	}
	switch q.Database {
	case ExplorerMasters, ExplorerLichess:
	default:
		return nil, fmt.Errorf("opening explorer: unknown database %q (want %s or %s)", q.Database, ExplorerMasters, ExplorerLichess)
	}
	v := url.Values{"fen": {q.FEN}, "topGames": {"0"}}
	if q.Database == ExplorerLichess {
		v.Set("variant", "standard")
		v.Set("recentGames", "0")
		if len(q.Speeds) > 0 {
			v.Set("speeds", strings.Join(q.Speeds, ","))
		}
		if len(q.Ratings) > 0 {
			rs := make([]string, len(q.Ratings))
			for i, r := range q.Ratings {
				rs[i] = strconv.Itoa(r)
			}
			v.Set("ratings", strings.Join(rs, ","))
		}
	}
	var out ExplorerEntry
	err := c.doJSON(ctx, request{op: "opening explorer " + q.Database, method: http.MethodGet, base: base,
		path: "/" + q.Database + "?" + v.Encode(), limitKey: limitExplorer, direct: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// IsNotFound reports whether err is an answer with status 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }
