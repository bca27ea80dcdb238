package lichess

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cooldowns remembers, per endpoint key, until when no request may be sent.
type cooldowns struct {
	fallback time.Duration
	mu       sync.Mutex
	until    map[string]time.Time
}

func newCooldowns(fallback time.Duration) *cooldowns {
	return &cooldowns{fallback: fallback, until: map[string]time.Time{}}
}

// start begins a cool-down for key after a 429 received at now; retryAfter is
// the Retry-After header (seconds or an HTTP date), empty for the default.
// It returns the length of the cool-down.
func (c *cooldowns) start(key, retryAfter string, now time.Time) time.Duration {
	d := parseRetryAfter(retryAfter, now)
	if d <= 0 {
		d = c.fallback
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := now.Add(d); t.After(c.until[key]) {
		c.until[key] = t
	}
	return d
}

// remaining is how long key stays cooling down after now (0: free).
func (c *cooldowns) remaining(key string, now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.until[key]
	if !ok {
		return 0
	}
	if !t.After(now) {
		delete(c.until, key)
		return 0
	}
	return t.Sub(now)
}

// wait returns when key may be used: at once if it is not cooling down;
// otherwise, for an essential request, after the cool-down (or with the
// context's error), and for a non-essential one, at once with ErrCoolingDown.
func (c *cooldowns) wait(ctx context.Context, key string, essential bool) error {
	if key == "" {
		return nil
	}
	for {
		d := c.remaining(key, time.Now())
		if d <= 0 {
			return nil
		}
		if !essential {
			return fmt.Errorf("%w for %s (%s left)", ErrCoolingDown, key, d.Round(time.Millisecond))
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// parseRetryAfter reads a Retry-After header: delay in seconds or HTTP date.
func parseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if s <= 0 || s > 24*3600 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return t.Sub(now)
	}
	return 0
}

// Cooldown reports how long endpoint key is still cooling down (0: free).
// Keys are the endpoint names used by the client, e.g. "challenge/create",
// "move/<gameId>".
func (c *Client) Cooldown(key string) time.Duration {
	return c.cooldowns.remaining(key, time.Now())
}
