package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notnil/chess"
	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// A small fake of the Lichess Bot API for unit tests: one bot account, games
// against a scripted opponent (first legal move, or resigns after a number
// of plies), a programmable interceptor for errors and 429s, and a log of
// requests.

const (
	testToken = "lip_secretTOKEN123"
	botID     = "ponderosa"
	botName   = "Ponderosa"
)

type fakeGame struct {
	id            string
	botWhite      bool
	opp           string // opponent id
	oppTitle      string
	variant       string
	initialFEN    string
	moves         []string
	pos           *chess.Position
	status        string
	winner        string
	silent        bool // opponent never moves
	resignAfter   int  // opponent resigns when the game reaches this ply (0: never)
	oppReplies    []string
	wdraw, bdraw  bool
	wtake, btake  bool
	posts         map[int]int // ply → number of accepted move posts
	subs          map[chan string]bool
	drop          chan struct{} // closed to drop the game streams
	expiration    bool
	dropAt        map[int]bool // drop the game streams after the state of these plies
	kingTakesRook bool         // write castling as king takes rook (e1h1)
	clockMs       int64        // both clocks (fixed)
	clockInitial  int64
	clockInc      int64
	chatLines     []string
	claims        []string
	drawAnswers   []string
	takebackAns   []string
}

type fakeLichess struct {
	t   *testing.T
	srv *httptest.Server

	mu           sync.Mutex
	scopes       string // "" → header omitted
	title        string
	games        map[string]*fakeGame
	order        []string
	evSubs       map[chan string]bool
	requests     []string
	declines     map[string]string
	accepts      []string
	challenges   map[string]*lichess.Challenge
	intercept    func(r *http.Request) (status int, hdr http.Header, body string, ok bool)
	keepAlive    time.Duration
	silentEvents bool // event stream sends nothing at all (for idle tests)
}

func newFake(t *testing.T) *fakeLichess {
	f := &fakeLichess{t: t, scopes: "bot:play,challenge:read,challenge:write", title: "BOT",
		games: map[string]*fakeGame{}, evSubs: map[chan string]bool{}, declines: map[string]string{},
		challenges: map[string]*lichess.Challenge{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLichess) client(t *testing.T, opts ...lichess.Option) *lichess.Client {
	opts = append([]lichess.Option{lichess.WithStreamIdleTimeout(2 * time.Second), lichess.WithLogger(testsupport.Logger(t))}, opts...)
	c, err := lichess.New(f.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// addGame creates a game in progress.
func (f *fakeLichess) addGame(id string, botWhite bool, opts ...func(*fakeGame)) *fakeGame {
	g := &fakeGame{id: id, botWhite: botWhite, opp: "opponent", variant: "standard", status: "started",
		pos: chess.StartingPosition(), posts: map[int]int{}, subs: map[chan string]bool{}, drop: make(chan struct{}),
		clockMs: 60000, clockInitial: 60000, clockInc: 1000}
	for _, o := range opts {
		o(g)
	}
	if g.initialFEN != "" {
		fo, err := chess.FEN(g.initialFEN)
		if err != nil {
			f.t.Fatal(err)
		}
		g.pos = chess.NewGame(fo).Position()
	}
	f.mu.Lock()
	f.games[id] = g
	f.order = append(f.order, id)
	if !botWhite {
		f.opponentMoveLocked(g)
	}
	f.mu.Unlock()
	return g
}

func (f *fakeLichess) game(id string) *fakeGame {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.games[id]
}

// with runs fn under the lock.
func (f *fakeLichess) with(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeLichess) sendEvent(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.evSubs {
		ch <- line
	}
}

func (f *fakeLichess) requestCount(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeLichess) botTurnLocked(g *fakeGame) bool {
	return (g.pos.Turn() == chess.White) == g.botWhite
}

func (f *fakeLichess) stateLocked(g *fakeGame) map[string]any {
	st := map[string]any{"type": "gameState", "moves": strings.Join(g.moves, " "), "wtime": g.clockMs, "btime": g.clockMs,
		"winc": g.clockInc, "binc": g.clockInc, "status": g.status}
	if g.winner != "" {
		st["winner"] = g.winner
	}
	for k, v := range map[string]bool{"wdraw": g.wdraw, "bdraw": g.bdraw, "wtakeback": g.wtake, "btakeback": g.btake} {
		if v {
			st[k] = true
		}
	}
	if g.expiration && len(g.moves) < 2 {
		st["expiration"] = map[string]any{"idleMillis": 0, "millisToMove": 30000}
	}
	return st
}

func (f *fakeLichess) fullLocked(g *fakeGame) string {
	me := map[string]any{"id": botID, "name": botName, "title": "BOT", "rating": 2000}
	op := map[string]any{"id": g.opp, "name": strings.ToUpper(g.opp[:1]) + g.opp[1:], "rating": 1900}
	if g.oppTitle != "" {
		op["title"] = g.oppTitle
	}
	w, b := me, op
	if !g.botWhite {
		w, b = op, me
	}
	fen := "startpos"
	if g.initialFEN != "" {
		fen = g.initialFEN
	}
	full := map[string]any{"type": "gameFull", "id": g.id, "variant": map[string]any{"key": g.variant, "name": g.variant},
		"clock": map[string]any{"initial": g.clockInitial, "increment": g.clockInc}, "speed": "blitz",
		"perf": map[string]any{"name": "Blitz"}, "rated": false, "createdAt": 1, "white": w, "black": b,
		"initialFen": fen, "state": f.stateLocked(g), "someNewField": map[string]any{"x": 1}}
	return mustJSON(full)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func (f *fakeLichess) broadcastLocked(g *fakeGame, line string) {
	for ch := range g.subs {
		select {
		case ch <- line:
		default: // a slow reader loses lines, like a dropped connection
		}
	}
}

func (f *fakeLichess) broadcastStateLocked(g *fakeGame) {
	f.broadcastLocked(g, mustJSON(f.stateLocked(g)))
	if g.dropAt[len(g.moves)] {
		delete(g.dropAt, len(g.moves))
		close(g.drop)
		g.drop = make(chan struct{})
	}
}

// endLocked finishes a game.
func (f *fakeLichess) endLocked(g *fakeGame, status, winner string) {
	g.status, g.winner = status, winner
	f.broadcastStateLocked(g)
	for ch := range f.evSubs {
		ch <- mustJSON(map[string]any{"type": "gameFinish", "game": map[string]any{"gameId": g.id, "fullId": g.id + "xxxx",
			"status": map[string]any{"id": 31, "name": status}, "opponent": map[string]any{"id": g.opp, "username": g.opp}}})
	}
}

func colorName(white bool) string {
	if white {
		return "white"
	}
	return "black"
}

// applyLocked plays a UCI move; false if illegal.
func applyLocked(g *fakeGame, uci string) bool {
	for _, m := range g.pos.ValidMoves() {
		if m.String() == uci {
			if g.kingTakesRook && (m.HasTag(chess.KingSideCastle) || m.HasTag(chess.QueenSideCastle)) {
				rook := map[string]string{"e1g1": "e1h1", "e1c1": "e1a1", "e8g8": "e8h8", "e8c8": "e8a8"}
				uci = rook[uci]
			}
			g.pos = g.pos.Update(m)
			g.moves = append(g.moves, uci)
			return true
		}
	}
	return false
}

func (f *fakeLichess) afterMoveLocked(g *fakeGame) {
	switch g.pos.Status() {
	case chess.Checkmate:
		f.endLocked(g, "mate", colorName(g.pos.Turn() != chess.White))
		return
	case chess.Stalemate:
		f.endLocked(g, "stalemate", "")
		return
	}
	f.broadcastStateLocked(g)
}

// opponentMoveLocked lets the opponent move (or resign) when it is its turn.
func (f *fakeLichess) opponentMoveLocked(g *fakeGame) {
	if g.status != "started" || f.botTurnLocked(g) || g.silent {
		return
	}
	if g.resignAfter > 0 && len(g.moves) >= g.resignAfter {
		f.endLocked(g, "resign", colorName(g.botWhite))
		return
	}
	mv := ""
	if len(g.oppReplies) > 0 {
		mv, g.oppReplies = g.oppReplies[0], g.oppReplies[1:]
	} else if ms := g.pos.ValidMoves(); len(ms) > 0 {
		mv = ms[len(ms)-1].String()
	}
	if mv == "" || !applyLocked(g, mv) {
		f.t.Errorf("fake opponent cannot move %q in %s", mv, g.pos)
		return
	}
	f.afterMoveLocked(g)
}

func (f *fakeLichess) writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeLichess) fail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, `{"error":%q}`, msg)
}

// streamLines writes lines from ch (and keep-alives) until done or the
// client leaves.
func (f *fakeLichess) streamLines(w http.ResponseWriter, r *http.Request, first []string, ch chan string, drop chan struct{}, endOn func(string) bool) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	fl := w.(http.Flusher)
	for _, l := range first {
		_, _ = io.WriteString(w, l+"\n")
		if endOn != nil && endOn(l) {
			fl.Flush()
			return
		}
	}
	fl.Flush()
	var tick <-chan time.Time
	f.mu.Lock()
	ka := f.keepAlive
	f.mu.Unlock()
	if ka > 0 {
		t := time.NewTicker(ka)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-drop:
			return
		case <-tick:
			_, _ = io.WriteString(w, "\n")
			fl.Flush()
		case l := <-ch:
			_, _ = io.WriteString(w, l+"\n")
			fl.Flush()
			if endOn != nil && endOn(l) {
				return
			}
		}
	}
}

func gameOverLine(l string) bool {
	var st struct {
		Type, Status string
	}
	_ = json.Unmarshal([]byte(l), &st)
	if st.Type == "gameFull" {
		var full struct{ State struct{ Status string } }
		_ = json.Unmarshal([]byte(l), &full)
		st.Status = full.State.Status
	} else if st.Type != "gameState" {
		return false
	}
	return st.Status != "started" && st.Status != "created"
}

func (f *fakeLichess) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	icpt := f.intercept
	f.mu.Unlock()
	if r.URL.Path != "/api/token/test" && r.Header.Get("Authorization") != "Bearer "+testToken {
		f.fail(w, http.StatusUnauthorized, "No such token")
		return
	}
	if icpt != nil {
		if code, hdr, body, ok := icpt(r); ok {
			for k, v := range hdr {
				w.Header()[k] = v
			}
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
			return
		}
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/api/account":
		f.mu.Lock()
		if f.scopes != "" {
			w.Header().Set("X-OAuth-Scopes", f.scopes)
		}
		title := f.title
		f.mu.Unlock()
		f.writeJSON(w, map[string]any{"id": botID, "username": botName, "title": title,
			"perfs": map[string]any{"blitz": map[string]any{"rating": 2000, "games": 10}}})
	case r.URL.Path == "/api/token/test":
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		sc := f.scopes
		f.mu.Unlock()
		f.writeJSON(w, map[string]any{string(body): map[string]any{"userId": botID, "scopes": sc}})
	case r.URL.Path == "/api/account/playing":
		f.mu.Lock()
		var now []map[string]any
		for _, id := range f.order {
			g := f.games[id]
			if g.status == "started" {
				now = append(now, map[string]any{"gameId": id, "fullId": id + "xxxx", "color": colorName(g.botWhite),
					"isMyTurn": f.botTurnLocked(g), "opponent": map[string]any{"id": g.opp, "username": g.opp},
					"variant": map[string]any{"key": g.variant, "name": g.variant}, "speed": "blitz"})
			}
		}
		f.mu.Unlock()
		f.writeJSON(w, map[string]any{"nowPlaying": now, "nbMyTurn": 0})
	case r.URL.Path == "/api/stream/event":
		ch := make(chan string, 100)
		f.mu.Lock()
		if f.silentEvents {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		f.evSubs[ch] = true
		var first []string
		for _, id := range f.order {
			if g := f.games[id]; g.status == "started" {
				first = append(first, mustJSON(map[string]any{"type": "gameStart", "game": map[string]any{"gameId": id,
					"fullId": id + "xxxx", "color": colorName(g.botWhite), "opponent": map[string]any{"id": g.opp, "username": g.opp}}}))
			}
		}
		f.mu.Unlock()
		defer func() { f.mu.Lock(); delete(f.evSubs, ch); f.mu.Unlock() }()
		f.streamLines(w, r, first, ch, nil, nil)
	case len(parts) == 5 && parts[1] == "bot" && parts[2] == "game" && parts[3] == "stream":
		f.mu.Lock()
		g := f.games[parts[4]]
		if g == nil {
			f.mu.Unlock()
			f.fail(w, http.StatusNotFound, "No such game")
			return
		}
		ch := make(chan string, 100)
		g.subs[ch] = true
		first := f.fullLocked(g)
		drop := g.drop
		f.mu.Unlock()
		defer func() { f.mu.Lock(); delete(g.subs, ch); f.mu.Unlock() }()
		f.streamLines(w, r, []string{first}, ch, drop, gameOverLine)
	case len(parts) >= 5 && parts[1] == "bot" && parts[2] == "game":
		f.gameAction(w, r, parts[3], parts[4:])
	case len(parts) == 4 && parts[1] == "challenge" && (parts[3] == "accept" || parts[3] == "decline"):
		_ = r.ParseForm()
		f.mu.Lock()
		ch := f.challenges[parts[2]]
		if ch == nil {
			f.mu.Unlock()
			f.fail(w, http.StatusNotFound, "No such challenge")
			return
		}
		delete(f.challenges, parts[2])
		if parts[3] == "decline" {
			f.declines[parts[2]] = r.PostForm.Get("reason")
			f.mu.Unlock()
		} else {
			f.accepts = append(f.accepts, parts[2])
			f.mu.Unlock()
			botWhite := ch.Color != "white"
			f.addGame(ch.ID, botWhite, func(g *fakeGame) { g.opp = ch.Challenger.ID; g.oppTitle = ch.Challenger.Title; g.resignAfter = 6 })
			f.sendEvent(mustJSON(map[string]any{"type": "gameStart", "game": map[string]any{"gameId": ch.ID, "fullId": ch.ID + "xxxx",
				"color": colorName(botWhite), "opponent": map[string]any{"id": ch.Challenger.ID, "username": ch.Challenger.Name}}}))
		}
		f.writeJSON(w, map[string]any{"ok": true})
	default:
		f.fail(w, http.StatusNotFound, "Not found: "+r.URL.Path)
	}
}

// offerChallenge sends a challenge event.
func (f *fakeLichess) offerChallenge(ch lichess.Challenge) {
	f.mu.Lock()
	f.challenges[ch.ID] = &ch
	f.mu.Unlock()
	f.sendEvent(mustJSON(map[string]any{"type": "challenge", "challenge": ch}))
}

func (f *fakeLichess) gameAction(w http.ResponseWriter, r *http.Request, id string, rest []string) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.games[id]
	if g == nil {
		f.fail(w, http.StatusNotFound, "No such game")
		return
	}
	ok := func() { f.writeJSON(w, map[string]any{"ok": true}) }
	switch rest[0] {
	case "move":
		if g.status != "started" {
			f.fail(w, http.StatusBadRequest, "Not your turn, or game already over")
			return
		}
		if !f.botTurnLocked(g) {
			f.fail(w, http.StatusBadRequest, "Not your turn, or game already over")
			return
		}
		ply := len(g.moves)
		if !applyLocked(g, rest[1]) {
			f.fail(w, http.StatusBadRequest, "Piece on "+rest[1][:2]+" cannot move to "+rest[1][2:])
			return
		}
		g.posts[ply]++
		g.wdraw, g.bdraw, g.wtake, g.btake = false, false, false, false
		f.afterMoveLocked(g)
		f.opponentMoveLocked(g)
		ok()
	case "chat":
		g.chatLines = append(g.chatLines, r.PostForm.Get("room")+":"+r.PostForm.Get("text"))
		f.broadcastLocked(g, mustJSON(map[string]any{"type": "chatLine", "room": r.PostForm.Get("room"), "username": botName, "text": r.PostForm.Get("text")}))
		ok()
	case "abort":
		if len(g.moves) >= 2 {
			f.fail(w, http.StatusBadRequest, "cannot abort")
			return
		}
		g.claims = append(g.claims, "abort")
		f.endLocked(g, "aborted", "")
		ok()
	case "resign":
		g.claims = append(g.claims, "resign")
		f.endLocked(g, "resign", colorName(!g.botWhite))
		ok()
	case "claim-victory":
		g.claims = append(g.claims, "claim-victory")
		f.endLocked(g, "timeout", colorName(g.botWhite))
		ok()
	case "claim-draw":
		g.claims = append(g.claims, "claim-draw")
		f.endLocked(g, "draw", "")
		ok()
	case "draw":
		g.drawAnswers = append(g.drawAnswers, rest[1])
		if rest[1] == "yes" && (g.wdraw || g.bdraw) {
			f.endLocked(g, "draw", "")
		} else {
			g.wdraw, g.bdraw = false, false
			f.broadcastStateLocked(g)
		}
		ok()
	case "takeback":
		g.takebackAns = append(g.takebackAns, rest[1])
		g.wtake, g.btake = false, false
		f.broadcastStateLocked(g)
		ok()
	default:
		f.fail(w, http.StatusNotFound, "no such action")
	}
}

// waitLocked polls cond under the fake's lock.
func (f *fakeLichess) waitLocked(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testsupport.WaitFor(t, what, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return cond()
	})
}

var _ = context.Background
