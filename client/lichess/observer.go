package lichess

import (
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Observer is told of the client's encounters with Lichess' rate limits,
// for metrics (cmd/ponderosa counts them). Its methods are called on the
// goroutine of the request: they must return quickly. Endpoints are
// families (EndpointFamily), never a game id, so that their number stays
// small.
type Observer interface {
	// RateLimited: Lichess answered 429 to a request to endpoint; a
	// cool-down of cooldown began.
	RateLimited(endpoint string, cooldown time.Duration)
	// CooldownRefused: a non-essential request to endpoint was not sent
	// because the endpoint is cooling down (ErrCoolingDown).
	CooldownRefused(endpoint string)
}

// safeObserver calls an Observer, recovering its panics: metrics never
// stop a request.
type safeObserver struct {
	o    Observer
	c    *Client
	once panics.Once // methods whose panic was logged
}

func (s *safeObserver) RateLimited(endpoint string, cooldown time.Duration) {
	defer s.once.Contain(s.c.log, "observer RateLimited")
	s.o.RateLimited(endpoint, cooldown)
}

func (s *safeObserver) CooldownRefused(endpoint string) {
	defer s.once.Contain(s.c.log, "observer CooldownRefused")
	s.o.CooldownRefused(endpoint)
}

type nopObserver struct{}

func (nopObserver) RateLimited(string, time.Duration) {}
func (nopObserver) CooldownRefused(string)            {}

// EndpointFamily is the endpoint key of a request without its game id:
// "move/<gameId>" is "move"; other keys (e.g. "challenge/create") are
// themselves.
func EndpointFamily(key string) string {
	if rest, ok := strings.CutPrefix(key, "move/"); ok && rest != "" {
		return "move"
	}
	return key
}
