// Command learnspeed measures the learning memory (issue 13): how much
// faster ponderosa reaches the same depth when it meets a line again.
//
// It plays game 1 from an opening (a FEN and a short line of moves;
// by default the start position and a Ruy Lopez) between "us", ponderosa
// with a learning memory (UCI option LearnFile, a new file), and a fixed
// opponent, ponderosa without a memory searching a fixed number of nodes
// on one thread, so that it answers the same position the same way. We
// search each move to a fixed depth (go depth D) and the tool records the
// time of the info line that completes depth D (the search's own "time",
// and the wall time from "go" to that line). Then "ucinewgame" to both
// and game 2 on the same line with the same memory file, and so on for
// -games games. Each game k is compared with game 1: the positions our
// side searched in both at the same ply, their times, the median and the
// total ratio of time k to time 1, and where the games diverged (the
// memory may change our move; the opponent's moves should not change).
// The last line, SUMMARY, says whether game 2 took at most half the time
// of game 1. With -baseline a game 0 with LearnFile off comes first, and
// every game is compared with it too.
//
// With -movetime MS (instead of -depth) our moves are timed, as in a real
// game: game 1 records, per position, the depth its search completed and
// when it got there; game k is timed to the first iteration of that depth
// or more in the same position (the memory's known result, taken right
// after depth 1, or a depth searched), or counts it "not reached". That is
// what the memory saves in a game, where its known depth stands as
// completed and the search goes on deeper; with -depth the search must
// still search the limit's own depth itself.
//
// Both engines speak UCI text: in this process by default (the uci
// package's Server over an EngineBackend, what `ponderosa uci` runs), or
// the program given by -engine, started as "PROGRAM uci".
//
//	go run ./cmd/learnspeed                       # 2 games, depth 18, 12 moves each
//	go run ./cmd/learnspeed -games 3 -depth 16 -moves 8 -baseline
//	go run ./cmd/learnspeed -engine ./ponderosa -line "d2d4 d7d5 c2c4 e7e6"
//	go run ./cmd/learnspeed -movetime 1000 -baseline  # timed moves
//
// The memory records a search of depth 8 or more (ponder.DefaultLearnMinDepth):
// -depth must be at least that, and -movetime long enough to get there. See docs/learn-speed.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// defaultLine is the opening line played from the start position when
// -line is not given: the Ruy Lopez's first moves.
const defaultLine = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"

// config is what the flags say.
type config struct {
	depth    int
	movetime int // our moves' milliseconds (go movetime): the timed mode; 0: go depth
	games    int
	moves    int
	oppNodes int64
	hashMB   int
	fen      string
	line     []string
	us       board.Color
	learn    string // the memory file ("": a new one in a temporary directory)
	engine   string // the program ("": in this process)
	want     float64
	baseline bool // a game 0 without the memory first
}

func main() {
	var c config
	var line, us string
	flag.IntVar(&c.depth, "depth", 18, "the depth our side searches each move to (go depth); at least the memory's recording depth, 8")
	flag.IntVar(&c.games, "games", 2, "games on the same line (each compared with game 1)")
	flag.IntVar(&c.moves, "moves", 12, "our moves per game")
	flag.Int64Var(&c.oppNodes, "opp-nodes", 20000, "the opponent's nodes per move (go nodes)")
	flag.IntVar(&c.hashMB, "hash", 64, "hash table megabytes of each engine")
	flag.StringVar(&c.fen, "fen", board.StartFEN, "the opening's position")
	flag.StringVar(&line, "line", defaultLine, "the opening's moves from -fen (UCI, space-separated; \"\" for none)")
	flag.StringVar(&us, "us", "white", "our side: white or black")
	flag.StringVar(&c.learn, "learn", "", "the learning memory's file, which must not exist (default: a new file in a temporary directory, removed at the end)")
	flag.StringVar(&c.engine, "engine", "", "a ponderosa program to run as \"PROGRAM uci\" for both sides (default: the engine of this build, in this process)")
	flag.Float64Var(&c.want, "want", 0.5, "the time ratio (game 2 over game 1) the SUMMARY line checks")
	flag.BoolVar(&c.baseline, "baseline", false, "first play a game 0 with LearnFile off, and compare every game with it too")
	flag.IntVar(&c.movetime, "movetime", 0, "instead of -depth: our moves are \"go movetime MS\", and game k is timed to the depth game 1 completed in each position")
	flag.Parse()
	depthSet := false
	flag.Visit(func(f *flag.Flag) { depthSet = depthSet || f.Name == "depth" })
	if depthSet && c.movetime != 0 {
		fmt.Fprintln(os.Stderr, "learnspeed: -depth and -movetime exclude each other")
		os.Exit(2)
	}
	c.line = strings.Fields(line)
	switch us {
	case "white":
		c.us = board.White
	case "black":
		c.us = board.Black
	default:
		fmt.Fprintf(os.Stderr, "learnspeed: -us %q: want white or black\n", us)
		os.Exit(2)
	}
	if c.movetime < 0 || (c.movetime == 0 && c.depth < ponder.DefaultLearnMinDepth) || c.games < 2 || c.moves < 1 || c.oppNodes < 1 || c.hashMB < 1 {
		fmt.Fprintf(os.Stderr, "learnspeed: want -depth ≥ %d (the memory records no shallower search) or -movetime ≥ 1, -games ≥ 2, -moves, -opp-nodes and -hash ≥ 1\n",
			ponder.DefaultLearnMinDepth)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "learnspeed:", err)
		os.Exit(1)
	}
}

// run plays the games and prints the comparison.
func run(ctx context.Context, c config, out io.Writer) (err error) {
	start, err := board.ParseFEN(c.fen)
	if err != nil {
		return fmt.Errorf("-fen: %w", err)
	}
	p := start.Clone()
	for _, s := range c.line {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			return fmt.Errorf("-line: move %q: %w", s, err)
		}
		p.MakeMove(m)
	}
	if c.learn == "" {
		dir, err := os.MkdirTemp("", "learnspeed-")
		if err != nil {
			return fmt.Errorf("a directory for the learning memory: %w", err)
		}
		defer os.RemoveAll(dir)
		c.learn = filepath.Join(dir, "learn.db")
	} else if _, err := os.Stat(c.learn); err == nil {
		return fmt.Errorf("-learn %s exists: game 1 must start from an empty memory; remove it or name another", c.learn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	launch := func(name string) (*uciEngine, error) {
		if c.engine == "" {
			return startInProcess(ctx, name), nil
		}
		return startProgram(ctx, name, c.engine)
	}
	us, err := launch("us")
	if err != nil {
		return err
	}
	usOpen := true
	defer func() {
		if usOpen {
			err = errors.Join(err, us.close())
		}
	}()
	opp, err := launch("opponent")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, opp.close()) }()
	hash := fmt.Sprint(c.hashMB)
	if err := us.setup(ctx, [][2]string{{uci.OptHash, hash}, {uci.OptThreads, "1"}}); err != nil {
		return fmt.Errorf("setting up our engine: %w", err)
	}
	if err := opp.setup(ctx, [][2]string{{uci.OptHash, hash}, {uci.OptThreads, "1"}}); err != nil {
		return fmt.Errorf("setting up the opponent: %w", err)
	}
	where := "in this process"
	if c.engine != "" {
		where = c.engine
	}
	fmt.Fprintf(out, "learnspeed: us (%s, LearnFile %s) %s, %s; opponent go nodes %d; hash %d MB, 1 thread each\n",
		where, c.learn, colorName(c.us), c.goCommand(), c.oppNodes, c.hashMB)
	if c.movetime > 0 {
		fmt.Fprintf(out, "timed: game k is timed to the depth game 1 completed in the same position; the memory records searches of depth %d or more\n",
			ponder.DefaultLearnMinDepth)
	}
	if c.baseline {
		fmt.Fprintln(out, "game 0: LearnFile off (the baseline)")
	}
	fmt.Fprintf(out, "opening: %s moves %s; %d games of %d moves of ours\n", c.fen, strings.Join(c.line, " "), c.games, c.moves)

	var game0 *gameRecord
	if c.baseline {
		if err := us.newGame(ctx); err != nil {
			return err
		}
		if err := opp.newGame(ctx); err != nil {
			return err
		}
		g, err := playGame(ctx, us, opp, c, 0, out)
		if err != nil {
			return fmt.Errorf("game 0 (no memory): %w", err)
		}
		game0 = &g
	}
	if err := us.send("setoption name " + uci.OptLearnFile + " value " + c.learn); err != nil {
		return err
	}
	if err := us.ready(ctx); err != nil {
		return fmt.Errorf("setting LearnFile %s: %w", c.learn, err)
	}
	var games []gameRecord
	for k := 1; k <= c.games; k++ {
		if err := us.newGame(ctx); err != nil {
			return err
		}
		if err := opp.newGame(ctx); err != nil {
			return err
		}
		if k > 1 {
			// ucinewgame waited for game k-1's searches to be handed to
			// the memory; its writer may still be at them.
			if err := reportMemory(ctx, out, fmt.Sprintf("before game %d", k), c.learn, games[0], c.recordDepth()); err != nil {
				return err
			}
		}
		g, err := playGame(ctx, us, opp, c, k, out)
		if err != nil {
			return fmt.Errorf("game %d: %w", k, err)
		}
		games = append(games, g)
	}
	usOpen = false
	if err := us.close(); err != nil {
		return err
	}
	if err := reportMemory(ctx, out, "at the end", c.learn, games[0], c.recordDepth()); err != nil {
		return err
	}

	ours := func(ply int) bool { return (start.SideToMove() == c.us) == (ply%2 == 0) }
	if c.movetime > 0 {
		summarizeTimed(out, c, game0, games, ours)
		return nil
	}
	var summary []string
	halved := "n/a (no position in common)"
	for k := 2; k <= len(games); k++ {
		cmp := compare(games[0], games[k-1], c.depth, ours)
		printComparison(out, 1, k, c.depth, games[k-1], cmp)
		s := fmt.Sprintf("game %d/1 median %.2f total %.2f (nodes %.2f) over %d positions", k, cmp.MedianRatio, cmp.TotalRatio,
			cmp.NodesRatio, len(cmp.Pairs))
		if cmp.DivergedPly >= 0 {
			s += fmt.Sprintf(" (diverged at ply %d, %s)", cmp.DivergedPly, whose(cmp.DivergedOurs))
		}
		summary = append(summary, s)
		if k == 2 && len(cmp.Pairs) > 0 {
			halved = fmt.Sprintf("total %s, median %s", yesNo(cmp.TotalRatio <= c.want), yesNo(cmp.MedianRatio <= c.want))
		}
	}
	if game0 != nil {
		var against []string
		for k := 1; k <= len(games); k++ {
			cmp := compare(*game0, games[k-1], c.depth, ours)
			printComparison(out, 0, k, c.depth, games[k-1], cmp)
			against = append(against, fmt.Sprintf("game %d/0 median %.2f total %.2f (nodes %.2f) over %d", k, cmp.MedianRatio,
				cmp.TotalRatio, cmp.NodesRatio, len(cmp.Pairs)))
		}
		summary = append(summary, "against no memory: "+strings.Join(against, ", "))
	}
	fmt.Fprintf(out, "SUMMARY learnspeed depth %d, %d moves: %s; game 2 at most %.2f of game 1's time: %s\n",
		c.depth, c.moves, strings.Join(summary, "; "), c.want, halved)
	return nil
}

// playGame plays game k: the opening line, then our searches (go depth)
// and the opponent's (go nodes) until we made c.moves moves or the game
// ended.
func playGame(ctx context.Context, us, opp *uciEngine, c config, k int, out io.Writer) (gameRecord, error) {
	pos, err := board.ParseFEN(c.fen)
	if err != nil {
		return gameRecord{}, err
	}
	var g gameRecord
	for _, s := range c.line {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return g, fmt.Errorf("-line: %w", err)
		}
		pos.MakeMove(m)
		g.Moves = append(g.Moves, s)
	}
	for {
		if g.End = gameEnd(pos); g.End != "" {
			break
		}
		if len(g.Ours) >= c.moves {
			g.End = "move limit"
			break
		}
		ply := len(g.Moves)
		if pos.SideToMove() == c.us {
			s, err := us.search(ctx, c.fen, g.Moves, c.goCommand(), c.recordDepth())
			if err != nil {
				return g, err
			}
			o := ourMove{Ply: ply, FEN: pos.FEN(), Key: pos.Key(), Move: s.best, Depth: s.depth, Time: s.time,
				Wall: s.wall, Nodes: s.nodes, Score: s.score, Iters: s.iters, EndTime: s.endTime, EndWall: s.endWall, EndNodes: s.endNodes}
			if c.movetime > 0 {
				// The depth it completed, and when it got there (not the
				// decision's last line of that depth).
				if n := len(s.iters); n > 0 {
					it := s.iters[n-1]
					o.Depth, o.Time, o.Wall, o.Nodes = it.Depth, it.Time, it.Wall, it.Nodes
				}
				jump := ""
				for _, it := range s.iters {
					if it.Jump {
						jump = fmt.Sprintf("  memory: depth %d after depth 1", it.Depth)
					}
				}
				fmt.Fprintf(out, "game %d ply %3d  us %-6s depth %2d  at time %6d ms  wall %6d ms  nodes %9d  (search %d ms, %d nodes)  %s%s\n",
					k, ply, s.best, o.Depth, o.Time.Milliseconds(), o.Wall.Milliseconds(), o.Nodes, s.endTime.Milliseconds(), s.endNodes, s.score, jump)
			} else {
				fmt.Fprintf(out, "game %d ply %3d  us %-6s depth %2d  time %6d ms  wall %6d ms  nodes %9d  %s\n",
					k, ply, s.best, s.depth, s.time.Milliseconds(), s.wall.Milliseconds(), s.nodes, s.score)
			}
			g.Ours = append(g.Ours, o)
			if err := play(pos, &g, s.best); err != nil {
				return g, fmt.Errorf("our move: %w", err)
			}
			continue
		}
		s, err := opp.search(ctx, c.fen, g.Moves, fmt.Sprintf("go nodes %d", c.oppNodes), 0)
		if err != nil {
			return g, err
		}
		if err := play(pos, &g, s.best); err != nil {
			return g, fmt.Errorf("the opponent's move: %w", err)
		}
	}
	fmt.Fprintf(out, "game %d: %d moves of ours, stopped: %s; moves %s\n", k, len(g.Ours), g.End, strings.Join(g.Moves, " "))
	if n := len(g.Ours); n > 0 && lostScore(g.Ours[n-1].Score) {
		fmt.Fprintf(out, "game %d: our last score is %s: at ucinewgame the engine counts the game lost and halves the depth of what it recorded (see LearnFile); a shorter -moves avoids that\n",
			k, g.Ours[n-1].Score)
	}
	return g, nil
}

// play makes the move s in pos and adds it to g.
func play(pos *board.Position, g *gameRecord, s string) error {
	m, err := pos.ParseUCIMove(s)
	if err != nil {
		return fmt.Errorf("move %q at ply %d: %w", s, len(g.Moves), err)
	}
	pos.MakeMove(m)
	g.Moves = append(g.Moves, s)
	return nil
}

// gameEnd is why the game in pos is over ("" when it is not).
func gameEnd(pos *board.Position) string {
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	switch {
	case ml.N == 0 && pos.InCheck():
		return "checkmate"
	case ml.N == 0:
		return "stalemate"
	case pos.HalfmoveClock() >= 100:
		return "fifty moves"
	case pos.RepetitionCount() >= 2:
		return "repetition"
	case pos.IsInsufficientMaterial():
		return "insufficient material"
	}
	return ""
}

// lostScore reports whether a score line ("cp -512", "mate -3") is one
// the UCI front end judges a lost game by (uci.LearnLossCP).
func lostScore(s string) bool {
	var v int
	if _, err := fmt.Sscanf(s, "mate %d", &v); err == nil {
		return v < 0
	}
	if _, err := fmt.Sscanf(s, "cp %d", &v); err == nil {
		return v <= -uci.LearnLossCP
	}
	return false
}

// reportMemory prints what the memory file holds: its entries, and how
// many of game 1's positions of ours it knows (to depth or more; depth 0:
// to the depth game 1 completed there or more, the timed mode), for this
// build's evaluation. The engine's writer may still be
// writing: the count is read until it stays the same for half a second
// (at most five seconds).
func reportMemory(ctx context.Context, out io.Writer, when, path string, g1 gameRecord, depth int) error {
	n, err := settledCount(ctx, path)
	if err != nil {
		return err
	}
	m, err := store.OpenMemory(path, store.MemoryOptions{})
	if err != nil {
		return fmt.Errorf("reading the learning memory: %w", err)
	}
	defer m.Close()
	var keys []uint64
	for _, o := range g1.Ours {
		keys = append(keys, o.Key)
	}
	got, err := m.Lookup(search.EvalID(nil), keys)
	if err != nil {
		return fmt.Errorf("reading the learning memory: %w", err)
	}
	want := make(map[uint64]int, len(g1.Ours))
	for _, o := range g1.Ours {
		want[o.Key] = max(want[o.Key], o.Depth)
		if depth > 0 {
			want[o.Key] = depth
		}
	}
	deep := 0
	for _, e := range got {
		if e.Depth >= want[e.Key] {
			deep++
		}
	}
	to := fmt.Sprintf("depth %d", depth)
	if depth == 0 {
		to = "game 1's depth there"
	}
	fmt.Fprintf(out, "memory %s: %d entries; game 1's %d positions of ours: %d known, %d to %s or more (this build's evaluation)\n",
		when, n, len(keys), len(got), deep, to)
	if n == 0 {
		fmt.Fprintln(out, "memory: EMPTY: nothing was recorded, the comparison measures no memory")
	}
	return nil
}

// settledCount is the entries of the memory file once the count stays the
// same for half a second (at most five seconds).
func settledCount(ctx context.Context, path string) (int, error) {
	m, err := store.OpenMemory(path, store.MemoryOptions{})
	if err != nil {
		return 0, fmt.Errorf("reading the learning memory: %w", err)
	}
	defer m.Close()
	last, same := -1, 0
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := m.Count(ctx, "")
		if err != nil {
			return 0, err
		}
		if n == last {
			same++
		} else {
			last, same = n, 0
		}
		if same >= 5 || time.Now().After(deadline) {
			return n, nil
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// printComparison prints game k against game base, position by
// position.
func printComparison(out io.Writer, base, k, depth int, gk gameRecord, c comparison) {
	fmt.Fprintf(out, "== game %d against game %d: time to depth %d of the positions our side met in both at the same ply\n", k, base, depth)
	fmt.Fprintf(out, "%4s  %-6s %-6s %8s %8s %6s %8s %8s %10s %10s  %s\n",
		"ply", fmt.Sprintf("move%d", base), fmt.Sprintf("move%d", k), fmt.Sprintf("ms %d", base), fmt.Sprintf("ms %d", k), "ratio",
		fmt.Sprintf("wall %d", base), fmt.Sprintf("wall %d", k), fmt.Sprintf("nodes %d", base), fmt.Sprintf("nodes %d", k), "position")
	for _, p := range c.Pairs {
		r := "-"
		if p.Time1 > 0 {
			r = fmt.Sprintf("%.2f", float64(p.TimeK)/float64(p.Time1))
		}
		fmt.Fprintf(out, "%4d  %-6s %-6s %8d %8d %6s %8d %8d %10d %10d  %s\n", p.Ply, p.Move1, p.MoveK,
			p.Time1.Milliseconds(), p.TimeK.Milliseconds(), r, p.Wall1.Milliseconds(), p.WallK.Milliseconds(),
			p.Nodes1, p.NodesK, p.FEN)
	}
	printDivergence(out, c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK, k, base, "the memory changed our choice")
	fmt.Fprintf(out, "positions in common: %d of game %d's %d searches (%d more short of depth %d in either game, %d not met in game %d)\n",
		len(c.Pairs), k, len(gk.Ours), c.Shallow, depth, c.Unmatched, base)
	if len(c.Pairs) > 0 {
		fmt.Fprintf(out, "game %d / game %d: time median ratio %.2f, total %.2f (%.3f s against %.3f s); wall total %.2f; nodes total %.2f\n",
			k, base, c.MedianRatio, c.TotalRatio, c.TimeKSum.Seconds(), c.Time1Sum.Seconds(), c.WallRatio, c.NodesRatio)
	}
}

// goCommand is our searches' go command.
func (c config) goCommand() string {
	if c.movetime > 0 {
		return fmt.Sprintf("go movetime %d", c.movetime)
	}
	return fmt.Sprintf("go depth %d", c.depth)
}

// recordDepth is the depth whose completion a search of ours is timed to
// (0 in the timed mode: the last completed iteration).
func (c config) recordDepth() int {
	if c.movetime > 0 {
		return 0
	}
	return c.depth
}

// summarizeTimed prints the timed mode's comparisons and its SUMMARY
// line: each game k against game 1 (and against game 0 with -baseline).
func summarizeTimed(out io.Writer, c config, game0 *gameRecord, games []gameRecord, ours func(ply int) bool) {
	var summary []string
	halved := "n/a (no position in common)"
	for k := 2; k <= len(games); k++ {
		cmp := compareTimed(games[0], games[k-1], ours)
		printTimedComparison(out, 1, k, games[k-1], cmp)
		s := cmp.Figures(k, 1)
		if cmp.DivergedPly >= 0 {
			s += fmt.Sprintf(" (diverged at ply %d, %s)", cmp.DivergedPly, whose(cmp.DivergedOurs))
		}
		summary = append(summary, s)
		if k == 2 && len(cmp.Pairs) > 0 {
			total, med := cmp.Verdicts(c.want)
			halved = fmt.Sprintf("total %s, median %s", total, med)
		}
	}
	if game0 != nil {
		var against []string
		for k := 1; k <= len(games); k++ {
			cmp := compareTimed(*game0, games[k-1], ours)
			printTimedComparison(out, 0, k, games[k-1], cmp)
			against = append(against, cmp.Figures(k, 0))
		}
		summary = append(summary, "against no memory: "+strings.Join(against, ", "))
	}
	fmt.Fprintf(out, "SUMMARY learnspeed movetime %d, %d moves: %s; game 2 at most %.2f of game 1's time to its depth: %s\n",
		c.movetime, c.moves, strings.Join(summary, "; "), c.want, halved)
}

// printTimedComparison prints game k against game base in the timed
// mode, position by position.
func printTimedComparison(out io.Writer, base, k int, gk gameRecord, c timedComparison) {
	fmt.Fprintf(out, "== game %d against game %d: time to the depth game %d completed, in the positions our side met in both at the same ply\n", k, base, base)
	fmt.Fprintf(out, "%4s  %-6s %-6s %5s %8s %8s %6s %8s %8s %10s %10s  %-28s %s\n",
		"ply", fmt.Sprintf("move%d", base), fmt.Sprintf("move%d", k), "depth", fmt.Sprintf("ms %d", base), fmt.Sprintf("ms %d", k), "ratio",
		fmt.Sprintf("wall %d", base), fmt.Sprintf("wall %d", k), fmt.Sprintf("nodes %d", base), fmt.Sprintf("nodes %d", k), "how", "position")
	for _, p := range c.Pairs {
		r := "-"
		if p.Time1 > 0 {
			r = atLeast(float64(p.TimeK)/float64(p.Time1), !p.Reached)
		}
		var how []string
		if p.Known1 {
			how = append(how, fmt.Sprintf("game %d: memory", base))
		}
		switch {
		case !p.Reached:
			how = append(how, fmt.Sprintf("not reached (to %d)", p.DepthK))
		case p.KnownK:
			how = append(how, fmt.Sprintf("memory (depth %d)", p.JumpK))
		case p.JumpK > 0:
			how = append(how, fmt.Sprintf("searched after memory %d", p.JumpK))
		}
		h := strings.Join(how, ", ")
		if h == "" {
			h = "searched"
		}
		fmt.Fprintf(out, "%4d  %-6s %-6s %5d %8d %8d %6s %8d %8d %10d %10d  %-28s %s\n", p.Ply, p.Move1, p.MoveK, p.Depth,
			p.Time1.Milliseconds(), p.TimeK.Milliseconds(), r, p.Wall1.Milliseconds(), p.WallK.Milliseconds(),
			p.Nodes1, p.NodesK, h, p.FEN)
	}
	printDivergence(out, c.DivergedPly, c.DivergedOurs, c.Move1, c.MoveK, k, base, "the memory, or the clock, changed our choice")
	fmt.Fprintf(out, "positions in common: %d of game %d's %d searches (%d not met in game %d); game %d reached game %d's depth through the memory in %d, by searching in %d, not at all in %d; game %d's own depth was the memory's in %d\n",
		len(c.Pairs), k, len(gk.Ours), c.Unmatched, base, k, base, c.AnsweredK, len(c.Pairs)-c.AnsweredK-c.NotReached, c.NotReached, base, c.Answered1)
	if len(c.Pairs) > 0 {
		lb := c.NotReached > 0
		fmt.Fprintf(out, "game %d / game %d: time median ratio %s, total %s (%.3f s against %.3f s); wall total %s; nodes total %s",
			k, base, atLeast(c.MedianRatio, lb), atLeast(c.TotalRatio, lb), c.TimeKSum.Seconds(), c.Time1Sum.Seconds(),
			atLeast(c.WallRatio, lb), atLeast(c.NodesRatio, lb))
		if lb {
			fmt.Fprint(out, " (≥: a position not reached counts its whole search, less than its time to the depth)")
		}
		fmt.Fprintln(out)
	}
}

func colorName(c board.Color) string {
	if c == board.White {
		return "white"
	}
	return "black"
}

func whose(ours bool) string {
	if ours {
		return "ours"
	}
	return "the opponent's"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// printDivergence tells where game k left game base's line (ply < 0: it
// did not), and why when the move was ours (why).
func printDivergence(out io.Writer, ply int, ours bool, move1, moveK string, k, base int, why string) {
	switch {
	case ply < 0:
		fmt.Fprintf(out, "the games did not diverge: game %d played game %d's moves\n", k, base)
	case ours:
		fmt.Fprintf(out, "diverged at ply %d, our move: game %d %s, game %d %s (%s)\n", ply, base, move1, k, moveK, why)
	default:
		fmt.Fprintf(out, "diverged at ply %d, the opponent's move: game %d %s, game %d %s (its search was not repeated exactly)\n",
			ply, base, move1, k, moveK)
	}
}
