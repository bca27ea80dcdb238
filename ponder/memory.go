package ponder

import (
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
// starts (never per node) and records at the end of each search: its
// root, the positions along its principal variation, and the children of
// those, each when the table holds it at LearnMinDepth or deeper.
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
	// GameOver tells the result of game, so that what it recorded is
	// trusted less after a loss ("a line that lost is searched again").
	// It must return at once.
	GameOver(game string, result GameResult)
}

// DefaultLearnMinDepth is Options.LearnMinDepth when not set: positions
// searched less deeply are cheap to search again and are not recorded.
const DefaultLearnMinDepth = 8

// learnSeedPlies bounds how far along the known line a search start seeds
// the TT (one Lookup per ply).
const learnSeedPlies = 16

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
	m, game := g.opts.Memory, g.opts.MemoryGame
	g.mu.Unlock()
	if m != nil && result != ResultUnknown {
		m.GameOver(game, result)
	}
}

// evalID is the identity of the evaluation the engine uses now (see
// search.EvalID), computed again only when the network changes.
func (g *Game) evalID() string {
	net := g.eng.Options().Net
	if g.evalIDSet && net == g.evalNet {
		return g.evalIDCache
	}
	g.evalNet, g.evalIDCache, g.evalIDSet = net, search.EvalID(net), true
	return g.evalIDCache
}

func (g *Game) learnMinDepth() int {
	if g.opts.LearnMinDepth > 0 {
		return g.opts.LearnMinDepth
	}
	return DefaultLearnMinDepth
}

// seed fills the TT from the memory before a search of pos: the entries
// of pos and of its children, then the same along the known best moves, up
// to learnSeedPlies plies. Each position is seeded once per game (and
// again after NewGame or SetMemory). An entry never replaces a deeper one
// of the table. Called with g.mu held, before the search starts.
func (g *Game) seed(pos *board.Position) {
	m := g.opts.Memory
	if m == nil {
		return
	}
	if g.seeded == nil {
		g.seeded = make(map[uint64]bool)
	}
	if g.seeded[pos.Key()] {
		return
	}
	g.seeded[pos.Key()] = true
	id := g.evalID()
	tt := g.eng.TT()
	p := pos.Clone()
	made, stored := 0, 0
	defer func() {
		for ; made > 0; made-- {
			p.UnmakeMove()
		}
	}()
	var ml board.MoveList
	for range learnSeedPlies {
		ml.N = 0
		p.GenerateLegal(&ml)
		keys := append(g.seedKeys[:0], p.Key())
		for _, mv := range ml.Moves[:ml.N] {
			p.MakeMove(mv)
			keys = append(keys, p.Key())
			p.UnmakeMove()
		}
		g.seedKeys = keys
		got, err := m.Lookup(id, keys)
		if err != nil {
			g.log.Warn().Err(err).Msg("learning memory: lookup failed; searching without it")
			return
		}
		next := board.NoMove
		for _, e := range got {
			if e.Bound < search.BoundUpper || e.Bound > search.BoundExact || e.Depth <= 0 {
				continue
			}
			if e.Key == keys[0] {
				mv := parseLearnt(p, e.Move)
				if seedTT(tt, e, mv) {
					stored++
				}
				next = mv
				continue
			}
			for i, k := range keys[1:] {
				if k != e.Key {
					continue
				}
				p.MakeMove(ml.Moves[i])
				if seedTT(tt, e, parseLearnt(p, e.Move)) {
					stored++
				}
				p.UnmakeMove()
				break
			}
		}
		if next == board.NoMove {
			break
		}
		p.MakeMove(next)
		made++
		if g.seeded[p.Key()] {
			break
		}
		g.seeded[p.Key()] = true
	}
	if stored > 0 {
		g.log.Debug().Int("entries", stored).Int("plies", made).Msg("learning memory: seeded the hash table")
	}
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
// entries at r's root, along the PV, and at the children of those, each
// when searched to LearnMinDepth or deeper. Nothing for a search shallower
// than that, nor for one restricted to some moves. Called with g.mu held
// as the search ends; the memory's Record only queues the entries.
func (g *Game) learn(r *run, res search.Result) {
	m := g.opts.Memory
	if m == nil || !r.learn || res.Depth < g.learnMinDepth() || r.pos == nil {
		return
	}
	minDepth := g.learnMinDepth()
	tt := g.eng.TT()
	p := r.pos.Clone()
	var out []Learnt
	add := func(p *board.Position) {
		e, ok := tt.Probe(p.Key())
		if !ok || e.Bound == search.BoundNone || e.Depth < minDepth || e.Score == search.NoScore {
			return
		}
		mv := ""
		if e.Move != board.NoMove && p.IsLegal(e.Move) {
			mv = p.MoveToUCI(e.Move)
		}
		out = append(out, Learnt{Key: p.Key(), FEN: p.FEN(), Move: mv, Score: e.Score, Bound: e.Bound, Depth: e.Depth})
	}
	var ml board.MoveList
	for k := 0; ; k++ {
		add(p)
		next := board.NoMove
		if k < len(res.PV) && p.IsLegal(res.PV[k]) {
			next = res.PV[k]
		}
		ml.N = 0
		p.GenerateLegal(&ml)
		for _, mv := range ml.Moves[:ml.N] {
			if mv == next {
				continue // added as the next position of the line
			}
			p.MakeMove(mv)
			add(p)
			p.UnmakeMove()
		}
		if next == board.NoMove {
			break
		}
		p.MakeMove(next)
	}
	if len(out) > 0 {
		m.Record(g.evalID(), g.opts.MemoryGame, out)
	}
}
