package lichesstest

import (
	"net/http"
	"path"
	"strings"
	"time"
)

// RequestRecord is one request the server received.
type RequestRecord struct {
	Method     string
	Path       string
	Query      string // query, without '?' (re-encoded, tokens redacted)
	Time       time.Time
	Duration   time.Duration // until the handler returned (streams: until they ended); 0 until then
	Status     int           // 0 while a response has not started, or if the connection was cut first (but see Lost)
	Account    string        // lower-case id of the token's account, "" if none or unknown
	InCoolDown bool          // sent while its client was in a cool-down after a 429
	Lost       bool          // InjectLostAnswer: handled (Status is what the server meant to send), answer never sent
}

// Stats counts notable things the server saw.
type Stats struct {
	// CoolDownViolations counts requests a client sent while in the
	// cool-down that follows a 429 (Retry-After not yet elapsed).
	CoolDownViolations int
	// TooManyRequests counts 429 answers (injected or enforced).
	TooManyRequests int
	// IllegalMoves counts moves refused as illegal or not the mover's turn.
	IllegalMoves int
	// MovesPlayed counts moves accepted, over HTTP or from house players.
	MovesPlayed int
	// ConcurrentRequests counts requests that began while another
	// request (not a stream) of the same client was in progress. Lichess
	// asks for one request at a time.
	ConcurrentRequests int
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]RequestRecord(nil), s.records...)
	for i, rec := range s.live {
		if rec != nil && out[i].Status == 0 {
			out[i].Status = rec.status() // the answer has started; the handler has not returned yet
		}
	}
	return out
}

// RequestsMatching returns the recorded requests matching pattern, written
// as in Inject429: "METHOD /path/*" or "/path/*" (path.Match syntax).
func (s *Server) RequestsMatching(pattern string) []RequestRecord {
	method, p := "", pattern
	if i := strings.IndexByte(pattern, ' '); i > 0 {
		method, p = pattern[:i], strings.TrimSpace(pattern[i+1:])
	}
	var out []RequestRecord
	for _, r := range s.Requests() {
		if method != "" && r.Method != method {
			continue
		}
		if ok, err := path.Match(p, r.Path); err == nil && ok {
			out = append(out, r)
		}
	}
	return out
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// CoolDownViolations is Stats().CoolDownViolations.
func (s *Server) CoolDownViolations() int { return s.Stats().CoolDownViolations }

// ResetRecords forgets the recorded requests (counters are kept).
func (s *Server) ResetRecords() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records, s.live = nil, nil
	s.recGen++
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
