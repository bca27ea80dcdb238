package lichess

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Decline reasons accepted by POST /api/challenge/{id}/decline. (The
// declineReasonKey of a challengeDeclined event is the lower-case form.)
const (
	DeclineGeneric     = "generic"
	DeclineLater       = "later"
	DeclineTooFast     = "tooFast"
	DeclineTooSlow     = "tooSlow"
	DeclineTimeControl = "timeControl"
	DeclineRated       = "rated"
	DeclineCasual      = "casual"
	DeclineStandard    = "standard"
	DeclineVariant     = "variant"
	DeclineNoBot       = "noBot"
	DeclineOnlyBot     = "onlyBot"
)

// AcceptChallenge accepts incoming challenge id.
func (c *Client) AcceptChallenge(ctx context.Context, id string) error {
	return c.doJSON(ctx, request{op: "accept challenge " + id, method: http.MethodPost,
		path: "/api/challenge/" + pathEscape(id) + "/accept", limitKey: "challenge/accept", essential: true}, nil)
}

// DeclineChallenge declines incoming challenge id with a reason key (one of
// the Decline constants; "" means generic).
func (c *Client) DeclineChallenge(ctx context.Context, id, reason string) error {
	if reason == "" {
		reason = DeclineGeneric
	}
	return c.doJSON(ctx, request{op: "decline challenge " + id, method: http.MethodPost,
		path: "/api/challenge/" + pathEscape(id) + "/decline", form: url.Values{"reason": {reason}},
		limitKey: "challenge/decline", essential: true}, nil)
}

// CancelChallenge cancels challenge id that we sent.
func (c *Client) CancelChallenge(ctx context.Context, id string) error {
	return c.doJSON(ctx, request{op: "cancel challenge " + id, method: http.MethodPost,
		path: "/api/challenge/" + pathEscape(id) + "/cancel", limitKey: "challenge/cancel"}, nil)
}

// ChallengeRequest describes a challenge to create. Limit and Increment are
// in seconds. Days > 0 makes a correspondence challenge (days per move:
// 1, 2, 3, 5, 7, 10 or 14), sent without the clock, as Lichess wants.
type ChallengeRequest struct {
	Limit     int
	Increment int
	Days      int
	Rated     bool
	Color     string // white, black or random ("" = random)
	Variant   string // "" = standard
	FEN       string // for fromPosition
}

// CreateChallenge challenges user username (POST /api/challenge/{username}).
// Non-essential: fails at once inside a cool-down.
func (c *Client) CreateChallenge(ctx context.Context, username string, cr ChallengeRequest) (Challenge, error) {
	f := url.Values{"rated": {strconv.FormatBool(cr.Rated)}}
	if cr.Days > 0 {
		f.Set("days", strconv.Itoa(cr.Days))
	} else {
		f.Set("clock.limit", strconv.Itoa(cr.Limit))
		f.Set("clock.increment", strconv.Itoa(cr.Increment))
	}
	if cr.Color != "" {
		f.Set("color", cr.Color)
	}
	if cr.Variant != "" {
		f.Set("variant", cr.Variant)
	}
	if cr.FEN != "" {
		f.Set("fen", cr.FEN)
	}
	var ch Challenge
	// Some answers wrap the challenge: {"challenge": {...}}; accept both.
	var raw json.RawMessage
	err := c.doJSON(ctx, request{op: "challenge " + username, method: http.MethodPost,
		path: "/api/challenge/" + pathEscape(username), form: f, limitKey: "challenge/create"}, &raw)
	if err != nil {
		return ch, err
	}
	var wrapped struct {
		Challenge *Challenge `json:"challenge"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Challenge != nil {
		return *wrapped.Challenge, nil
	}
	if err := json.Unmarshal(raw, &ch); err != nil {
		return ch, fmt.Errorf("challenge %s: decode answer: %w", username, err)
	}
	return ch, nil
}

// User is a user of the online-bots list (schema User, the fields the bot uses).
type User struct {
	ID       string          `json:"id"`
	Username string          `json:"username"`
	Title    string          `json:"title,omitempty"`
	Perfs    map[string]Perf `json:"perfs,omitempty"`
	Disabled bool            `json:"disabled,omitempty"`
}

// OnlineBots returns up to nb online bots (GET /api/bot/online, NDJSON).
// Non-essential: fails at once inside a cool-down.
func (c *Client) OnlineBots(ctx context.Context, nb int) ([]User, error) {
	if nb <= 0 || nb > 512 {
		nb = 100
	}
	var out []User
	r := request{op: "list online bots", method: http.MethodGet, path: fmt.Sprintf("/api/bot/online?nb=%d", nb),
		limitKey: "bot/online"}
	err := c.stream(ctx, r, func(line []byte) error {
		var u User
		if err := json.Unmarshal(line, &u); err != nil {
			c.log.Warn().Err(err).Msg("ignoring malformed online bot line")
			return nil
		}
		out = append(out, u)
		return nil
	})
	if err == ErrStreamEnded {
		err = nil
	}
	return out, err
}

// ChallengeList is the answer of GET /api/challenge: the open challenges
// addressed to us (In) and sent by us (Out).
type ChallengeList struct {
	In  []Challenge `json:"in"`
	Out []Challenge `json:"out"`
}

// ListChallenges lists the open challenges addressed to us and sent by us
// (GET /api/challenge). Entries without an id are left out. Non-essential:
// fails at once inside a cool-down.
func (c *Client) ListChallenges(ctx context.Context) (ChallengeList, error) {
	var l ChallengeList
	err := c.doJSON(ctx, request{op: "list challenges", method: http.MethodGet, path: "/api/challenge",
		limitKey: "challenge/list"}, &l)
	if err != nil {
		return ChallengeList{}, err
	}
	withID := func(cs []Challenge) []Challenge {
		out := cs[:0]
		for _, ch := range cs {
			if ch.ID != "" {
				out = append(out, ch)
			}
		}
		return out
	}
	l.In, l.Out = withID(l.In), withID(l.Out)
	return l, nil
}
