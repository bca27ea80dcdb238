package lichesstest

import (
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// faults holds the injectable failures; guarded by Server.mu.
type faults struct {
	latencyMin, latencyMax time.Duration
	tooMany                []*tooManyRule
}

type tooManyRule struct {
	method     string // "" matches any method
	pattern    string // path.Match pattern on the URL path
	remaining  int
	retryAfter time.Duration
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
// Requests and a Retry-After header of retryAfter (whole seconds, at least
// 1 in the header; the cool-down itself lasts exactly retryAfter).
//
// pattern is "METHOD /path" or "/path"; the path is matched with path.Match,
// so "*" stands for one path segment: "POST /api/bot/game/*/move/*".
func (s *Server) Inject429(pattern string, n int, retryAfter time.Duration) {
	method, p := "", pattern
	if i := strings.IndexByte(pattern, ' '); i > 0 {
		method, p = pattern[:i], strings.TrimSpace(pattern[i+1:])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.tooMany = append(s.faults.tooMany, &tooManyRule{method: method, pattern: p, remaining: n, retryAfter: retryAfter})
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
		for _, gs := range g.subs {
			gs.sub.drop()
		}
		g.subs = nil
	}
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
		inCoolDown := false
		if until, ok := s.coolDowns()[key]; ok && now.Before(until) {
			inCoolDown = true
			s.stats.CoolDownViolations++
		}
		idx, gen := len(s.records), s.recGen
		s.records = append(s.records, RequestRecord{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Time: now,
			Account: user, InCoolDown: inCoolDown,
		})
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
		enforce := inCoolDown && s.cfg.enforceCoolDown
		down := s.down
		s.notifyLocked()
		s.mu.Unlock()
		if down {
			panic(http.ErrAbortHandler)
		}

		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			s.mu.Lock()
			if gen == s.recGen {
				s.records[idx].Status = rec.status
				s.records[idx].Duration = time.Since(now)
			}
			if rec.status == http.StatusTooManyRequests {
				s.stats.TooManyRequests++
			}
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
		case rule != nil:
			s.tooMany(rec, key, rule.retryAfter)
		case enforce:
			s.mu.Lock()
			until := s.coolDowns()[key]
			s.mu.Unlock()
			s.tooMany(rec, key, time.Until(until))
		default:
			next.ServeHTTP(rec, r)
		}
	})
}

// coolDowns returns the per-client cool-down ends.
func (s *Server) coolDowns() map[string]time.Time { return s.coolUntil }

func (s *Server) tooMany(w http.ResponseWriter, key string, retryAfter time.Duration) {
	if retryAfter < 0 {
		retryAfter = 0
	}
	s.mu.Lock()
	until := time.Now().Add(retryAfter)
	if until.After(s.coolDowns()[key]) {
		s.coolDowns()[key] = until
	}
	s.mu.Unlock()
	secs := int((retryAfter + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "Too many requests. Try again later.")
}

// clientKey identifies a client for cool-downs: its token, or its address
// for anonymous requests.
func clientKey(token string, r *http.Request) string {
	if token != "" {
		return "token:" + token
	}
	host, _, _ := strings.Cut(r.RemoteAddr, ":")
	return "addr:" + host
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
