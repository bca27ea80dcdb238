package lichesstest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type account struct {
	id        string // lower-case
	username  string
	token     string
	scopes    []string
	bot       bool
	rating    int
	createdAt time.Time
	seenAt    time.Time
	played    int // finished games
	wins      int
	losses    int
	draws     int
	events    *subscriber // the open event stream, if any
	house     *houseConfig
}

// Scope names of the Lichess OAuth scopes this server checks.
const (
	ScopeChallengeRead  = "challenge:read"
	ScopeChallengeWrite = "challenge:write"
	ScopeBotPlay        = "bot:play"
	ScopeBoardPlay      = "board:play"
)

// AddAccount creates (or replaces) an account with a personal token. A bot
// account has the title BOT and, by default, the scopes challenge:read,
// challenge:write and bot:play; a human one gets board:play instead of
// bot:play. rating is used for every perf.
func (s *Server) AddAccount(username, token string, bot bool, rating int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := strings.ToLower(username)
	if old := s.accounts[id]; old != nil {
		delete(s.tokens, old.token)
	}
	scopes := []string{ScopeChallengeRead, ScopeChallengeWrite, ScopeBoardPlay}
	if bot {
		scopes[2] = ScopeBotPlay
	}
	now := time.Now()
	a := &account{id: id, username: username, token: token, scopes: scopes, bot: bot, rating: rating, createdAt: now, seenAt: now}
	if old := s.accounts[id]; old != nil {
		a.events, a.house = old.events, old.house
	}
	s.accounts[id] = a
	if token != "" {
		s.tokens[token] = a
	}
	s.notifyLocked()
}

// SetScopes replaces the OAuth scopes of username's token (e.g. to test a
// token without bot:play). It reports whether the account exists.
func (s *Server) SetScopes(username string, scopes ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	if a == nil {
		return false
	}
	a.scopes = append([]string(nil), scopes...)
	return true
}

// RevokeToken makes token unknown, as when its owner revokes it on Lichess:
// every later request with it gets 401 {"error":"No such token"}, and
// /api/token/test answers null for it. Streams already open stay open
// (DropEventStream cuts one, as a network failure would). It reports whether
// the token was known.
func (s *Server) RevokeToken(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.tokens[token]
	if a == nil {
		return false
	}
	delete(s.tokens, token)
	a.token = ""
	return true
}

// IsBot reports whether username exists and is a bot account.
func (s *Server) IsBot(username string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	return a != nil && a.bot
}

// auth authenticates r. With scopes given, the token must hold at least one
// of them (Lichess's rule for endpoints listing several). On failure it
// writes the Lichess error (401 or 403) and returns nil.
func (s *Server) auth(w http.ResponseWriter, r *http.Request, scopes ...string) *account {
	token := bearer(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	accepted := strings.Join(scopes, ",")
	w.Header().Set("X-Accepted-OAuth-Scopes", accepted)
	if token == "" {
		w.Header().Set("X-OAuth-Scopes", "")
		writeError(w, http.StatusUnauthorized, "Missing authorization header")
		return nil
	}
	a := s.tokens[token]
	if a == nil {
		w.Header().Set("X-OAuth-Scopes", "")
		writeError(w, http.StatusUnauthorized, "No such token")
		return nil
	}
	w.Header().Set("X-OAuth-Scopes", strings.Join(a.scopes, ","))
	if len(scopes) > 0 && !hasAnyScope(a.scopes, scopes) {
		writeError(w, http.StatusForbidden, "Missing scope")
		return nil
	}
	a.seenAt = time.Now()
	return a
}

func hasAnyScope(have, want []string) bool {
	for _, w := range want {
		for _, h := range have {
			if h == w {
				return true
			}
		}
	}
	return false
}

func (s *Server) onlineLocked(a *account) bool { return a.events != nil || a.house != nil }

func (s *Server) userJSONLocked(a *account, extended bool) jsonUser {
	perf := jsonPerf{Games: a.played, Rating: a.rating, Rd: 60}
	perfs := map[string]jsonPerf{}
	for _, k := range []string{"bullet", "blitz", "rapid", "classical", "correspondence"} {
		perfs[k] = perf
	}
	u := jsonUser{
		ID: a.id, Username: a.username, Perfs: perfs,
		CreatedAt: a.createdAt.UnixMilli(), SeenAt: a.seenAt.UnixMilli(),
		PlayTime: jsonPlayTime{},
	}
	if a.bot {
		u.Title = "BOT"
	}
	if extended {
		u.URL = s.publicURLLocked() + "/@/" + a.username
		playing := 0
		for _, g := range s.games {
			if g.ongoing() && (g.players[0] == a || g.players[1] == a) {
				playing++
				u.Playing = s.publicURLLocked() + "/" + g.id
			}
		}
		u.Count = &jsonCount{All: a.played, Rated: 0, Draw: a.draws, Loss: a.losses, Win: a.wins, Playing: playing}
		f := false
		t := true
		u.Followable, u.Following, u.Blocking = &t, &f, &f
	}
	return u
}

// GET /api/account
func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r)
	if a == nil {
		return
	}
	s.mu.Lock()
	u := s.userJSONLocked(a, true)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, u)
}

// POST /api/token/test (full spec, OAuth tag): body is tokens separated by
// commas; the answer maps each to {userId, scopes, expires} or null.
func (s *Server) handleTokenTest(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "cannot read body")
		return
	}
	type info struct {
		UserID  string `json:"userId"`
		Scopes  string `json:"scopes"`
		Expires *int64 `json:"expires"`
	}
	out := map[string]*info{}
	s.mu.Lock()
	for _, t := range strings.Split(string(body), ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if a := s.tokens[t]; a != nil {
			out[t] = &info{UserID: a.id, Scopes: strings.Join(a.scopes, ",")}
		} else {
			out[t] = nil
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// POST /api/bot/account/upgrade
func (s *Server) handleUpgrade(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeBotPlay)
	if a == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case a.bot:
		writeError(w, http.StatusBadRequest, "This account is already a bot account.")
	case a.played > 0 || s.hasGamesLocked(a):
		writeError(w, http.StatusBadRequest, "This account has played games and cannot be upgraded to a bot account.")
	default:
		a.bot = true
		s.notifyLocked()
		writeOK(w)
	}
}

func (s *Server) hasGamesLocked(a *account) bool {
	for _, g := range s.games {
		if g.players[0] == a || g.players[1] == a {
			return true
		}
	}
	return false
}

// GET /api/bot/online: NDJSON of online bot users (event stream open, or a
// house player).
func (s *Server) handleBotOnline(w http.ResponseWriter, r *http.Request) {
	nb := 100
	if v, err := strconv.Atoi(r.URL.Query().Get("nb")); err == nil && v > 0 {
		nb = v
	}
	s.mu.Lock()
	var lines [][]byte
	for _, id := range sortedKeys(s.accounts) {
		a := s.accounts[id]
		if a.bot && s.onlineLocked(a) && len(lines) < nb {
			b, _ := json.Marshal(s.userJSONLocked(a, false))
			lines = append(lines, b)
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, l := range lines {
		_, _ = w.Write(append(l, '\n')) // l is private here
	}
}

// GET /api/users/status?ids=a,b
func (s *Server) handleUsersStatus(w http.ResponseWriter, r *http.Request) {
	type status struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Title   string `json:"title,omitempty"`
		Online  bool   `json:"online,omitempty"`
		Playing bool   `json:"playing,omitempty"`
	}
	out := []status{}
	s.mu.Lock()
	for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
		a := s.accounts[strings.ToLower(strings.TrimSpace(id))]
		if a == nil {
			continue
		}
		st := status{ID: a.id, Name: a.username, Online: s.onlineLocked(a)}
		if a.bot {
			st.Title = "BOT"
		}
		for _, g := range s.games {
			if g.ongoing() && (g.players[0] == a || g.players[1] == a) {
				st.Playing = true
			}
		}
		out = append(out, st)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
