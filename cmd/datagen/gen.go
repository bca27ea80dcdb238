package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

// genConfig is what one gen run does.
type genConfig struct {
	out              string
	games, positions uint64 // targets for the whole file; 0: none
	threads          int
	nodes            uint64
	depth, hashMB    int
	opts             tune.GameOptions
	starts           []string
	seed             uint64
	progress         time.Duration
	stderr           io.Writer
	onCommit         func(nnuedata.Header) // tests: called after each committed game, under the lock
}

// fingerprint covers every setting that changes the data (not -threads, the
// targets or -progress): a file is only continued with the same ones.
func (c *genConfig) fingerprint() uint32 {
	ho := fnv.New64a()
	for _, s := range c.starts {
		ho.Write([]byte(s))
		ho.Write([]byte{'\n'})
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "datagen 1 nodes=%d depth=%d hash=%d seed=%d opts=%+v openings=%x",
		c.nodes, c.depth, c.hashMB, c.seed, c.opts, ho.Sum64())
	return h.Sum32()
}

func runGen(ctx context.Context, args []string, stderr io.Writer, onCommit func(nnuedata.Header)) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := genConfig{stderr: stderr, onCommit: onCommit, opts: tune.DefaultGameOptions()}
	fs.StringVar(&c.out, "out", "", "binary data file to create or continue (required)")
	fs.Uint64Var(&c.games, "games", 0, "stop when the file holds this many games (0: no target)")
	fs.Uint64Var(&c.positions, "positions", 0, "stop when the file holds this many positions (0: no target)")
	fs.IntVar(&c.threads, "threads", runtime.NumCPU(), "games played at once, one search thread each")
	fs.Uint64Var(&c.nodes, "nodes", 5000, "search node limit per move")
	fs.IntVar(&c.depth, "depth", 0, "search depth limit per move (0: none)")
	fs.IntVar(&c.hashMB, "hash", 16, "hash table per thread in MB")
	randomPlies := fs.Int("random-plies", c.opts.RandomPlies, "uniformly random legal moves at the start of each game")
	openings := fs.String("openings", "", "file of start FENs/EPDs, one a line (default: the start position); random plies follow")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed: game i plays with PCG(seed, i)")
	fs.DurationVar(&c.progress, "progress", 10*time.Second, "interval of the progress lines on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case c.out == "":
		return fmt.Errorf("gen: -out is required")
	case fs.NArg() > 0:
		return fmt.Errorf("gen: unexpected arguments %q", fs.Args())
	case c.threads < 1:
		return fmt.Errorf("gen: -threads %d, want at least 1", c.threads)
	case c.nodes == 0 && c.depth <= 0:
		return fmt.Errorf("gen: give -nodes or -depth")
	case *randomPlies < 0 || c.progress <= 0:
		return fmt.Errorf("gen: -random-plies and -progress must be positive")
	}
	c.opts.RandomPlies = *randomPlies
	c.opts.SkipFirst = *randomPlies + 4
	c.starts = []string{board.StartFEN}
	if *openings != "" {
		var err error
		if c.starts, err = tune.ReadStarts(*openings); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
	}
	return gen(ctx, c)
}

// finished is a played game waiting for its turn to be written.
type finished struct {
	recs []nnuedata.Record
	g    tune.Game
}

// genRun hands out game indices and writes finished games in index order,
// so the file does not depend on -threads or on where a run was stopped.
type genRun struct {
	c      *genConfig
	starts []*board.Position
	w      *nnuedata.Writer
	cancel context.CancelFunc

	mu        sync.Mutex
	cond      *sync.Cond
	next      uint64 // next game index to hand out
	committed uint64 // games in the file
	pending   map[uint64]finished
	free      [][]nnuedata.Record
	stopped   bool
	err       error

	// This run's tallies.
	begin          time.Time
	startGames     uint64
	startRecords   uint64
	results        [3]int
	searched, kept int
	reasons        map[string]int
}

func gen(ctx context.Context, c genConfig) error {
	w, err := nnuedata.OpenAppend(c.out, c.fingerprint())
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	h := w.Header()
	r := &genRun{
		c: &c, w: w,
		next: uint64(h.Games), committed: uint64(h.Games),
		pending: map[uint64]finished{}, reasons: map[string]int{},
		begin: time.Now(), startGames: uint64(h.Games), startRecords: h.Records,
	}
	r.cond = sync.NewCond(&r.mu)
	for _, fen := range c.starts {
		p, err := board.ParseFEN(fen)
		if err != nil {
			w.Close()
			return fmt.Errorf("gen: start position %q: %w", fen, err)
		}
		r.starts = append(r.starts, p)
	}
	if h.Games > 0 || h.Records > 0 {
		fmt.Fprintf(c.stderr, "gen: %s holds %d games, %d positions: continuing\n", c.out, h.Games, h.Records)
	}
	if r.reached() {
		fmt.Fprintf(c.stderr, "gen: the targets are reached already\n")
		return w.Close()
	}
	fmt.Fprintf(c.stderr, "gen: %s: %d threads, %d nodes, seed %d, settings %08x\n", c.out, c.threads, c.nodes, c.seed, c.fingerprint())

	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.cancel = cancel
	wake := context.AfterFunc(gctx, func() {
		r.mu.Lock()
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer wake()

	var wg sync.WaitGroup
	for range c.threads {
		wg.Go(func() { r.worker(gctx) })
	}
	done := make(chan struct{})
	var pwg sync.WaitGroup
	pwg.Go(func() {
		t := time.NewTicker(c.progress)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.mu.Lock()
				fmt.Fprintln(c.stderr, r.progressLine())
				r.mu.Unlock()
			}
		}
	})
	wg.Wait()
	close(done)
	pwg.Wait()

	cerr := w.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(c.stderr, r.summary(ctx))
	if r.err != nil {
		return fmt.Errorf("gen: %w", r.err)
	}
	if cerr != nil {
		return fmt.Errorf("gen: %w", cerr)
	}
	return nil
}

// reached reports whether the file holds the targets (r.mu held).
func (r *genRun) reached() bool {
	h := r.w.Header()
	return r.c.games > 0 && uint64(h.Games) >= r.c.games || r.c.positions > 0 && h.Records >= r.c.positions
}

func (r *genRun) worker(ctx context.Context) {
	pl := tune.NewSearchPlayer(r.c.nodes, r.c.depth, r.c.hashMB)
	for {
		idx, buf, ok := r.take(ctx)
		if !ok {
			return
		}
		pl.NewGame()
		rng := rand.New(rand.NewPCG(r.c.seed, idx))
		start := r.starts[rng.IntN(len(r.starts))]
		g, err := tune.PlayGameKeep(ctx, start, pl, pl, rng, r.c.opts, func(p *board.Position, _ board.Move, ws int) {
			buf = append(buf, nnuedata.Encode(p, ws, nnuedata.Draw))
		})
		if err == nil {
			var res nnuedata.Result
			if res, err = nnuedata.ResultFromWhite(g.Result); err == nil {
				for i := range buf {
					buf[i].SetResult(res)
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return // stopped: the game in progress is dropped
			}
			r.fail(fmt.Errorf("game %d: %w", idx, err))
			return
		}
		r.finish(idx, buf, g)
	}
}

// take hands out the next game index and a record buffer, waiting while
// the games ahead of the file are more than a few per thread.
func (r *genRun) take(ctx context.Context) (uint64, []nnuedata.Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	window := uint64(4 * r.c.threads)
	for {
		if r.stopped || ctx.Err() != nil || r.c.games > 0 && r.next >= r.c.games {
			return 0, nil, false
		}
		if r.next < r.committed+window {
			break
		}
		r.cond.Wait()
	}
	idx := r.next
	r.next++
	var buf []nnuedata.Record
	if n := len(r.free); n > 0 {
		buf, r.free = r.free[n-1][:0], r.free[:n-1]
	}
	return idx, buf, true
}

// finish queues a played game and writes every game that is next in order.
func (r *genRun) finish(idx uint64, recs []nnuedata.Record, g tune.Game) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.cond.Broadcast()
	if r.stopped {
		return
	}
	r.pending[idx] = finished{recs, g}
	for {
		f, ok := r.pending[r.committed]
		if !ok {
			return
		}
		delete(r.pending, r.committed)
		if err := r.w.WriteGame(f.recs); err != nil {
			r.failLocked(err)
			return
		}
		r.committed++
		r.results[int(f.g.Result*2)]++
		r.searched += f.g.Searched
		r.kept += f.g.Kept
		r.reasons[f.g.Reason]++
		r.free = append(r.free, f.recs)
		if r.c.onCommit != nil {
			r.c.onCommit(r.w.Header())
		}
		if r.reached() {
			r.stopped = true
			r.cancel()
			return
		}
	}
}

func (r *genRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failLocked(err)
}

func (r *genRun) failLocked(err error) {
	if r.err == nil {
		r.err = err
	}
	r.stopped = true
	r.cancel()
	r.cond.Broadcast()
}

// progressLine reports the file's counts, this run's speed over the last
// interval and overall, and the time left to the targets (r.mu held).
func (r *genRun) progressLine() string {
	h := r.w.Header()
	now := time.Now()
	el := now.Sub(r.begin).Seconds()
	games, ps := uint64(h.Games)-r.startGames, h.Records-r.startRecords
	gps, pps := float64(games)/el, float64(ps)/el
	var b strings.Builder
	fmt.Fprintf(&b, "gen: %d", h.Games)
	if r.c.games > 0 {
		fmt.Fprintf(&b, "/%d", r.c.games)
	}
	fmt.Fprintf(&b, " games, %d", h.Records)
	if r.c.positions > 0 {
		fmt.Fprintf(&b, "/%d", r.c.positions)
	}
	fmt.Fprintf(&b, " positions, %.0f positions/s, %.2f games/s", pps, gps)
	eta := -1.0
	if r.c.games > 0 && gps > 0 {
		eta = float64(r.c.games-min(r.c.games, uint64(h.Games))) / gps
	}
	if r.c.positions > 0 && pps > 0 {
		if e := float64(r.c.positions-min(r.c.positions, h.Records)) / pps; eta < 0 || e < eta {
			eta = e
		}
	}
	switch {
	case eta >= 0:
		fmt.Fprintf(&b, ", ETA %s", (time.Duration(eta) * time.Second).Round(time.Second))
	case r.c.games > 0 || r.c.positions > 0:
		b.WriteString(", ETA unknown")
	}
	fmt.Fprintf(&b, ", %s", now.Sub(r.begin).Round(time.Second))
	return b.String()
}

// summary is the last line: the file, this run, how games ended (r.mu held).
func (r *genRun) summary(ctx context.Context) string {
	h := r.w.Header()
	games, ps := uint64(h.Games)-r.startGames, h.Records-r.startRecords
	el := time.Since(r.begin)
	var b strings.Builder
	switch {
	case r.err != nil:
		b.WriteString("gen: failed")
	case ctx.Err() != nil:
		b.WriteString("gen: stopped (rerun the same command to continue)")
	default:
		b.WriteString("gen: done")
	}
	fmt.Fprintf(&b, ": %s holds %d games, %d positions; this run %d games (+%d =%d -%d), %d positions",
		r.c.out, h.Games, h.Records, games, r.results[2], r.results[1], r.results[0], ps)
	if r.searched > 0 {
		fmt.Fprintf(&b, " (%.0f%% of %d searched)", 100*float64(r.kept)/float64(r.searched), r.searched)
	}
	fmt.Fprintf(&b, " in %s, %.0f positions/s", el.Round(time.Second), float64(ps)/el.Seconds())
	if len(r.reasons) > 0 {
		keys := make([]string, 0, len(r.reasons))
		for k := range r.reasons {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("; endings:")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %d", k, r.reasons[k])
		}
	}
	return b.String()
}
