package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

// runMatch plays the built-in weights against the hand-set starting
// weights (or a weights.go file) with the bootstrap player, in pairs of games from the same
// random opening with colours swapped, and prints the score.
func runMatch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	pairs := fs.Int("pairs", 100, "game pairs (each opening played with both colours)")
	depth := fs.Int("depth", 3, "bootstrap search depth")
	workers := fs.Int("workers", 1, "games at once")
	randomPlies := fs.Int("random-plies", 8, "random opening plies")
	seed := fs.Uint64("seed", 5, "random seed for the openings")
	against := fs.String("against", "", "weights.go file to play against (default: the hand-set starting weights)")
	binA := fs.String("a", "", "with -b: play two `tune` binaries (each with its own built-in weights) with the real search instead")
	binB := fs.String("b", "", "second binary for -a")
	nodes := fs.Uint64("nodes", 5000, "with -a/-b: search nodes per move")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, b := eval.DefaultWeights(), eval.StartingWeights()
	other := "start"
	if *against != "" {
		f, err := os.Open(*against)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		wb, err := eval.ReadGo(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("match: %s: %w", *against, err)
		}
		b, other = *wb, *against
	}
	opts := tune.DefaultGameOptions()
	opts.RandomPlies = *randomPlies
	var mu sync.Mutex
	var score float64
	var w, d, l, next int
	if (*binA == "") != (*binB == "") {
		return fmt.Errorf("match: give both -a and -b, or neither")
	}
	if *binA != "" {
		other = *binB
	}
	var wg sync.WaitGroup
	errc := make(chan error, *workers)
	for wk := 0; wk < *workers; wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pa, pb tune.Player = tune.NewBootstrapWith(*depth, &a), tune.NewBootstrapWith(*depth, &b)
			if *binA != "" {
				ppa, err := startProc(*binA, *nodes)
				if err != nil {
					errc <- err
					return
				}
				defer ppa.Close()
				ppb, err := startProc(*binB, *nodes)
				if err != nil {
					errc <- err
					return
				}
				defer ppb.Close()
				pa, pb = ppa, ppb
			}
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= *pairs || ctx.Err() != nil {
					return
				}
				start, _ := board.ParseFEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
				for colour := 0; colour < 2; colour++ {
					// Same seed for both games of a pair: same random opening.
					rng := rand.New(rand.NewPCG(*seed, uint64(i)))
					white, black := tune.Player(pa), tune.Player(pb)
					if colour == 1 {
						white, black = pb, pa
					}
					for _, pl := range []tune.Player{pa, pb} {
						if ng, ok := pl.(interface{ NewGame() }); ok {
							ng.NewGame()
						}
					}
					g, err := tune.PlayGame(ctx, start, white, black, rng, opts)
					if err != nil {
						errc <- err
						return
					}
					res := g.Result
					if colour == 1 {
						res = 1 - res
					}
					mu.Lock()
					score += res
					switch res {
					case 1:
						w++
					case 0:
						l++
					default:
						d++
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	n := float64(w + d + l)
	if n == 0 {
		return fmt.Errorf("match: no games played")
	}
	frac := score / n
	elo := math.NaN()
	if frac > 0 && frac < 1 {
		elo = -400 * math.Log10(1/frac-1)
	}
	how := fmt.Sprintf("bootstrap depth %d", *depth)
	me := "builtin"
	if *binA != "" {
		how = fmt.Sprintf("search %d nodes", *nodes)
		me = *binA
	}
	fmt.Fprintf(os.Stdout, "%s vs %s, %s: +%d =%d -%d, score %.3f, Elo %+.0f\n", me, other, how, w, d, l, frac, elo)
	return nil
}
