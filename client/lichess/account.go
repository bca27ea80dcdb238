package lichess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Account is the logged-in user (schema UserExtended, the fields the bot uses).
type Account struct {
	ID       string          `json:"id"`
	Username string          `json:"username"`
	Title    string          `json:"title,omitempty"`
	Disabled bool            `json:"disabled,omitempty"`
	Perfs    map[string]Perf `json:"perfs,omitempty"`
}

// Perf is a rating in one speed or variant.
type Perf struct {
	Games  int  `json:"games"`
	Rating int  `json:"rating"`
	Prov   bool `json:"prov,omitempty"`
}

// IsBot reports whether the account is a Bot account.
func (a Account) IsBot() bool { return a.Title == "BOT" }

// ScopeBotPlay is the OAuth scope the Bot API needs.
const ScopeBotPlay = "bot:play"

// TokenCreateURL is the page of the Lichess at base that creates an API
// token with scopes ticked.
func TokenCreateURL(base string, scopes ...string) string {
	var b strings.Builder
	b.WriteString(base + "/account/oauth/token/create")
	for i, s := range scopes {
		if i == 0 {
			b.WriteString("?")
		} else {
			b.WriteString("&")
		}
		b.WriteString("scopes[]=" + s)
	}
	return b.String()
}

// ErrMissingScope is matched by CheckToken's error when the token works but
// lacks the bot:play scope.
var ErrMissingScope = errors.New("lacks the " + ScopeBotPlay + " scope")

// ErrNotBot is matched by the errors that report an account that is not a
// Bot account (see Account.IsBot): the Bot API refuses it.
var ErrNotBot = errors.New("is not a Bot account")

// Account returns the profile of the logged-in user (GET /api/account).
func (c *Client) Account(ctx context.Context) (Account, error) {
	a, _, err := c.account(ctx, "get account")
	return a, err
}

// account asks GET /api/account, op saying why (for errors and logs).
func (c *Client) account(ctx context.Context, op string) (Account, *http.Response, error) {
	var a Account
	resp, cancel, err := c.do(ctx, request{op: op, method: http.MethodGet, path: accountPath, limitKey: "account"})
	if err != nil {
		return a, nil, err
	}
	defer cancel()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return a, nil, fmt.Errorf("%s: decode answer: %w", op, err)
	}
	return a, resp, nil
}

// CheckToken verifies at start-up that the token works and carries the
// bot:play scope; it returns the account. Lichess reports the scopes of a
// token in the X-OAuth-Scopes header of authenticated answers; if that
// header is missing, POST /api/token/test is asked instead.
func (c *Client) CheckToken(ctx context.Context) (Account, []string, error) {
	a, resp, err := c.account(ctx, "get account")
	if err != nil {
		switch StatusCode(err) {
		case http.StatusUnauthorized: // err matches ErrTokenRefused
			return a, nil, fmt.Errorf("check token: Lichess refused the token (%w): create a new API token with the bot:play scope at %s", err, TokenCreateURL(c.BaseURL(), ScopeBotPlay))
		case http.StatusForbidden:
			return a, nil, fmt.Errorf("check token: %w (%w): is the account closed? Create a new API token with the bot:play scope at %s", ErrTokenRefused, err, TokenCreateURL(c.BaseURL(), ScopeBotPlay))
		}
		return a, nil, fmt.Errorf("check token: %w", err)
	}
	var scopes []string
	if h, ok := resp.Header[http.CanonicalHeaderKey("X-OAuth-Scopes")]; ok {
		scopes = splitScopes(strings.Join(h, ","))
	} else {
		scopes, err = c.testToken(ctx)
		if err != nil {
			return a, nil, fmt.Errorf("check token: %w", err)
		}
	}
	for _, s := range scopes {
		if s == ScopeBotPlay {
			return a, scopes, nil
		}
	}
	return a, scopes, fmt.Errorf("check token: the token of %s %w (it has: %q): create a token with \"Play games with the bot API\" at %s",
		a.Username, ErrMissingScope, strings.Join(scopes, ","), TokenCreateURL(c.BaseURL(), ScopeBotPlay))
}

// testToken asks POST /api/token/test for the scopes of our token.
func (c *Client) testToken(ctx context.Context) ([]string, error) {
	tok, err := c.ts.Token()
	if err != nil {
		return nil, fmt.Errorf("test token: get token: %w", err)
	}
	var out map[string]*struct {
		UserID string `json:"userId"`
		Scopes string `json:"scopes"`
	}
	err = c.doJSON(ctx, request{op: "test token", method: http.MethodPost, path: "/api/token/test",
		body: strings.NewReader(tok.AccessToken), ctype: "text/plain", limitKey: "token/test", noAuth: true}, &out)
	if err != nil {
		return nil, err
	}
	info := out[tok.AccessToken]
	if info == nil {
		return nil, fmt.Errorf("test token: %w: Lichess does not know it (expired or revoked)", ErrTokenRefused)
	}
	return splitScopes(info.Scopes), nil
}

func splitScopes(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Playing lists the games in progress (GET /api/account/playing), up to nb
// (1..50; 0 means 50).
func (c *Client) Playing(ctx context.Context, nb int) ([]GameEventInfo, error) {
	if nb <= 0 || nb > 50 {
		nb = 50
	}
	var out struct {
		NowPlaying []GameEventInfo `json:"nowPlaying"`
	}
	err := c.doJSON(ctx, request{op: "list games in progress", method: http.MethodGet,
		path: fmt.Sprintf("/api/account/playing?nb=%d", nb), limitKey: "account/playing", essential: true}, &out)
	return out.NowPlaying, err
}

// UpgradeToBot turns the account into a Bot account (irreversible; the
// account must not have played any game).
func (c *Client) UpgradeToBot(ctx context.Context) error {
	return c.doJSON(ctx, request{op: "upgrade to bot account", method: http.MethodPost,
		path: "/api/bot/account/upgrade", limitKey: "bot/account/upgrade"}, nil)
}
