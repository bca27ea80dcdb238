package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

func runGen(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	out := fs.String("out", "", "file to append \"FEN;result;score\" lines to (required; score: the search's, White's view)")
	games := fs.Int("games", 100, "number of games")
	workers := fs.Int("workers", 1, "games played at once")
	player := fs.String("player", "search", "move chooser: search (engine/search) or bootstrap (small alpha-beta inside the tuner)")
	depth := fs.Int("depth", 0, "search depth limit in plies (bootstrap: default 2)")
	nodes := fs.Uint64("nodes", 5000, "search player: node limit per move")
	hash := fs.Int("hash", 16, "search player: hash size in MB")
	randomPlies := fs.Int("random-plies", 8, "random legal moves at the start of each game")
	openings := fs.String("openings", "", "optional file of start FENs/EPDs, one a line (random plies are played after)")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	starts := []string{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}
	if *openings != "" {
		var err error
		starts, err = tune.ReadStarts(*openings)
		if err != nil {
			return err
		}
	}
	newPlayer := func() (tune.Player, error) {
		switch *player {
		case "bootstrap":
			d := *depth
			if d == 0 {
				d = 2
			}
			return tune.NewBootstrap(d), nil
		case "search":
			return tune.NewSearchPlayer(*nodes, *depth, *hash), nil
		}
		return nil, fmt.Errorf("gen: unknown -player %q", *player)
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("gen: open output: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)

	var mu sync.Mutex
	next, done, positions := 0, 0, 0
	var wins, draws, losses int
	reasons := map[string]int{}
	begin := time.Now()
	errc := make(chan error, *workers)
	var wg sync.WaitGroup
	for wk := 0; wk < *workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(*seed, uint64(wk)+1000))
			pl, err := newPlayer()
			if err != nil {
				errc <- err
				return
			}
			opts := tune.DefaultGameOptions()
			opts.RandomPlies = *randomPlies
			opts.SkipFirst = *randomPlies + 4
			for {
				mu.Lock()
				if next >= *games || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				start, err := board.ParseFEN(starts[rng.IntN(len(starts))])
				if err != nil {
					errc <- fmt.Errorf("gen: start position: %w", err)
					return
				}
				if ng, ok := pl.(interface{ NewGame() }); ok {
					ng.NewGame()
				}
				g, err := tune.PlayGame(ctx, start, pl, pl, rng, opts)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					errc <- err
					return
				}
				mu.Lock()
				for i, fen := range g.FENs {
					fmt.Fprintf(w, "%s;%.1f;%d\n", fen, g.Result, g.Scores[i])
				}
				positions += len(g.FENs)
				done++
				switch g.Result {
				case 1:
					wins++
				case 0:
					losses++
				default:
					draws++
				}
				reasons[g.Reason]++
				if done%10 == 0 || done == *games {
					w.Flush()
					fmt.Fprintf(os.Stderr, "gen: %d games (+%d =%d -%d), %d positions, %s\n",
						done, wins, draws, losses, positions, time.Since(begin).Round(time.Second))
				}
				mu.Unlock()
			}
		}(wk)
	}
	wg.Wait()
	close(errc)
	if err := w.Flush(); err != nil {
		return fmt.Errorf("gen: write output: %w", err)
	}
	fmt.Fprintf(os.Stderr, "gen: done: %d games (+%d =%d -%d), %d positions, endings %v, %s\n",
		done, wins, draws, losses, positions, reasons, time.Since(begin).Round(time.Second))
	return <-errc
}
