package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/logging"
	"github.com/ponderosa-chess/ponderosa/monitor"
	"github.com/ponderosa-chess/ponderosa/web"
)

// demoOpts are the flags of `ponderosa demo`.
type demoOpts struct {
	tc         config.TimeControl
	movesLimit int // adjudicate after this many full moves (0: never)
	depth      int // cap on every search (0: none)
	hashMB     int
	ponder     bool
	verbose    bool       // the bots' logs on logOut
	logOut     io.Writer  // for verbose
	views      *demoViews // when set, the bots' games are shown there (the web view's Source)
	// metrics, when set, observes both bots (and their Lichess clients).
	metrics *monitor.Metrics
}

// The demo's two bot accounts and their tokens (local server only).
const (
	demoWhite      = "PonderosaA"
	demoBlack      = "PonderosaB"
	demoWhiteToken = "lip_demoTokenA"
	demoBlackToken = "lip_demoTokenB"
)

// demoCmd is `ponderosa demo`: two bots play each other through a local
// Lichess-compatible server, over real HTTP, with the real client.
func demoCmd(e env, args []string) int {
	fs := newFlagSet(e, "demo",
		"usage: ponderosa demo [-tc 1+0] [-moves-limit N] [-depth N] [-v] [-http ADDR]",
		"\nStarts a local Lichess-compatible server with two bot accounts and runs two",
		"bots with the built-in engine; one challenges the other and the game is",
		"printed move by move. No network or token needed. With -http the daemon's",
		"HTTP server (/healthz, /metrics) serves the demo's bots on ADDR (e.g.",
		"127.0.0.1:8080) during the game and after it, until Ctrl-C.",
	)
	tc := fs.String("tc", "1+0", "time control, minutes+seconds (at least bullet: base + 40×increment ≥ 30s)")
	moves := fs.Int("moves-limit", 80, "adjudicate the game after this many moves (0: play to the end)")
	depth := fs.Int("depth", 0, "cap every search at this depth (0: no cap; e.g. 4 for a quick weak game)")
	hash := fs.Int("hash", 16, "transposition table per bot, MiB")
	ponder := fs.Bool("ponder", true, "think on the opponent's time")
	verbose := fs.Bool("v", false, "show the bots' logs")
	httpAddr := fs.String("http", "", "serve /healthz and /metrics on this address (host:port) until Ctrl-C")
	if !parseArgs(fs, args) {
		return exitUsage
	}
	t, err := config.ParseTimeControl(*tc)
	if err != nil {
		fmt.Fprintln(e.stderr, "demo: -tc:", err)
		return exitUsage
	}
	if t.Base+40*t.Increment < 30*time.Second || t.Base%time.Second != 0 {
		fmt.Fprintln(e.stderr, "demo: -tc: bots decline UltraBullet; give base + 40×increment of at least 30 s, in whole seconds (e.g. 1+0, 0.5+1, 2+1)")
		return exitUsage
	}
	o := demoOpts{tc: t, movesLimit: *moves, depth: *depth, hashMB: *hash, ponder: *ponder, verbose: *verbose, logOut: e.stderr}
	ctx := context.Background()
	if *httpAddr != "" {
		if _, _, err := net.SplitHostPort(*httpAddr); err != nil {
			fmt.Fprintf(e.stderr, "demo: -http %q: not host:port (e.g. 127.0.0.1:8080)\n", *httpAddr)
			return exitUsage
		}
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if err := demoServe(ctx, e.stdout, e.stderr, o, *httpAddr, nil); err != nil {
		fmt.Fprintln(e.stderr, "demo:", err)
		return exitFailure
	}
	return exitOK
}

// demoServe runs the demo; with httpAddr it serves the demo's metrics and
// health there from before the game until ctx ends (onHTTP, if set, gets
// the address bound).
func demoServe(ctx context.Context, out, errOut io.Writer, o demoOpts, httpAddr string, onHTTP func(net.Addr)) error {
	if httpAddr == "" {
		_, err := runDemo(ctx, out, o)
		return err
	}
	o.metrics = monitor.NewMetrics(appVersion())
	log := logging.New(errOut, "info", logging.FormatConsole)
	o.views = newDemoViews()
	srv := demoHTTP(o.metrics, o.views, log)
	warn := ""
	if !config.ListenLoopback(httpAddr) {
		warn = fmt.Sprintf("-http %q is reachable from other machines (the demo asks no access token)", httpAddr)
	}
	httpCtx, stopHTTP := context.WithCancel(context.Background())
	addr, wait, err := startHTTP(httpCtx, httpAddr, warn, srv, log)
	if err != nil {
		stopHTTP()
		return err
	}
	defer wait()
	defer stopHTTP()
	if onHTTP != nil {
		onHTTP(addr)
	}
	fmt.Fprintf(out, "serving the live view at http://%s/ (and /metrics, /healthz)\n", addr)
	if _, err := runDemo(ctx, out, o); err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() == nil {
		fmt.Fprintf(out, "\nstill serving http://%s until Ctrl-C\n", addr)
		<-ctx.Done()
	}
	return nil
}

// demoHTTP is the demo's HTTP server: /healthz, /metrics of m, and the
// live web view of views (the page, its API and its event stream). The
// web-poll measurement (webpoll_test.go) serves through it too.
func demoHTTP(m *monitor.Metrics, views *demoViews, log zerolog.Logger) *monitor.Server {
	srv := monitor.New(monitor.Options{Metrics: m, Log: log})
	srv.Handle("/", web.New(views, web.Options{}))
	return srv
}

// decisionLog keeps the players' decisions by game and ply, for the eval
// column.
type decisionLog struct {
	mu sync.Mutex
	m  map[string]map[int]client.Choice
}

func (l *decisionLog) put(id string, ply int, d client.Choice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]map[int]client.Choice{}
	}
	if l.m[id] == nil {
		l.m[id] = map[int]client.Choice{}
	}
	l.m[id][ply] = d
}

func (l *decisionLog) get(id string, ply int) (client.Choice, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.m[id][ply]
	return d, ok
}

// observed wraps a factory so that each decision is recorded.
func observed(f client.PlayerFactory, log *decisionLog) client.PlayerFactory {
	return func(ctx context.Context) (client.Player, error) {
		p, err := f(ctx)
		if err != nil {
			return nil, err
		}
		return &observedPlayer{Player: p, log: log}, nil
	}
}

type observedPlayer struct {
	client.Player
	log *decisionLog
	id  string
	ply int
}

func (p *observedPlayer) NewGame(ctx context.Context, g client.GameInfo) error {
	p.id = g.ID
	return p.Player.NewGame(ctx, g)
}

func (p *observedPlayer) Position(ctx context.Context, moves []string) error {
	p.ply = len(moves)
	return p.Player.Position(ctx, moves)
}

func (p *observedPlayer) Think(ctx context.Context, lim client.MoveClock) (client.Choice, error) {
	d, err := p.Player.Think(ctx, lim)
	if err == nil {
		p.log.put(p.id, p.ply, d)
	}
	return d, err
}

// runDemo runs the whole demo and returns the final state of the game.
func runDemo(ctx context.Context, out io.Writer, o demoOpts) (lichesstest.GameSnapshot, error) {
	var none lichesstest.GameSnapshot
	// The whole game fits in both clocks plus the increments of the moves
	// limit; a generous bound turns a hang into an error.
	plies := o.movesLimit
	if plies <= 0 {
		plies = 300
	}
	limit := 2*(o.tc.Base+time.Duration(plies)*o.tc.Increment) + 2*time.Minute
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	srv := lichesstest.New(lichesstest.WithKeepAlive(2 * time.Second))
	srv.AddAccount(demoWhite, demoWhiteToken, true, 2000)
	srv.AddAccount(demoBlack, demoBlackToken, true, 2000)
	if err := srv.Start(); err != nil {
		return none, fmt.Errorf("start the local server: %w", err)
	}
	defer srv.Close()
	fmt.Fprintf(out, "local Lichess-compatible server at %s\n", srv.URL())
	if o.views != nil {
		o.views.setServer(srv)
	}

	decisions := &decisionLog{}
	logger := zerolog.Nop()
	if o.verbose && o.logOut != nil {
		logger = logging.New(o.logOut, "info", logging.FormatConsole)
	}
	settings := client.Settings{
		Challenge: client.ChallengePolicy{AcceptBots: true, MaxGames: 1},
		Game:      client.GameSettings{AcceptDraws: true, DrawAfterMove: 30, DrawWithinCP: 0},
		Chat: client.ChatSettings{Greeting: client.ChatMessages{Player: "Good luck, {opponent}!"},
			Goodbye: client.ChatMessages{Player: "Good game!"}, Name: "ponderosa " + appVersion()},
		// The server is local: no network lag to leave room for.
		Clock: client.ClockSettings{MoveOverhead: 30 * time.Millisecond},
	}
	runCtx, stopBots := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { stopBots(); wg.Wait() }()
	clients := map[string]*lichess.Client{}
	var bots []*client.Bot
	for _, acct := range []struct{ name, token string }{{demoWhite, demoWhiteToken}, {demoBlack, demoBlackToken}} {
		l := logger.With().Str("bot", acct.name).Logger()
		c, err := lichess.New(srv.URL(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: acct.token}),
			lichess.WithLogger(l), lichess.WithUserAgent("ponderosa-demo/"+appVersion()), lichess.WithObserver(observerOf(o.metrics)))
		if err != nil {
			return none, err
		}
		clients[acct.name] = c
		f := client.NewBuiltinPlayer(client.BuiltinOptions{HashMB: o.hashMB, Threads: 1, TreeMB: 16,
			Ponder: o.ponder, MaxDepth: o.depth, Logger: l})
		bot := client.NewBot(c, observed(viewed(f, o.views, acct.name), decisions), settings, l, client.WithObserver(observerOf(o.metrics)))
		bots = append(bots, bot)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := bot.Run(runCtx); err != nil {
				fmt.Fprintf(out, "bot %s: %v\n", acct.name, err)
			}
		}()
	}
	if err := srv.WaitFor(ctx, func() bool { return srv.EventStreamOpen(demoWhite) && srv.EventStreamOpen(demoBlack) }); err != nil {
		return none, fmt.Errorf("bots did not connect: %w", err)
	}

	// One bot challenges the other over HTTP; the other accepts by its policy.
	ch, err := clients[demoWhite].CreateChallenge(ctx, demoBlack, lichess.ChallengeRequest{
		Limit: int(o.tc.Base / time.Second), Increment: int(o.tc.Increment / time.Second), Color: "white"})
	if err != nil {
		return none, fmt.Errorf("challenge: %w", err)
	}
	fmt.Fprintf(out, "%s challenges %s: %s, game %s\n\n", demoWhite, demoBlack, tcString(o.tc), ch.ID)
	if err := srv.WaitFor(ctx, func() bool { _, ok := srv.Game(ch.ID); return ok }); err != nil {
		st, reason := srv.ChallengeStatus(ch.ID)
		return none, fmt.Errorf("the game did not start (challenge %s %s): %w", st, reason, err)
	}

	pos, err := board.ParseFEN(board.StartFEN)
	if err != nil {
		return none, err
	}
	printed := 0
	adjudicated := ""
	var snap lichesstest.GameSnapshot
	for {
		err := srv.WaitFor(ctx, func() bool {
			g, _ := srv.Game(ch.ID)
			return len(g.Moves) > printed || g.Finished
		})
		snap, _ = srv.Game(ch.ID)
		for ; printed < len(snap.Moves); printed++ {
			if err := printPly(out, pos, printed, snap, decisions); err != nil {
				return snap, err
			}
		}
		if snap.Finished {
			break
		}
		if err != nil {
			return snap, fmt.Errorf("game %s not over: %w", ch.ID, err)
		}
		if o.movesLimit > 0 && len(snap.Moves) >= 2*o.movesLimit && adjudicated == "" {
			adjudicated = adjudicate(srv, snap, decisions)
		}
	}
	// The bots end their games too (their records, the metrics' count of
	// finished games) before they are stopped.
	idle := func() bool {
		for _, b := range bots {
			if len(b.Games()) > 0 {
				return false
			}
		}
		return true
	}
	for end := time.Now().Add(5 * time.Second); !idle() && time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(5 * time.Millisecond)
	}
	if adjudicated != "" {
		fmt.Fprintf(out, "\nmove limit (%d) reached: %s\n", o.movesLimit, adjudicated)
	}
	fmt.Fprintf(out, "\nResult: %s (%s)\n\n%s", pgnResult(snap), snap.Status, snap.PGN)
	if snap.Status == "aborted" {
		return snap, errors.New("the game was aborted")
	}
	return snap, nil
}

// observerOf is m as an observer of both kinds, or nil for none.
func observerOf(m *monitor.Metrics) interface {
	client.Observer
	lichess.Observer
} {
	if m == nil {
		return nil
	}
	return m
}

// adjudicate ends a game at the moves limit: the side the last evaluation
// says is lost by 3 pawns or more resigns, otherwise both agree a draw.
func adjudicate(srv *lichesstest.Server, snap lichesstest.GameSnapshot, decisions *decisionLog) string {
	ply := len(snap.Moves) - 1
	var eval int
	for ; ply >= 0; ply-- {
		if d, ok := decisions.get(snap.ID, ply); ok && d.HasScore {
			eval = whiteEval(d, ply)
			break
		}
	}
	switch {
	case eval >= 300:
		_ = srv.Resign(snap.ID, snap.Black)
		return "Black is lost by the evaluation and resigns"
	case eval <= -300:
		_ = srv.Resign(snap.ID, snap.White)
		return "White is lost by the evaluation and resigns"
	}
	_ = srv.Draw(snap.ID, snap.White, true)
	_ = srv.Draw(snap.ID, snap.Black, true)
	return "draw agreed"
}

// whiteEval is a decision's score from White's side in centipawns (mates
// as ±100000), for the mover of ply (White moves at even plies).
func whiteEval(d client.Choice, ply int) int {
	v := d.ScoreCP
	if d.Mate > 0 {
		v = 100000
	} else if d.Mate < 0 {
		v = -100000
	}
	if ply%2 == 1 {
		v = -v
	}
	return v
}

// printPly prints move ply of the game (SAN, evaluation, clocks) and plays it
// on pos.
func printPly(out io.Writer, pos *board.Position, ply int, snap lichesstest.GameSnapshot, decisions *decisionLog) error {
	uciMove := snap.Moves[ply]
	m, err := pos.ParseUCIMove(uciMove)
	if err != nil {
		return fmt.Errorf("move %d (%s): %w", ply+1, uciMove, err)
	}
	san := pos.MoveToSAN(m)
	pos.MakeMove(m)
	num := fmt.Sprintf("%d.", ply/2+1)
	if ply%2 == 1 {
		num = fmt.Sprintf("%d...", ply/2+1)
	}
	eval, info := "", ""
	if d, ok := decisions.get(snap.ID, ply); ok && d.HasScore {
		switch {
		case d.Mate != 0:
			n := d.Mate
			if ply%2 == 1 {
				n = -n
			}
			eval = fmt.Sprintf("#%d", n)
		default:
			eval = fmt.Sprintf("%+.2f", float64(whiteEval(d, ply))/100)
		}
		info = fmt.Sprintf("depth %d, %s", d.Depth, d.Duration.Round(time.Millisecond))
	} else if ok {
		info = "forced"
	}
	fmt.Fprintf(out, "%7s %-8s %7s  %-22s white %s  black %s\n", num, san, eval, info,
		clockString(snap.WhiteTime), clockString(snap.BlackTime))
	return nil
}

func clockString(d time.Duration) string {
	d = max(d, 0).Round(100 * time.Millisecond)
	return fmt.Sprintf("%d:%04.1f", int(d/time.Minute), (d % time.Minute).Seconds())
}

func tcString(tc config.TimeControl) string {
	m := tc.Base.Minutes()
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", m), "0"), ".") + "+" + fmt.Sprint(int(tc.Increment/time.Second))
}

func pgnResult(s lichesstest.GameSnapshot) string {
	switch {
	case !s.Finished || s.Status == "aborted":
		return "*"
	case s.Winner == "white":
		return "1-0"
	case s.Winner == "black":
		return "0-1"
	}
	return "1/2-1/2"
}
