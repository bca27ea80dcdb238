package ponder

import (
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// Learnt is one position a Memory knows from an earlier search: what the
// transposition table held for it at the end of a search for a move.
type Learnt struct {
	Key   uint64       // the position's Zobrist key (board.Position.Key)
	FEN   string       // the position, for inspection only
	Move  string       // its best move in UCI notation ("" when none)
	Score int          // TT convention: the side to move's view, mate distances counted from this position
	Bound search.Bound // BoundUpper, BoundLower or BoundExact
	Depth int          // the depth it was searched to
}

// GameResult is how a game ended, from our side.
type GameResult int

// Game results for Memory.GameOver.
const (
	ResultUnknown GameResult = iota // aborted, or not known: no feedback
	ResultWin
	ResultDraw
	ResultLoss
)

func (r GameResult) String() string {
	switch r {
	case ResultWin:
		return "win"
	case ResultDraw:
		return "draw"
	case ResultLoss:
		return "loss"
	}
	return "unknown"
}

// Memory is knowledge kept across games (the learning memory; package
// store keeps it in SQLite). A Game looks positions up only when a search
// starts (never per node) and records as each search of LearnMinDepth or
// more ends: the TT's entries of its root and, breadth-first, of the
// positions below it searched to LearnMinDepth (3 at least) or more, up to
// learnMaxRecord (256).
//
// Every entry belongs to an evaluation (search.EvalID): Lookup returns
// only the entries of eval. Implementations must be safe for concurrent
// use by several Games.
type Memory interface {
	// Lookup returns what is known of the positions keys (those known,
	// in any order) under the evaluation eval. It is called at the start
	// of a search, so it must answer quickly (a bounded wait), and an error
	// only means that nothing is known.
	Lookup(eval string, keys []uint64) ([]Learnt, error)
	// Record keeps entries found in the game named game under eval. It
	// must return at once (queue the work): it is called as a search ends,
	// before its move is played.
	Record(eval, game string, entries []Learnt)
	// Used tells that game reached the positions keys and was seeded
	// from their entries under eval (the root of a search the memory
	// knew), so that a loss of game makes them trusted less too, whichever
	// game wrote them. It must return at once.
	Used(eval, game string, keys []uint64)
	// GameOver tells the result of game, so that what it recorded and
	// used is trusted less after a loss ("a line that lost is searched again").
	// It is called as a game ends, never during a search: it may wait
	// briefly (for room in a queue), and must not lose a loss.
	GameOver(game string, result GameResult)
}

// HeldDepther is a Memory that tells how deeply it holds a position
// already (0: not at all), at once and with none of Lookup's effects
// (store's Memory answers from its cache). learn leaves out an entry the
// memory holds as deeply: it would change nothing, and the entries learn
// records are bounded (learnMaxRecord).
type HeldDepther interface {
	HeldDepth(eval string, key uint64) int
}

// DefaultLearnMinDepth is Options.LearnMinDepth when not set: positions
// searched less deeply are cheap to search again and are not recorded,
// neither as the root of a search nor as an entry below one.
const DefaultLearnMinDepth = 8

// learnFloorDepth is the least depth of a recorded entry when
// LearnMinDepth is set lower (see learn), and the depth above which seed
// looks up an entry's children.
const learnFloorDepth = 3

// learnMaxHalfmove is the highest fifty-move counter of a search's root
// whose findings are recorded: beyond it the fifty-move rule may have
// shaped the scores (draws the same position without the count does not
// have).
const learnMaxHalfmove = 40

// learnSeedPlies bounds how far from the root a search start seeds the TT
// (one Lookup per ply), learnMaxSeed how many entries it seeds and
// learnMaxLookup how many keys it looks up; learnMaxRecord bounds the
// entries the end of a search records.
//
// learnMaxRecord is small on purpose: a game records after each of its
// searches, and the entries nearest the root (breadth-first) are the ones
// a later game reaches and the ones that make its search start deep; 2048
// a search (with entries of depth 3 and more) wrote some 200,000 rows a
// game, filled a 100,000-row table within 40 games, and cost the
// recording process several times the CPU time of its searches.
const (
	learnSeedPlies = 32
	learnMaxSeed   = 4096
	learnMaxRecord = 256
	learnMaxLookup = 32768
)

// seedLookups bounds the keys the seed of a timed search looks up by its
// soft budget: the lookups run on our clock (about 2,000 keys a
// millisecond, all of learnMaxLookup in some 16 ms), so they take at most
// about a fiftieth of the budget, and always the root and its children.
func seedLookups(soft time.Duration) int {
	n := int(soft.Milliseconds()) * 2048 / 50
	return min(max(n, 1+board.MaxMoves), learnMaxLookup)
}

// SetMemory makes m (nil: none) the Game's memory from the next search on,
// recording under the game name game (see Memory.Record, GameOver).
func (g *Game) SetMemory(m Memory, game string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opts.Memory, g.opts.MemoryGame = m, game
	clear(g.seeded)
}

// GameOver tells the Game's memory (if any) how the game ended; see
// Memory.GameOver. Nothing is told for ResultUnknown.
func (g *Game) GameOver(result GameResult) {
	g.mu.Lock()
	g.waitLearning() // what the game found is recorded before its result
	m, game := g.opts.Memory, g.opts.MemoryGame
	g.mu.Unlock()
	if m != nil && result != ResultUnknown {
		m.GameOver(game, result)
	}
}

// evalID is the identity of the evaluation the engine uses now (see
// search.EvalID: both IDs are computed once per process or net, not here).
func (g *Game) evalID() string { return search.EvalID(g.eng.Options().Net) }

func (g *Game) learnMinDepth() int {
	if g.opts.LearnMinDepth > 0 {
		return g.opts.LearnMinDepth
	}
	return DefaultLearnMinDepth
}

// seed fills the TT from the memory before a search of pos: the entry of
// pos, then breadth-first the entries of the children of every known
// position deep enough to have known children (depth above
// learnFloorDepth), up to learnMaxSeed entries: one Lookup per ply, never
// one per node. Each position is seeded once per game (and again after
// NewGame, SetMemory, ClearHash or SetHashMB); a later search of it (after
// a ponder search seeded it, say) gets the depth found then. An entry never replaces a deeper one of the
// table. Called with g.mu held, before the search starts.
//
// The entries are stored in the TT's generation before the search's
// (search.Search starts a new one), so the search's own bounds may replace
// them, deeper or not. That is deliberate: storing them in the search's
// generation (tried: a Limits callback run after the generation changes)
// keeps deep bounds of the earlier search's windows that cut nothing and
// refuses the search's own, and the second search of
// TestMemoryHalvesNodesToSameDepth took 26290 nodes to depth 10 instead
// of 15247 (36782 from nothing; measured when a known root still jumped
// to the memory's depth, before search.Limits.Known).
//
// maxLookup bounds the keys looked up (learnMaxLookup, or seedLookups of
// a timed search's budget).
func (g *Game) seed(pos *board.Position, maxLookup int) (rootDepth int) {
	m := g.opts.Memory
	if m == nil {
		return 0
	}
	if g.seeded == nil {
		g.seeded = make(map[uint64]seedMemo)
	}
	if s, ok := g.seeded[pos.Key()]; ok {
		return s.depth
	}
	rootFound := false
	var rootKnown search.KnownRoot
	id := g.evalID()
	defer func() {
		s := seedMemo{depth: rootDepth, known: rootKnown}
		if rootFound {
			s.eval = id
		}
		g.seeded[pos.Key()] = s
	}()
	start := time.Now()
	tt := g.eng.TT()
	type cand struct {
		parent int // index in known (-1: the root)
		move   board.Move
	}
	p := pos.Clone()
	var known [][]board.Move // paths from pos to the positions found at the previous ply
	cands := []cand{{parent: -1}}
	keys := append(g.seedKeys[:0], pos.Key())
	stored, looked := 0, 0
	var ml board.MoveList
	for ply := 0; len(keys) > 0 && ply < learnSeedPlies && stored < learnMaxSeed; ply++ {
		looked += len(keys)
		got, err := m.Lookup(id, keys)
		if err != nil {
			g.log.Warn().Err(err).Msg("learning memory: lookup failed; searching without it")
			break
		}
		byKey := make(map[uint64]Learnt, len(got))
		for _, e := range got {
			if validLearnt(e) {
				byKey[e.Key] = e
			}
		}
		var found [][]board.Move
		for i, c := range cands {
			e, ok := byKey[keys[i]]
			if !ok || stored >= learnMaxSeed {
				continue
			}
			delete(byKey, keys[i]) // a transposition: once
			var path []board.Move
			if c.parent >= 0 {
				path = append(append(make([]board.Move, 0, ply), known[c.parent]...), c.move)
			}
			walk(p, path, func() {
				mv := parseLearnt(p, e.Move)
				if seedTT(tt, e, mv) {
					stored++
				}
				if c.parent < 0 {
					rootFound = true // Used when the position is played (noteUsed)
					if mv != board.NoMove {
						rootDepth = e.Depth
						if e.Bound == search.BoundExact {
							rootKnown = search.KnownRoot{Depth: e.Depth, Score: e.Score, Move: mv}
						}
					}
				}
			})
			if e.Depth > learnFloorDepth {
				found = append(found, path)
			}
		}
		known, cands, keys = found, cands[:0], keys[:0]
		for i, path := range known {
			if looked+len(keys)+board.MaxMoves > maxLookup {
				break
			}
			walk(p, path, func() {
				ml.N = 0
				p.GenerateLegal(&ml)
				for _, mv := range ml.Moves[:ml.N] {
					p.MakeMove(mv)
					keys = append(keys, p.Key())
					p.UnmakeMove()
					cands = append(cands, cand{parent: i, move: mv})
				}
			})
		}
	}
	g.seedKeys = keys[:0]
	if stored > 0 {
		g.log.Debug().Int("entries", stored).Int("looked_up", looked).Int("root_depth", rootDepth).
			Dur("took", time.Since(start)).Msg("learning memory: seeded the hash table")
	}
	return rootDepth
}

// seedMemo is what seed found for a root: the learnt depth it returns,
// the root's entry when it is exact with a legal move (Depth 0 when not;
// see knownRoot), and the evaluation under which the memory had an entry
// for the root ("" when none).
type seedMemo struct {
	depth int
	known search.KnownRoot
	eval  string
}

// knownRoot is the memory's exact result for pos as seed found it (ok
// false when seed found none: no entry, a bound, or no legal move).
func (g *Game) knownRoot(pos *board.Position) (k search.KnownRoot, ok bool) {
	k = g.seeded[pos.Key()].known
	return k, k.Depth > 0
}

// noteUsed tells the memory (Used) that this game searches pos for a move
// of its own and was seeded from pos's entry, if seed found one. Not for a
// background ponder search of a predicted position, which may never be
// played: only once it is converted into our move's search.
func (g *Game) noteUsed(pos *board.Position) {
	m := g.opts.Memory
	if m == nil || pos == nil {
		return
	}
	// The evaluation seed saw: the engine's options wait for a running
	// search (convert calls this during one).
	if id := g.seeded[pos.Key()].eval; id != "" {
		m.Used(id, g.opts.MemoryGame, []uint64{pos.Key()})
	}
}

// validLearnt reports whether e, read from a file, can be stored in the
// TT: a bound, a depth of 1 to MaxPly-1 and a score within the mate scores
// (what the TT packs without wrapping).
func validLearnt(e Learnt) bool {
	return e.Bound >= search.BoundUpper && e.Bound <= search.BoundExact && e.Depth > 0 && e.Depth < search.MaxPly &&
		e.Score >= -search.MateScore && e.Score <= search.MateScore
}

// ClearHash clears the TT (search.Engine.NewGame) once what the searches
// so far found is gathered; positions are seeded again. The tree is kept.
// A background ponder search is stopped first; while Think runs it
// returns ErrBusy (the engine waits for its search, whose end needs g.mu).
func (g *Game) ClearHash() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.resetTableLocked(g.eng.NewGame)
}

// SetHashMB resizes (and clears) the TT once what the searches so far
// found is gathered; positions are seeded again. A background ponder
// search is stopped first; while Think runs it returns ErrBusy.
func (g *Game) SetHashMB(mb int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.resetTableLocked(func() { g.eng.SetHashMB(mb) })
}

// resetTableLocked is what ClearHash, SetHashMB and NewGame share: it
// stops a background ponder search, returns ErrBusy while Think runs, and
// otherwise waits for the gathering of what the searches found (it reads
// the table) before reset empties the TT; positions are seeded again and
// no entry of an earlier net is left. g.mu is held.
func (g *Game) resetTableLocked(reset func()) error {
	g.stopPonder()
	if g.run != nil {
		return ErrBusy
	}
	g.waitLearning()
	reset()
	clear(g.seeded)
	g.learntSeen = false
	return nil
}

// parseLearnt reads a learnt move in p (NoMove when absent or illegal).
func parseLearnt(p *board.Position, s string) board.Move {
	if s == "" {
		return board.NoMove
	}
	m, err := p.ParseUCIMove(s)
	if err != nil {
		return board.NoMove
	}
	return m
}

// seedTT stores e in tt unless the table already holds the position at
// least as deeply. The score is stored as it is: both the memory and the
// table count mate distances from the position itself.
func seedTT(tt *search.TT, e Learnt, mv board.Move) bool {
	if old, ok := tt.Probe(e.Key); ok && old.Bound != search.BoundNone && old.Depth >= e.Depth {
		return false
	}
	tt.Store(e.Key, mv, e.Score, search.NoScore, min(e.Depth, search.MaxPly-1), e.Bound)
	return true
}

// learn records what a finished search r found (see Memory): the TT's
// entry of r's root, then breadth-first those of the children of every
// recorded position deep enough to have children searched
// (LearnMinDepth or deeper, and learnFloorDepth at least, as the children
// themselves), up to learnMaxRecord entries: the positions searched
// deeply, near the root, which a later game reaches first. An entry
// shallower than LearnMinDepth is cheap to search again (the reason a
// search that shallow records nothing); one a HeldDepther memory holds as
// deeply is left out (the positions below it are still visited, up to
// 16×learnMaxRecord). Nothing for a search shallower than LearnMinDepth,
// nor for one restricted to some moves. Called with g.mu
// held as the search ends; the entries are gathered on a goroutine of
// their own (off the move's critical path: the table is lock-free, and
// whatever clears or resizes it waits for the gathering first, see
// waitLearning), and the memory's Record only queues them.
func (g *Game) learn(r *run, res search.Result) {
	m := g.opts.Memory
	if m == nil || !r.learn || res.Depth < g.learnMinDepth() || r.pos == nil || historyDependent(r.pos) {
		return
	}
	// The first search after the network changed (search.Engine.SetNet
	// keeps the table) may have used the other evaluation's entries.
	net := g.eng.Options().Net
	switched := g.learntSeen && net != g.learntNet
	g.learntNet, g.learntSeen = net, true
	if switched {
		return
	}
	tt, root, id, game, log, floor := g.eng.TT(), r.pos.Clone(), g.evalID(), g.opts.MemoryGame, g.log, g.learnMinDepth()
	g.learning.Add(1)
	go func() {
		defer g.learning.Done()
		start := time.Now()
		var held func(uint64) int
		if h, ok := m.(HeldDepther); ok {
			held = func(k uint64) int { return h.HeldDepth(id, k) }
		}
		out := gatherLearnt(tt, root, floor, held)
		if len(out) > 0 {
			m.Record(id, game, out)
		}
		log.Debug().Int("entries", len(out)).Dur("took", time.Since(start)).Msg("learning memory: recorded")
	}()
}

// waitLearning waits until the entries of the searches so far are handed
// to the memory. Whatever clears or resizes the TT calls it first. Called
// with g.mu held (learn adds to g.learning under it; the gathering never
// takes it).
func (g *Game) waitLearning() { g.learning.Wait() }

// WaitLearning waits until what the searches so far found is handed to
// the memory (Memory.Record): for tests, and before a front end reads the
// memory back.
func (g *Game) WaitLearning() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waitLearning()
}

// historyDependent reports whether a search of p may have scored
// positions by the game's history rather than by themselves, so that what
// it found is not recorded: the fifty-move counter is beyond
// learnMaxHalfmove, or a position of the reversible history (p's
// included) occurred before in it (a position of the tree that repeats
// it twice is scored a draw by repetition).
func historyDependent(p *board.Position) bool {
	if p.HalfmoveClock() > learnMaxHalfmove {
		return true
	}
	q := p.Clone()
	for n := q.HalfmoveClock(); ; n-- {
		if q.RepetitionCount() > 0 {
			return true
		}
		if n <= 0 || q.Plies() == 0 {
			return false
		}
		q.UnmakeMove()
	}
}

// recordable reports whether a TT score may be kept by the memory: not a
// draw score of exactly 0 (a repetition, the fifty-move rule, a tablebase
// draw: scores of the history or of the tables, not of the evaluation),
// nor a tablebase win or loss (the tables are not part of the EvalID).
// Mate scores are kept: they hold whatever the evaluation.
func recordable(score int) bool {
	if score == 0 || score == search.NoScore {
		return false
	}
	a := max(score, -score)
	return a < search.TBWinInMaxPly || a >= search.MateInMaxPly
}

// gatherLearnt collects the entries learn records, breadth-first from
// root: those of depth floor or more (learnFloorDepth at least), up to
// learnMaxRecord. An entry whose score is not recordable is left out, but
// the positions below it are still visited, and so is one held (nil: none
// known) says the memory holds at least as deeply.
func gatherLearnt(tt *search.TT, root *board.Position, floor int, held func(uint64) int) []Learnt {
	floor = max(floor, learnFloorDepth)
	var out []Learnt
	seen := make(map[uint64]bool)
	entry := func(p *board.Position) (search.TTEntry, bool) {
		if seen[p.Key()] {
			return search.TTEntry{}, false
		}
		e, ok := tt.Probe(p.Key())
		if !ok || e.Bound == search.BoundNone || e.Depth < floor || e.Score == search.NoScore {
			return e, false
		}
		seen[p.Key()] = true
		return e, true
	}
	full := func() bool { return len(out) >= learnMaxRecord || len(seen) >= 16*learnMaxRecord }
	add := func(p *board.Position, e search.TTEntry) {
		if !recordable(e.Score) || held != nil && held(p.Key()) >= e.Depth {
			return
		}
		mv := ""
		if e.Move != board.NoMove && p.IsLegal(e.Move) {
			mv = p.MoveToUCI(e.Move)
		}
		out = append(out, Learnt{Key: p.Key(), FEN: p.FEN(), Move: mv, Score: e.Score, Bound: e.Bound, Depth: e.Depth})
	}
	e, ok := entry(root)
	if !ok {
		return nil
	}
	add(root, e)
	level := [][]board.Move{nil} // paths from root
	var ml board.MoveList
	for depth := 0; len(level) > 0 && !full(); depth++ {
		var next [][]board.Move
		for _, path := range level {
			walk(root, path, func() {
				ml.N = 0
				root.GenerateLegal(&ml)
				for _, mv := range ml.Moves[:ml.N] {
					if full() {
						break
					}
					root.MakeMove(mv)
					if e, ok := entry(root); ok {
						add(root, e)
						if e.Depth > floor {
							next = append(next, append(append(make([]board.Move, 0, depth+1), path...), mv))
						}
					}
					root.UnmakeMove()
				}
			})
		}
		level = next
	}
	return out
}

// walk plays path in p, calls f, and takes the moves back.
func walk(p *board.Position, path []board.Move, f func()) {
	for _, m := range path {
		p.MakeMove(m)
	}
	f()
	for range path {
		p.UnmakeMove()
	}
}
