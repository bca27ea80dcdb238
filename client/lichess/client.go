package lichess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"
)

// DefaultBaseURL is where Lichess serves its API.
const DefaultBaseURL = "https://lichess.org"

// Default timings of the client. Each can be changed with an Option.
const (
	DefaultStreamIdleTimeout = 20 * time.Second // Lichess sends a keep-alive line every 7 s
	DefaultRateLimitCooldown = 60 * time.Second // the API docs: "waiting one minute ... will be sufficient"
	DefaultRequestTimeout    = 30 * time.Second // for non-streaming requests
)

// Client talks to the Lichess Bot API. It is safe for concurrent use.
//
// Rate limits: a 429 answer starts a cool-down (the Retry-After header, or
// one minute) for the endpoint that got it; a 429 on a move cools down that
// game's moves only. No request is sent to an endpoint inside its cool-down:
// essential requests (moves, game and event streams, abort, resign, claims,
// accepting or declining a challenge, draw and takeback answers) wait for the
// cool-down to end (or their context to end); non-essential ones (chat,
// creating or cancelling challenges, the online-bot list, account look-ups)
// fail at once with an error matching ErrCoolingDown.
//
// The API asks for one request at a time. The non-essential requests are
// sent one at a time; essential ones are not held back by them, and the
// moves of different games may overlap, since making one game's move wait
// for another's would spend clock time.
type Client struct {
	base         *url.URL
	http         *http.Client // authenticated (oauth2 transport)
	ts           oauth2.TokenSource
	log          zerolog.Logger
	userAgent    string
	idleTimeout  time.Duration
	reqTimeout   time.Duration
	cooldowns    *cooldowns
	baseHTTP     *http.Client
	streamBuffer int
	// background is a one-slot gate for non-essential requests (chat,
	// challenges sent, the online-bot list, account look-ups): the API asks
	// for one request at a time, and these can wait. Moves, claims, answers
	// and streams never queue behind them, so the games' clocks do not pay.
	background chan struct{}
	// refused is closed when Lichess refuses the token: GET /api/account
	// answered 401 to it, by itself or asked to confirm a 401 of another
	// request with the token to the base URL. The token was revoked (or
	// never valid).
	refused     chan struct{}
	refusedOnce sync.Once
	// confirming serializes the GET /api/account that confirms a 401.
	confirming sync.Mutex
	// obs is told of rate limits (never nil: nopObserver by default).
	obs Observer
}

// Option changes a Client made by New.
type Option func(*Client)

// WithHTTPClient sets the HTTP client whose transport carries the requests
// (the OAuth2 token is added on top of its transport).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.baseHTTP = h } }

// WithLogger sets the logger (default: disabled).
func WithLogger(l zerolog.Logger) Option { return func(c *Client) { c.log = l } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithStreamIdleTimeout sets how long a stream may stay silent (not even a
// keep-alive line) before it is closed as dead.
func WithStreamIdleTimeout(d time.Duration) Option {
	return func(c *Client) { c.idleTimeout = d }
}

// WithRateLimitCooldown sets the cool-down after a 429 answer without a
// Retry-After header.
func WithRateLimitCooldown(d time.Duration) Option {
	return func(c *Client) { c.cooldowns.fallback = d }
}

// WithObserver sets who is told of 429 answers and refused requests (for
// metrics); nil: nobody. A panic in one of its methods is recovered and
// logged (once per method); the request goes on.
func WithObserver(o Observer) Option {
	return func(c *Client) {
		if o != nil {
			c.obs = &safeObserver{o: o, c: c}
		}
	}
}

// WithRequestTimeout sets the time limit of non-streaming requests.
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.reqTimeout = d } }

// New returns a client for the Lichess API at baseURL ("" means
// DefaultBaseURL) that authenticates with the tokens from ts.
func New(baseURL string, ts oauth2.TokenSource, opts ...Option) (*Client, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("parse base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", baseURL)
	}
	if ts == nil {
		return nil, errors.New("new client: no token source")
	}
	c := &Client{
		base:        u,
		ts:          ts,
		log:         zerolog.Nop(),
		userAgent:   "ponderosa",
		idleTimeout: DefaultStreamIdleTimeout,
		reqTimeout:  DefaultRequestTimeout,
		cooldowns:   newCooldowns(DefaultRateLimitCooldown),
		baseHTTP:    &http.Client{},
		background:  make(chan struct{}, 1),
		refused:     make(chan struct{}),
		obs:         nopObserver{},
	}
	for _, o := range opts {
		o(c)
	}
	base := c.baseHTTP.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.http = &http.Client{
		Transport:     &oauth2.Transport{Source: ts, Base: base},
		Jar:           c.baseHTTP.Jar,
		CheckRedirect: tokenRedirect(c.baseHTTP.CheckRedirect),
	}
	return c, nil
}

// ErrRedirectRefused is matched by the error of a request with the token
// that was redirected to another host (or from https to http): the
// oauth2 transport would add the token to the next request too, so the
// redirect is not followed.
var ErrRedirectRefused = errors.New("redirect of a request with the token refused")

// tokenRedirect is the redirect policy of the requests that carry the
// token: a redirect is followed only to the same host (and port), never
// from https to http, since the oauth2 transport puts the token on every
// request it sends, the redirected one included. next, when set, is the
// policy of the HTTP client given with WithHTTPClient, asked after that;
// otherwise Go's default (at most 10 redirects) applies.
func tokenRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
			return fmt.Errorf("%w: %s://%s to %s://%s", ErrRedirectRefused, first.Scheme, first.Host, req.URL.Scheme, req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// BaseURL is the address of the Lichess server the client talks to.
func (c *Client) BaseURL() string { return c.base.Redacted() }

// TokenRefused is closed when Lichess refuses the token: the token was
// revoked or is not valid, and no later request will do better. Only
// Lichess at the base URL can refuse it, and only through GET /api/account:
// a 401 to another request with the token to the base URL closes it once
// GET /api/account, asked at once, answers 401 too (one odd 401 does not
// end the bot). A 401 from another server (the opening explorer, the
// tablebase) or to a request sent without the token never closes it.
func (c *Client) TokenRefused() <-chan struct{} { return c.refused }

// ErrTokenRefused is matched by the error of a request whose 401
// Unauthorized answer shows that Lichess refuses the token (an *APIError:
// see APIError.Is), and by the errors that report a refused token: the
// token was revoked, has expired or never existed.
var ErrTokenRefused = errors.New("Lichess refuses the token")

// ErrCoolingDown is matched by errors of non-essential requests refused
// because their endpoint is in a rate-limit cool-down.
var ErrCoolingDown = errors.New("rate limit cool-down in progress")

// APIError is an answer from Lichess with a non-2xx status.
type APIError struct {
	Op         string // what was being done, e.g. "post move"
	StatusCode int
	Message    string        // the "error" field of the answer, if any
	RetryAfter time.Duration // for 429: how long the cool-down lasts
	// RateLimitKey is the answer's ratelimit.key, if any: which of
	// Lichess' limits a 429 is about (BotDayLimitKey: the daily bot-game
	// limit).
	RateLimitKey string
	// RateLimitSeconds is the answer's ratelimit.seconds, if any: how long
	// that limit holds (for bot.vsBot.day: until a game of the last 24
	// hours ages out).
	RateLimitSeconds int
	// LichessToken reports whether the request carried our token to the
	// client's base URL (Lichess): only then can its 401 say that Lichess
	// refuses the token. A request to another server (another base) or
	// sent without the token never does.
	LichessToken bool
	// Refused is set on a 401 with LichessToken when Lichess refuses the
	// token: the request was GET /api/account, or GET /api/account asked
	// right after answered 401 too. Clear, the 401 was about that request
	// alone (or could not be confirmed yet).
	Refused bool
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.StatusCode, msg)
}

// Is makes a 401 answer that shows Lichess refusing our token (LichessToken
// and Refused set) match ErrTokenRefused.
func (e *APIError) Is(target error) bool {
	return target == ErrTokenRefused && e.StatusCode == http.StatusUnauthorized && e.LichessToken && e.Refused
}

// IsRateLimited reports whether err is a 429 answer or a refusal inside a
// cool-down.
func IsRateLimited(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests {
		return true
	}
	return errors.Is(err, ErrCoolingDown)
}

// BotDayLimitKey is the ratelimit.key of Lichess' 429 to a challenge from
// a bot that has played its bot games of the (sliding) day.
const BotDayLimitKey = "bot.vsBot.day"

// IsBotDayLimit reports whether err is Lichess' 429 for the daily limit of
// bot-vs-bot games (ratelimit.key bot.vsBot.day): no bot may be challenged
// until a game of the last 24 hours ages out.
func IsBotDayLimit(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests && ae.RateLimitKey == BotDayLimitKey
}

// IsOpponentCapped reports whether err is Lichess' 400 to a challenge of a
// bot that has played too many games against bots today (lila's BotLimit:
// "<name> played 100 games against other bots today, please wait until
// <date> to challenge them."): that opponent cannot be challenged for a
// while, others can.
func IsOpponentCapped(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(ae.Message), "games against other bots today")
}

// OpponentCappedUntil is the time that Lichess' 400 for a capped opponent
// (IsOpponentCapped) names ("please wait until <date>"); false when err is
// not that answer or its date cannot be read.
func OpponentCappedUntil(err error) (time.Time, bool) {
	if !IsOpponentCapped(err) {
		return time.Time{}, false
	}
	var ae *APIError
	errors.As(err, &ae)
	msg := ae.Message
	i := strings.Index(strings.ToLower(msg), "until ")
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(msg[i+len("until "):])
	if len(f) == 0 {
		return time.Time{}, false
	}
	date := strings.TrimRight(f[0], ".,;")
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, date); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// StatusCode returns the HTTP status of an APIError inside err, or 0.
func StatusCode(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// request describes one call.
type request struct {
	op        string // for errors: "accept challenge abc"
	method    string
	path      string // with query if any
	form      url.Values
	body      io.Reader // used when form is nil
	ctype     string
	limitKey  string // cool-down key
	essential bool   // wait out a cool-down instead of failing
	stream    bool   // no overall timeout; caller reads the body
	noAuth    bool   // send without the OAuth token
	base      string // another server than the client's (the tablebase, the explorer); "" for the client's
	direct    bool   // a non-essential request that must not queue behind the others (a move's online source)
	opened    func() // a stream: called once its answer came, before its first line (nil: none)
}

// accountPath is GET /api/account, which tells whether Lichess accepts the
// token.
const accountPath = "/api/account"

// toLichess reports whether r goes to the client's base URL.
func (c *Client) toLichess(r request) bool {
	return r.base == "" || strings.TrimRight(r.base, "/") == c.base.String()
}

// do sends r and returns the response for a 2xx status; any other status
// becomes an *APIError (a 429 also starts the cool-down).
func (c *Client) do(ctx context.Context, r request) (*http.Response, context.CancelFunc, error) {
	if err := c.cooldowns.wait(ctx, r.limitKey, r.essential); err != nil {
		if errors.Is(err, ErrCoolingDown) {
			c.obs.CooldownRefused(EndpointFamily(r.limitKey))
		}
		return nil, nil, fmt.Errorf("%s: %w", r.op, err)
	}
	parent := ctx // for the confirmation of a 401
	var cancel context.CancelFunc
	if r.stream {
		ctx, cancel = context.WithCancel(ctx)
	} else {
		ctx, cancel = context.WithTimeout(ctx, c.reqTimeout)
	}
	body := r.body
	ctype := r.ctype
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
		ctype = "application/x-www-form-urlencoded"
	}
	base := c.base.String()
	if r.base != "" {
		base = strings.TrimRight(r.base, "/")
	}
	req, err := http.NewRequestWithContext(ctx, r.method, base+r.path, body)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("%s: %w", r.op, err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("User-Agent", c.userAgent)
	if r.stream {
		req.Header.Set("Accept", "application/x-ndjson")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	hc := c.http
	if r.noAuth {
		hc = c.baseHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("%s: %w", r.op, err) // the token is in a header, never in the URL
	}
	if resp.StatusCode/100 == 2 {
		return resp, cancel, nil
	}
	defer cancel()
	defer resp.Body.Close()
	ae := &APIError{Op: r.op, StatusCode: resp.StatusCode, LichessToken: !r.noAuth && c.toLichess(r)}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct {
		Error     string `json:"error"`
		RateLimit struct {
			Key     string `json:"key"`
			Seconds int    `json:"seconds"`
		} `json:"ratelimit"`
	}
	if json.Unmarshal(raw, &e) == nil && (e.Error != "" || e.RateLimit.Key != "") {
		ae.Message, ae.RateLimitKey, ae.RateLimitSeconds = e.Error, e.RateLimit.Key, max(e.RateLimit.Seconds, 0)
	} else {
		ae.Message = strings.TrimSpace(string(raw))
		if len(ae.Message) > 200 {
			ae.Message = ae.Message[:200]
		}
	}
	if resp.StatusCode == http.StatusUnauthorized && ae.LichessToken {
		if r.method == http.MethodGet && r.path == accountPath {
			ae.Refused = true
			c.refusedOnce.Do(func() {
				c.log.Error().Str("op", r.op).Msg("Lichess refuses the token (HTTP 401): it was revoked or is not valid")
				close(c.refused)
			})
		} else {
			ae.Refused = c.confirmRefused(parent, r.op)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		ae.RetryAfter = c.cooldowns.start(r.limitKey, resp.Header.Get("Retry-After"), time.Now())
		c.log.Warn().Str("endpoint", r.limitKey).Dur("cooldown", ae.RetryAfter).Msg("rate limited by Lichess")
		c.obs.RateLimited(EndpointFamily(r.limitKey), ae.RetryAfter)
	}
	return nil, nil, ae
}

// confirmRefused asks GET /api/account, after a 401 to op, whether Lichess
// refuses the token (its 401 closes TokenRefused) or the 401 was about op
// alone. An account that cannot be asked now (no answer, a cool-down)
// confirms nothing: a later 401 asks again. One confirmation runs at a time;
// those that waited for it need none once the token is refused.
func (c *Client) confirmRefused(ctx context.Context, op string) bool {
	c.confirming.Lock()
	defer c.confirming.Unlock()
	select {
	case <-c.refused:
		return true
	default:
	}
	_, _, err := c.account(ctx, "get account (after HTTP 401 to "+op+")")
	switch {
	case errors.Is(err, ErrTokenRefused):
		return true
	case err == nil:
		c.log.Warn().Str("op", op).Msg("HTTP 401 from Lichess although it still accepts the token: not taken as a revoked token")
	default:
		c.log.Warn().Err(err).Str("op", op).Msg("HTTP 401 from Lichess; cannot ask whether it still accepts the token")
	}
	return false
}

// doJSON sends r and decodes the JSON answer into out (if non-nil).
func (c *Client) doJSON(ctx context.Context, r request, out any) error {
	if !r.essential && !r.stream && !r.direct {
		select {
		case c.background <- struct{}{}:
			defer func() { <-c.background }()
		case <-ctx.Done():
			return fmt.Errorf("%s: wait for the previous request: %w", r.op, ctx.Err())
		}
	}
	resp, cancel, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out); err != nil {
		return fmt.Errorf("%s: decode answer: %w", r.op, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // lets the connection be reused
	return nil
}

// pathEscape escapes one path segment (ids come from the server or config).
func pathEscape(s string) string { return url.PathEscape(s) }
