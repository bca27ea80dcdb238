package lichesstest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// MoveStreamEntry.yaml, first form (the game description).
type jsonMoveStreamGame struct {
	ID            string          `json:"id"`
	Variant       jsonVariant     `json:"variant"`
	Speed         string          `json:"speed"`
	Perf          string          `json:"perf"`
	Rated         bool            `json:"rated"`
	InitialFen    string          `json:"initialFen"`
	Fen           string          `json:"fen"`
	Player        string          `json:"player"`
	Turns         int             `json:"turns"`
	StartedAtTurn int             `json:"startedAtTurn"`
	Source        string          `json:"source"`
	Status        jsonGameStatus  `json:"status"`
	CreatedAt     int64           `json:"createdAt"`
	LastMove      string          `json:"lastMove,omitempty"`
	Winner        string          `json:"winner,omitempty"`
	Players       jsonGamePlayers `json:"players"`
}

type jsonLightUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
}

type jsonGamePlayerUser struct {
	User   jsonLightUser `json:"user"`
	Rating int           `json:"rating"`
}

type jsonGamePlayers struct {
	White jsonGamePlayerUser `json:"white"`
	Black jsonGamePlayerUser `json:"black"`
}

// MoveStreamEntry.yaml, second form (one position).
type jsonMoveStreamMove struct {
	Fen string `json:"fen"`
	Lm  string `json:"lm,omitempty"`
	Wc  int    `json:"wc"`
	Bc  int    `json:"bc"`
}

func startedAtTurn(fen string) int {
	if fen == "" {
		return 0
	}
	f := strings.Fields(fen)
	if len(f) < 6 {
		return 0
	}
	n, err := strconv.Atoi(f[5])
	if err != nil || n < 1 {
		return 0
	}
	t := (n - 1) * 2
	if f[1] == "b" {
		t++
	}
	return t
}

func (s *Server) moveStreamGameLocked(g *game) jsonMoveStreamGame {
	lightUser := func(a *account) jsonGamePlayerUser {
		u := jsonGamePlayerUser{User: jsonLightUser{ID: a.id, Name: a.username}, Rating: a.rating}
		if a.bot {
			u.User.Title = "BOT"
		}
		return u
	}
	initial := g.fen
	if initial == "" {
		initial = chess.StartingPosition().String()
	}
	start := startedAtTurn(g.fen)
	j := jsonMoveStreamGame{
		ID: g.id, Variant: variantJSON(g.variant), Speed: g.speed, Perf: perfKey(g.variant, g.speed),
		Rated: g.rated, InitialFen: initial, Fen: g.currentFEN(), Player: colorNames[g.turn()],
		Turns: start + len(g.moves), StartedAtTurn: start, Source: "friend",
		Status:    jsonGameStatus{ID: statusIDs[g.status], Name: g.status},
		CreatedAt: g.createdAt.UnixMilli(),
		Players:   jsonGamePlayers{White: lightUser(g.players[white]), Black: lightUser(g.players[black])},
	}
	if n := len(g.moves); n > 0 {
		j.LastMove = g.moves[n-1]
	}
	if g.winner != none {
		j.Winner = colorNames[g.winner]
	}
	return j
}

func (s *Server) moveStreamMoveLocked(g *game) jsonMoveStreamMove {
	f := strings.Fields(g.currentFEN())
	c := g.clocks(time.Now())
	j := jsonMoveStreamMove{Fen: f[0] + " " + f[1], Wc: int(c[white] / time.Second), Bc: int(c[black] / time.Second)}
	if n := len(g.moves); n > 0 {
		j.Lm = g.moves[n-1]
	}
	return j
}

// watchPositionLocked tells the game's watchers about the current position.
func (s *Server) watchPositionLocked(g *game) {
	if len(g.watchers) == 0 {
		return
	}
	line := s.marshalLine(s.moveStreamMoveLocked(g))
	for _, w := range g.watchers {
		w.push(line)
	}
}

// watchEndLocked sends the final description and ends the watchers'
// streams.
func (s *Server) watchEndLocked(g *game) {
	line := s.marshalLine(s.moveStreamGameLocked(g))
	for _, w := range g.watchers {
		w.push(line)
		w.finish()
	}
	g.watchers = nil
}

// GET /api/stream/game/{id}: the public move stream (no authentication).
// Unlike Lichess, moves are not delayed.
func (s *Server) handleWatchGame(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	g := s.games[r.PathValue("id")]
	if g == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "No such game")
		return
	}
	sb := newSubscriber()
	sb.push(s.marshalLine(s.moveStreamGameLocked(g)))
	if g.ongoing() {
		sb.push(s.marshalLine(s.moveStreamMoveLocked(g)))
		g.watchers = append(g.watchers, sb)
	} else {
		sb.finish()
	}
	keepAlive := s.cfg.keepAlive
	s.mu.Unlock()
	serveStream(w, r, sb, keepAlive, func() {
		s.mu.Lock()
		for i, x := range g.watchers {
			if x == sb {
				g.watchers = append(g.watchers[:i:i], g.watchers[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	})
}
