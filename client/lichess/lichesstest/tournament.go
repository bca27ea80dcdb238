package lichesstest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Arena tournaments: the few endpoints a bot uses (join, withdraw, get),
// and calls for a test to create, start, pair and finish an arena. The
// server does not pair by itself: a test pairs two waiting players with
// PairArena, and the game then starts as Lichess starts an arena game: a
// gameStart event (with tournamentId) to both players and no challenge.
//
//	POST /api/tournament/{id}/join      form: password, team, pairMeAsap (tournament:write)
//	POST /api/tournament/{id}/withdraw  (tournament:write)
//	GET  /api/tournament/{id}           ArenaTournamentFull (the fields listed in jsonArena)

// ScopeTournamentWrite is the scope the join and withdraw endpoints need.
// AddAccount does not give it: SetScopes adds it, as a bot's owner adds it
// to the token on Lichess.
const ScopeTournamentWrite = "tournament:write"

// PairMeAsapFor is how long a join with pairMeAsap=true keeps a player
// waiting for a pairing (Lichess: one minute; joining again extends it).
const PairMeAsapFor = time.Minute

// ArenaParams describes an arena tournament (CreateArena).
type ArenaParams struct {
	Name           string // "" = "lichesstest Arena"
	ClockLimit     time.Duration
	ClockIncrement time.Duration
	Minutes        int // the arena's length, reported only (FinishArena ends it)
	Rated          bool
	Variant        string // "" = standard
	// Password, when set, must be given to join.
	Password string
	// BotsAllowed lets bot accounts join (Lichess: conditions.bots).
	BotsAllowed bool
	// Teams, when set, makes a team battle: a join must name one of them.
	Teams []string
	// PauseDelay, when set, is how long a player who withdrew from the
	// running arena must wait before joining again: the n-th pause waits
	// n × PauseDelay, at most PauseDelayMax; a join before that is
	// refused with Lichess' 400 "Your pause is not over yet". (Lichess
	// imposes such a delay on its leading players: 10 s and more.) Zero:
	// a join ends a pause at once.
	PauseDelay time.Duration
}

// PauseDelayMax bounds the wait after a pause (ArenaParams.PauseDelay).
const PauseDelayMax = 2 * time.Minute

type arenaPlayer struct {
	acct        *account
	team        string
	paused      bool      // withdrew while the arena runs
	pauses      int       // withdrawals while the arena runs
	pausedUntil time.Time // a join ends the pause only from then (PauseDelay)
	waitUntil   time.Time // pairMeAsap: waits for a pairing until then
	joins       int
	withdrawals int
}

type arena struct {
	id        string
	params    ArenaParams
	status    string // created, started, finished
	startsAt  time.Time
	startedAt time.Time
	players   []*arenaPlayer // in joining order; a player who leaves before the start is removed
	games     []string
	closed    bool // pairings closed (CloseArenaPairings): no more pairing
}

func (t *arena) player(a *account) *arenaPlayer {
	for _, p := range t.players {
		if p.acct == a {
			return p
		}
	}
	return nil
}

// ArenaPlayerSnapshot is one player of an arena (ArenaSnapshot).
type ArenaPlayerSnapshot struct {
	Username    string
	Team        string
	Paused      bool
	Joins       int // successful join requests (house players' joins included)
	Withdrawals int // successful withdraw requests
}

// ArenaSnapshot is an arena's state.
type ArenaSnapshot struct {
	ID      string
	Status  string // created, started, finished
	Players []ArenaPlayerSnapshot
	Games   []string // the arena's games, in pairing order
}

// CreateArena creates an arena tournament (status created) and returns
// its 8-character id.
func (s *Server) CreateArena(p ArenaParams) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Name == "" {
		p.Name = "lichesstest Arena"
	}
	if p.Variant == "" {
		p.Variant = "standard"
	}
	if s.arenas == nil {
		s.arenas = map[string]*arena{}
	}
	id := s.newIDLocked(8)
	for s.arenas[id] != nil {
		id = s.newIDLocked(8)
	}
	s.arenas[id] = &arena{id: id, params: p, status: "created", startsAt: time.Now().Add(time.Hour)}
	s.logLocked("arena %s created: %s", id, p.Name)
	s.notifyLocked()
	return id
}

// StartArena starts arena id.
func (s *Server) StartArena(id string) error {
	return s.changeArena(id, func(t *arena) bool { return t.status == "created" },
		"lichesstest: start arena %s: not a created arena",
		func(t *arena) { t.status, t.startedAt = "started", time.Now() },
		"arena %s started")
}

// CloseArenaPairings closes the pairings of running arena id, as Lichess
// does in an arena's last minutes: GET tells pairingsClosed, and
// PairArena pairs no more.
func (s *Server) CloseArenaPairings(id string) error {
	return s.changeArena(id, func(t *arena) bool { return t.status == "started" },
		"lichesstest: close arena %s's pairings: not a running arena",
		func(t *arena) { t.closed = true },
		"arena %s: pairings closed")
}

// FinishArena ends arena id: no more pairings; games under way go on.
func (s *Server) FinishArena(id string) error {
	return s.changeArena(id, func(t *arena) bool { return t.status != "finished" },
		"lichesstest: finish arena %s: no such running arena",
		func(t *arena) {
			t.status = "finished"
			for _, p := range t.players {
				p.waitUntil = time.Time{}
			}
		},
		"arena %s finished")
}

// changeArena is what StartArena, CloseArenaPairings and FinishArena
// share: under s.mu, arena id changes (change) when it exists and may
// accepts it, which is logged (done, of id) and told to the watchers;
// otherwise the error is refused (of id).
func (s *Server) changeArena(id string, may func(*arena) bool, refused string, change func(*arena), done string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	if t == nil || !may(t) {
		return fmt.Errorf(refused, id)
	}
	change(t)
	s.logLocked(done, id)
	s.notifyLocked()
	return nil
}

// JoinArena joins username to arena id without HTTP (for house players,
// which then always wait for a pairing), with the same checks as the
// endpoint.
func (s *Server) JoinArena(id, username, password, team string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	if a == nil {
		return fmt.Errorf("lichesstest: join arena: no account %q", username)
	}
	if _, err := s.joinArenaLocked(id, a, password, team, false); err != nil {
		return fmt.Errorf("lichesstest: join arena %s: %w", id, err)
	}
	return nil
}

var errNoArena = errors.New("Tournament not found")

// joinArenaLocked joins (or unpauses) a in arena id; status is the HTTP
// status of a refusal.
func (s *Server) joinArenaLocked(id string, a *account, password, team string, asap bool) (status int, err error) {
	t := s.arenas[id]
	switch {
	case t == nil:
		return http.StatusNotFound, errNoArena
	case t.status == "finished":
		return http.StatusBadRequest, errors.New("This tournament is over")
	case a.bot && !t.params.BotsAllowed:
		return http.StatusBadRequest, errors.New("Bots are not allowed in this tournament")
	case t.params.Password != "" && password != t.params.Password:
		return http.StatusBadRequest, errors.New("Wrong entry code")
	case len(t.params.Teams) > 0 && !slices.Contains(t.params.Teams, team):
		return http.StatusBadRequest, errors.New("You must join with one of the tournament's teams")
	}
	p := t.player(a)
	if p != nil && p.paused && time.Now().Before(p.pausedUntil) {
		return http.StatusBadRequest, errors.New("Your pause is not over yet")
	}
	if p == nil {
		p = &arenaPlayer{acct: a}
		t.players = append(t.players, p)
	}
	p.paused = false
	p.joins++
	if team != "" {
		p.team = team
	}
	if asap && t.status == "started" {
		p.waitUntil = time.Now().Add(PairMeAsapFor)
	}
	s.logLocked("arena %s: %s joined (pairMeAsap=%v)", id, a.username, asap)
	s.notifyLocked()
	return 0, nil
}

// ArenaWaiting reports whether username waits for a pairing in arena id:
// the arena runs, they joined and did not pause, play no game of it, and
// are a house player or asked pairMeAsap within the last minute.
func (s *Server) ArenaWaiting(id, username string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	a := s.accounts[strings.ToLower(username)]
	return t != nil && a != nil && s.arenaWaitingLocked(t, a, time.Now()) == nil
}

func (s *Server) arenaWaitingLocked(t *arena, a *account, now time.Time) error {
	if t.status != "started" {
		return fmt.Errorf("arena %s is %s", t.id, t.status)
	}
	if t.closed {
		return fmt.Errorf("arena %s's pairings are closed", t.id)
	}
	p := t.player(a)
	switch {
	case p == nil:
		return fmt.Errorf("%s has not joined", a.username)
	case p.paused:
		return fmt.Errorf("%s has paused", a.username)
	case a.house == nil && !now.Before(p.waitUntil):
		return fmt.Errorf("%s is not waiting for a pairing (no pairMeAsap within %v)", a.username, PairMeAsapFor)
	}
	for _, gid := range t.games {
		if g := s.games[gid]; g != nil && g.ongoing() && g.colorOf(a) != none {
			return fmt.Errorf("%s plays %s", a.username, gid)
		}
	}
	return nil
}

// PairArena pairs two waiting players of arena id (ArenaWaiting), white
// and black, and starts their game with the arena's clock: both get a
// gameStart event carrying the tournamentId, as on Lichess, without a
// challenge. It returns the game's id.
func (s *Server) PairArena(id, white, black string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	if t == nil {
		return "", fmt.Errorf("lichesstest: pair arena %s: %w", id, errNoArena)
	}
	var players [2]*account
	now := time.Now()
	for i, name := range []string{white, black} {
		a := s.accounts[strings.ToLower(name)]
		if a == nil {
			return "", fmt.Errorf("lichesstest: pair arena %s: no account %q", id, name)
		}
		if err := s.arenaWaitingLocked(t, a, now); err != nil {
			return "", fmt.Errorf("lichesstest: pair arena %s: %w", id, err)
		}
		players[i] = a
	}
	if players[0] == players[1] {
		return "", fmt.Errorf("lichesstest: pair arena %s: a player cannot meet themselves", id)
	}
	p := ChallengeParams{ClockLimit: t.params.ClockLimit, ClockIncrement: t.params.ClockIncrement,
		Rated: t.params.Rated, Variant: t.params.Variant, Color: "white"}
	c := &challenge{id: s.newUniqueGameIDLocked(), challenger: players[0], dest: players[1], params: p,
		variant: t.params.Variant, speed: speedOf(p), status: "accepted", finalColor: "white",
		createdAt: now, tournamentID: t.id}
	for _, pl := range t.players {
		if pl.acct == players[0] || pl.acct == players[1] {
			pl.waitUntil = time.Time{} // a pairing ends the wait
		}
	}
	g, err := s.newGameLocked(c)
	if err != nil {
		return "", fmt.Errorf("lichesstest: pair arena %s: %w", id, err)
	}
	t.games = append(t.games, g.id)
	s.logLocked("arena %s: paired %s – %s in %s", id, white, black, g.id)
	return g.id, nil
}

// Arena returns a snapshot of arena id (false: no such arena).
func (s *Server) Arena(id string) (ArenaSnapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	if t == nil {
		return ArenaSnapshot{}, false
	}
	out := ArenaSnapshot{ID: t.id, Status: t.status, Games: slices.Clone(t.games)}
	for _, p := range t.players {
		out.Players = append(out.Players, ArenaPlayerSnapshot{Username: p.acct.username, Team: p.team,
			Paused: p.paused, Joins: p.joins, Withdrawals: p.withdrawals})
	}
	return out, true
}

// POST /api/tournament/{id}/join
func (s *Server) handleArenaJoin(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeTournamentWrite)
	if a == nil {
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid form")
		return
	}
	asap := false
	if v := r.PostForm.Get("pairMeAsap"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "Invalid pairMeAsap %q", v)
			return
		}
		asap = b
	}
	s.mu.Lock()
	status, err := s.joinArenaLocked(r.PathValue("id"), a, r.PostForm.Get("password"), r.PostForm.Get("team"), asap)
	s.mu.Unlock()
	if err != nil {
		writeError(w, status, "%s", err.Error())
		return
	}
	writeOK(w)
}

// POST /api/tournament/{id}/withdraw: before the start the player leaves;
// while the arena runs they pause (no pairing until they join again).
func (s *Server) handleArenaWithdraw(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeTournamentWrite)
	if a == nil {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	if t == nil {
		writeError(w, http.StatusNotFound, "%s", errNoArena.Error())
		return
	}
	if p := t.player(a); p != nil {
		p.withdrawals++
		p.waitUntil = time.Time{}
		if t.status == "created" {
			t.players = slices.DeleteFunc(t.players, func(q *arenaPlayer) bool { return q == p })
		} else {
			p.paused = true
			p.pauses++
			if t.params.PauseDelay > 0 {
				p.pausedUntil = time.Now().Add(min(time.Duration(p.pauses)*t.params.PauseDelay, PauseDelayMax))
			}
		}
		s.logLocked("arena %s: %s withdrew", id, a.username)
		s.notifyLocked()
	}
	writeOK(w)
}

// jsonArena is ArenaTournamentFull: its required fields and those that
// tell the arena's state.
type jsonArena struct {
	ID              string     `json:"id"`
	FullName        string     `json:"fullName"`
	Rated           bool       `json:"rated"`
	Clock           jsonClockS `json:"clock"`
	Minutes         int        `json:"minutes"`
	CreatedBy       string     `json:"createdBy"`
	System          string     `json:"system"`
	Variant         string     `json:"variant"`
	StartsAt        string     `json:"startsAt"`
	SecondsToStart  int        `json:"secondsToStart,omitempty"`
	SecondsToFinish int        `json:"secondsToFinish,omitempty"`
	IsFinished      bool       `json:"isFinished,omitempty"`
	PairingsClosed  bool       `json:"pairingsClosed,omitempty"`
	NbPlayers       int        `json:"nbPlayers"`
	BotsAllowed     bool       `json:"botsAllowed,omitempty"`
	Duels           []struct{} `json:"duels"`
}

// jsonClockS is Clock.yaml: limit and increment in seconds.
type jsonClockS struct {
	Limit     int `json:"limit"`
	Increment int `json:"increment"`
}

// GET /api/tournament/{id} (no token needed).
func (s *Server) handleArenaGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.arenas[id]
	if t == nil {
		writeError(w, http.StatusNotFound, "%s", errNoArena.Error())
		return
	}
	now := time.Now()
	out := jsonArena{ID: t.id, FullName: t.params.Name, Rated: t.params.Rated,
		Clock:   jsonClockS{Limit: int(t.params.ClockLimit / time.Second), Increment: int(t.params.ClockIncrement / time.Second)},
		Minutes: t.params.Minutes, CreatedBy: "lichesstest", System: "arena", Variant: t.params.Variant,
		NbPlayers: len(t.players), BotsAllowed: t.params.BotsAllowed, Duels: []struct{}{}}
	switch t.status {
	case "created":
		out.StartsAt = t.startsAt.UTC().Format(time.RFC3339)
		out.SecondsToStart = max(1, int(t.startsAt.Sub(now)/time.Second))
	case "started":
		out.StartsAt = t.startedAt.UTC().Format(time.RFC3339)
		end := t.startedAt.Add(time.Duration(t.params.Minutes) * time.Minute)
		out.SecondsToFinish = max(1, int(end.Sub(now)/time.Second))
		out.PairingsClosed = t.closed
	default:
		start := t.startedAt
		if start.IsZero() { // finished before it started
			start = t.startsAt
		}
		out.StartsAt = start.UTC().Format(time.RFC3339)
		out.IsFinished, out.PairingsClosed = true, true
	}
	writeJSON(w, http.StatusOK, out)
}
