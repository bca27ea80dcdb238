package main

// Helpers of the soak measurements (soak_test.go): the daemon started
// in-process as `ponderosa run` starts it, a tap under its HTTP transport
// that times game-stream lines and move posts, a feeder that keeps a number
// of games going against lichesstest house players, and the figures.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// soakBot is the bot account of the soak runs.
const (
	soakBot      = "SoakBot"
	soakBotToken = "lip_soakSecretToken"
)

// soakEnvInt reads a positive integer from the environment (def when unset).
func soakEnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// soakDaemonOpts shape the daemon's configuration file.
type soakDaemonOpts struct {
	concurrency int
	hashMB      int // engine.builtin.hash_mb: all games together
	treeMB      int // engine.builtin.tree_memory_mb: per game
	ponder      bool
	logLevel    string // "" = info
	stateDir    string // state_dir; "" = "state" beside the config
}

func soakConfig(url string, o soakDaemonOpts) string {
	lvl := o.logLevel
	if lvl == "" {
		lvl = "info"
	}
	stateDir := o.stateDir
	if stateDir == "" {
		stateDir = "state"
	}
	return fmt.Sprintf(`state_dir: %q
lichess:
  base_url: %s
engine:
  type: builtin
  ponder: %v
  builtin:
    hash_mb: %d
    tree_memory_mb: %d
challenge:
  concurrency: %d
game:
  greeting: {player: ""}
  goodbye: {player: ""}
log:
  level: %s
  format: json
`, stateDir, url, o.ponder, o.hashMB, o.treeMB, o.concurrency, lvl)
}

// soakDaemon is the daemon running in-process.
type soakDaemon struct {
	bot     *client.Bot
	logPath string
	logf    *os.File
	cancel  context.CancelFunc
	done    chan error
}

// startSoakDaemon runs runDaemon (what `ponderosa run` runs) against srv
// with the given configuration, HTTP going through tap (may be nil), the
// log written to a file kept after the test (its path is printed).
func startSoakDaemon(t testing.TB, srv *lichesstest.Server, o soakDaemonOpts, tap http.RoundTripper) *soakDaemon {
	t.Helper()
	cfgPath := writeConfigTB(t, soakConfig(srv.URL(), o))
	logf, err := os.CreateTemp("", "ponderosa-soak-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("daemon log: %s", logf.Name())
	ctx, cancel := context.WithCancel(context.Background())
	d := &soakDaemon{logPath: logf.Name(), logf: logf, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan *client.Bot, 1)
	go func() {
		d.done <- runDaemon(ctx, daemonOpts{
			configPath: cfgPath,
			getenv:     func(k string) string { return map[string]string{"LICHESS_BOT_TOKEN": soakBotToken}[k] },
			logOut:     logf,
			signals:    make(chan os.Signal),
			transport:  tap,
			onReady:    func(b *client.Bot) { ready <- b },
		})
	}()
	select {
	case d.bot = <-ready:
	case err := <-d.done:
		t.Fatalf("daemon stopped at start: %v (log %s)", err, d.logPath)
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon not ready (log %s)", d.logPath)
	}
	t.Cleanup(func() { d.stop(t) })
	return d
}

// stop ends the daemon (a drain with no game running ends at once).
func (d *soakDaemon) stop(t testing.TB) {
	if d.cancel == nil {
		return
	}
	d.cancel()
	d.cancel = nil
	select {
	case err := <-d.done:
		if err != nil {
			t.Errorf("runDaemon: %v", err)
		}
	case <-time.After(time.Minute):
		t.Errorf("daemon did not stop (log %s)", d.logPath)
	}
	_ = d.logf.Close()
}

// settle waits, before a memory checkpoint, until the daemon runs no game
// (the fake server may call a game over before the bot's worker for it
// has released its player: its hash table and search tree would be
// measured with the rest), and a little more for the workers' last
// steps after they leave the bot's list of games.
func (d *soakDaemon) settle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(d.bot.Games()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(d.bot.Games()); n > 0 {
		t.Logf("checkpoint: the daemon still runs %d games 30 s after the server saw them over: %v", n, d.bot.Games())
	}
	time.Sleep(500 * time.Millisecond)
}

// logCounts counts the daemon's log lines by level and the messages of
// the warnings and errors.
func (d *soakDaemon) logCounts() (levels map[string]int, msgs map[string]int) {
	levels, msgs = map[string]int{}, map[string]int{}
	f, err := os.Open(d.logPath)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l struct{ Level, Message string }
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		levels[l.Level]++
		if l.Level == "warn" || l.Level == "error" {
			msgs[l.Level+": "+l.Message]++
		}
	}
	return
}

// treePeaks returns the largest search tree of each game (bytes), from
// the built-in player's "move stats" log lines.
func (d *soakDaemon) treePeaks() []int {
	f, err := os.Open(d.logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	peak := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"move stats"`)) {
			continue
		}
		var l struct {
			Game      string `json:"game"`
			TreeBytes int    `json:"tree_bytes"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			peak[l.Game] = max(peak[l.Game], l.TreeBytes)
		}
	}
	out := make([]int, 0, len(peak))
	for _, v := range peak {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// treeReport is "median X MiB, max Y MiB" of the games' largest trees.
func treeReport(peaks []int) string {
	if len(peaks) == 0 {
		return "no move stats logged"
	}
	return fmt.Sprintf("largest search tree per game: median %.3f MiB, max %.3f MiB (%d games)",
		float64(peaks[len(peaks)/2])/(1<<20), float64(peaks[len(peaks)-1])/(1<<20), len(peaks))
}

func writeConfigTB(t testing.TB, content string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "config-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// newSoakServer is a lichesstest server with the bot account and houses
// house players (house1…houseN) of the given strategy and think time.
func newSoakServer(t testing.TB, houses int, strat lichesstest.HouseStrategy, think time.Duration, opts ...lichesstest.Option) (*lichesstest.Server, []string) {
	t.Helper()
	// Finer than the default 512 KiB, so that small retained objects show
	// in the heap profile that measureMem reads (and writes with
	// PONDEROSA_SOAK_HEAPPROFILE).
	runtime.MemProfileRate = 16 << 10
	opts = append([]lichesstest.Option{lichesstest.WithKeepAlive(2 * time.Second), lichesstest.WithChallengeTTL(0)}, opts...)
	srv := lichesstest.NewStarted(opts...)
	t.Cleanup(srv.Close)
	srv.AddAccount(soakBot, soakBotToken, true, 2000)
	var names []string
	for i := 1; i <= houses; i++ {
		h := fmt.Sprintf("house%d", i)
		srv.AddAccount(h, "lip_"+h, false, 1500)
		if err := srv.SetHousePlayer(h, lichesstest.HouseOptions{ThinkTime: think, Strategy: strat}); err != nil {
			t.Fatal(err)
		}
		names = append(names, h)
	}
	return srv, names
}

// feedOpts drive playGames.
type feedOpts struct {
	n, concurrency int
	params         lichesstest.ChallengeParams
	challengers    []string
	// checkpoints: after this many games are over, stop starting games,
	// wait until none runs, and call the function.
	checkpoints map[int]func(finished int)
	// onStart is called with each game started (e.g. to inject faults).
	onStart func(id string, index int)
	// gameLimit turns a game running longer than this into a failure.
	gameLimit time.Duration
	// botGames, if set, returns the games the bot still runs: no challenge
	// is sent while it runs concurrency games (one that just ended may
	// still be counted, and the bot would decline "later").
	botGames func() int
}

// playGames has the challengers challenge the bot until n games were
// played, at most concurrency at once, and returns the game ids in order.
func playGames(ctx context.Context, t testing.TB, srv *lichesstest.Server, o feedOpts) []string {
	t.Helper()
	var ids []string
	running := map[string]time.Time{}
	finished := 0
	done := map[int]bool{}
	for finished < o.n {
		if ctx.Err() != nil {
			t.Fatalf("soak: out of time with %d games over, %d running", finished, len(running))
		}
		// A checkpoint: once that many games were started and are over.
		if f := o.checkpoints[len(ids)]; f != nil && !done[len(ids)] && len(running) == 0 {
			done[len(ids)] = true
			f(finished)
		}
		// Start games up to the concurrency (none past a checkpoint not
		// reached yet).
		for len(ids) < o.n && len(running) < o.concurrency {
			if f := o.checkpoints[len(ids)]; f != nil && !done[len(ids)] {
				break
			}
			if o.botGames != nil {
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_ = srv.WaitFor(wctx, func() bool { return o.botGames() < o.concurrency })
				cancel()
			}
			from := o.challengers[len(ids)%len(o.challengers)]
			id, err := srv.Challenge(from, soakBot, o.params)
			if err != nil {
				t.Fatalf("challenge: %v", err)
			}
			_ = srv.WaitFor(ctx, func() bool {
				st, _ := srv.ChallengeStatus(id)
				return st != "created"
			})
			if st, reason := srv.ChallengeStatus(id); st != "accepted" {
				// The bot may still count a game that just ended.
				t.Logf("challenge %s %s (%s); retrying", id, st, reason)
				time.Sleep(200 * time.Millisecond)
				continue
			}
			running[id] = time.Now()
			ids = append(ids, id)
			if o.onStart != nil {
				o.onStart(id, len(ids)-1)
			}
		}
		// Wait for a game to end.
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = srv.WaitFor(wctx, func() bool {
			for id := range running {
				if g, _ := srv.Game(id); g.Finished {
					return true
				}
			}
			return false
		})
		cancel()
		for id, at := range running {
			g, _ := srv.Game(id)
			if g.Finished {
				delete(running, id)
				finished++
				continue
			}
			if o.gameLimit > 0 && time.Since(at) > o.gameLimit {
				t.Fatalf("soak: game %s runs for %v (%d plies, clock running %v, white %v, black %v): a hang?",
					id, time.Since(at).Round(time.Second), len(g.Moves), g.ClockRunning, g.WhiteTime, g.BlackTime)
			}
		}
	}
	if f := o.checkpoints[len(ids)]; f != nil && !done[len(ids)] {
		f(finished)
	}
	return ids
}

// memFigures is the process memory at one moment.
type memFigures struct {
	rssKB, hwmKB     int        // VmRSS and VmHWM after runtime.GC
	rssFreedKB       int        // VmRSS after debug.FreeOSMemory
	heapInuseMB      float64    // runtime HeapInuse: spans with any object alive, so what keeps one small object per span counts in full
	heapAllocMB      float64    // runtime HeapAlloc after GC: the objects alive
	heap             heapShares // heap in use by whose code allocated it
	goroutines       int
	gamesFinished    int
	gamesInProgress  int
	atWallClockSince time.Duration
}

func (m memFigures) String() string {
	return fmt.Sprintf("after %d games (%d running): RSS %.1f MiB after GC, %.1f MiB after FreeOSMemory; peak RSS %.1f MiB; heap in use %.1f MiB, live %.1f MiB (heap profile: daemon %.1f MiB, harness %.1f MiB, other %.1f MiB); %d goroutines",
		m.gamesFinished, m.gamesInProgress, float64(m.rssKB)/1024, float64(m.rssFreedKB)/1024, float64(m.hwmKB)/1024, m.heapInuseMB, m.heapAllocMB,
		m.heap.daemon/(1<<20), m.heap.harness/(1<<20), m.heap.other/(1<<20), m.goroutines)
}

// heapShares is the heap in use (bytes, estimated from the sampled heap
// profile as of the last GC) by whose code allocated it. The daemon and
// the fake server share the soak's process; the fake server keeps every
// game it served and the harness keeps what it checks at the end, so
// only the daemon's share says whether the bot leaks.
type heapShares struct {
	// daemon: the innermost frame of this module on the allocation's
	// stack is the daemon's code (not lichesstest, not a _test.go file).
	daemon float64
	// harness: that frame is in lichesstest or in a _test.go file (the
	// soak's feeder, wire tap and checks).
	harness float64
	// other: no frame of this module on the stack (the runtime, net/http
	// connections, stacks deeper than the profile keeps).
	other float64
}

// soakModule is the import path prefix of this module's packages.
const soakModule = "github.com/ponderosa-chess/ponderosa/"

// measureHeapShares reads the heap profile (call runtime.GC first: it
// then is as of that GC) and splits the bytes in use by heapOwner.
func measureHeapShares() heapShares {
	n, _ := runtime.MemProfile(nil, true)
	var recs []runtime.MemProfileRecord
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	rate := float64(runtime.MemProfileRate)
	var s heapShares
	for i := range recs {
		r := &recs[i]
		b := float64(r.InUseBytes())
		if b <= 0 {
			continue
		}
		// Undo the sampling as pprof does: an allocation of size x is
		// sampled with probability 1 - exp(-x/rate).
		if rate > 1 && r.AllocObjects > 0 {
			b /= 1 - math.Exp(-float64(r.AllocBytes)/float64(r.AllocObjects)/rate)
		}
		switch heapOwner(r.Stack()) {
		case "daemon":
			s.daemon += b
		case "harness":
			s.harness += b
		default:
			s.other += b
		}
	}
	return s
}

// heapOwner classifies an allocation by the innermost frame of this
// module (or of package main) on its stack: "harness" when that frame is
// lichesstest's or a _test.go file's, "daemon" otherwise, "other" when
// there is none.
func heapOwner(stack []uintptr) string {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, soakModule) || strings.HasPrefix(f.Function, "main.") {
			if strings.Contains(f.Function, "/lichesstest.") || strings.HasSuffix(f.File, "_test.go") {
				return "harness"
			}
			return "daemon"
		}
		if !more {
			return "other"
		}
	}
}

// procStatusKB returns fields of /proc/self/status in kB (0 if missing).
func procStatusKB(fields ...string) []int {
	out := make([]int, len(fields))
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		for i, f := range fields {
			if rest, ok := strings.CutPrefix(line, f+":"); ok {
				v := strings.Fields(rest)
				if len(v) > 0 {
					out[i], _ = strconv.Atoi(v[0])
				}
			}
		}
	}
	return out
}

func measureMem(finished, running int) memFigures {
	runtime.GC()
	v := procStatusKB("VmRSS", "VmHWM")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memFigures{rssKB: v[0], hwmKB: v[1], heapInuseMB: float64(ms.HeapInuse) / (1 << 20), heapAllocMB: float64(ms.HeapAlloc) / (1 << 20), heap: measureHeapShares(),
		goroutines: runtime.NumGoroutine(), gamesFinished: finished, gamesInProgress: running}
	debug.FreeOSMemory()
	m.rssFreedKB = procStatusKB("VmRSS")[0]
	if dir := os.Getenv("PONDEROSA_SOAK_HEAPPROFILE"); dir != "" {
		// Where the heap goes (the daemon and the fake server share the
		// process): go tool pprof -top -sample_index=inuse_space FILE
		if f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%03d.pprof", finished))); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			_ = f.Close()
		}
	}
	return m
}

// loadAvg is the first line of /proc/loadavg (the machine is shared).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return strings.TrimSpace(string(b))
	}
	return strings.Join(f[:3], " ")
}

// gameFacts are what the soak asserts and reports over the games played.
type gameFacts struct {
	games                 int
	wins, draws, losses   int
	aborted               int
	statuses              map[string]int
	botFlagged            []string // games the bot lost (or drew) on time
	unfinished            []string
	botTimeLeft           []time.Duration
	plies                 []int
	movePostsOK           int
	movePostsRefused      int // 4xx other than 429
	movePosts429          int
	botMoves              int
	stats                 lichesstest.Stats
	concurrentRequestsBot int
}

// gameLookup is a game by id: lichesstest.Server.Game, or the snapshots
// a soak took of its games before the server forgot them.
type gameLookup func(id string) (lichesstest.GameSnapshot, bool)

// soakMovePosts is the pattern of the move posts in the server's request
// log.
const soakMovePosts = "POST /api/bot/game/*/move/*"

// movePosts counts the bot's move posts by their answer.
type movePosts struct{ ok, refused, tooMany int }

// add counts the bot's requests among recs (move posts).
func (p *movePosts) add(recs []lichesstest.RequestRecord) {
	botID := strings.ToLower(soakBot)
	for _, r := range recs {
		if r.Account != botID {
			continue
		}
		switch {
		case r.Status == http.StatusOK:
			p.ok++
		case r.Status == http.StatusTooManyRequests:
			p.tooMany++
		default:
			p.refused++
		}
	}
}

// collectFacts reads the games and the request log of srv.
func collectFacts(srv *lichesstest.Server, ids []string) gameFacts {
	var posts movePosts
	posts.add(srv.RequestsMatching(soakMovePosts))
	return collectFactsFrom(srv.Game, ids, srv.Stats(), posts)
}

// collectFactsFrom reads the games from game, with the server's counters
// and the bot's move posts counted.
func collectFactsFrom(game gameLookup, ids []string, stats lichesstest.Stats, posts movePosts) gameFacts {
	f := gameFacts{statuses: map[string]int{}, stats: stats,
		movePostsOK: posts.ok, movePostsRefused: posts.refused, movePosts429: posts.tooMany}
	for _, id := range ids {
		g, ok := game(id)
		if !ok || !g.Finished {
			f.unfinished = append(f.unfinished, id)
			continue
		}
		f.games++
		f.statuses[g.Status]++
		botWhite := strings.EqualFold(g.White, soakBot)
		botColor, left := "black", g.BlackTime
		if botWhite {
			botColor, left = "white", g.WhiteTime
		}
		whiteFirst := !strings.Contains(g.InitialFEN, " b ")
		for i := range g.Moves {
			if moverWhite := (i%2 == 0) == whiteFirst; moverWhite == botWhite {
				f.botMoves++
			}
		}
		f.plies = append(f.plies, len(g.Moves))
		switch {
		case g.Status == "aborted":
			f.aborted++
			continue
		case g.Winner == botColor:
			f.wins++
		case g.Winner == "":
			f.draws++
		default:
			f.losses++
		}
		if g.Status == "outoftime" && g.Winner != botColor && left <= 0 {
			f.botFlagged = append(f.botFlagged, id)
		}
		f.botTimeLeft = append(f.botTimeLeft, left)
	}
	return f
}

func (f gameFacts) report(t testing.TB) {
	t.Helper()
	sort := func(d []time.Duration) []time.Duration { d = slices.Clone(d); slices.Sort(d); return d }
	tl := sort(f.botTimeLeft)
	t.Logf("games over: %d (bot +%d =%d -%d, aborted %d); statuses %v", f.games, f.wins, f.draws, f.losses, f.aborted, f.statuses)
	if len(tl) > 0 {
		t.Logf("bot's clock at the end: min %v, median %v, max %v", tl[0].Round(time.Millisecond), tl[len(tl)/2].Round(time.Millisecond), tl[len(tl)-1].Round(time.Millisecond))
	}
	if len(f.plies) > 0 {
		p := slices.Clone(f.plies)
		slices.Sort(p)
		t.Logf("plies per game: min %d, median %d, max %d", p[0], p[len(p)/2], p[len(p)-1])
	}
	t.Logf("move posts of the bot: %d accepted, %d refused, %d answered 429; bot moves in the games: %d", f.movePostsOK, f.movePostsRefused, f.movePosts429, f.botMoves)
	t.Logf("server stats: illegal/refused moves %d, cool-down violations %d, 429 answers %d, concurrent requests %d, moves played %d",
		f.stats.IllegalMoves, f.stats.CoolDownViolations, f.stats.TooManyRequests, f.stats.ConcurrentRequests, f.stats.MovesPlayed)
}

// check asserts the correctness facts (never a timing).
func (f gameFacts) check(t testing.TB, wantGames int) {
	t.Helper()
	if len(f.unfinished) > 0 {
		t.Errorf("%d games not finished: %v", len(f.unfinished), f.unfinished)
	}
	if f.games != wantGames {
		t.Errorf("%d games over, want %d", f.games, wantGames)
	}
	if len(f.botFlagged) > 0 {
		t.Errorf("the bot lost %d games on time: %v", len(f.botFlagged), f.botFlagged)
	}
	if f.aborted > 0 {
		t.Errorf("%d games aborted", f.aborted)
	}
	if f.stats.IllegalMoves != 0 || f.movePostsRefused != 0 {
		t.Errorf("%d illegal or duplicate moves (%d move posts refused)", f.stats.IllegalMoves, f.movePostsRefused)
	}
	if f.movePostsOK != f.botMoves {
		t.Errorf("%d move posts accepted for %d bot moves in the games", f.movePostsOK, f.botMoves)
	}
	if f.stats.CoolDownViolations != 0 {
		t.Errorf("%d requests inside a cool-down", f.stats.CoolDownViolations)
	}
}

// wireTap sits under the daemon's HTTP client: it times each line of the
// bot's game streams as the client reads it and each move post as the
// client sends it.
type wireTap struct {
	base http.RoundTripper

	mu     sync.Mutex
	states map[string][]stateSeen // by game
	posts  []postSeen
}

type stateSeen struct {
	at    time.Time
	moves int // moves in the state
}

type postSeen struct {
	at   time.Time
	game string
	move string
}

func newWireTap() *wireTap {
	return &wireTap{base: http.DefaultTransport, states: map[string][]stateSeen{}}
}

func (w *wireTap) RoundTrip(r *http.Request) (*http.Response, error) {
	p := r.URL.Path
	if r.Method == http.MethodPost && strings.HasPrefix(p, "/api/bot/game/") && strings.Contains(p, "/move/") {
		parts := strings.Split(p, "/") // "", api, bot, game, {id}, move, {uci}
		if len(parts) == 7 {
			w.mu.Lock()
			w.posts = append(w.posts, postSeen{at: time.Now(), game: parts[4], move: parts[6]})
			w.mu.Unlock()
		}
	}
	resp, err := w.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || !strings.HasPrefix(p, "/api/bot/game/stream/") {
		return resp, err
	}
	resp.Body = &tappedBody{ReadCloser: resp.Body, w: w, game: strings.TrimPrefix(p, "/api/bot/game/stream/")}
	return resp, nil
}

type tappedBody struct {
	io.ReadCloser
	w    *wireTap
	game string
	buf  []byte
}

func (b *tappedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		now := time.Now()
		b.buf = append(b.buf, p[:n]...)
		for {
			i := bytes.IndexByte(b.buf, '\n')
			if i < 0 {
				break
			}
			b.w.line(b.game, b.buf[:i], now)
			b.buf = b.buf[i+1:]
		}
	}
	return n, err
}

func (w *wireTap) line(game string, line []byte, at time.Time) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	var ev struct {
		Type   string `json:"type"`
		Moves  string `json:"moves"`
		Status string `json:"status"`
		State  *struct {
			Moves string `json:"moves"`
		} `json:"state"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	moves := ev.Moves
	switch ev.Type {
	case "gameFull":
		if ev.State != nil {
			moves = ev.State.Moves
		}
	case "gameState":
	default:
		return
	}
	w.mu.Lock()
	w.states[game] = append(w.states[game], stateSeen{at: at, moves: len(strings.Fields(moves))})
	w.mu.Unlock()
}

// forget drops what the tap saw of the games ids.
func (w *wireTap) forget(ids []string) {
	drop := make(map[string]bool, len(ids))
	for _, id := range ids {
		drop[id] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		delete(w.states, id)
	}
	w.posts = slices.DeleteFunc(w.posts, func(p postSeen) bool { return drop[p.game] })
}

// reaction is one move post and the state it answered.
type reaction struct {
	game  string
	plies int // moves in the state answered
	move  string
	delay time.Duration // from the state line read to the post sent
}

// reactions pairs each move post with the last state line of its game
// read before it.
func (w *wireTap) reactions() []reaction {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []reaction
	for _, p := range w.posts {
		var last *stateSeen
		for i := range w.states[p.game] {
			s := &w.states[p.game][i]
			if s.at.After(p.at) {
				break
			}
			last = s
		}
		if last == nil {
			continue
		}
		out = append(out, reaction{game: p.game, plies: last.moves, move: p.move, delay: p.at.Sub(last.at)})
	}
	return out
}

// percentile of sorted durations (q in [0, 1]).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[min(i, len(sorted)-1)]
}

// The soak's heap split counts what a _test.go file keeps alive as the
// harness's, not the daemon's.
func TestSoakHeapSharesHarness(t *testing.T) {
	kept := make([]byte, 8<<20)
	for i := range kept {
		kept[i] = byte(i)
	}
	runtime.GC()
	runtime.GC() // the heap profile may be two cycles old
	s := measureHeapShares()
	if s.harness < 8<<20 {
		t.Errorf("harness share %.1f MiB with 8 MiB kept by this test (daemon %.1f MiB, other %.1f MiB)",
			s.harness/(1<<20), s.daemon/(1<<20), s.other/(1<<20))
	}
	runtime.KeepAlive(kept)
}

// movePosts counts the bot's move posts by answer, and only the bot's;
// the wire tap forgets the games it is told to.
func TestSoakMovePostsAndTapForget(t *testing.T) {
	bot := strings.ToLower(soakBot)
	var p movePosts
	p.add([]lichesstest.RequestRecord{{Account: bot, Status: 200}, {Account: bot, Status: 429}, {Account: bot, Status: 400},
		{Account: bot, Status: 0}, {Account: "house1", Status: 200}})
	if want := (movePosts{ok: 1, tooMany: 1, refused: 2}); p != want {
		t.Errorf("movePosts %+v, want %+v", p, want)
	}
	w := newWireTap()
	now := time.Now()
	w.line("g1", []byte(`{"type":"gameState","moves":"e2e4"}`), now)
	w.line("g2", []byte(`{"type":"gameState","moves":"e2e4"}`), now)
	w.posts = []postSeen{{at: now.Add(time.Millisecond), game: "g1", move: "e7e5"}, {at: now.Add(time.Millisecond), game: "g2", move: "e7e5"}}
	w.forget([]string{"g1"})
	if r := w.reactions(); len(r) != 1 || r[0].game != "g2" || len(w.states) != 1 {
		t.Errorf("after forgetting g1: reactions %+v, states of %d games", r, len(w.states))
	}
}
