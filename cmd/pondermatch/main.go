// Command pondermatch plays in-process games between two ponder.Games, one
// thinking on the opponent's time and one not (or two pondering strategies),
// under a real clock, and prints the score and the pondering statistics.
//
// It needs no UCI front end (fastchess sends no "go ponder", so pondering
// is measured here in the Lichess way: after its move a Game ponders in the
// background until the opponent's move arrives).
//
//	go run ./cmd/pondermatch -games 20 -tc 5+0.05
//	go run ./cmd/pondermatch -openings /path/UHO_4060_v4.epd -games 300 -tc 10+0.1
//
// With -cpu-games N it measures instead how the games of one bot share the
// CPU (ponder.CPUShare): -games games, N at a time, of a pondering bot
// against a light opponent that mostly waits (-opp-time fast: 0.1–0.8 s a
// move; clock: a share of its own remaining clock, as a bot spends a 1+0
// clock on Lichess); it prints the nodes per second
// of the thinking searches (over all their time, and over the time they
// held a thread) and of the pondering searches, the waits of searches for
// a move for a thread, and the time forfeits (scripts/cpushare.sh compares
// 4 games at once with one alone):
//
//	go run ./cmd/pondermatch -cpu-games 4 -games 8 -tc 60+0 -threads-total 2
//
// Keep matches short on a shared machine: each game uses two cores while
// the pondering side thinks on the other's time.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// A few well-known opening lines (facts, written here) used when no
// -openings file is given.
var builtinOpenings = [][]string{
	{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5"},
	{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4"},
	{"d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6"},
	{"d2d4", "g8f6", "c2c4", "g7g6", "b1c3", "f8g7", "e2e4"},
	{"e2e4", "e7e6", "d2d4", "d7d5", "b1c3"},
	{"c2c4", "e7e5", "b1c3", "g8f6", "g2g3"},
	{"e2e4", "c7c6", "d2d4", "d7d5", "e4e5"},
	{"g1f3", "d7d5", "g2g3", "g8f6", "f1g2", "e7e6"},
}

type opening struct {
	fen   string
	moves []string
}

func main() {
	games := flag.Int("games", 10, "game pairs (each opening played with both colours)")
	tc := flag.String("tc", "5+0.05", "time control: seconds+increment")
	openings := flag.String("openings", "", "EPD file of start positions (default: built-in lines)")
	hash := flag.Int("hash", 16, "TT megabytes per game")
	treeMB := flag.Int("tree", 4, "tree megabytes per game")
	strategyA := flag.String("a", "predicted", "engine A pondering: predicted, opponent or off")
	strategyB := flag.String("b", "off", "engine B pondering: predicted, opponent or off")
	seed := flag.Int64("seed", 1, "opening order seed")
	maxPlies := flag.Int("maxplies", 300, "adjudicate a draw after this many plies")
	verbose := flag.Bool("v", false, "print each game")
	cpuGames := flag.Int("cpu-games", 0, "CPU-share measurement: games of one pondering bot played this many at once against a light opponent (0: a match)")
	threadsTotal := flag.Int("threads-total", runtime.NumCPU(), "CPU-share measurement: threads of all the bot's searches together")
	oppTime := flag.String("opp-time", "fast", "CPU-share measurement: the opponent's time per move: fast (0.1-0.8 s) or clock (a share of its own remaining clock, as a bot spends it)")
	flag.Parse()

	base, inc, err := parseTC(*tc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ops, err := loadOpenings(*openings)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(*seed))
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	if *cpuGames > 0 {
		opp, err := parseOppModel(*oppTime)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		cfg := shareConfig{games: *games, atOnce: *cpuGames, total: *threadsTotal, base: base, inc: inc,
			hashMB: *hash, treeMB: *treeMB, maxPlies: *maxPlies, seed: *seed, opp: opp}
		if err := runShare(cfg, ops); err != nil {
			fmt.Fprintln(os.Stderr, "cpu share:", err)
			os.Exit(1)
		}
		return
	}

	optsFor := func(s string) (ponder.Options, error) {
		o := ponder.Options{HashMB: *hash, TreeMB: *treeMB, Threads: 1, MoveOverhead: 20 * time.Millisecond}
		switch s {
		case "off":
		case "predicted":
			o.Ponder, o.Strategy = true, ponder.PonderPredicted
		case "opponent":
			o.Ponder, o.Strategy = true, ponder.PonderOpponent
		default:
			return o, fmt.Errorf("unknown strategy %q", s)
		}
		return o, nil
	}
	oa, err := optsFor(*strategyA)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ob, err := optsFor(*strategyB)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	var w, d, l int
	var statsA, statsB []ponder.GameStats
	for i := 0; i < *games; i++ {
		op := ops[i%len(ops)]
		for _, aWhite := range []bool{true, false} {
			res, reason, sa, sb, err := playGame(op, oa, ob, aWhite, base, inc, *maxPlies)
			if err != nil {
				fmt.Fprintln(os.Stderr, "game:", err)
				os.Exit(1)
			}
			switch res {
			case 1:
				w++
			case 0:
				d++
			default:
				l++
			}
			statsA, statsB = append(statsA, sa), append(statsB, sb)
			if *verbose {
				fmt.Printf("game %d (A %s): %+d (%s)  A hits %d/%d  B hits %d/%d\n", len(statsA),
					map[bool]string{true: "white", false: "black"}[aWhite], res, reason,
					sa.PonderHits, sa.Predicted, sb.PonderHits, sb.Predicted)
			}
		}
	}
	n := w + d + l
	score := (float64(w) + float64(d)/2) / float64(n)
	elo, margin := eloOf(w, d, l)
	fmt.Printf("A=%s vs B=%s, tc %s, %d games: +%d =%d -%d  score %.3f  Elo %+.1f ± %.1f (95%%)\n",
		*strategyA, *strategyB, *tc, n, w, d, l, score, elo, margin)
	summary("A", statsA)
	summary("B", statsB)
}

func parseTC(s string) (base, inc time.Duration, err error) {
	b, i, _ := strings.Cut(s, "+")
	bs, err := strconv.ParseFloat(b, 64)
	if err != nil || bs <= 0 {
		return 0, 0, fmt.Errorf("bad -tc %q: want seconds+increment", s)
	}
	is := 0.0
	if i != "" {
		if is, err = strconv.ParseFloat(i, 64); err != nil || is < 0 {
			return 0, 0, fmt.Errorf("bad -tc %q: want seconds+increment", s)
		}
	}
	return time.Duration(bs * float64(time.Second)), time.Duration(is * float64(time.Second)), nil
}

func loadOpenings(path string) ([]opening, error) {
	if path == "" {
		var ops []opening
		for _, m := range builtinOpenings {
			ops = append(ops, opening{fen: board.StartFEN, moves: m})
		}
		return ops, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	defer f.Close()
	var ops []opening
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 {
			continue
		}
		fen := strings.Join(fields[:4], " ") + " 0 1"
		if _, err := board.ParseFEN(fen); err != nil {
			continue
		}
		ops = append(ops, opening{fen: fen})
		if len(ops) >= 100000 {
			break
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("openings: no position in %s", path)
	}
	return ops, sc.Err()
}

// playGame returns +1 when A wins, 0 for a draw, -1 when A loses.
func playGame(op opening, oa, ob ponder.Options, aWhite bool, base, inc time.Duration, maxPlies int) (int, string, ponder.GameStats, ponder.GameStats, error) {
	a, b := ponder.NewGame(oa), ponder.NewGame(ob)
	defer a.Close()
	defer b.Close()
	white, black := a, b
	if !aWhite {
		white, black = b, a
	}
	pos, err := board.ParseFEN(op.fen)
	if err != nil {
		return 0, "", ponder.GameStats{}, ponder.GameStats{}, err
	}
	moves := []string{}
	for _, s := range op.moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return 0, "", ponder.GameStats{}, ponder.GameStats{}, err
		}
		pos.MakeMove(m)
		moves = append(moves, s)
	}
	clock := [2]time.Duration{base, base}
	ctx := context.Background()
	result := 0 // from white's view
	reason := ""
	for ply := 0; ; ply++ {
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			reason = "stalemate"
			if pos.InCheck() {
				reason = "checkmate"
				result = -1
				if pos.SideToMove() == board.Black {
					result = 1
				}
			}
			break
		}
		switch {
		case pos.HalfmoveClock() >= 100:
			reason = "fifty moves"
		case pos.RepetitionCount() >= 2:
			reason = "repetition"
		case pos.IsInsufficientMaterial():
			reason = "insufficient material"
		case ply >= maxPlies:
			reason = "max plies"
		}
		if reason != "" {
			break
		}
		stm := pos.SideToMove()
		g := white
		if stm == board.Black {
			g = black
		}
		if err := g.SetPosition(op.fen, false, moves); err != nil {
			return 0, "", ponder.GameStats{}, ponder.GameStats{}, err
		}
		lim := ponder.ThinkLimits{WTime: clock[board.White], BTime: clock[board.Black], WInc: inc, BInc: inc}
		start := time.Now()
		dec, err := g.Think(ctx, lim, nil)
		used := time.Since(start)
		if err != nil {
			return 0, "", ponder.GameStats{}, ponder.GameStats{}, err
		}
		clock[stm] -= used
		if clock[stm] < 0 {
			reason = "time forfeit"
			result = 1
			if stm == board.White {
				result = -1
			}
			break
		}
		clock[stm] += inc
		m, err := pos.ParseUCIMove(dec.UCI)
		if err != nil {
			return 0, "", ponder.GameStats{}, ponder.GameStats{}, fmt.Errorf("engine move %q: %w", dec.UCI, err)
		}
		pos.MakeMove(m)
		moves = append(moves, dec.UCI)
		if err := g.SetPosition(op.fen, false, moves); err != nil {
			return 0, "", ponder.GameStats{}, ponder.GameStats{}, err
		}
		g.StartPonder(ctx)
	}
	_ = a.StopPonder()
	_ = b.StopPonder()
	if !aWhite {
		result = -result
	}
	return result, reason, a.Stats(), b.Stats(), nil
}

func summary(name string, st []ponder.GameStats) {
	var moves, pred, hits, top3, atOnce, searches int
	var saved time.Duration
	var keptFrac float64
	var depth, depthAt int
	maxTree := 0
	for _, s := range st {
		moves += s.Moves
		pred += s.Predicted
		hits += s.PonderHits
		top3 += s.PonderTop3
		atOnce += s.AtOnce
		searches += s.SearchesStarted
		saved += s.TimeSaved
		keptFrac += s.MeanKeptFrac * float64(s.Moves)
		maxTree = max(maxTree, s.MaxTreeNodes)
		for _, m := range s.PerMove {
			depth += m.Depth
			depthAt += m.DepthAtMove
		}
	}
	if moves == 0 {
		return
	}
	fmt.Printf("%s: %d moves, predicted %d, hits %d (%.1f%%), top3 %d (%.1f%%), at once %d, searches %d, "+
		"time saved %v (%.0f ms/move), kept fraction %.2f, mean depth %.2f, depth on arrival %.2f, max tree %d nodes (%d KiB)\n",
		name, moves, pred, hits, pct(hits, pred), top3, pct(top3, pred), atOnce, searches, saved.Round(time.Millisecond),
		float64(saved.Milliseconds())/float64(moves), keptFrac/float64(moves), float64(depth)/float64(moves),
		float64(depthAt)/float64(moves), maxTree, maxTree*ponder.NodeBytes/1024)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// eloOf returns the logistic Elo difference and its 95% margin from a
// trinomial score.
func eloOf(w, d, l int) (float64, float64) {
	n := float64(w + d + l)
	if n == 0 {
		return 0, 0
	}
	s := (float64(w) + float64(d)/2) / n
	dev := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	se := math.Sqrt(dev / n)
	elo := func(p float64) float64 {
		p = min(max(p, 1e-6), 1-1e-6)
		return -400 * math.Log10(1/p-1)
	}
	return elo(s), (elo(s+1.96*se) - elo(s-1.96*se)) / 2
}
