package lichesstest

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// faults holds the injectable failures; guarded by Server.mu.
type faults struct {
	latencyMin, latencyMax time.Duration
	tooMany                []*tooManyRule
	limits                 []*rateLimit
}

// rateLimit answers 429 to a client's request matching m when it has made
// n matching requests within per.
type rateLimit struct {
	m          *tooManyRule // the matcher (and cool-down scope)
	n          int
	per        time.Duration
	retryAfter time.Duration
	seen       map[string][]time.Time // client key → recent request times
}

// SetRateLimit limits each client to n requests matching pattern (as in
// Inject429) per period; the request over the limit gets 429 with
// Retry-After retryAfter (0: until the window frees a slot) and starts a
// cool-down. Rejected requests do not count towards the limit.
func (s *Server) SetRateLimit(pattern string, n int, per, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.limits = append(s.faults.limits, &rateLimit{
		m: newRule(pattern, 0), n: n, per: per, retryAfter: retryAfter,
		seen: map[string][]time.Time{},
	})
}

// checkLimitsLocked records r against the rate limits; it returns the
// limit r exceeds, if any, and the Retry-After to announce.
func (s *Server) checkLimitsLocked(key string, r *http.Request, now time.Time) (*rateLimit, time.Duration) {
	for _, l := range s.faults.limits {
		if !l.m.matches(r) {
			continue
		}
		recent := l.seen[key][:0]
		for _, t := range l.seen[key] {
			if now.Sub(t) < l.per {
				recent = append(recent, t)
			}
		}
		l.seen[key] = recent
		if len(recent) >= l.n {
			wait := l.retryAfter
			if wait <= 0 && len(recent) > 0 {
				wait = l.per - now.Sub(recent[0])
			}
			return l, wait
		}
	}
	for _, l := range s.faults.limits {
		if l.m.matches(r) {
			l.seen[key] = append(l.seen[key], now)
		}
	}
	return nil, 0
}

type tooManyRule struct {
	method     string // "" matches any method
	pattern    string // path.Match pattern on the URL path
	remaining  int
	retryAfter time.Duration
	status     int    // 429, or the status of InjectError (0: lose or silence)
	lose       bool   // InjectLostAnswer: handle the request, cut the connection before the answer
	silence    bool   // InjectSilence: answer 200, then write nothing
	body       string // InjectAnswer: the JSON body of the answer
}

// newRule parses pattern ("METHOD /path" or "/path") into a rule for the
// next n matching requests.
func newRule(pattern string, n int) *tooManyRule {
	method, p := "", pattern
	if i := strings.IndexByte(pattern, ' '); i > 0 {
		method, p = pattern[:i], strings.TrimSpace(pattern[i+1:])
	}
	return &tooManyRule{method: method, pattern: p, remaining: n}
}

func (r *tooManyRule) matches(req *http.Request) bool {
	if r.method != "" && r.method != req.Method {
		return false
	}
	ok, err := path.Match(r.pattern, req.URL.Path)
	return err == nil && ok
}

// SetLatency delays every later request by a duration drawn uniformly from
// [min, max]; SetLatency(0, 0) turns latency off.
func (s *Server) SetLatency(min, max time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if max < min {
		max = min
	}
	s.faults.latencyMin, s.faults.latencyMax = min, max
}

// Inject429 answers the next n requests matching pattern with 429 Too Many
// Requests and a Retry-After header of retryAfter (whole seconds, rounded
// up; the cool-down itself lasts exactly retryAfter). With retryAfter zero
// or less the answer has no Retry-After header, as Lichess's own 429s, and
// the cool-down lasts the minute the Lichess docs ask for.
//
// pattern is "METHOD /path" or "/path"; the path is matched with path.Match,
// so "*" stands for one path segment: "POST /api/bot/game/*/move/*".
func (s *Server) Inject429(pattern string, n int, retryAfter time.Duration) {
	rule := newRule(pattern, n)
	rule.retryAfter, rule.status = retryAfter, http.StatusTooManyRequests
	s.addRule(rule)
}

// InjectError answers the next n requests matching pattern (as in
// Inject429) with status, e.g. 500, 502 or 503. A 5xx answer has an HTML
// body, as a proxy in front of Lichess would send; other statuses get the
// usual {"error": …} JSON. No cool-down follows.
func (s *Server) InjectError(pattern string, n, status int) {
	rule := newRule(pattern, n)
	rule.status = status
	s.addRule(rule)
}

// InjectLostAnswer makes the next n requests matching pattern (as in
// Inject429) take effect, and then cuts the connection before the answer
// is sent: a move posted this way is played, but its client sees a network
// error. The request's record keeps the status the server meant to send,
// and Lost.
func (s *Server) InjectLostAnswer(pattern string, n int) {
	rule := newRule(pattern, n)
	rule.lose = true
	s.addRule(rule)
}

// InjectSilence answers the next n requests matching pattern (as in
// Inject429) with 200 and then writes nothing, not even keep-alive lines,
// until the client hangs up: a dead link, which a client can only notice
// by its read timeout. It is meant for streams; the request never reaches
// its handler (an event stream so answered is not open).
func (s *Server) InjectSilence(pattern string, n int) {
	rule := newRule(pattern, n)
	rule.silence = true
	s.addRule(rule)
}

// InjectAnswer answers the next n requests matching pattern (as in
// Inject429) with status and body, a JSON text written as given: the
// answers Lichess gives in cases the simulator does not play out, such as
// the daily bot-game cap (BotDayLimitBody, 429) or an opponent who has
// played too many bot games today (OpponentCappedBody, 400). A 429 so
// answered starts the cool-down as Inject429 without Retry-After does.
func (s *Server) InjectAnswer(pattern string, n, status int, body string) {
	rule := newRule(pattern, n)
	rule.status, rule.body = status, body
	s.addRule(rule)
}

// Bodies for InjectAnswer: Lichess' answers to a challenge past the daily
// bot-game limits, of the challenger (a 429 whose ratelimit.key is
// bot.vsBot.day) and of the opponent (a 400).
const (
	BotDayLimitBody = `{"error":"Too many requests. Try again later.","ratelimit":{"key":"bot.vsBot.day","seconds":5400}}`
	// OpponentCappedBody is lila's BotLimit text; the date is far ahead so
	// that a test sees the opponent skipped until then.
	OpponentCappedBody = `{"error":"CappedBot played 100 games against other bots today, please wait until 2099-01-02T03:04:05.678Z to challenge them."}`
)

func (s *Server) addRule(r *tooManyRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.tooMany = append(s.faults.tooMany, r)
}

// DropEventStream cuts the open event stream of username (if any), as a
// network failure would. The client is expected to reconnect.
func (s *Server) DropEventStream(username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.accounts[strings.ToLower(username)]; a != nil && a.events != nil {
		a.events.drop()
		a.events = nil
	}
}

// DropGameStreams cuts every open stream of game id.
func (s *Server) DropGameStreams(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.games[id]; g != nil {
		s.dropGameStreamsLocked(g)
	}
}

func (s *Server) dropGameStreamsLocked(g *game) {
	for _, gs := range g.subs {
		gs.sub.drop()
	}
	g.subs = nil
}

// DropGameStreamsAfter cuts the streams of game id right after the
// gameState of each of these plies (moves played) is written, whether or
// not that line reaches the client first, as on a real network.
func (s *Server) DropGameStreamsAfter(id string, plies ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return
	}
	if g.dropAt == nil {
		g.dropAt = map[int]bool{}
	}
	for _, p := range plies {
		g.dropAt[p] = true
	}
}

// RepeatGameState writes the current gameState of game id again on its
// open streams, as Lichess may (after a reconnect, a clock adjustment). It
// reports whether a stream was open.
func (s *Server) RepeatGameState(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil || len(g.subs) == 0 {
		return false
	}
	s.broadcastLocked(g, s.gameStateLocked(g), none)
	return true
}

// DropAllStreams cuts every open event and game stream.
func (s *Server) DropAllStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAllStreamsLocked()
}

func (s *Server) dropAllStreamsLocked() {
	for _, a := range s.accounts {
		if a.events != nil {
			a.events.drop()
			a.events = nil
		}
	}
	for _, g := range s.games {
		for _, gs := range g.subs {
			gs.sub.drop()
		}
		g.subs = nil
		for _, w := range g.watchers {
			w.drop()
		}
		g.watchers = nil
	}
}

// InjectEventLine writes raw (one JSON object, no newline) on the event
// stream of username, e.g. an event type the spec does not know. It
// reports whether a stream was open.
func (s *Server) InjectEventLine(username, raw string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[strings.ToLower(username)]
	if a == nil || a.events == nil {
		return false
	}
	a.events.push([]byte(raw))
	return true
}

// InjectGameLine writes raw on every open stream of game id, to the
// players named (none: to both). It reports whether any stream was open.
func (s *Server) InjectGameLine(id, raw string, usernames ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return false
	}
	sent := false
	for _, gs := range g.subs {
		if len(usernames) > 0 {
			match := false
			for _, u := range usernames {
				if strings.EqualFold(g.players[gs.color].id, u) {
					match = true
				}
			}
			if !match {
				continue
			}
		}
		gs.sub.push([]byte(raw))
		sent = true
	}
	return sent
}

// coolDown is a client's wait after a 429: requests from key matching
// rule (nil: any request) before until are violations.
type coolDown struct {
	key   string
	rule  *tooManyRule
	until time.Time
}

// activeCoolDownLocked returns the cool-down r falls in, if any.
func (s *Server) activeCoolDownLocked(key string, r *http.Request, now time.Time) *coolDown {
	for _, c := range s.coolDowns {
		if c.key == key && now.Before(c.until) && (c.rule == nil || c.rule.matches(r)) {
			return c
		}
	}
	return nil
}

// startCoolDownLocked records that key got a 429 for rule.
func (s *Server) startCoolDownLocked(key string, rule *tooManyRule, until time.Time) {
	if s.cfg.globalCoolDown {
		rule = nil
	}
	for _, c := range s.coolDowns {
		if c.key == key && c.rule == rule {
			if until.After(c.until) {
				c.until = until
			}
			return
		}
	}
	s.coolDowns = append(s.coolDowns, &coolDown{key: key, rule: rule, until: until})
}

// middleware wraps every request: recording, refusal while down, latency,
// injected 429s, cool-down accounting.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		token := bearer(r)
		s.mu.Lock()
		acc := s.tokens[token]
		user := ""
		if acc != nil {
			user = acc.id
		}
		key := clientKey(token, r)
		active := s.activeCoolDownLocked(key, r, now)
		if active != nil {
			s.stats.CoolDownViolations++
		}
		idx, gen := len(s.records), s.recGen
		s.records = append(s.records, RequestRecord{
			Method: r.Method, Path: r.URL.Path, Query: redactQuery(r.URL.Query()), Time: now,
			Account: user, InCoolDown: active != nil,
		})
		rec := &statusRecorder{ResponseWriter: w}
		s.live = append(s.live, rec)
		var delay time.Duration
		if lo, hi := s.faults.latencyMin, s.faults.latencyMax; hi > 0 {
			delay = lo
			if hi > lo {
				delay += time.Duration(s.rng.Int64N(int64(hi-lo) + 1))
			}
		}
		var rule *tooManyRule
		for _, tm := range s.faults.tooMany {
			if tm.remaining > 0 && tm.matches(r) {
				tm.remaining--
				rule = tm
				break
			}
		}
		var retryAfter time.Duration
		status := 0
		lose, silence := rule != nil && rule.lose, rule != nil && rule.silence
		switch {
		case lose, silence:
			s.records[idx].Lost = lose
		case rule != nil && rule.status != http.StatusTooManyRequests:
			status = rule.status
		case rule != nil:
			status = http.StatusTooManyRequests
			retryAfter = rule.retryAfter
			coolFor := retryAfter
			if coolFor <= 0 {
				coolFor = time.Minute // no Retry-After: Lichess says wait a minute
			}
			s.startCoolDownLocked(key, rule, now.Add(coolFor))
		case active != nil && s.cfg.enforceCoolDown:
			status = http.StatusTooManyRequests
			retryAfter = active.until.Sub(now)
		default:
			if l, wait := s.checkLimitsLocked(key, r, now); l != nil {
				status = http.StatusTooManyRequests
				retryAfter = wait
				s.startCoolDownLocked(key, l.m, now.Add(wait))
			}
		}
		stream := isStreamPath(r.URL.Path)
		if !stream {
			if s.inflight[key] > 0 {
				s.stats.ConcurrentRequests++
			}
			s.inflight[key]++
		}
		down := s.down
		s.notifyLocked()
		s.mu.Unlock()
		if down {
			s.mu.Lock()
			if !stream {
				s.inflight[key]--
			}
			if gen == s.recGen {
				s.live[idx] = nil
			}
			s.mu.Unlock()
			panic(http.ErrAbortHandler)
		}

		defer func() {
			s.mu.Lock()
			if !stream {
				s.inflight[key]--
			}
			status := rec.status()
			if gen == s.recGen {
				s.records[idx].Status = status
				s.records[idx].Duration = time.Since(now)
				s.live[idx] = nil
			}
			if status == http.StatusTooManyRequests {
				s.stats.TooManyRequests++
			}
			s.logLocked("%s %s → %d (%v)", r.Method, r.URL.Path, status, time.Since(now).Round(time.Millisecond))
			s.notifyLocked()
			s.mu.Unlock()
		}()

		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch {
		case lose:
			// Take effect, then cut the connection: the answer is lost.
			discard := &statusRecorder{ResponseWriter: &discardWriter{header: http.Header{}}}
			next.ServeHTTP(discard, r)
			rec.code.Store(int32(discard.status()))
			panic(http.ErrAbortHandler)
		case silence:
			rec.Header().Set("Content-Type", "application/x-ndjson")
			rec.WriteHeader(http.StatusOK)
			rec.Flush()
			<-r.Context().Done()
			return
		case rule != nil && rule.body != "":
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(status)
			fmt.Fprintln(rec, rule.body)
			return
		case status == http.StatusTooManyRequests:
			writeTooMany(rec, retryAfter)
			return
		case status >= 500:
			rec.Header().Set("Content-Type", "text/html; charset=utf-8")
			rec.WriteHeader(status)
			fmt.Fprintf(rec, "<html><head><title>%d %s</title></head><body><h1>%d %s</h1></body></html>\n",
				status, http.StatusText(status), status, http.StatusText(status))
			return
		case status != 0:
			writeError(rec, status, "%s", http.StatusText(status))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// isStreamPath reports whether path is one of the long-lived NDJSON
// streams (not counted as concurrent requests).
func isStreamPath(p string) bool {
	return p == "/api/stream/event" || strings.HasPrefix(p, "/api/bot/game/stream/") ||
		strings.HasPrefix(p, "/api/board/game/stream/") || strings.HasPrefix(p, "/api/stream/game/")
}

// writeTooMany answers 429, with a Retry-After header (whole seconds,
// rounded up) unless retryAfter is zero or less.
func writeTooMany(w http.ResponseWriter, retryAfter time.Duration) {
	if retryAfter > 0 {
		secs := int((retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeError(w, http.StatusTooManyRequests, "Too many requests. Try again later.")
}

// clientKey identifies a client for cool-downs: its token, or its address
// for anonymous requests.
func clientKey(token string, r *http.Request) string {
	if token != "" {
		return "token:" + token
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// statusRecorder notes the status of an answer as it starts, so that a
// record shows it (Requests) even before its handler has returned.
type statusRecorder struct {
	http.ResponseWriter
	code atomic.Int32
}

func (r *statusRecorder) status() int { return int(r.code.Load()) }

func (r *statusRecorder) WriteHeader(code int) {
	r.code.CompareAndSwap(0, int32(code))
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.code.CompareAndSwap(0, http.StatusOK)
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// discardWriter is the answer of a request whose answer is lost.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// redactQuery encodes q with token-bearing parameters blanked.
func redactQuery(q url.Values) string {
	for _, k := range []string{"token1", "token2", "opponentToken"} {
		if q.Has(k) {
			q.Set(k, "REDACTED")
		}
	}
	return q.Encode()
}
