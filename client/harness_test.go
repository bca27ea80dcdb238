package client

import (
	"context"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The Bot's tests run against lichesstest, the project's Lichess-compatible
// server, over real HTTP. The unit tests (game_test.go and others) start
// games against an opponent the test drives through the server's methods,
// or a house player the server moves for; the end-to-end tests
// (e2e_test.go) let house players challenge the bot and play it.

// Our bot's account.
const (
	botName  = "Ponderosa"
	botID    = "ponderosa"
	botToken = "lip_secretTOKEN123"
)

type harness struct {
	t     *testing.T
	srv   *lichesstest.Server
	ctx   context.Context // ends after testsupport.WaitLimit: bounds every wait
	log   *zerolog.Logger // the bots' logger when set (testsupport.Logger otherwise)
	hooks *testHooks      // set on the bots runBot makes, before Run
	// acceptRetry, when set, replaces acceptRetryDelay on those bots.
	acceptRetry time.Duration
	// wrap, when set, wraps the player factory of the bots runBot makes
	// (the online player).
	wrap func(PlayerFactory) PlayerFactory
	// store, when set, is given to those bots (SetStore).
	store Store
	// botOpts are given to NewBot for those bots.
	botOpts []BotOption
}

// newHarness starts a server with our bot's account, fast keep-alives and
// challenges that never expire.
func newHarness(t *testing.T, opts ...lichesstest.Option) *harness {
	t.Helper()
	opts = append([]lichesstest.Option{lichesstest.WithKeepAlive(20 * time.Millisecond), lichesstest.WithChallengeTTL(0)}, opts...)
	srv := lichesstest.NewStarted(opts...)
	t.Cleanup(srv.Close)
	srv.AddAccount(botName, botToken, true, 2000)
	return &harness{t: t, srv: srv, ctx: testsupport.Context(t)}
}

// addHuman adds a human opponent that does nothing unless the test acts
// for it (a silent opponent).
func (h *harness) addHuman(name string) {
	h.srv.AddAccount(name, "tok-"+name, false, 1800)
}

// addHouse adds a human opponent played by the server.
func (h *harness) addHouse(name string, opts lichesstest.HouseOptions) {
	h.t.Helper()
	h.addHuman(name)
	if err := h.srv.SetHousePlayer(name, opts); err != nil {
		h.t.Fatal(err)
	}
}

// client returns a client of our bot; opts come after the defaults.
func (h *harness) client(opts ...lichess.Option) *lichess.Client {
	h.t.Helper()
	opts = append([]lichess.Option{lichess.WithStreamIdleTimeout(time.Second), lichess.WithLogger(testsupport.Logger(h.t))}, opts...)
	c, err := lichess.New(h.srv.URL(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: botToken}), opts...)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// runBot starts a Bot and waits until its event stream is open; the
// returned stop cancels Run and waits for it.
func (h *harness) runBot(s Settings, pool *playerPool, opts ...lichess.Option) (*Bot, func()) {
	h.t.Helper()
	if s.ReconnectMin == 0 {
		s.ReconnectMin, s.ReconnectMax = 10*time.Millisecond, 100*time.Millisecond
	}
	log := testsupport.Logger(h.t)
	if h.log != nil {
		log = *h.log
	}
	f := PlayerFactory(pool.factory)
	if h.wrap != nil {
		f = h.wrap(f)
	}
	b := NewBot(h.client(opts...), f, s, log, h.botOpts...)
	b.hooks = h.hooks
	if h.store != nil {
		b.SetStore(h.store)
	}
	if h.acceptRetry > 0 {
		b.acceptRetry = h.acceptRetry
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				h.t.Errorf("Run: %v", err)
			}
		})
	}
	h.t.Cleanup(stop)
	h.waitFor("the event stream", func() bool { return h.srv.EventStreamOpen(botName) })
	return b, stop
}

// waitFor waits until cond holds; cond is checked after every change on
// the server.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	if err := h.srv.WaitFor(h.ctx, cond); err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// challenge has from challenge our bot and returns the challenge's id.
func (h *harness) challenge(from string, p lichesstest.ChallengeParams) string {
	h.t.Helper()
	id, err := h.srv.Challenge(from, botName, p)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// startGame starts a game of our bot against opp and returns its id: our
// challenge, accepted at once for opp, so that the bot has no challenge to
// answer and finds a game in progress. The clock is 1+1 unless p has one.
func (h *harness) startGame(opp string, botWhite bool, p lichesstest.ChallengeParams) string {
	h.t.Helper()
	if p.ClockLimit == 0 && p.ClockIncrement == 0 {
		p.ClockLimit, p.ClockIncrement = time.Minute, time.Second
	}
	p.Color = "black"
	if botWhite {
		p.Color = "white"
	}
	id, err := h.srv.Challenge(botName, opp, p)
	if err != nil {
		h.t.Fatal(err)
	}
	// A house player accepts by itself; whoever comes first starts the game.
	if err := h.srv.AcceptChallenge(id); err != nil {
		if st, _ := h.srv.ChallengeStatus(id); st != "accepted" {
			h.t.Fatal(err)
		}
	}
	return id
}

// game returns a snapshot of game id.
func (h *harness) game(id string) lichesstest.GameSnapshot {
	h.t.Helper()
	g, ok := h.srv.Game(id)
	if !ok {
		h.t.Fatalf("no game %s", id)
	}
	return g
}

func (h *harness) waitOver(id string) lichesstest.GameSnapshot {
	h.t.Helper()
	g, err := h.srv.WaitGameOver(h.ctx, id)
	if err != nil {
		h.t.Fatalf("game %s not over: %v", id, err)
	}
	return g
}

// waitPlies waits until game id has n plies or is over.
func (h *harness) waitPlies(id string, n int) {
	h.t.Helper()
	h.waitFor("ply "+id, func() bool { g, ok := h.srv.Game(id); return ok && (len(g.Moves) >= n || g.Finished) })
}

// resignAfter makes who resign game id once it has n plies (keeps games
// between two weak players short).
func (h *harness) resignAfter(id, who string, n int) {
	h.t.Helper()
	h.waitPlies(id, n)
	if g, _ := h.srv.Game(id); !g.Finished {
		if err := h.srv.Resign(id, who); err != nil {
			h.t.Fatalf("resign %s: %v", id, err)
		}
	}
}

// requests counts the requests matching pattern (as in
// lichesstest.Server.RequestsMatching) that the server received.
func (h *harness) requests(pattern string) int {
	return len(h.srv.RequestsMatching(pattern))
}

// lastSegments returns the last path segment of each request of our bot
// matching pattern, in order: the actions or answers it posted.
func (h *harness) lastSegments(pattern string) []string {
	var out []string
	for _, r := range h.srv.RequestsMatching(pattern) {
		if r.Account == botID {
			out = append(out, path.Base(r.Path))
		}
	}
	return out
}

// actions returns the game-ending actions our bot posted in game id (abort,
// resign, claim-victory, claim-draw), in order.
func (h *harness) actions(id string) []string {
	var out []string
	for _, a := range h.lastSegments("POST /api/bot/game/" + id + "/*") {
		switch a {
		case "abort", "resign", "claim-victory", "claim-draw":
			out = append(out, a)
		}
	}
	return out
}

// botChat returns the chat lines our bot wrote in game id, as "room:text".
func (h *harness) botChat(id string) []string {
	var out []string
	for _, l := range h.game(id).Chat {
		if l.Username == botName {
			out = append(out, l.Room+":"+l.Text)
		}
	}
	return out
}

// noRefusedMoves: a move posted twice (or illegal) is refused by the server.
// A move crossing the end of the game (the test resigned for the opponent
// meanwhile) does not count.
func (h *harness) noRefusedMoves() {
	h.t.Helper()
	moves := h.srv.RequestsMatching("POST /api/bot/game/*/move/*")
	// A refusal whose handler has not returned yet (Duration 0) was
	// written by now: the end of the request is bounded by this moment.
	seen := time.Now()
	for _, r := range moves {
		if r.Status == 200 || r.Status == 429 || r.Status == 0 { // 0: still in flight, or cut by the client
			continue
		}
		id := strings.Split(r.Path, "/")[4]
		g, _ := h.srv.Game(id)
		end := r.Time.Add(r.Duration)
		if r.Duration == 0 {
			end = seen
		}
		if g.Finished && !end.Before(g.FinishedAt) {
			continue
		}
		h.t.Errorf("move refused: %s %s → %d after %v (game %s, %d plies, last %v, finished %v after the request)", r.Method, r.Path, r.Status, r.Duration, g.Status, len(g.Moves), g.Moves[len(g.Moves)-1:], g.FinishedAt.Sub(r.Time))
	}
}

// noDuplicatePosts fails if a ply of game id got two moves of ours: every
// move of ours was accepted once (a post whose answer was lost counts as
// accepted), and none was refused, as a second post of a ply would be —
// but for the retry of a post whose answer was lost, which the server
// refuses since the move was played.
func (h *harness) noDuplicatePosts(id string) {
	h.t.Helper()
	g := h.game(id)
	whiteFirst := g.InitialFEN == "" || strings.Fields(g.InitialFEN)[1] == "w"
	ours := 0
	for ply := range g.Moves {
		whiteMoved := (ply%2 == 0) == whiteFirst
		if whiteMoved == (g.White == botName) {
			ours++
		}
	}
	accepted, lost := 0, map[string]bool{}
	for _, r := range h.srv.RequestsMatching("POST /api/bot/game/" + id + "/move/*") {
		move := path.Base(r.Path)
		switch {
		case r.Status == 200:
			accepted++
			lost[move] = lost[move] || r.Lost
		case r.Status == 429, r.Status == 0: // not accepted: cooling down, or cut before the server answered
		case lost[move]: // the retry of a lost answer
		default:
			h.t.Errorf("game %s: move post %s refused (%d)", id, move, r.Status)
		}
	}
	if accepted != ours {
		h.t.Errorf("game %s: %d move posts accepted for %d moves of ours (%v)", id, accepted, ours, g.Moves)
	}
}
