package lichesstest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/account", s.handleAccount)
	mux.HandleFunc("GET /api/account/playing", s.handlePlaying)
	mux.HandleFunc("POST /api/token/test", s.handleTokenTest)
	mux.HandleFunc("GET /api/users/status", s.handleUsersStatus)
	mux.HandleFunc("GET /api/stream/event", s.handleEventStream)
	mux.HandleFunc("GET /api/bot/online", s.handleBotOnline)
	mux.HandleFunc("GET /api/stream/game/{id}", s.handleWatchGame)
	mux.HandleFunc("GET /game/export/{id}", s.handleExportGame)
	mux.HandleFunc("POST /api/bot/account/upgrade", s.handleUpgrade)

	mux.HandleFunc("GET /api/challenge", s.handleListChallenges)
	mux.HandleFunc("POST /api/challenge/{username}", s.handleCreateChallenge)
	mux.HandleFunc("GET /api/challenge/{id}/show", s.handleShowChallenge)
	mux.HandleFunc("POST /api/challenge/{id}/accept", s.handleAcceptChallenge)
	mux.HandleFunc("POST /api/challenge/{id}/decline", s.handleDeclineChallenge)
	mux.HandleFunc("POST /api/challenge/{id}/cancel", s.handleCancelChallenge)
	mux.HandleFunc("POST /api/challenge/{id}/start-clocks", s.handleStartClocks)
	mux.HandleFunc("POST /api/round/{id}/add-time/{seconds}", s.handleAddTime)
	mux.HandleFunc("POST /api/tournament/{id}/join", s.handleArenaJoin)
	mux.HandleFunc("POST /api/tournament/{id}/withdraw", s.handleArenaWithdraw)
	mux.HandleFunc("GET /api/tournament/{id}", s.handleArenaGet)

	for _, api := range []string{"bot", "board"} {
		bot := api == "bot"
		p := "/api/" + api + "/game/"
		// GET …/stream/{id} and GET …/{id}/chat overlap as mux patterns.
		stream, getChat := s.gameHandler(bot, s.handleGameStream), s.gameHandler(bot, s.handleGetChat)
		mux.HandleFunc("GET "+p+"{a}/{b}", func(w http.ResponseWriter, r *http.Request) {
			switch a, b := r.PathValue("a"), r.PathValue("b"); {
			case a == "stream":
				r.SetPathValue("id", b)
				stream(w, r)
			case b == "chat":
				r.SetPathValue("id", a)
				getChat(w, r)
			default:
				writeError(w, http.StatusNotFound, "Not found.")
			}
		})
		mux.HandleFunc("POST "+p+"{id}/move/{move}", s.gameHandler(bot, s.handleMove))
		mux.HandleFunc("POST "+p+"{id}/chat", s.gameHandler(bot, s.handleChat))
		mux.HandleFunc("POST "+p+"{id}/abort", s.gameHandler(bot, s.handleAbort))
		mux.HandleFunc("POST "+p+"{id}/resign", s.gameHandler(bot, s.handleResign))
		mux.HandleFunc("POST "+p+"{id}/draw/{accept}", s.gameHandler(bot, s.handleDraw))
		mux.HandleFunc("POST "+p+"{id}/takeback/{accept}", s.gameHandler(bot, s.handleTakeback))
		mux.HandleFunc("POST "+p+"{id}/claim-victory", s.gameHandler(bot, s.handleClaimVictory))
		mux.HandleFunc("POST "+p+"{id}/claim-draw", s.gameHandler(bot, s.handleClaimDraw))
	}
	mux.HandleFunc("GET "+TablebasePath+"/standard", s.handleOnline(OnlineTablebase))
	mux.HandleFunc("GET /api/cloud-eval", s.handleOnline(OnlineCloudEval))
	mux.HandleFunc("GET "+ExplorerPath+"/masters", s.handleOnline(OnlineExplorer))
	mux.HandleFunc("GET "+ExplorerPath+"/lichess", s.handleOnline(OnlineExplorer))
	mux.HandleFunc("GET "+ChessDBPath+"/cdb.php", s.handleOnline(OnlineChessDB))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not found.")
	})
	return s.middleware(mux)
}

// pushEventLocked writes v on a's event stream, if open.
func (s *Server) pushEventLocked(a *account, v any) {
	if a.events != nil {
		a.events.push(s.marshalLine(v))
	}
}

// GET /api/stream/event. Opening a stream closes the previous one of the
// same account; the new one starts with the open challenges and the games
// in progress, as on Lichess.
func (s *Server) handleEventStream(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeRead, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	sb := newSubscriber()
	s.mu.Lock()
	if a.events != nil {
		a.events.finish()
	}
	a.events = sb
	for _, id := range s.gameOrder {
		g := s.games[id]
		if col := g.colorOf(a); col != none && g.ongoing() {
			sb.push(s.marshalLine(jsonGameEvent{Type: "gameStart", Game: s.gameEventInfoLocked(g, col)}))
		}
	}
	for _, c := range s.sortedChallengesLocked() {
		if c.status == "created" && (c.dest == a || c.challenger == a) {
			ev := jsonChallengeEvent{Type: "challenge", Challenge: s.challengeJSONLocked(c, "")}
			compat := compatOf(c.speed)
			ev.Compat = &compat
			sb.push(s.marshalLine(ev))
		}
	}
	keepAlive := s.cfg.keepAlive
	s.notifyLocked()
	s.mu.Unlock()
	serveStream(w, r, sb, keepAlive, func() {
		s.mu.Lock()
		if a.events == sb {
			a.events = nil
		}
		s.notifyLocked()
		s.mu.Unlock()
	})
}

// EventStreamOpen reports whether username has an event stream open.
func (s *Server) EventStreamOpen(username string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	return a != nil && a.events != nil
}

// GameStreams returns how many streams of game id are open for username.
func (s *Server) GameStreams(id, username string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return 0
	}
	n := 0
	for _, gs := range g.subs {
		if strings.EqualFold(g.players[gs.color].id, username) {
			n++
		}
	}
	return n
}

type gameRequest struct {
	a   *account
	g   *game
	col int
}

// gameHandler authenticates, finds the game and the caller's colour, and
// checks the account type against the API (bot or board), then calls h
// with s.mu held (except for streams, which manage the lock themselves).
func (s *Server) gameHandler(bot bool, h func(http.ResponseWriter, *http.Request, gameRequest)) http.HandlerFunc {
	scope := ScopeBoardPlay
	if bot {
		scope = ScopeBotPlay
	}
	return func(w http.ResponseWriter, r *http.Request) {
		a := s.auth(w, r, scope)
		if a == nil {
			return
		}
		s.mu.Lock()
		g := s.games[r.PathValue("id")]
		if g == nil {
			s.mu.Unlock()
			writeError(w, http.StatusNotFound, "No such game")
			return
		}
		col := g.colorOf(a)
		if col == none {
			s.mu.Unlock()
			writeError(w, http.StatusNotFound, "Not your game")
			return
		}
		if bot && !a.bot {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "This endpoint can only be used with a Bot account. See https://lichess.org/api#operation/botAccountUpgrade")
			return
		}
		if !bot && a.bot {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "This endpoint cannot be used with a Bot account.")
			return
		}
		if bot && g.speed == "ultraBullet" && s.cfg.lichessLimits {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "This game cannot be played with the Bot API.")
			return
		}
		gr := gameRequest{a: a, g: g, col: col}
		if strings.Contains(r.URL.Path, "/game/stream/") {
			s.mu.Unlock()
			h(w, r, gr)
			return
		}
		defer s.mu.Unlock()
		h(w, r, gr)
	}
}

// GET /api/bot/game/stream/{id}: gameFull, then gameState, chatLine and
// opponentGone lines; the stream ends after the game's last gameState.
func (s *Server) handleGameStream(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	sb := newSubscriber()
	s.mu.Lock()
	g := gr.g
	sb.push(s.marshalLine(s.gameFullLocked(g)))
	opp := 1 - gr.col
	if g.ongoing() && g.gone[opp] {
		secs := int(time.Until(g.claimAt[opp]).Round(time.Second) / time.Second)
		if secs < 0 {
			secs = 0
		}
		sb.push(s.marshalLine(jsonOpponentGone{Type: "opponentGone", Gone: true, ClaimWinInSeconds: &secs}))
	}
	if g.ongoing() {
		g.subs = append(g.subs, &gameSub{color: gr.col, sub: sb})
		g.streamSeen[gr.col] = true
		s.stopTimerLocked(g.goneTimer[gr.col])
		g.goneTimer[gr.col] = nil
		if g.gone[gr.col] && s.cfg.autoGoneAfter > 0 {
			s.setGoneLocked(g, gr.col, false, 0)
		}
	} else {
		sb.finish()
	}
	keepAlive := s.cfg.keepAlive
	s.notifyLocked()
	s.mu.Unlock()
	serveStream(w, r, sb, keepAlive, func() {
		s.mu.Lock()
		for i, gs := range g.subs {
			if gs.sub == sb {
				g.subs = append(g.subs[:i:i], g.subs[i+1:]...)
				break
			}
		}
		s.autoGoneLocked(g, gr.col)
		s.notifyLocked()
		s.mu.Unlock()
	})
}

// autoGoneLocked starts the WithAutoGone countdown for col if it has no
// stream of g left.
func (s *Server) autoGoneLocked(g *game, col int) {
	if s.cfg.autoGoneAfter <= 0 || !g.ongoing() || !g.streamSeen[col] || g.gone[col] || g.goneTimer[col] != nil {
		return
	}
	for _, gs := range g.subs {
		if gs.color == col {
			return
		}
	}
	id := g.id
	g.goneTimer[col] = s.afterFuncLocked(s.cfg.autoGoneAfter, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g := s.games[id]
		if g == nil {
			return
		}
		g.goneTimer[col] = nil
		if !g.ongoing() || g.gone[col] {
			return
		}
		for _, gs := range g.subs {
			if gs.color == col {
				return
			}
		}
		s.setGoneLocked(g, col, true, s.cfg.goneClaimWait)
	})
}

// POST /api/bot/game/{id}/move/{move}?offeringDraw=bool
func (s *Server) handleMove(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	var offer *bool
	if v := r.URL.Query().Get("offeringDraw"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "Invalid offeringDraw %q", v)
			return
		}
		offer = &b
	}
	if err := s.playMoveLocked(gr.g, gr.col, r.PathValue("move"), offer); err != nil {
		s.notifyLocked()
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid form: %v", err)
		return
	}
	if err := s.chatLocked(gr.g, gr.col, r.Form.Get("room"), r.Form.Get("text")); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

// GET …/chat: the player-room messages as a JSON array of {text, user}.
func (s *Server) handleGetChat(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	type line struct {
		Text string `json:"text"`
		User string `json:"user"`
	}
	out := []line{}
	for _, c := range gr.g.chat {
		if c.room == "player" {
			out = append(out, line{Text: c.text, User: c.user})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAbort(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.abortLocked(gr.g); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

func (s *Server) handleResign(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.resignLocked(gr.g, gr.col); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

// trueish parses the {accept} path parameter as Lichess does: "yes",
// "true", "1" and similar are true.
func trueish(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "true", "1", "on":
		return true
	}
	return false
}

func (s *Server) handleDraw(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.drawLocked(gr.g, gr.col, trueish(r.PathValue("accept"))); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

func (s *Server) handleTakeback(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.takebackLocked(gr.g, gr.col, trueish(r.PathValue("accept"))); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

func (s *Server) handleClaimVictory(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.claimLocked(gr.g, gr.col, true); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

func (s *Server) handleClaimDraw(w http.ResponseWriter, r *http.Request, gr gameRequest) {
	if err := s.claimLocked(gr.g, gr.col, false); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

// GET /api/account/playing?nb=9
func (s *Server) handlePlaying(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r)
	if a == nil {
		return
	}
	nb := 9
	if v, err := strconv.Atoi(r.URL.Query().Get("nb")); err == nil && v > 0 && v <= 50 {
		nb = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	type entry struct {
		j    jsonNowPlaying
		left time.Duration
	}
	var list []entry
	nbMyTurn := 0
	now := time.Now()
	for _, id := range s.gameOrder {
		g := s.games[id]
		col := g.colorOf(a)
		if col == none || !g.ongoing() {
			continue
		}
		info := s.gameEventInfoLocked(g, col)
		left := g.clocks(now)[col]
		j := jsonNowPlaying{
			FullID: info.FullID, GameID: info.GameID, Fen: info.Fen, Color: info.Color, LastMove: info.LastMove,
			Source: info.Source, Status: info.Status, Variant: info.Variant, Speed: info.Speed, Perf: info.Perf,
			Rated: info.Rated, Rating: info.Rating, HasMoved: info.HasMoved, Opponent: info.Opponent, IsMyTurn: info.IsMyTurn,
			SecondsLeft: int(left / time.Second),
		}
		if j.IsMyTurn {
			nbMyTurn++
		}
		list = append(list, entry{j, left})
	}
	// The most urgent games first: my turn, then least time left.
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].j.IsMyTurn != list[j].j.IsMyTurn {
			return list[i].j.IsMyTurn
		}
		return list[i].left < list[j].left
	})
	out := struct {
		NowPlaying []jsonNowPlaying `json:"nowPlaying"`
		NbMyTurn   int              `json:"nbMyTurn"`
	}{NowPlaying: []jsonNowPlaying{}, NbMyTurn: nbMyTurn}
	for i, e := range list {
		if i >= nb {
			break
		}
		out.NowPlaying = append(out.NowPlaying, e.j)
	}
	writeJSON(w, http.StatusOK, out)
}

// POST /api/challenge/{id}/start-clocks?token1=…&token2=…: both players'
// tokens start the clocks at once, before the first moves.
func (s *Server) handleStartClocks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[r.PathValue("id")]
	if g == nil {
		writeError(w, http.StatusNotFound, "No such game")
		return
	}
	a1, a2 := s.tokens[q.Get("token1")], s.tokens[q.Get("token2")]
	if a1 == nil || a2 == nil || a1 == a2 || g.colorOf(a1) == none || g.colorOf(a2) == none {
		writeError(w, http.StatusUnauthorized, "Invalid tokens: both players' tokens are needed")
		return
	}
	if g.ongoing() && g.hasClock && !g.clockRunning {
		g.clockRunning = true
		g.lastMoveAt = time.Now()
		s.pushStateLocked(g)
		s.scheduleGameTimerLocked(g)
	}
	writeOK(w)
}

// POST /api/round/{id}/add-time/{seconds}: give the opponent 5 to 60 s.
func (s *Server) handleAddTime(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeWrite)
	if a == nil {
		return
	}
	secs, err := strconv.Atoi(r.PathValue("seconds"))
	if err != nil || secs < 5 || secs > 60 {
		writeError(w, http.StatusBadRequest, "Invalid seconds %q: 5 to 60", r.PathValue("seconds"))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[r.PathValue("id")]
	if g == nil || g.colorOf(a) == none {
		writeError(w, http.StatusNotFound, "No such game")
		return
	}
	if !g.ongoing() || !g.hasClock {
		writeError(w, http.StatusBadRequest, "This game has no running clock")
		return
	}
	g.remaining[1-g.colorOf(a)] += time.Duration(secs) * time.Second
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	writeOK(w)
}
