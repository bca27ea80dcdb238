package main

// The CPU-share measurement (issue 10, item 5): several games of one bot at
// once, their Games sharing a ponder.CPUShare, each against a light
// opponent that mostly waits (as a remote opponent on Lichess would: it
// takes no CPU of ours), under a real clock. It reports the nodes per
// second of the bot's thinking searches (over all their time, and over the
// time they held a thread: a search for a move may wait for one, see
// ponder.CPUShare) and of its pondering searches, the waits, and the bot's
// time forfeits.
//
// The opponent's time per move follows one of two models (-opp-time):
// fast, a wait of 0.1–0.8 s whatever its clock (the worst case for
// sharing: the bot is on move most of the time in every game), and clock,
// the way a bot or a clock-using human spends a 1+0 clock on Lichess: a
// share of its own remaining time each move (oppClockWait), kept on a real
// clock.

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// shareConfig is what -cpu-games runs.
type shareConfig struct {
	games, atOnce, total int
	base, inc            time.Duration
	hashMB, treeMB       int
	maxPlies             int
	seed                 int64
	opp                  oppModel
}

// oppModel is how the light opponent spends time on its moves.
type oppModel int

const (
	// oppFast waits 0.1–0.8 s a move, whatever its clock.
	oppFast oppModel = iota
	// oppClock spends its own clock: oppClockWait of its remaining time.
	oppClock
)

func parseOppModel(s string) (oppModel, error) {
	switch s {
	case "fast":
		return oppFast, nil
	case "clock":
		return oppClock, nil
	}
	return oppFast, fmt.Errorf("unknown opponent time model %q (fast or clock)", s)
}

func (m oppModel) String() string {
	if m == oppClock {
		return "clock (its remaining/30 + inc ± 50% a move, at least 0.1 s, keeping 1 s)"
	}
	return "fast (0.1-0.8 s a move)"
}

// oppMinWait is the least the clock model's opponent waits for a move
// while its clock allows it.
const oppMinWait = 100 * time.Millisecond

// oppReserve is the part of its clock the clock model's opponent never
// plans to spend: it pays for what a move costs beyond the wait (its tiny
// search, a busy machine's scheduling), so that it never flags.
const oppReserve = time.Second

// oppClockWait is the clock model's time for one opponent move, the way a
// bot spends its clock: a thirtieth of its remaining time plus the
// increment, scaled by 0.5 + u (u in [0, 1): ± 50%), at least oppMinWait,
// and never more than half of what remains above oppReserve (the minimum
// gives way to that near the end of its clock; with no more than the
// reserve left it moves at once).
func oppClockWait(remaining, inc time.Duration, u float64) time.Duration {
	spendable := remaining - oppReserve
	if spendable <= 0 {
		return 0
	}
	w := time.Duration(float64(remaining/30+inc) * (0.5 + u))
	w = max(w, oppMinWait)
	return min(w, spendable/2)
}

// meter follows one bot Game's searches: its engine's node count, and
// whether the game is thinking (our move) or not (pondering, or idle).
type meter struct {
	g        *ponder.Game
	thinking atomic.Bool
	last     uint64
}

// nps adds up nodes and time of searches of one kind (each game's time
// counts: this is the speed of one search).
type nps struct {
	nodes uint64
	time  time.Duration
}

func (n nps) String() string {
	if n.time <= 0 {
		return "no sample"
	}
	return fmt.Sprintf("%.0f nps over %v", float64(n.nodes)/n.time.Seconds(), n.time.Round(time.Millisecond))
}

// sampler reads every meter each tick and books the nodes searched since
// the last tick on the kind of search the game runs. A thinking game's
// nodes and time go to think (all of its time, waits for a thread
// included: the figure before searches for a move could wait) and, while
// its search holds a thread (Game.SearchThreads), to running too.
type sampler struct {
	mu                      sync.Mutex
	meters                  map[*meter]bool
	think, running, ponders nps
}

func (s *sampler) add(m *meter)    { s.mu.Lock(); s.meters[m] = true; s.mu.Unlock() }
func (s *sampler) remove(m *meter) { s.mu.Lock(); delete(s.meters, m); s.mu.Unlock() }

func (s *sampler) run(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// The time since the last sample, not tick: with the CPU busy the
		// ticker drops ticks, and the nodes of the whole gap are booked.
		now := time.Now()
		dt := now.Sub(last)
		last = now
		s.mu.Lock()
		for m := range s.meters {
			n := m.g.Engine().Nodes()
			d := n - m.last
			if n < m.last { // a new search started: its count began at 0
				d = n
			}
			m.last = n
			switch {
			case m.thinking.Load():
				s.think.nodes += d
				s.think.time += dt
				if m.g.SearchThreads() > 0 {
					s.running.nodes += d
					s.running.time += dt
				}
			case m.g.Pondering():
				s.ponders.nodes += d
				s.ponders.time += dt
			}
		}
		s.mu.Unlock()
	}
}

// runShare plays cfg.games games, cfg.atOnce at a time, and prints the
// figures.
func runShare(cfg shareConfig, ops []opening) error {
	share := ponder.NewCPUShare(cfg.total)
	s := &sampler{meters: map[*meter]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.run(ctx, 5*time.Millisecond)

	var mu sync.Mutex
	var firstErr error
	var played, forfeits, oppForfeits, moves int
	slots := make(chan struct{}, cfg.atOnce)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range cfg.games {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			r, err := playShared(ops[i%len(ops)], cfg, share, s, cfg.seed+int64(i), i%2 == 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			played++
			moves += r.moves
			if r.forfeit {
				forfeits++
			}
			if r.oppForfeit {
				oppForfeits++
			}
		}()
	}
	wg.Wait()
	cancel()
	if firstErr != nil {
		return firstErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Printf("cpu share: %d game(s), %d at once, threads_total %d, tc %v+%v, opponent %v, %v: %d moves of ours, %d time forfeit(s), %d of the opponent\n",
		played, cfg.atOnce, cfg.total, cfg.base, cfg.inc, cfg.opp, time.Since(start).Round(time.Second), moves, forfeits, oppForfeits)
	fmt.Printf("thinking searches: %s\nthinking while running: %s\npondering searches: %s\n", s.think, s.running, s.ponders)
	w := share.Waits()
	fmt.Printf("waits for a thread: %d of %d searches for a move, %v in all, longest %v, %d given one over threads_total\n",
		w.Waited, w.Searches, w.Total.Round(time.Millisecond), w.Max.Round(time.Millisecond), w.Overdue)
	return nil
}

// sharedResult is how one game of the CPU-share measurement went.
type sharedResult struct {
	moves      int  // the bot's moves
	forfeit    bool // the bot lost on time
	oppForfeit bool // the opponent lost on time (the clock model)
}

// playShared plays one game of the bot (pondering, on share) against a
// light opponent: a tiny search after a wait that cfg.opp chooses (it
// sleeps: it takes no CPU of ours).
func playShared(op opening, cfg shareConfig, share *ponder.CPUShare, s *sampler, seed int64, botWhite bool) (sharedResult, error) {
	bot := ponder.NewGame(ponder.Options{HashMB: cfg.hashMB, TreeMB: cfg.treeMB, Threads: 1, Ponder: true,
		MoveOverhead: 20 * time.Millisecond, CPU: share})
	opp := ponder.NewGame(ponder.Options{HashMB: 1, TreeMB: 1, Threads: 1})
	defer bot.Close()
	defer opp.Close()
	m := &meter{g: bot}
	s.add(m)
	defer s.remove(m)
	rng := rand.New(rand.NewSource(seed))
	pos, err := board.ParseFEN(op.fen)
	if err != nil {
		return sharedResult{}, err
	}
	moves := []string{}
	for _, mv := range op.moves {
		x, err := pos.ParseUCIMove(mv)
		if err != nil {
			return sharedResult{}, err
		}
		pos.MakeMove(x)
		moves = append(moves, mv)
	}
	botSide := board.White
	if !botWhite {
		botSide = board.Black
	}
	clock := cfg.base
	// The opponent's clock: kept in the clock model only, where the bot is
	// told it; in the fast model the bot is told the base time, as before.
	oppLeft := cfg.base
	ctx := context.Background()
	ours := 0
	for ply := 0; ply < cfg.maxPlies; ply++ {
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 || pos.HalfmoveClock() >= 100 || pos.RepetitionCount() >= 2 || pos.IsInsufficientMaterial() {
			break
		}
		var uci string
		if pos.SideToMove() == botSide {
			if err := bot.SetPosition(op.fen, false, moves); err != nil {
				return sharedResult{moves: ours}, err
			}
			lim := ponder.ThinkLimits{WTime: clock, BTime: oppLeft, WInc: cfg.inc, BInc: cfg.inc}
			if botSide == board.Black {
				lim.WTime, lim.BTime = oppLeft, clock
			}
			t0 := time.Now()
			m.thinking.Store(true)
			dec, err := bot.Think(ctx, lim, nil)
			m.thinking.Store(false)
			clock -= time.Since(t0)
			if err != nil {
				return sharedResult{moves: ours}, fmt.Errorf("bot think: %w", err)
			}
			if clock < 0 {
				return sharedResult{moves: ours, forfeit: true}, nil
			}
			clock += cfg.inc
			ours++
			uci = dec.UCI
		} else {
			t0 := time.Now()
			if cfg.opp == oppClock {
				time.Sleep(oppClockWait(oppLeft, cfg.inc, rng.Float64()))
			} else {
				time.Sleep(time.Duration(100+rng.Intn(700)) * time.Millisecond)
			}
			if err := opp.SetPosition(op.fen, false, moves); err != nil {
				return sharedResult{moves: ours}, err
			}
			dec, err := opp.Think(ctx, ponder.ThinkLimits{Nodes: 500}, nil)
			if err != nil {
				return sharedResult{moves: ours}, fmt.Errorf("opponent think: %w", err)
			}
			if cfg.opp == oppClock {
				oppLeft -= time.Since(t0)
				if oppLeft < 0 {
					_ = bot.StopPonder()
					return sharedResult{moves: ours, oppForfeit: true}, nil
				}
				oppLeft += cfg.inc
			}
			uci = dec.UCI
		}
		x, err := pos.ParseUCIMove(uci)
		if err != nil {
			return sharedResult{moves: ours}, fmt.Errorf("move %q: %w", uci, err)
		}
		pos.MakeMove(x)
		moves = append(moves, uci)
		if pos.SideToMove() != botSide {
			if err := bot.SetPosition(op.fen, false, moves); err != nil {
				return sharedResult{moves: ours}, err
			}
			bot.StartPonder(ctx)
		}
	}
	_ = bot.StopPonder()
	return sharedResult{moves: ours}, nil
}
