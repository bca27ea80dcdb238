package lichesstest

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/notnil/chess"
)

// ChallengeParams describes a challenge, as the form fields of
// POST /api/challenge/{username}. Programmatic challenges (Server.Challenge)
// may use clocks finer than a second.
type ChallengeParams struct {
	Rated bool
	// ClockLimit and ClockIncrement make a real-time game when either is
	// non-zero. Otherwise Days > 0 makes a correspondence game, and no
	// clock and no days an unlimited one.
	ClockLimit     time.Duration
	ClockIncrement time.Duration
	Days           int
	Color          string // "white", "black" or "random" (default): the challenger's colour
	Variant        string // "standard" (default), "fromPosition", "chess960", …
	FEN            string // custom initial position (variant standard or fromPosition)
}

type challenge struct {
	id            string
	challenger    *account
	dest          *account
	params        ChallengeParams
	variant       string // resolved variant key
	fen           string // "" for the standard start
	finalColor    string // the challenger's colour
	speed         string
	status        string // created, offline, canceled, declined, accepted
	declineKey    string // lower-case key, as in the event
	declineReason string
	createdAt     time.Time
	timer         *time.Timer
	tournamentID  string // an arena pairing's (tournament.go), not a challenge anyone sent
}

var declineReasons = map[string]string{ // form key → human text (Lichess's English wording)
	"generic":     "I'm not accepting challenges at the moment.",
	"later":       "This is not the right time for me, please ask again later.",
	"tooFast":     "This time control is too fast for me, please challenge again with a slower game.",
	"tooSlow":     "This time control is too slow for me, please challenge again with a faster game.",
	"timeControl": "I'm not accepting challenges with this time control.",
	"rated":       "Please send me a rated challenge instead.",
	"casual":      "Please send me a casual challenge instead.",
	"standard":    "I'm not accepting variant challenges right now.",
	"variant":     "I'm not willing to play this variant right now.",
	"noBot":       "I'm not accepting challenges from bots.",
	"onlyBot":     "I'm only accepting challenges from bots.",
}

var variantNames = map[string][2]string{ // key → name, short
	"standard":      {"Standard", "Std"},
	"chess960":      {"Chess960", "960"},
	"crazyhouse":    {"Crazyhouse", "Crazy"},
	"antichess":     {"Antichess", "Anti"},
	"atomic":        {"Atomic", "Atom"},
	"horde":         {"Horde", "Horde"},
	"kingOfTheHill": {"King of the Hill", "KotH"},
	"racingKings":   {"Racing Kings", "Race"},
	"threeCheck":    {"Three-check", "3check"},
	"fromPosition":  {"From Position", "FEN"},
}

// playableVariant reports whether the server can hold games of key: it
// referees standard and fromPosition with notnil/chess (which knows no
// Chess960 castling), and trusts the moves of the other variants but
// Chess960 (uncheckedVariant).
func playableVariant(key string) bool { return checkedVariant(key) || uncheckedVariant(key) }

// checkedVariant: games of key are refereed with notnil/chess.
func checkedVariant(key string) bool { return key == "standard" || key == "fromPosition" }

// uncheckedVariant: the server holds games of key without knowing their
// rules, trusting the players' moves (see "Variants" in the package doc).
func uncheckedVariant(key string) bool {
	_, ok := variantStartFEN[key]
	return ok
}

// variantStartFEN is the initial position of each variant whose games the
// server holds without checking them.
var variantStartFEN = map[string]string{
	"crazyhouse":    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
	"antichess":     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
	"atomic":        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"horde":         "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
	"kingOfTheHill": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"racingKings":   "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1",
	"threeCheck":    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
}

func variantJSON(key string) jsonVariant {
	n := variantNames[key]
	return jsonVariant{Key: key, Name: n[0], Short: n[1]}
}

// speedOf classifies a time control as Lichess does: the estimated game
// duration is limit + 40 × increment.
func speedOf(p ChallengeParams) string {
	if p.ClockLimit == 0 && p.ClockIncrement == 0 {
		return "correspondence"
	}
	est := p.ClockLimit + 40*p.ClockIncrement
	switch {
	case est < 30*time.Second:
		return "ultraBullet"
	case est < 180*time.Second:
		return "bullet"
	case est < 480*time.Second:
		return "blitz"
	case est < 1500*time.Second:
		return "rapid"
	default:
		return "classical"
	}
}

func perfKey(variant, speed string) string {
	if variant == "standard" || variant == "fromPosition" {
		return speed
	}
	return variant
}

func perfName(key string) string {
	switch key {
	case "ultraBullet":
		return "UltraBullet"
	case "chess960":
		return "Chess960"
	case "kingOfTheHill":
		return "King of the Hill"
	case "racingKings":
		return "Racing Kings"
	case "threeCheck":
		return "Three-check"
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

func perfIcon(key string) string {
	if key == "correspondence" {
		return "\ue019" // as in the spec's examples
	}
	return "\ue01c"
}

func showClock(limit, inc time.Duration) string {
	var l string
	switch limit {
	case 15 * time.Second:
		l = "¼"
	case 30 * time.Second:
		l = "½"
	case 45 * time.Second:
		l = "¾"
	default:
		l = strconv.FormatFloat(limit.Minutes(), 'f', -1, 64)
	}
	return l + "+" + strconv.FormatFloat(inc.Seconds(), 'f', -1, 64)
}

func (s *Server) challengeUserLocked(a *account) jsonChallengeUser {
	u := jsonChallengeUser{ID: a.id, Name: a.username, Rating: a.rating, Online: s.onlineLocked(a)}
	if a.bot {
		u.Title = "BOT"
	}
	return u
}

// challengeJSONLocked renders c; direction is "in", "out" or "" (streams).
func (s *Server) challengeJSONLocked(c *challenge, direction string) jsonChallenge {
	dest := s.challengeUserLocked(c.dest)
	tc := jsonTimeControl{Type: "unlimited"}
	switch {
	case c.params.ClockLimit > 0 || c.params.ClockIncrement > 0:
		l, i := int(c.params.ClockLimit/time.Second), int(c.params.ClockIncrement/time.Second)
		tc = jsonTimeControl{Type: "clock", Limit: &l, Increment: &i, Show: showClock(c.params.ClockLimit, c.params.ClockIncrement)}
	case c.params.Days > 0:
		tc = jsonTimeControl{Type: "correspondence", DaysPerTurn: c.params.Days}
	}
	pk := perfKey(c.variant, c.speed)
	color := c.params.Color
	if color == "" {
		color = "random"
	}
	j := jsonChallenge{
		ID: c.id, URL: s.publicURLLocked() + "/" + c.id, Status: c.status,
		Challenger: s.challengeUserLocked(c.challenger), DestUser: &dest,
		Variant: variantJSON(c.variant), Rated: c.params.Rated, Speed: c.speed,
		TimeControl: tc, Color: color, FinalColor: c.finalColor,
		Perf: jsonChallengePerf{Icon: perfIcon(pk), Name: perfName(pk)}, Direction: direction,
		InitialFen: c.fen,
	}
	if c.status == "declined" {
		j.DeclineReason, j.DeclineReasonKey = c.declineReason, c.declineKey
	}
	return j
}

func compatOf(speed string) jsonCompat {
	return jsonCompat{
		Bot:   speed != "ultraBullet",
		Board: speed == "blitz" || speed == "rapid" || speed == "classical" || speed == "correspondence",
	}
}

// Challenge makes from challenge to, as if from had posted
// POST /api/challenge/{to}. It returns the challenge (and future game) id.
func (s *Server) Challenge(from, to string, p ChallengeParams) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(from)]
	if a == nil {
		return "", fmt.Errorf("lichesstest: challenge: no account %q", from)
	}
	c, err := s.createChallengeLocked(a, to, p)
	if err != nil {
		return "", fmt.Errorf("lichesstest: challenge %s: %w", to, err)
	}
	return c.id, nil
}

func (s *Server) createChallengeLocked(from *account, to string, p ChallengeParams) (*challenge, error) {
	dest := s.accounts[strings.ToLower(to)]
	if dest == nil {
		return nil, errors.New("No such user")
	}
	if dest == from {
		return nil, errors.New("You cannot challenge yourself")
	}
	if p.Variant == "" {
		p.Variant = "standard"
	}
	if _, ok := variantNames[p.Variant]; !ok {
		return nil, fmt.Errorf("Unknown variant %q", p.Variant)
	}
	switch p.Color {
	case "", "random", "white", "black":
	default:
		return nil, fmt.Errorf("Invalid color %q", p.Color)
	}
	if p.ClockLimit < 0 || p.ClockIncrement < 0 || p.ClockLimit > 3*time.Hour || p.ClockIncrement > time.Minute {
		return nil, errors.New("Invalid clock")
	}
	hasClock := p.ClockLimit > 0 || p.ClockIncrement > 0
	if hasClock && p.Days > 0 {
		return nil, errors.New("Clock settings must be omitted for correspondence games")
	}
	if !hasClock && p.Days != 0 {
		switch p.Days {
		case 1, 2, 3, 5, 7, 10, 14:
		default:
			return nil, errors.New("Invalid days")
		}
	}
	speed := speedOf(p)
	if s.cfg.lichessLimits {
		if hasClock {
			l := p.ClockLimit
			okLimit := l == 0 || l == 15*time.Second || l == 30*time.Second || l == 45*time.Second ||
				l == 60*time.Second || l == 90*time.Second || (l%time.Minute == 0 && l <= 3*time.Hour)
			if !okLimit || p.ClockIncrement%time.Second != 0 {
				return nil, errors.New("Invalid clock")
			}
		}
		if speed == "ultraBullet" && (from.bot || dest.bot) {
			return nil, errors.New("Bots cannot play UltraBullet")
		}
	}
	variant, fen := p.Variant, strings.TrimSpace(p.FEN)
	if fen != "" {
		if variant != "standard" && variant != "fromPosition" && variant != "chess960" {
			return nil, errors.New("A custom position requires the standard, fromPosition or chess960 variant")
		}
		if p.Rated {
			return nil, errors.New("Games from a custom position cannot be rated")
		}
		opt, err := chess.FEN(fen)
		if err != nil {
			return nil, fmt.Errorf("Invalid FEN: %v", err)
		}
		g := chess.NewGame(opt)
		if len(g.ValidMoves()) == 0 {
			return nil, errors.New("Invalid FEN: the game is already over")
		}
		if g.FEN() == chess.StartingPosition().String() {
			fen = ""
		} else if variant == "standard" {
			variant = "fromPosition"
		}
	}
	if variant == "fromPosition" && fen == "" {
		variant = "standard"
	}
	c := &challenge{
		id: s.newUniqueGameIDLocked(), challenger: from, dest: dest, params: p,
		variant: variant, fen: fen, speed: speed, status: "created", createdAt: time.Now(),
	}
	switch p.Color {
	case "white", "black":
		c.finalColor = p.Color
	default:
		c.finalColor = [2]string{"white", "black"}[s.rng.IntN(2)]
	}
	s.challenges[c.id] = c
	s.logLocked("challenge %s: %s → %s, %s %s rated=%v color=%s", c.id, from.username, dest.username, c.variant, c.speed, p.Rated, c.finalColor)
	ev := jsonChallengeEvent{Type: "challenge", Challenge: s.challengeJSONLocked(c, "")}
	compat := compatOf(speed)
	ev.Compat = &compat
	s.pushEventLocked(dest, ev)
	s.pushEventLocked(from, ev)
	if s.cfg.challengeTTL > 0 && hasClock {
		id := c.id
		c.timer = s.afterFuncLocked(s.cfg.challengeTTL, func() { s.expireChallenge(id) })
	}
	s.houseOnChallengeLocked(c)
	s.notifyLocked()
	return c, nil
}

func (s *Server) newUniqueGameIDLocked() string {
	for {
		id := s.newIDLocked(8)
		if s.challenges[id] == nil && s.games[id] == nil {
			return id
		}
	}
}

func (s *Server) expireChallenge(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil || c.status != "created" {
		return
	}
	c.status = "canceled"
	s.logLocked("challenge %s canceled", c.id)
	s.pushEventLocked(c.dest, jsonChallengeEvent{Type: "challengeCanceled", Challenge: s.challengeJSONLocked(c, "")})
	s.notifyLocked()
}

// acceptLocked turns c into a game.
func (s *Server) acceptLocked(c *challenge) (*game, error) {
	if c.status != "created" {
		return nil, errors.New("This challenge is no longer open")
	}
	if !playableVariant(c.variant) {
		return nil, fmt.Errorf("lichesstest cannot referee the %s variant", c.variant)
	}
	s.stopTimerLocked(c.timer)
	c.status = "accepted"
	s.logLocked("challenge %s accepted", c.id)
	g, err := s.newGameLocked(c)
	if err != nil {
		return nil, err
	}
	s.notifyLocked()
	return g, nil
}

// AcceptChallenge accepts challenge id on behalf of its destination user.
func (s *Server) AcceptChallenge(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil {
		return fmt.Errorf("lichesstest: accept %s: no such challenge", id)
	}
	if _, err := s.acceptLocked(c); err != nil {
		return fmt.Errorf("lichesstest: accept %s: %w", id, err)
	}
	return nil
}

// DeclineChallenge declines challenge id on behalf of its destination user
// with a reason key of the spec ("generic", "tooFast", …).
func (s *Server) DeclineChallenge(id, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil || c.status != "created" {
		return fmt.Errorf("lichesstest: decline %s: no such open challenge", id)
	}
	s.declineLocked(c, reason)
	return nil
}

func (s *Server) declineLocked(c *challenge, reason string) {
	if _, ok := declineReasons[reason]; !ok {
		reason = "generic"
	}
	s.stopTimerLocked(c.timer)
	c.status = "declined"
	s.logLocked("challenge %s declined (%s)", c.id, reason)
	c.declineKey = strings.ToLower(reason)
	c.declineReason = declineReasons[reason]
	s.pushEventLocked(c.challenger, jsonChallengeEvent{Type: "challengeDeclined", Challenge: s.challengeJSONLocked(c, "")})
	s.notifyLocked()
}

// CancelChallenge withdraws open challenge id on behalf of its challenger,
// as POST /api/challenge/{id}/cancel would: its destination user gets a
// challengeCanceled event.
func (s *Server) CancelChallenge(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil || c.status != "created" {
		return fmt.Errorf("lichesstest: cancel %s: no such open challenge", id)
	}
	s.cancelLocked(c)
	return nil
}

func (s *Server) cancelLocked(c *challenge) {
	s.stopTimerLocked(c.timer)
	c.status = "canceled"
	s.logLocked("challenge %s canceled", c.id)
	s.pushEventLocked(c.dest, jsonChallengeEvent{Type: "challengeCanceled", Challenge: s.challengeJSONLocked(c, "")})
	s.notifyLocked()
}

// ChallengeStatus returns the status of challenge id ("created",
// "accepted", "declined", "canceled"), and the decline reason key (lower
// case, as in the event) if declined; "" if there is no such challenge.
func (s *Server) ChallengeStatus(id string) (status, declineReasonKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil {
		return "", ""
	}
	return c.status, c.declineKey
}

// POST /api/challenge/{username}
func (s *Server) handleCreateChallenge(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeWrite, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "Invalid form: %v", err)
		return
	}
	p, err := paramsFromForm(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.createChallengeLocked(a, r.PathValue("username"), p)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, s.challengeJSONLocked(c, "out"))
}

func paramsFromForm(r *http.Request) (ChallengeParams, error) {
	var p ChallengeParams
	f := r.Form
	boolField := func(name string) (bool, error) {
		v := f.Get(name)
		if v == "" {
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("Invalid %s: %q", name, v)
		}
		return b, nil
	}
	intField := func(name string) (int, bool, error) {
		v := f.Get(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("Invalid %s: %q", name, v)
		}
		return n, true, nil
	}
	var err error
	if p.Rated, err = boolField("rated"); err != nil {
		return p, err
	}
	limit, hasLimit, err := intField("clock.limit")
	if err != nil {
		return p, err
	}
	inc, hasInc, err := intField("clock.increment")
	if err != nil {
		return p, err
	}
	if hasLimit != hasInc {
		return p, errors.New("clock.limit and clock.increment must be given together")
	}
	if hasLimit && limit == 0 && inc == 0 {
		return p, errors.New("Invalid clock: 0+0")
	}
	p.ClockLimit, p.ClockIncrement = time.Duration(limit)*time.Second, time.Duration(inc)*time.Second
	if p.Days, _, err = intField("days"); err != nil {
		return p, err
	}
	p.Color = f.Get("color")
	p.Variant = f.Get("variant")
	p.FEN = f.Get("fen")
	return p, nil
}

func (s *Server) challengeFor(w http.ResponseWriter, r *http.Request, a *account) *challenge {
	c := s.challenges[r.PathValue("id")]
	if c == nil || (c.dest != a && c.challenger != a) {
		writeError(w, http.StatusNotFound, "No such challenge")
		return nil
	}
	return c
}

// openChallengeTo is the challenge of the request's path that a may still
// accept or decline: addressed to a and not yet answered. Otherwise it
// writes 404 and returns nil. Called with s.mu held.
func (s *Server) openChallengeTo(w http.ResponseWriter, r *http.Request, a *account) *challenge {
	c := s.challengeFor(w, r, a)
	if c == nil {
		return nil
	}
	if c.dest != a || c.status != "created" {
		writeError(w, http.StatusNotFound, "No such challenge")
		return nil
	}
	return c
}

// POST /api/challenge/{id}/accept
func (s *Server) handleAcceptChallenge(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeWrite, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.openChallengeTo(w, r, a)
	if c == nil {
		return
	}
	if _, err := s.acceptLocked(c); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeOK(w)
}

// POST /api/challenge/{id}/decline
func (s *Server) handleDeclineChallenge(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeWrite, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	_ = r.ParseForm()
	reason := r.Form.Get("reason")
	if reason != "" {
		if _, ok := declineReasons[reason]; !ok {
			writeError(w, http.StatusBadRequest, "Invalid reason %q", reason)
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.openChallengeTo(w, r, a)
	if c == nil {
		return
	}
	s.declineLocked(c, reason)
	writeOK(w)
}

// POST /api/challenge/{id}/cancel: cancels an open challenge, or aborts the
// game it became while that game is still abortable.
func (s *Server) handleCancelChallenge(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeWrite, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challengeFor(w, r, a)
	if c == nil {
		return
	}
	switch {
	case c.status == "created" && c.challenger == a:
		s.cancelLocked(c)
		writeOK(w)
	case c.status == "accepted":
		g := s.games[c.id]
		if g == nil || !g.abortable() {
			writeError(w, http.StatusBadRequest, "This game can no longer be aborted")
			return
		}
		s.endGameLocked(g, "aborted", -1)
		writeOK(w)
	default:
		writeError(w, http.StatusNotFound, "No such challenge")
	}
}

// GET /api/challenge: challenge:read only, as on Lichess (a token with
// bot:play alone gets 403).
func (s *Server) handleListChallenges(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeRead)
	if a == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := struct {
		In  []jsonChallenge `json:"in"`
		Out []jsonChallenge `json:"out"`
	}{In: []jsonChallenge{}, Out: []jsonChallenge{}}
	for _, c := range s.sortedChallengesLocked() {
		if c.status != "created" {
			continue
		}
		if c.dest == a {
			out.In = append(out.In, s.challengeJSONLocked(c, "in"))
		}
		if c.challenger == a {
			out.Out = append(out.Out, s.challengeJSONLocked(c, "out"))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// GET /api/challenge/{id}/show
func (s *Server) handleShowChallenge(w http.ResponseWriter, r *http.Request) {
	a := s.auth(w, r, ScopeChallengeRead, ScopeBotPlay, ScopeBoardPlay)
	if a == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challengeFor(w, r, a)
	if c == nil {
		return
	}
	dir := "in"
	if c.challenger == a {
		dir = "out"
	}
	writeJSON(w, http.StatusOK, s.challengeJSONLocked(c, dir))
}

func (s *Server) sortedChallengesLocked() []*challenge {
	out := make([]*challenge, 0, len(s.challenges))
	for _, c := range s.challenges {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].createdAt.Equal(out[j].createdAt) {
			return out[i].createdAt.Before(out[j].createdAt)
		}
		return out[i].id < out[j].id
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
