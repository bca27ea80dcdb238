package lichess

import (
	"strings"
	"time"
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
