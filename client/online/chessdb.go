package online

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultChessDBURL is where chessdb serves its queries (/cdb.php).
const DefaultChessDBURL = "https://www.chessdb.cn"

// ChessDB actions.
const (
	ChessDBBest = "querybest" // the one move chessdb deems best
	ChessDBAll  = "queryall"  // every move it knows, with score and rank
)

// ChessDB asks chessdb (www.chessdb.cn, cdb.php). With ChessDBBest it
// plays the move chessdb gives; with ChessDBAll it plays one, at random,
// of the moves ranked MinRank or better (chessdb's rank: 2 the best moves,
// 1 good ones, 0 the others) that score MinScore centipawns or more for the
// side to move. It never sends the bot's token. A 429 answer stops the
// asking for its Retry-After, or a minute.
type ChessDB struct {
	HTTP      *http.Client // nil: http.DefaultClient
	BaseURL   string       // "" for DefaultChessDBURL
	UserAgent string
	Action    string // ChessDBBest or ChessDBAll
	MinRank   int
	MinScore  int

	mu    sync.Mutex
	until time.Time // no request before (a 429's cool-down)
}

func (c *ChessDB) Name() string { return "chessdb" }

func (c *ChessDB) Applies(p Position) bool { return true }

type chessdbAnswer struct {
	Status string `json:"status"`
	Move   string `json:"move"`
	Moves  []struct {
		UCI   string `json:"uci"`
		Score int    `json:"score"`
		Rank  int    `json:"rank"`
		Note  string `json:"note"`
	} `json:"moves"`
}

// ErrCoolingDown is returned while a 429 of chessdb is being waited out.
var ErrCoolingDown = errors.New("chessdb: rate limit cool-down in progress")

func (c *ChessDB) Move(ctx context.Context, p Position) (Move, error) {
	action := c.Action
	if action == "" {
		action = ChessDBBest
	}
	c.mu.Lock()
	until := c.until
	c.mu.Unlock()
	if time.Now().Before(until) {
		return Move{}, fmt.Errorf("%w (%v left)", ErrCoolingDown, time.Until(until).Round(time.Second))
	}
	base := c.BaseURL
	if base == "" {
		base = DefaultChessDBURL
	}
	q := url.Values{"action": {action}, "board": {p.FEN}, "json": {"1"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/cdb.php?"+q.Encode(), nil)
	if err != nil {
		return Move{}, fmt.Errorf("chessdb %s: %w", action, err)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Move{}, fmt.Errorf("chessdb %s: %w", action, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		wait := time.Minute
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		c.mu.Lock()
		c.until = time.Now().Add(wait)
		c.mu.Unlock()
		return Move{}, fmt.Errorf("chessdb %s: HTTP 429: cooling down for %v", action, wait)
	}
	if resp.StatusCode/100 != 2 {
		return Move{}, fmt.Errorf("chessdb %s: HTTP %d", action, resp.StatusCode)
	}
	var a chessdbAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&a); err != nil {
		return Move{}, fmt.Errorf("chessdb %s: decode answer: %w", action, err)
	}
	if a.Status != "ok" {
		return Move{}, fmt.Errorf("chessdb %s: %w (status %q)", action, ErrNoMove, a.Status)
	}
	if action == ChessDBBest {
		if a.Move == "" {
			return Move{}, fmt.Errorf("chessdb %s: %w (empty move)", action, ErrNoMove)
		}
		return Move{UCI: a.Move, Note: "best move"}, nil
	}
	var ok []Move
	for _, m := range a.Moves {
		if m.UCI != "" && m.Rank >= c.MinRank && m.Score >= c.MinScore {
			ok = append(ok, Move{UCI: m.UCI, ScoreCP: m.Score, Note: fmt.Sprintf("rank %d, score %d", m.Rank, m.Score)})
		}
	}
	if len(ok) == 0 {
		return Move{}, fmt.Errorf("chessdb %s: %w (no move of rank %d or more and score %d or more)", action, ErrNoMove, c.MinRank, c.MinScore)
	}
	return ok[rand.IntN(len(ok))], nil
}
