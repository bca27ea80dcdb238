package ponder

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// mapMemory is a Memory in a map (package store has the SQLite one):
// per evaluation, the deepest entry of each key, and the games' results.
type mapMemory struct {
	mu      sync.Mutex
	entries map[string]map[uint64]Learnt
	games   map[string]string   // key's game, by eval+key
	used    map[string][]uint64 // keys used, by game
	results map[string]GameResult
	lookups int
	keys    int // keys looked up
}

func newMapMemory() *mapMemory {
	return &mapMemory{entries: map[string]map[uint64]Learnt{}, games: map[string]string{}, results: map[string]GameResult{},
		used: map[string][]uint64{}}
}

func (m *mapMemory) Used(eval, game string, keys []uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used[game] = append(m.used[game], keys...)
}

func (m *mapMemory) Lookup(eval string, keys []uint64) ([]Learnt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lookups++
	m.keys += len(keys)
	var out []Learnt
	for _, k := range keys {
		if e, ok := m.entries[eval][k]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *mapMemory) Record(eval, game string, es []Learnt) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries[eval] == nil {
		m.entries[eval] = map[uint64]Learnt{}
	}
	for _, e := range es {
		if old, ok := m.entries[eval][e.Key]; !ok || e.Depth >= old.Depth {
			m.entries[eval][e.Key] = e
		}
	}
}

func (m *mapMemory) GameOver(game string, r GameResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.results[game] = r
}

func (m *mapMemory) count(eval string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries[eval])
}

// memoryFEN is a quiet middlegame (Bratko-Kopec 14 family): no short
// forced line, so the search spends its nodes on ordinary moves.
const memoryFEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"

// TestMemoryHalvesNodesToSameDepth is the learning memory's key figure,
// counted in nodes (not time, so it does not depend on the machine): a
// second game that reaches a position searched in an earlier game reaches
// the same depth in at most half the nodes, with a fresh hash table seeded
// from the memory.
func TestMemoryHalvesNodesToSameDepth(t *testing.T) {
	// Depth 11: the memory's result stands for depth 10 and depth 11 is
	// searched round its score (search.Limits.Known never answers a depth
	// limit alone). One position varies: at depth 10 this one took 0.63
	// of the nodes, at 11 0.09 (docs/learn-speed.md has the figure over a
	// game's positions).
	const depth = 11
	mem := newMapMemory()
	first := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: "first", LearnMinDepth: 3})
	if err := first.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	d1 := think(t, first, ThinkLimits{Depth: depth})
	first.WaitLearning()
	id := search.EvalID(nil)
	if mem.count(id) == 0 {
		t.Fatal("the first search recorded nothing")
	}
	for _, e := range mem.entries[id] {
		if e.FEN == "" || e.Depth < 3 || e.Bound == search.BoundNone {
			t.Fatalf("recorded entry %+v: want a FEN, depth >= 3 and a bound", e)
		}
		p, err := board.ParseFEN(e.FEN)
		if err != nil || p.Key() != e.Key {
			t.Fatalf("entry %+v: FEN does not give its key (%v)", e, err)
		}
	}

	fresh := newTestGame(t, Options{HashMB: 16})
	if err := fresh.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	d0 := think(t, fresh, ThinkLimits{Depth: depth})
	if d0.Nodes != d1.Nodes {
		t.Fatalf("recording changed the search: %d nodes with a memory, %d without", d1.Nodes, d0.Nodes)
	}

	second := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: "second", LearnMinDepth: 3})
	if err := second.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	d2 := think(t, second, ThinkLimits{Depth: depth})
	if root := testsupport.MustFEN(t, memoryFEN).Key(); !slices.Contains(mem.used["second"], root) {
		t.Errorf("the second game used %v, want the root %d it was seeded from (Memory.Used)", mem.used["second"], root)
	}
	t.Logf("depth %d: %d nodes from nothing, %d with the memory (%d entries)", depth, d1.Nodes, d2.Nodes, mem.count(id))
	if d2.Depth < depth {
		t.Fatalf("second search reached depth %d, want %d", d2.Depth, depth)
	}
	if 2*d2.Nodes > d1.Nodes {
		t.Fatalf("with the memory: %d nodes to depth %d, want at most half of %d", d2.Nodes, depth, d1.Nodes)
	}
}

// TestMemoryKeyedByEvaluation: entries carry the evaluation's identity; a
// game with another evaluation asks for its own and is seeded with none.
func TestMemoryKeyedByEvaluation(t *testing.T) {
	const depth = 7
	mem := newMapMemory()
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "hce", LearnMinDepth: 3})
	if err := g.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: depth})
	g.WaitLearning()
	if mem.count(search.EvalID(nil)) == 0 {
		t.Fatalf("nothing recorded under %s", search.EvalID(nil))
	}
	net := nnue.RandomNet(16, nnue.CReLU, 3)
	withNet := newTestGame(t, Options{Net: net, Memory: mem, MemoryGame: "nnue", LearnMinDepth: 3})
	if err := withNet.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	// Same net, no memory: the node count of a search from nothing.
	plain := newTestGame(t, Options{Net: net})
	if err := plain.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	a, b := think(t, withNet, ThinkLimits{Depth: depth}), think(t, plain, ThinkLimits{Depth: depth})
	if a.Nodes != b.Nodes {
		t.Fatalf("a net's game used the hand-crafted evaluation's entries: %d nodes, %d from nothing", a.Nodes, b.Nodes)
	}
	withNet.WaitLearning()
	if mem.count(net.ID()) == 0 {
		t.Fatalf("the net's game recorded nothing under %s", net.ID())
	}
}

// TestMemorySeedsOncePerPosition: a position's entries are looked up when
// a search of it starts, not again for the next search of the same
// position, and again after NewGame (the table was cleared).
func TestMemorySeedsOncePerPosition(t *testing.T) {
	mem := newMapMemory()
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "x", LearnMinDepth: 3})
	think(t, g, ThinkLimits{Depth: 5})
	n := mem.lookups
	if n == 0 {
		t.Fatal("no lookup at the start of a search")
	}
	think(t, g, ThinkLimits{Depth: 5})
	if mem.lookups != n {
		t.Fatalf("second search of the same position looked up again: %d lookups, then %d", n, mem.lookups)
	}
	if err := g.NewGame(); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 5})
	if mem.lookups == n {
		t.Fatal("no lookup after NewGame")
	}
	g.GameOver(ResultLoss)
	if mem.results["x"] != ResultLoss {
		t.Fatalf("GameOver: memory got %v", mem.results["x"])
	}
}

// TestMemoryStartsAtLearntDepth: a search of a position the memory knows
// to depth d takes the memory's result as its depth-d iteration after
// depth 1 (search.Limits.Known; at most the depth before a depth limit);
// a timed one only as deep as its budget is expected to reach, so with no
// history of depths it searches every depth.
func TestMemoryStartsAtLearntDepth(t *testing.T) {
	const depth = 9
	mem := newMapMemory()
	first := newTestGame(t, Options{Memory: mem, MemoryGame: "first"})
	if err := first.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	think(t, first, ThinkLimits{Depth: depth})
	first.WaitLearning()

	iterations := func(g *Game, lim ThinkLimits) []int {
		t.Helper()
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		var ds []int
		if _, err := g.Think(context.Background(), lim, func(in search.Info) {
			if in.Bound == search.BoundExact && in.MultiPV <= 1 {
				ds = append(ds, in.Depth)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	second := newTestGame(t, Options{Memory: mem, MemoryGame: "second"})
	// The depth limit itself is always searched: the memory's result
	// stands for the depth before it.
	if got := iterations(second, ThinkLimits{Depth: depth}); !slices.Equal(got, []int{1, depth - 1, depth}) {
		t.Errorf("with the memory: iterations %v, want [1 %d %d]", got, depth-1, depth)
	}
	timed := newTestGame(t, Options{Memory: mem, MemoryGame: "timed"})
	got := iterations(timed, ThinkLimits{WTime: time.Minute, BTime: time.Minute, Depth: 6})
	if len(got) < 2 || got[1] != 2 {
		t.Errorf("timed, no depth history: iterations %v, want every depth", got)
	}

	// With a history of depths saying the budget reaches depth 5 (depth 6
	// took far longer than a minute's clock gives a move), a timed search
	// jumps to 5, not to the learnt 9.
	capped := newTestGame(t, Options{Memory: mem, MemoryGame: "capped"})
	capped.mu.Lock()
	capped.depths.times = []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond,
		8 * time.Millisecond, 16 * time.Millisecond, time.Hour}
	reach := capped.depths.reachable(PlanMove(ThinkLimits{WTime: time.Minute, BTime: time.Minute}, true, capped.opts.MoveOverhead, 0).Base, 0)
	capped.mu.Unlock()
	if reach != 5 {
		t.Fatalf("the history reaches depth %d, want 5", reach)
	}
	if got := iterations(capped, ThinkLimits{WTime: time.Minute, BTime: time.Minute, Depth: 6}); len(got) < 2 || got[1] != 5 {
		t.Errorf("timed, budget reaching depth 5, memory knowing %d: iterations %v, want 1 then 5", depth, got)
	}
}

// TestMemoryKnownRootLeadsTheSearch: a memory that knows the root exactly
// hands the search its result: told as the iteration of its depth right
// after depth 1, with the memory's move and score, the next iteration the
// depth after; a search stopped before that one completes plays the
// memory's move. A root known only by a bound is searched at every depth.
func TestMemoryKnownRootLeadsTheSearch(t *testing.T) {
	const depth, score = 8, 25
	pos, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	id := search.EvalID(nil)
	// a3, which depth 1 does not prefer: only the memory can bring it.
	entry := Learnt{Key: pos.Key(), Move: "a2a3", Score: score, Bound: search.BoundExact, Depth: depth}
	search1 := func(e Learnt, lim ThinkLimits) ([]search.Info, Decision) {
		t.Helper()
		mem := newMapMemory()
		mem.entries[id] = map[uint64]Learnt{e.Key: e}
		g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		var infos []search.Info
		d, err := g.Think(context.Background(), lim, func(in search.Info) {
			if in.Bound == search.BoundExact && in.MultiPV <= 1 {
				infos = append(infos, in)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return infos, d
	}
	infos, _ := search1(entry, ThinkLimits{Depth: depth + 1})
	var depths []int
	for _, in := range infos {
		depths = append(depths, in.Depth)
	}
	if !slices.Equal(depths, []int{1, depth, depth + 1}) {
		t.Fatalf("iterations %v, want [1 %d %d]", depths, depth, depth+1)
	}
	if infos[0].PV[0].UCI(false) == "a2a3" {
		t.Fatal("depth 1 prefers a3; pick another move for the memory")
	}
	if k := infos[1]; k.Score != score || len(k.PV) != 1 || k.PV[0].UCI(false) != "a2a3" {
		t.Errorf("depth %d: score %d pv %v, want the memory's %d and [a2a3]", depth, k.Score, k.PV, score)
	}
	if _, d := search1(entry, ThinkLimits{Nodes: 2000}); d.UCI != "a2a3" {
		t.Errorf("stopped after depth 1: played %s, want the memory's a2a3", d.UCI)
	}

	bound := entry
	bound.Bound = search.BoundLower
	infos, _ = search1(bound, ThinkLimits{Depth: 6})
	depths = depths[:0]
	for _, in := range infos {
		depths = append(depths, in.Depth)
	}
	if !slices.Equal(depths, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("a bound root entry: iterations %v, want every depth", depths)
	}
}

// TestMemoryKnownIgnoredKeepsDepthTimes: a search that ignores the
// memory's known root (MultiPV, a depth limit of 2, a mate search) searches
// every depth, and those depths' times go to the depth clock as any
// search's; one that takes it records none (a jump's times say nothing of a
// search from nothing).
func TestMemoryKnownIgnoredKeepsDepthTimes(t *testing.T) {
	pos, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	id := search.EvalID(nil)
	entry := Learnt{Key: pos.Key(), Move: "a2a3", Score: 25, Bound: search.BoundExact, Depth: 8}
	for _, c := range []struct {
		name  string
		lim   ThinkLimits
		times int // len(depths.times) after the search
	}{
		{"taken", ThinkLimits{Depth: 6}, 0},
		{"MultiPV", ThinkLimits{Depth: 6, MultiPV: 2}, 7},
		{"depth limit 2", ThinkLimits{Depth: 2}, 3},
		{"mate search", ThinkLimits{Depth: 6, Mate: 3}, 7},
	} {
		mem := newMapMemory()
		mem.entries[id] = map[uint64]Learnt{entry.Key: entry}
		g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		var known []int
		if _, err := g.Think(context.Background(), c.lim, func(in search.Info) { known = append(known, in.KnownDepth) }); err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		times := slices.Clone(g.depths.times)
		g.mu.Unlock()
		if len(times) != c.times || slices.Contains(times[min(1, len(times)):], 0) {
			t.Errorf("%s: depth clock %v, want %d entries, none 0 past depth 0 (Info.KnownDepth %v)", c.name, times, c.times, known)
		}
	}
}

// TestMemoryKnownRootNotWhereHistoryMatters: the memory's exact result
// for a root is not taken (every depth is searched) where this game's
// history may change it: a root that repeats an earlier position, one with
// a fifty-move count past learnMaxHalfmove, one whose known move returns
// to a position of the game (a repetition the memory cannot know of).
func TestMemoryKnownRootNotWhereHistoryMatters(t *testing.T) {
	const plainFEN = memoryFEN
	longFEN := "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 60 38"
	id := search.EvalID(nil)
	for _, c := range []struct {
		name  string
		fen   string
		moves []string
		move  string // the memory's best move at the root
		want  []int  // iterations of a search to depth 5 (the memory knows 8)
	}{
		{"no history", plainFEN, nil, "a2a3", []int{1, 4, 5}},
		{"after a knight's tour, not back", plainFEN, []string{"f3d2", "f6e8", "d2f3"}, "a7a6", []int{1, 4, 5}},
		{"root repeated", plainFEN, []string{"f3d2", "f6e8", "d2f3", "e8f6"}, "a2a3", []int{1, 2, 3, 4, 5}},
		{"fifty-move count", longFEN, nil, "a2a3", []int{1, 2, 3, 4, 5}},
		{"known move repeats", plainFEN, []string{"f3d2", "f6e8", "d2f3"}, "e8f6", []int{1, 2, 3, 4, 5}},
	} {
		pos, err := board.ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.moves {
			m, err := pos.ParseUCIMove(s)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			pos.MakeMove(m)
		}
		mem := newMapMemory()
		mem.entries[id] = map[uint64]Learnt{pos.Key(): {Key: pos.Key(), Move: c.move, Score: 25, Bound: search.BoundExact, Depth: 8}}
		g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
		if err := g.SetPosition(c.fen, false, c.moves); err != nil {
			t.Fatal(err)
		}
		var depths []int
		if _, err := g.Think(context.Background(), ThinkLimits{Depth: 5}, func(in search.Info) {
			if in.Bound == search.BoundExact && in.MultiPV <= 1 {
				depths = append(depths, in.Depth)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(depths, c.want) {
			t.Errorf("%s: iterations %v, want %v", c.name, depths, c.want)
		}
	}
}

// TestMemoryKnownRootNotOverAGameResult: the memory's exact root result
// is not taken when this game's TT or tree already holds a deeper result
// for the root, or one as deep with another move (a search on after a
// capped ponder hit, a position searched before); the memory's own seeded
// entry, or an equal one, does not stop it.
func TestMemoryKnownRootNotOverAGameResult(t *testing.T) {
	pos, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	a3, err := pos.ParseUCIMove("a2a3")
	if err != nil {
		t.Fatal(err)
	}
	h3, err := pos.ParseUCIMove("h2h3")
	if err != nil {
		t.Fatal(err)
	}
	const known = 4
	id := search.EvalID(nil)
	for _, c := range []struct {
		name  string
		tt    bool // the game's result is in the TT (else in the tree)
		depth int
		move  board.Move
		want  []int // iterations to depth 6
	}{
		{"none", true, 0, board.NoMove, []int{1, 4, 5, 6}},
		{"TT as deep, same move", true, known, a3, []int{1, 4, 5, 6}},
		{"TT shallower, other move", true, known - 1, h3, []int{1, 4, 5, 6}},
		{"TT deeper", true, known + 2, a3, []int{1, 2, 3, 4, 5, 6}},
		{"TT as deep, other move", true, known, h3, []int{1, 2, 3, 4, 5, 6}},
		{"tree deeper", false, known + 2, h3, []int{1, 2, 3, 4, 5, 6}},
		{"tree as deep, other move", false, known, h3, []int{1, 2, 3, 4, 5, 6}},
	} {
		mem := newMapMemory()
		mem.entries[id] = map[uint64]Learnt{pos.Key(): {Key: pos.Key(), Move: "a2a3", Score: 25, Bound: search.BoundExact, Depth: known}}
		g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		if c.depth > 0 {
			g.mu.Lock()
			if c.tt {
				g.eng.TT().Store(pos.Key(), c.move, 30, search.NoScore, c.depth, search.BoundExact)
			} else {
				g.tree.update(g.cur, 30, search.BoundExact, c.depth, c.move)
			}
			g.mu.Unlock()
		}
		var depths []int
		if _, err := g.Think(context.Background(), ThinkLimits{Depth: 6}, func(in search.Info) {
			if in.Bound == search.BoundExact && in.MultiPV <= 1 {
				depths = append(depths, in.Depth)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(depths, c.want) {
			t.Errorf("%s: iterations %v, want %v", c.name, depths, c.want)
		}
	}
}

// TestMemoryWhilePondering: a pondering game with a memory records the
// searches of its moves and of its ponder searches, and its later moves
// are seeded; NewGame and Close wait for the gathering (run with -race to
// see that nothing reads the table while it is cleared).
func TestMemoryWhilePondering(t *testing.T) {
	mem := newMapMemory()
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "p", LearnMinDepth: 3, Ponder: true, PonderDepth: 6})
	for i := range 6 {
		d := think(t, g, ThinkLimits{Depth: 5})
		play(t, g, d.UCI)
		g.StartPonder(context.Background())
		if i%2 == 0 {
			waitPonderDepth(t, g, 4)
		}
		var ml board.MoveList
		g.mu.Lock()
		g.pos.GenerateLegal(&ml)
		reply := g.pos.MoveToUCI(ml.Moves[0])
		g.mu.Unlock()
		play(t, g, reply)
	}
	if err := g.NewGame(); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 5})
	g.Close()
	if n := mem.count(search.EvalID(nil)); n == 0 {
		t.Fatal("nothing recorded in a pondering game")
	}
	if mem.lookups < 7 {
		t.Fatalf("%d lookups: want one at least for each position searched", mem.lookups)
	}
}

// TestMemoryRecordsOnlyScoresOfTheEvaluation: what depends on the game's
// history or on the tables is not recorded: a search whose root has a
// high fifty-move counter, or a repetition in its history, records
// nothing; draw scores of exactly 0 and tablebase scores are left out
// (the positions below them are still visited).
func TestMemoryRecordsOnlyScoresOfTheEvaluation(t *testing.T) {
	id := search.EvalID(nil)
	for _, c := range []struct {
		name, fen string
		moves     []string
	}{
		{"fifty-move counter 45", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 45 30", nil},
		{"a repetition in the history", memoryFEN, []string{"f1d3", "c8d7", "d3f1", "d7c8", "f1d3"}},
	} {
		mem := newMapMemory()
		g := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: "x", LearnMinDepth: 3})
		if err := g.SetPosition(c.fen, false, c.moves); err != nil {
			t.Fatal(err)
		}
		think(t, g, ThinkLimits{Depth: 6})
		g.WaitLearning()
		if n := mem.count(id); n != 0 {
			t.Errorf("%s: %d entries recorded, want none", c.name, n)
		}
	}

	root, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	var ml board.MoveList
	root.GenerateLegal(&ml)
	key := func(m board.Move) uint64 {
		root.MakeMove(m)
		defer root.UnmakeMove()
		return root.Key()
	}
	tt := search.NewTT(1)
	tt.Store(root.Key(), ml.Moves[0], 0, search.NoScore, 10, search.BoundExact)                        // a draw score
	tt.Store(key(ml.Moves[0]), board.NoMove, 35, search.NoScore, 9, search.BoundExact)                 // kept
	tt.Store(key(ml.Moves[1]), board.NoMove, search.TBWin-3, search.NoScore, 9, search.BoundLower)     // a tablebase win
	tt.Store(key(ml.Moves[2]), board.NoMove, search.MateScore-5, search.NoScore, 9, search.BoundExact) // a mate: kept
	got := gatherLearnt(tt, root, learnFloorDepth, nil)
	keys := map[uint64]bool{}
	for _, e := range got {
		keys[e.Key] = true
	}
	if len(got) != 2 || !keys[key(ml.Moves[0])] || !keys[key(ml.Moves[2])] {
		t.Fatalf("gathered %+v, want the entries of %v and %v only", got, ml.Moves[0], ml.Moves[2])
	}
}

// The hard limit counts from the run's start (before the memory seeds the
// TT), not from when its timer is armed.
func TestHardLimitCountsFromRunStart(t *testing.T) {
	start := time.Unix(1000, 0)
	r := &run{hitAt: start, budget: Budget{Timed: true, Hard: 800 * time.Millisecond}}
	for _, c := range []struct{ at, want time.Duration }{
		{0, 800 * time.Millisecond},
		{15 * time.Millisecond, 785 * time.Millisecond}, // a seed of 15 ms
		{time.Second, 0},
	} {
		if got := hardLeft(r, start.Add(c.at)); got != c.want {
			t.Errorf("hard limit %v, armed %v after the start: %v left, want %v", r.budget.Hard, c.at, got, c.want)
		}
	}
}

// TestMemorySeedRemembersDepth: a position seeded once (by a ponder
// search, say) gives its learnt depth to a later search of it without a
// second lookup; ClearHash and SetHashMB seed again; entries out of range
// (a damaged file) are not seeded.
func TestMemorySeedRemembersDepth(t *testing.T) {
	mem := newMapMemory()
	pos, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	id := search.EvalID(nil)
	mem.Record(id, "old", []Learnt{{Key: pos.Key(), Move: "f1d3", Score: 20, Bound: search.BoundExact, Depth: 9}})
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
	seed := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.seed(pos, learnMaxLookup)
	}
	if d := seed(); d != 9 {
		t.Fatalf("first seed: root depth %d, want 9", d)
	}
	n := mem.lookups
	if d := seed(); d != 9 || mem.lookups != n {
		t.Fatalf("second seed: root depth %d after %d more lookups, want 9 and none", d, mem.lookups-n)
	}
	if err := g.ClearHash(); err != nil {
		t.Fatal(err)
	}
	if seed(); mem.lookups == n {
		t.Fatal("no lookup after ClearHash")
	}
	n = mem.lookups
	if err := g.SetHashMB(2); err != nil {
		t.Fatal(err)
	}
	if seed(); mem.lookups == n {
		t.Fatal("no lookup after SetHashMB")
	}

	for _, bad := range []Learnt{
		{Key: pos.Key(), Move: "f1d3", Score: 20, Bound: search.BoundExact, Depth: 5000},
		{Key: pos.Key(), Move: "f1d3", Score: 40000, Bound: search.BoundExact, Depth: 9},
		{Key: pos.Key(), Move: "f1d3", Score: 20, Bound: search.BoundNone, Depth: 9},
	} {
		m := newMapMemory()
		m.entries[id] = map[uint64]Learnt{bad.Key: bad}
		g := newTestGame(t, Options{Memory: m, MemoryGame: "x"})
		g.mu.Lock()
		d := g.seed(pos, learnMaxLookup)
		g.mu.Unlock()
		if d != 0 {
			t.Errorf("entry %+v: seeded, root depth %d", bad, d)
		}
	}
}

// searchedMemoryGame is the start of the net-switch tests: a game with a
// memory that has searched memoryFEN to depth 5 and gathered what it found.
func searchedMemoryGame(t *testing.T) (*Game, *mapMemory) {
	t.Helper()
	mem := newMapMemory()
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "x", LearnMinDepth: 3})
	if err := g.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 5})
	g.WaitLearning()
	return g, mem
}

// TestMemorySkipsTheSearchAfterANetSwitch: the network changed mid-game
// (the table kept) — the first search after it records nothing, the next
// one records under the new evaluation.
func TestMemorySkipsTheSearchAfterANetSwitch(t *testing.T) {
	g, mem := searchedMemoryGame(t)
	if mem.count(search.EvalID(nil)) == 0 {
		t.Fatal("nothing recorded before the switch")
	}
	net := nnue.RandomNet(16, nnue.CReLU, 5)
	g.Engine().SetNet(net)
	think(t, g, ThinkLimits{Depth: 5})
	g.WaitLearning()
	if n := mem.count(search.EvalID(net)); n != 0 {
		t.Fatalf("the first search after the switch recorded %d entries", n)
	}
	if err := g.SetPosition(board.StartFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 5})
	g.WaitLearning()
	if mem.count(search.EvalID(net)) == 0 {
		t.Fatal("the second search after the switch recorded nothing")
	}
}

// TestMemoryRecordsAfterClearHashOnANetSwitch: once the table is cleared
// after a change of network (as the UCI backend does with a memory), no
// entry of the old one is left and the next search is recorded.
func TestMemoryRecordsAfterClearHashOnANetSwitch(t *testing.T) {
	g, mem := searchedMemoryGame(t)
	net := nnue.RandomNet(16, nnue.CReLU, 5)
	g.Engine().SetNet(net)
	if err := g.ClearHash(); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 5})
	g.WaitLearning()
	if mem.count(search.EvalID(net)) == 0 {
		t.Fatal("the first search after the switch and ClearHash recorded nothing")
	}
}

// TestMemorySeedBoundedByBudget: a timed search's seed looks up at most
// seedLookups of its soft budget (the lookups run on our clock); an
// untimed one up to learnMaxLookup.
func TestMemorySeedBoundedByBudget(t *testing.T) {
	mem := newMapMemory()
	first := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: "first", LearnMinDepth: 3})
	if err := first.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	think(t, first, ThinkLimits{Depth: 10})
	first.WaitLearning()
	pos, err := board.ParseFEN(memoryFEN)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(limit int) int {
		g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
		mem.mu.Lock()
		before := mem.keys
		mem.mu.Unlock()
		g.mu.Lock()
		g.seed(pos, limit)
		g.mu.Unlock()
		mem.mu.Lock()
		defer mem.mu.Unlock()
		return mem.keys - before
	}
	full := keys(learnMaxLookup)
	small := seedLookups(5 * time.Millisecond)
	if small >= full {
		t.Fatalf("the memory gives only %d keys to look up; the test needs more than %d", full, small)
	}
	if got := keys(small); got > small || got == 0 {
		t.Fatalf("seed bounded to %d keys looked up %d (%d unbounded)", small, got, full)
	}
	if seedLookups(time.Second) != learnMaxLookup || seedLookups(0) != 1+board.MaxMoves {
		t.Fatalf("seedLookups: %d for 1 s, %d for 0", seedLookups(time.Second), seedLookups(0))
	}

	// Through Think: a timed search's seed is bounded by its own budget
	// (startRun passes seedLookups of the soft limit).
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "timed"})
	if err := g.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	lim := ThinkLimits{MoveTime: 5 * time.Millisecond}
	bound := seedLookups(PlanMove(lim, true, g.opts.MoveOverhead, 0).Soft)
	if bound >= full {
		t.Fatalf("a budget of %v allows %d keys, the test needs fewer than %d", lim.MoveTime, bound, full)
	}
	mem.mu.Lock()
	before := mem.keys
	mem.mu.Unlock()
	think(t, g, lim)
	mem.mu.Lock()
	got := mem.keys - before
	mem.mu.Unlock()
	if got > bound || got == 0 {
		t.Fatalf("a search of %v looked up %d keys, want 1 to %d (%d unbounded)", lim.MoveTime, got, bound, full)
	}
}

// ClearHash and SetHashMB during a running search answer ErrBusy: they
// used to hold g.mu while the engine waited for its search, whose end
// needs g.mu (a deadlock).
func TestClearHashDuringThinkIsBusy(t *testing.T) {
	g := newTestGame(t, Options{})
	done := make(chan error, 1)
	go func() {
		_, err := g.Think(context.Background(), ThinkLimits{Infinite: true}, nil)
		done <- err
	}()
	waitRunDepth(g, 2)
	for name, call := range map[string]func() error{
		"ClearHash": g.ClearHash,
		"SetHashMB": func() error { return g.SetHashMB(2) },
	} {
		got := make(chan error, 1)
		go func() { got <- call() }()
		select {
		case err := <-got:
			if err != ErrBusy {
				t.Errorf("%s during Think: %v, want ErrBusy", name, err)
			}
		case <-time.After(30 * time.Second): // a deadlock, not a slow machine
			t.Fatalf("%s during Think did not return", name)
		}
	}
	g.Stop()
	if err := <-done; err != nil {
		t.Fatalf("think: %v", err)
	}
	if err := g.ClearHash(); err != nil {
		t.Errorf("ClearHash after Think: %v", err)
	}
}

// TestMemoryUsedOnlyWhenPlayed: a ponder search of a position the memory
// knows tells Used only once it becomes our move's search (a ponder hit);
// a miss never played the position, and a loss must not charge it.
func TestMemoryUsedOnlyWhenPlayed(t *testing.T) {
	mem := newMapMemory()
	root := testsupport.MustFEN(t, memoryFEN).Key()
	mem.Record(search.EvalID(nil), "old", []Learnt{{Key: root, Move: "f1d3", Score: 20, Bound: search.BoundExact, Depth: 9}})
	g := newTestGame(t, Options{Memory: mem, MemoryGame: "x"})
	if err := g.SetPosition(memoryFEN, false, nil); err != nil {
		t.Fatal(err)
	}
	used := func() []uint64 {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		return slices.Clone(mem.used["x"])
	}
	ponder := func(hit bool) {
		done := make(chan error, 1)
		go func() {
			_, err := g.Think(context.Background(), ThinkLimits{Ponder: true, Depth: 30}, nil)
			done <- err
		}()
		waitRunDepth(g, 0)
		if hit {
			g.PonderHit()
		}
		g.Stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	ponder(false)
	if u := used(); len(u) != 0 {
		t.Fatalf("a ponder miss used %v", u)
	}
	ponder(true)
	if u := used(); !slices.Contains(u, root) {
		t.Fatalf("a ponder hit used %v, want the root %d", u, root)
	}
}

// sizedMemory is a mapMemory that keeps the size of each Record.
type sizedMemory struct {
	*mapMemory
	records []int
	// recorded are the entries of each Record, with the depth the memory
	// held for each then (0: none).
	recorded [][2]int
}

func (m *sizedMemory) Record(eval, game string, es []Learnt) {
	m.mu.Lock()
	m.records = append(m.records, len(es))
	for _, e := range es {
		m.recorded = append(m.recorded, [2]int{e.Depth, m.entries[eval][e.Key].Depth})
	}
	m.mu.Unlock()
	m.mapMemory.Record(eval, game, es)
}

// heldMemory is a sizedMemory that is a HeldDepther.
type heldMemory struct{ *sizedMemory }

func (m heldMemory) HeldDepth(eval string, key uint64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries[eval][key].Depth
}

// TestMemoryRecordBoundedPerSearch: the end of a search records at most
// a few hundred entries (2048 a search filled the table within 40 games
// and wrote 300 MB of WAL), only those searched to LearnMinDepth or more,
// and none the memory already holds as deeply (a HeldDepther).
func TestMemoryRecordBoundedPerSearch(t *testing.T) {
	id := search.EvalID(nil)
	for _, minDepth := range []int{3, DefaultLearnMinDepth} {
		mem := &sizedMemory{mapMemory: newMapMemory()}
		g := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: "x", LearnMinDepth: minDepth})
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		think(t, g, ThinkLimits{Depth: 12})
		g.WaitLearning()
		if len(mem.records) != 1 || mem.records[0] == 0 || mem.records[0] > learnMaxRecord || learnMaxRecord > 256 {
			t.Fatalf("LearnMinDepth %d: records of %v entries, want one of 1 to %d (at most 256)", minDepth, mem.records, learnMaxRecord)
		}
		for _, e := range mem.entries[id] {
			if e.Depth < minDepth {
				t.Fatalf("LearnMinDepth %d: recorded %+v, searched less deeply", minDepth, e)
			}
		}
		t.Logf("LearnMinDepth %d: %d entries recorded", minDepth, mem.records[0])
	}

	// A second game of the same position, seeded from the memory: what it
	// did not search deeper than the memory holds is left out.
	inner := &sizedMemory{mapMemory: newMapMemory()}
	mem := heldMemory{inner}
	for _, game := range []string{"first", "second"} {
		g := newTestGame(t, Options{HashMB: 16, Memory: mem, MemoryGame: game, LearnMinDepth: 3})
		if err := g.SetPosition(memoryFEN, false, nil); err != nil {
			t.Fatal(err)
		}
		think(t, g, ThinkLimits{Depth: 10})
		g.WaitLearning()
	}
	if len(inner.records) != 2 || inner.records[0] == 0 {
		t.Fatalf("records of %v entries, want two, the first not empty", inner.records)
	}
	for _, r := range inner.recorded[inner.records[0]:] {
		if r[0] <= r[1] {
			t.Fatalf("the second game recorded an entry of depth %d the memory held at depth %d", r[0], r[1])
		}
	}
	t.Logf("records of %v entries", inner.records)
}
