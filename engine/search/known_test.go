package search

import (
	"context"
	"slices"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func knownMove(t *testing.T, p *board.Position, uci string) board.Move {
	t.Helper()
	m, err := p.ParseUCIMove(uci)
	if err != nil {
		t.Fatalf("parsing %s: %v", uci, err)
	}
	return m
}

// Limits.Known: depth 1 is always searched, then the known result stands
// as the iteration of its depth (at most the depth before the limit, which
// is always searched) and the search
// goes on from there; without it, or when it cannot apply (an illegal
// move, a move SearchMoves leaves out, MultiPV, depth below 2, a mate
// search), every depth is searched.
func TestKnownSkipsShallowIterations(t *testing.T) {
	p, err := board.ParseFEN(kiwipete)
	if err != nil {
		t.Fatal(err)
	}
	bxa6 := knownMove(t, p, "e2a6")
	a3 := knownMove(t, p, "a2a3")
	illegal := board.NewMove(board.E1, board.E3) // a king two squares up the file
	if p.IsLegal(illegal) {
		t.Fatal("e1e3 is legal here")
	}
	for _, c := range []struct {
		name  string
		lim   Limits
		want  []int
		known int // Info.KnownDepth in every info
	}{
		{"none", Limits{Depth: 6}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"depth 2", Limits{Depth: 6, Known: &KnownRoot{Depth: 2, Score: 20, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 2},
		{"depth 5", Limits{Depth: 6, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 5, 6}, 5},
		{"beyond the limit", Limits{Depth: 4, Known: &KnownRoot{Depth: 9, Score: 20, Move: bxa6}}, []int{1, 3, 4}, 3},
		{"at the limit", Limits{Depth: 5, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 4, 5}, 4},
		{"limit 2", Limits{Depth: 2, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 2}, 0},
		{"depth 1", Limits{Depth: 6, Known: &KnownRoot{Depth: 1, Score: 20, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"illegal move", Limits{Depth: 6, Known: &KnownRoot{Depth: 5, Score: 20, Move: illegal}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"no move", Limits{Depth: 6, Known: &KnownRoot{Depth: 5, Score: 20}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"left out by SearchMoves", Limits{Depth: 6, SearchMoves: []board.Move{a3}, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"MultiPV", Limits{Depth: 6, MultiPV: 2, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"mate score", Limits{Depth: 6, Known: &KnownRoot{Depth: 5, Score: Infinity, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"mate limit, known mate", Limits{Depth: 6, Mate: 3, Known: &KnownRoot{Depth: 5, Score: MateScore - 3, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
		{"mate limit", Limits{Depth: 6, Mate: 3, Known: &KnownRoot{Depth: 5, Score: 20, Move: bxa6}}, []int{1, 2, 3, 4, 5, 6}, 0},
	} {
		e := New(Options{HashMB: 4})
		var depths, knownDepths []int
		res := e.Search(context.Background(), p, c.lim, nil, func(i Info) {
			if i.Bound == BoundExact && i.MultiPV <= 1 {
				depths = append(depths, i.Depth)
			}
			knownDepths = append(knownDepths, i.KnownDepth)
		})
		if !slices.Equal(depths, c.want) || res.Depth != c.want[len(c.want)-1] || res.BestMove == board.NoMove {
			t.Errorf("%s: iterations %v, result depth %d move %v; want iterations %v", c.name, depths, res.Depth, res.BestMove, c.want)
		}
		// Info.KnownDepth: the depth taken from Known (depth 2 replaces
		// the iteration of depth 2), 0 when every depth is searched.
		for _, k := range knownDepths {
			if k != c.known {
				t.Errorf("%s: Info.KnownDepth %v, want %d in every info", c.name, knownDepths, c.known)
				break
			}
		}
	}
}

// The known result is told right after depth 1, as an iteration of its
// depth with its score and move (so UCI prints "info depth d ... pv m"),
// and the next iteration is the depth after it, which searches the known
// move first.
func TestKnownReportedAfterDepthOne(t *testing.T) {
	p, err := board.ParseFEN(kiwipete)
	if err != nil {
		t.Fatal(err)
	}
	// A move that depth 1 does not prefer, so that its report can only
	// come from Known.
	first := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{Depth: 1}, nil, nil)
	m := knownMove(t, p, "e2a6")
	if first.BestMove == m {
		m = knownMove(t, p, "d5e6")
	}
	const depth, score = 6, 37
	var infos []Info
	res := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{Depth: depth + 1, Known: &KnownRoot{Depth: depth, Score: score, Move: m}}, nil,
		func(i Info) {
			if i.Bound == BoundExact {
				infos = append(infos, i)
			}
		})
	if len(infos) != 3 {
		t.Fatalf("%d exact infos, want 3 (depths 1, %d, %d): %+v", len(infos), depth, depth+1, infos)
	}
	if infos[0].Depth != 1 || infos[0].PV[0] != first.BestMove {
		t.Errorf("first info: depth %d pv %v, want depth 1 pv starting %v", infos[0].Depth, infos[0].PV, first.BestMove)
	}
	k := infos[1]
	if k.Depth != depth || k.Score != score || !slices.Equal(k.PV, []board.Move{m}) || k.SelDepth != depth {
		t.Errorf("known info: depth %d seldepth %d score %d pv %v; want depth %d seldepth %d score %d pv [%v]",
			k.Depth, k.SelDepth, k.Score, k.PV, depth, depth, score, m)
	}
	if infos[2].Depth != depth+1 || res.Depth != depth+1 {
		t.Errorf("after the known depth: info depth %d, result depth %d; want %d", infos[2].Depth, res.Depth, depth+1)
	}
}

// A search given Known and stopped before the iteration after the known
// depth completes plays the known move at the known depth, not the move
// depth 1 preferred, though that move's depth-1 score is higher than the
// known score (depth 20, far from done in a few thousand nodes).
func TestStoppedKnownPlaysKnownMove(t *testing.T) {
	const depth = 20
	p, err := board.ParseFEN("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
	if err != nil {
		t.Fatal(err)
	}
	first := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{Depth: 1}, nil, nil)
	m := knownMove(t, p, "a2a3")
	k := &KnownRoot{Depth: depth, Score: first.Score - 150, Move: m}
	if first.BestMove == m {
		t.Fatal("depth 1 prefers a3; pick another known move")
	}
	for _, nodes := range []uint64{1500, 3000, 6000} {
		var depths []int
		res := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{Nodes: nodes, Known: k}, nil, func(i Info) {
			if i.Bound == BoundExact {
				depths = append(depths, i.Depth)
			}
		})
		if !slices.Equal(depths, []int{1, depth}) {
			t.Errorf("nodes %d: iterations %v, want [1 %d] (stopped in depth %d)", nodes, depths, depth, depth+1)
			continue
		}
		if res.BestMove != m || res.Depth != depth || res.Score != k.Score {
			t.Errorf("nodes %d: played %v at depth %d score %d, want the known %v at depth %d score %d (depth 1 preferred %v at %d)",
				nodes, res.BestMove, res.Depth, res.Score, m, depth, k.Score, first.BestMove, first.Score)
		}
	}
}

// A search with no thread after depth 1 (Signals.SetThreads(0)) still
// takes the known result, which needs none, before it pauses: stopped
// while paused, it plays the known move at the known depth, not depth 1's.
func TestKnownTakenBeforePause(t *testing.T) {
	p := mustFEN(t, kiwipete)
	first := New(Options{HashMB: 4}).Search(context.Background(), p, Limits{Depth: 1}, nil, nil)
	m := knownMove(t, p, "e2a6")
	if first.BestMove == m {
		m = knownMove(t, p, "d5e6")
	}
	const depth, score = 6, 37
	e := New(Options{HashMB: 4, Threads: 1})
	sig := new(Signals)
	sig.SetThreads(0)
	infos := make(chan Info, 256)
	done := make(chan Result, 1)
	go func() {
		done <- e.Search(context.Background(), p, Limits{Infinite: true, Known: &KnownRoot{Depth: depth, Score: score, Move: m}}, sig,
			func(inf Info) {
				if inf.Bound == BoundExact && inf.MultiPV == 1 {
					select {
					case infos <- inf:
					default:
					}
				}
			})
	}()
	if inf := awaitInfo(t, infos, "depth 1"); inf.Depth != 1 {
		t.Fatalf("first info at depth %d, want 1", inf.Depth)
	}
	awaitPaused(t, "SetThreads(0) after depth 1", e.threads[0])
	sig.Stop()
	res := awaitResult(t, done, "stopped while paused")
	if res.BestMove != m || res.Depth != depth || res.Score != score {
		t.Fatalf("played %v at depth %d score %d, want the known %v at depth %d score %d (depth 1 preferred %v)",
			res.BestMove, res.Depth, res.Score, m, depth, score, first.BestMove)
	}
}
