package lichesstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server is a Lichess-compatible HTTP server. Create it with New, start it
// with Start, and stop it with Close. All methods are safe for concurrent
// use.
type Server struct {
	cfg config

	mu         sync.Mutex
	rng        *rand.Rand
	accounts   map[string]*account // by lower-case id
	tokens     map[string]*account
	challenges map[string]*challenge
	games      map[string]*game
	arenas     map[string]*arena // tournament.go
	gameOrder  []string
	records    []RequestRecord
	live       []*statusRecorder // beside records: the answer of each request until its handler returns
	recGen     int               // bumped by ResetRecords
	faults     faults
	online     onlineState
	stats      Stats
	coolDowns  []*coolDown
	inflight   map[string]int // client key → non-stream requests in progress
	changed    chan struct{}  // closed and replaced on every state change
	timers     map[*time.Timer]struct{}
	closed     bool
	down       bool

	httpSrv  *http.Server
	listener net.Listener
	addr     string // host:port once started
	serveWG  sync.WaitGroup
	handler  http.Handler
}

type config struct {
	addr             string
	keepAlive        time.Duration
	seed             uint64
	challengeTTL     time.Duration
	firstMoveTimeout time.Duration // 0: by speed, as Lichess
	lichessLimits    bool
	enforceCoolDown  bool
	globalCoolDown   bool
	extraFields      bool
	latencyMin       time.Duration
	latencyMax       time.Duration
	publicURL        string
	goneClaimWait    time.Duration
	autoGoneAfter    time.Duration
	kingTakesRook    bool
	variantPlyLimit  int
	corrDay          time.Duration // the length of a correspondence "day"
	logf             func(format string, args ...any)
}

// Option configures a Server in New.
type Option func(*config)

// WithAddr sets the listen address (default "127.0.0.1:0", a free port).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithKeepAlive sets how often an empty keep-alive line is written on open
// streams (Lichess: 7 s, the default). Tests use a few milliseconds.
func WithKeepAlive(d time.Duration) Option { return func(c *config) { c.keepAlive = d } }

// WithSeed seeds the server's random source (ids, colours, house players'
// moves, random latency). The default seed is 1, so runs are repeatable.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithChallengeTTL sets how long an unanswered real-time challenge lives
// (Lichess: 20 s, the default). Zero or less keeps challenges forever.
func WithChallengeTTL(d time.Duration) Option { return func(c *config) { c.challengeTTL = d } }

// WithFirstMoveTimeout sets the time each player has for their first move
// before the game is aborted (the expiration.millisToMove of gameState).
// By default it depends on the speed as on Lichess (15 s ultraBullet, 20 s
// bullet, 25 s blitz, 30 s rapid, 35 s slower).
func WithFirstMoveTimeout(d time.Duration) Option {
	return func(c *config) { c.firstMoveTimeout = d }
}

// WithLichessLimits makes challenge creation as strict as Lichess: clock
// limits must be 0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800 s,
// and a bot may not play UltraBullet. Off by default so tests can use tiny
// clocks such as 2+0.
func WithLichessLimits() Option { return func(c *config) { c.lichessLimits = true } }

// WithEnforcedCoolDown answers 429 to every request a client sends while
// it is in a cool-down (after a 429). Violations are counted either way.
func WithEnforcedCoolDown() Option { return func(c *config) { c.enforceCoolDown = true } }

// WithGlobalCoolDown makes a 429 put its client (token) in cool-down for
// every endpoint. By default the cool-down covers only the requests that
// match the pattern that answered 429 (e.g. only move posts).
func WithGlobalCoolDown() Option { return func(c *config) { c.globalCoolDown = true } }

// WithUnknownFields adds a field unknown to the spec to every JSON object
// written on the event and game streams, to check that clients ignore
// unknown fields.
func WithUnknownFields() Option { return func(c *config) { c.extraFields = true } }

// WithLatency delays every request by a duration drawn uniformly from
// [min, max] (seeded random source). SetLatency changes it at run time.
func WithLatency(min, max time.Duration) Option {
	return func(c *config) { c.latencyMin, c.latencyMax = min, max }
}

// WithPublicURL sets the base used in challenge and profile "url" fields
// (default: the server's own URL).
func WithPublicURL(u string) Option { return func(c *config) { c.publicURL = u } }

// WithClaimWait sets the claimWinInSeconds announced when an opponent is
// made gone without an explicit wait (default 10 s).
func WithClaimWait(d time.Duration) Option { return func(c *config) { c.goneClaimWait = d } }

// WithAutoGone makes a player gone (opponentGone to the other side, with
// the WithClaimWait countdown) once they have had no stream of a game open
// for after, having opened one before; reopening one brings them back.
// Off by default.
func WithAutoGone(after time.Duration) Option { return func(c *config) { c.autoGoneAfter = after } }

// WithCastlingAsKingTakesRook writes castling in the move lists of the
// game streams (gameState "moves") as the king taking its own rook (e1h1,
// e8a8), as Lichess does in Chess960 and may do in standard chess. Moves
// are accepted in both forms either way; snapshots keep the king's
// two-square move.
func WithCastlingAsKingTakesRook() Option { return func(c *config) { c.kingTakesRook = true } }

// WithVariantPlyLimit ends a game of a variant the server does not check
// (see "Variants" in the package doc) as a draw once it has n plies.
// Default 400; n <= 0 keeps the default.
func WithVariantPlyLimit(n int) Option { return func(c *config) { c.variantPlyLimit = n } }

// WithCorrespondenceDay sets how long one day of a correspondence game's
// days-per-move clock lasts (default 24h), so that tests can play a
// correspondence game in moments: with WithCorrespondenceDay(time.Second),
// a game of 3 days per move gives each move 3 s. The times reported
// (gameState wtime/btime, secondsLeft) are of the shortened clock.
func WithCorrespondenceDay(d time.Duration) Option { return func(c *config) { c.corrDay = d } }

// WithLog makes the server describe what happens (requests, challenges,
// moves, game ends) through logf, e.g. t.Logf or a zerolog printf. Tokens
// are never logged. Nothing is logged once Close has begun.
func WithLog(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// logLocked logs through WithLog's function. Holding s.mu orders it
// before Close, so a test's t.Logf is never called after the test.
func (s *Server) logLocked(format string, args ...any) {
	if s.cfg.logf != nil && !s.closed {
		s.cfg.logf("lichesstest: "+format, args...)
	}
}

// New returns an unstarted server. Add accounts, then call Start.
func New(opts ...Option) *Server {
	cfg := config{
		addr:          "127.0.0.1:0",
		keepAlive:     7 * time.Second,
		seed:          1,
		challengeTTL:  20 * time.Second,
		goneClaimWait: 10 * time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.keepAlive <= 0 {
		cfg.keepAlive = 7 * time.Second
	}
	if cfg.corrDay <= 0 {
		cfg.corrDay = 24 * time.Hour
	}
	if cfg.variantPlyLimit <= 0 {
		cfg.variantPlyLimit = defaultVariantPlyLimit
	}
	s := &Server{
		cfg:        cfg,
		rng:        rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
		accounts:   map[string]*account{},
		tokens:     map[string]*account{},
		challenges: map[string]*challenge{},
		games:      map[string]*game{},
		changed:    make(chan struct{}),
		timers:     map[*time.Timer]struct{}{},
		inflight:   map[string]int{},
	}
	s.faults.latencyMin, s.faults.latencyMax = cfg.latencyMin, cfg.latencyMax
	s.handler = s.routes()
	return s
}

// NewStarted is New followed by Start; it panics if the server cannot
// listen (like httptest.NewServer).
func NewStarted(opts ...Option) *Server {
	s := New(opts...)
	if err := s.Start(); err != nil {
		panic(err)
	}
	return s
}

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener != nil {
		return errors.New("lichesstest: server already started")
	}
	if s.closed {
		return errors.New("lichesstest: server closed")
	}
	return s.listenLocked(s.cfg.addr)
}

func (s *Server) listenLocked(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("lichesstest: listen on %s: %w", addr, err)
	}
	s.listener = ln
	s.addr = ln.Addr().String()
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	s.httpSrv = srv
	s.serveWG.Add(1)
	go func() {
		defer s.serveWG.Done()
		_ = srv.Serve(ln)
	}()
	return nil
}

// URL returns the base URL, such as "http://127.0.0.1:41234" (no trailing
// slash). Point the client's base URL here.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "http://" + s.addr
}

func (s *Server) publicURLLocked() string {
	if s.cfg.publicURL != "" {
		return strings.TrimRight(s.cfg.publicURL, "/")
	}
	return "http://" + s.addr
}

// Handler returns the server's http.Handler, for mounting it elsewhere
// (Restart and latency still work; URL is then the caller's business).
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the server: streams end, timers stop, connections close.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]struct{}{}
	s.dropAllStreamsLocked()
	srv := s.httpSrv
	s.httpSrv, s.listener = nil, nil
	s.notifyLocked()
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	s.serveWG.Wait()
}

// Restart simulates a Lichess restart: every open stream is cut, the
// listener is closed so new connections are refused for down, then the
// server listens again on the same address. Games, clocks (which keep
// running), challenges and accounts are kept. Restart blocks for down.
func (s *Server) Restart(down time.Duration) error {
	s.mu.Lock()
	if s.closed || s.httpSrv == nil {
		s.mu.Unlock()
		return errors.New("lichesstest: restart: server not running")
	}
	s.down = true
	s.dropAllStreamsLocked()
	srv := s.httpSrv
	addr := s.addr
	s.httpSrv, s.listener = nil, nil
	s.mu.Unlock()
	_ = srv.Close()
	s.serveWG.Wait()
	time.Sleep(down)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = false
	if s.closed {
		return errors.New("lichesstest: restart: server closed meanwhile")
	}
	var err error
	for i := 0; i < 50; i++ { // the port may take a moment to free
		if err = s.listenLocked(addr); err == nil {
			return nil
		}
		s.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		s.mu.Lock()
	}
	return fmt.Errorf("lichesstest: restart: %w", err)
}

// afterFunc runs f after d unless the server is closed first. f runs
// without s.mu held.
func (s *Server) afterFuncLocked(d time.Duration, f func()) *time.Timer {
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.mu.Lock()
		_, live := s.timers[t]
		delete(s.timers, t)
		closed := s.closed
		s.mu.Unlock()
		if live && !closed {
			f()
		}
	})
	s.timers[t] = struct{}{}
	return t
}

func (s *Server) stopTimerLocked(t *time.Timer) {
	if t == nil {
		return
	}
	t.Stop()
	delete(s.timers, t)
}

// notifyLocked wakes everything waiting in WaitFor.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitFor blocks until cond returns true or ctx ends. cond is evaluated
// after every state change of the server (a move, a new challenge, a game
// end, a request…) and must not block; it may call the Server's methods.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("lichesstest: wait: %w", ctx.Err())
		}
	}
}

func (s *Server) newIDLocked(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[s.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// marshalLine encodes v as one NDJSON line, adding an unknown field when
// WithUnknownFields is set.
func (s *Server) marshalLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("lichesstest: marshal %T: %v", v, err))
	}
	if s.cfg.extraFields && len(b) > 2 && b[0] == '{' {
		extra := `"ponderosaUnknownField":{"nested":[1,"two",null]},`
		b = append([]byte("{"+extra), b[1:]...)
	}
	return b
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeOK(w http.ResponseWriter) { writeJSON(w, http.StatusOK, jsonOK{OK: true}) }

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, jsonError{Error: fmt.Sprintf(format, args...)})
}
