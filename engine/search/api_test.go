package search

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

func TestSearchMoves(t *testing.T) {
	p := board.NewPosition()
	only := []string{"a2a3", "h2h4"}
	var restrict []board.Move
	for _, s := range only {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		restrict = append(restrict, m)
	}
	e := New(Options{})
	var pvFirst []board.Move
	res := e.Search(context.Background(), p, Limits{Depth: 6, SearchMoves: restrict}, nil, func(i Info) {
		pvFirst = append(pvFirst, i.PV[0])
	})
	if !contains(restrict, res.BestMove) {
		t.Fatalf("best move %v not among %v", res.BestMove, only)
	}
	if len(res.RootMoves) != 2 {
		t.Fatalf("%d root moves searched, want 2", len(res.RootMoves))
	}
	for _, m := range pvFirst {
		if !contains(restrict, m) {
			t.Fatalf("reported PV starts with %v", m)
		}
	}
	// Only illegal search moves: the restriction is ignored.
	bogus := board.NewMove(board.E2, board.E5)
	res = e.Search(context.Background(), p, Limits{Depth: 3, SearchMoves: []board.Move{bogus}}, nil, nil)
	if !isLegal(p, res.BestMove) || len(res.RootMoves) != 20 {
		t.Fatalf("illegal-only searchmoves: best %v, %d root moves", res.BestMove, len(res.RootMoves))
	}
	// A single legal search move is still searched and returned.
	res = e.Search(context.Background(), p, Limits{Depth: 3, SearchMoves: restrict[1:]}, nil, nil)
	if res.BestMove != restrict[1] {
		t.Fatalf("best %v, want %v", res.BestMove, restrict[1])
	}
}

func TestMultiPV(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{})
	const n = 4
	last := map[int]Info{}
	res := e.Search(context.Background(), p, Limits{Depth: 7, MultiPV: n}, nil, func(i Info) {
		if i.Bound == BoundExact {
			last[i.MultiPV] = i
		}
	})
	if len(last) != n {
		t.Fatalf("reported %d lines, want %d", len(last), n)
	}
	seen := map[board.Move]bool{}
	for k := 1; k <= n; k++ {
		inf := last[k]
		if len(inf.PV) == 0 || !isLegal(p, inf.PV[0]) {
			t.Fatalf("line %d: bad PV %v", k, inf.PV)
		}
		if seen[inf.PV[0]] {
			t.Fatalf("line %d repeats move %v", k, inf.PV[0])
		}
		seen[inf.PV[0]] = true
		if k > 1 && inf.Score > last[k-1].Score {
			t.Fatalf("line %d score %d above line %d score %d", k, inf.Score, k-1, last[k-1].Score)
		}
	}
	if res.BestMove != last[1].PV[0] {
		t.Fatalf("best %v is not line 1 %v", res.BestMove, last[1].PV[0])
	}
	// Root statistics: the first n moves carry exact scores in order.
	for k := 0; k < n; k++ {
		rm := res.RootMoves[k]
		if rm.Bound != BoundExact || rm.Move != last[k+1].PV[0] || rm.Score != last[k+1].Score {
			t.Fatalf("root move %d = %+v, want line %+v", k, rm, last[k+1])
		}
	}
}

func TestResultAndRootStats(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{})
	var infos []Info
	res := e.Search(context.Background(), p, Limits{Depth: 8}, nil, func(i Info) {
		// Aspiration fail-high/low reports (only after a second, so only
		// on a slow machine) are not iterations.
		if i.Bound == BoundExact {
			infos = append(infos, i)
		} else if len(i.PV) == 0 || i.Depth < 1 {
			t.Errorf("bound report %+v", i)
		}
	})
	var ml board.MoveList
	p.GenerateLegal(&ml)
	if len(res.RootMoves) != ml.N {
		t.Fatalf("%d root moves, want %d", len(res.RootMoves), ml.N)
	}
	var sum uint64
	for _, rm := range res.RootMoves {
		if !ml.Contains(rm.Move) || len(rm.PV) == 0 || rm.PV[0] != rm.Move || rm.Depth < 1 {
			t.Fatalf("bad root move %+v", rm)
		}
		sum += rm.Nodes
	}
	if sum == 0 || sum > res.Nodes {
		t.Fatalf("root nodes sum %d vs total %d", sum, res.Nodes)
	}
	if res.RootMoves[0].Move != res.BestMove || res.Depth != 8 {
		t.Fatalf("result %+v", res)
	}
	if len(res.PV) < 2 || res.PonderMove != res.PV[1] {
		t.Fatalf("ponder move %v, pv %v", res.PonderMove, res.PV)
	}
	// The PV is a legal line.
	q := p.Clone()
	for _, m := range res.PV {
		if !isLegal(q, m) {
			t.Fatalf("illegal PV %v", res.PV)
		}
		q.MakeMove(m)
	}
	// One exact report per depth, depths increasing, nodes increasing.
	if len(infos) != 8 {
		t.Fatalf("%d infos", len(infos))
	}
	for i, inf := range infos {
		if inf.Depth != i+1 || inf.MultiPV != 1 || len(inf.PV) == 0 || inf.SelDepth < inf.Depth/2 {
			t.Fatalf("info %d: %+v", i, inf)
		}
		if inf.Hashfull < 0 || inf.Hashfull > 1000 {
			t.Fatalf("info %d: hashfull %d", i, inf.Hashfull)
		}
		if i > 0 && inf.Nodes < infos[i-1].Nodes {
			t.Fatalf("nodes went down: %+v", inf)
		}
	}
	// With a small table the fill shows up in the last report.
	small := New(Options{HashMB: 1})
	var last Info
	small.Search(context.Background(), p, Limits{Depth: 8}, nil, func(i Info) { last = i })
	if last.Hashfull <= 0 {
		t.Fatalf("hashfull %d after a depth-8 search in 1 MB", last.Hashfull)
	}
	// The TT knows the root position afterwards, with the best move.
	if ent, ok := e.Probe(p.Key()); !ok || ent.Move != res.BestMove {
		t.Fatalf("probe root: %+v %v", ent, ok)
	}
}

func TestTTKeptAcrossSearches(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{})
	first := search(t, e, p, Limits{Depth: 9})
	second := search(t, e, p, Limits{Depth: 9})
	if second.Nodes >= first.Nodes {
		t.Fatalf("second search of the same position used %d nodes, first %d: TT not reused", second.Nodes, first.Nodes)
	}
	e.NewGame()
	if _, ok := e.Probe(p.Key()); ok {
		t.Fatal("NewGame kept TT entries")
	}
}

// TestThreadsRace runs a short 2-thread search; with -race it proves the
// shared state is accessed safely.
func TestThreadsRace(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{Threads: 2, HashMB: 4})
	for i := 0; i < 2; i++ {
		res := search(t, e, p, Limits{Depth: 6})
		if !isLegal(p, res.BestMove) {
			t.Fatalf("illegal move %v", res.BestMove)
		}
	}
	e.SetThreads(3)
	res := search(t, e, p, Limits{Nodes: 30000})
	if !isLegal(p, res.BestMove) || res.Nodes < 30000 {
		t.Fatalf("nodes-limited 3-thread search: %+v", res)
	}
}

func TestPonderHit(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{})
	sig := new(Signals)
	done := make(chan Result)
	go func() {
		done <- e.Search(context.Background(), p, Limits{Ponder: true, MoveTime: 20 * time.Millisecond}, sig, nil)
	}()
	for e.Nodes() < 20000 {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("ponder search returned before PonderHit")
	default:
	}
	sig.PonderHit() // now 20ms of movetime from this moment
	res := <-done
	if !isLegal(p, res.BestMove) {
		t.Fatalf("illegal %v", res.BestMove)
	}
}

func TestPonderFinishedSearchWaits(t *testing.T) {
	// A ponder search that reaches its depth limit keeps waiting (UCI: no
	// bestmove before ponderhit/stop) and returns on Stop.
	p := board.NewPosition()
	e := New(Options{})
	sig := new(Signals)
	var res Result
	reached := make(chan struct{})
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		res = e.Search(context.Background(), p, Limits{Ponder: true, Depth: 2}, sig, func(i Info) {
			if i.Depth == 2 {
				close(reached)
			}
		})
	}()
	<-reached // the search is complete; now it must wait
	time.Sleep(10 * time.Millisecond)
	select {
	case <-returned:
		t.Fatal("finished ponder search returned without Stop or PonderHit")
	default:
	}
	sig.Stop()
	<-returned
	if res.Depth != 2 || !isLegal(p, res.BestMove) {
		t.Fatalf("result %+v", res)
	}
}

func TestClockSearchReturns(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{MoveOverhead: 10 * time.Millisecond})
	res := search(t, e, p, Limits{WTime: 300 * time.Millisecond, BTime: time.Second})
	if !isLegal(p, res.BestMove) || res.Depth < 1 {
		t.Fatalf("result %+v", res)
	}
}

// TestNoAllocationsPerNode: after warm-up a search allocates only a bounded
// number of times per search (result and reported PVs), however many nodes.
func TestNoAllocationsPerNode(t *testing.T) {
	p := mustFEN(t, kiwipete)
	e := New(Options{HashMB: 4})
	search(t, e, p, Limits{Depth: 7})
	e.NewGame()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := search(t, e, p, Limits{Depth: 12})
	runtime.ReadMemStats(&after)
	allocs := after.Mallocs - before.Mallocs
	if res.Nodes < 50000 {
		t.Fatalf("only %d nodes: the test needs a real search", res.Nodes)
	}
	// Per search: root move list with PV buffers (~50), result copies (~50),
	// the context hook. Nothing per node.
	if allocs > 300 {
		t.Fatalf("%d allocations for %d nodes", allocs, res.Nodes)
	}
	t.Logf("%d allocations, %d nodes", allocs, res.Nodes)
}

// TestSelfPlayPVsLegal plays short games with shallow searches and checks
// every best move and every reported PV is a legal line (catches PV and TT
// move corruption), including a Chess960 start.
func TestSelfPlayPVsLegal(t *testing.T) {
	starts := []struct {
		fen      string
		chess960 bool
	}{
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false},
		{kiwipete, false},
		{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true},
	}
	for _, s := range starts {
		p := mustFEN(t, s.fen)
		p.SetChess960(s.chess960)
		e := New(Options{HashMB: 4})
		for ply := 0; ply < 40; ply++ {
			var bad []board.Move
			res := e.Search(context.Background(), p, Limits{Depth: 5}, nil, func(i Info) {
				q := p.Clone()
				for _, m := range i.PV {
					if !isLegal(q, m) {
						bad = i.PV
						return
					}
					q.MakeMove(m)
				}
			})
			if bad != nil {
				t.Fatalf("%s ply %d: illegal PV %v", p.FEN(), ply, bad)
			}
			if res.BestMove == board.NoMove {
				if p.HasLegalMoves() {
					t.Fatalf("%s: no move returned", p.FEN())
				}
				break
			}
			if !isLegal(p, res.BestMove) {
				t.Fatalf("%s: illegal best move %v", p.FEN(), res.BestMove)
			}
			if res.PonderMove != board.NoMove {
				q := p.Clone()
				q.MakeMove(res.BestMove)
				if !isLegal(q, res.PonderMove) {
					t.Fatalf("%s: illegal ponder move %v", p.FEN(), res.PonderMove)
				}
			}
			p.MakeMove(res.BestMove)
			if p.IsRepetition(0) || p.HalfmoveClock() >= 100 || p.IsInsufficientMaterial() {
				break
			}
		}
		t.Logf("ended at %s", p.FEN())
	}
}

func TestBestThreadVote(t *testing.T) {
	p := board.NewPosition()
	e := New(Options{Threads: 3})
	ctl := newControl(e, p, Limits{}, nil, time.Now())
	for _, th := range e.threads {
		th.prepare(p, ctl)
	}
	m1, m2 := e.threads[0].rootMoves[0].move, e.threads[0].rootMoves[1].move
	set := func(i int, m board.Move, score, depth int) {
		th := e.threads[i]
		th.completedDepth = depth
		for j := range th.rootMoves {
			if th.rootMoves[j].move == m {
				th.rootMoves[0], th.rootMoves[j] = th.rootMoves[j], th.rootMoves[0]
			}
		}
		th.rootMoves[0].score = score
	}
	// Two deeper helpers agree on m2 against the main thread's m1.
	set(0, m1, 20, 10)
	set(1, m2, 25, 12)
	set(2, m2, 22, 12)
	if got := e.bestThread(); got.rootMoves[0].move != m2 {
		t.Fatalf("vote picked %v, want %v", got.rootMoves[0].move, m2)
	}
	// A helper that found a mate wins regardless of votes.
	set(0, m1, 20, 10)
	set(1, m1, 21, 10)
	set(2, m2, MateScore-5, 9)
	if got := e.bestThread(); got != e.threads[2] {
		t.Fatal("mating thread not chosen")
	}
	// Tablebase wins count like mates: the shortest one wins, whatever
	// the votes (here deeper threads vote for the longer one).
	set(0, m1, TBWin-30, 20)
	set(1, m1, TBWin-30, 20)
	set(2, m2, TBWin-10, 5)
	if got := e.bestThread(); got != e.threads[2] {
		t.Fatalf("vote picked %v (%d), want the shorter tablebase win", got.rootMoves[0].move, got.rootMoves[0].score)
	}
	// A helper that has not finished depth 1 never votes.
	set(1, m2, 500, 0)
	set(2, m2, 500, 0)
	if got := e.bestThread(); got != e.threads[0] {
		t.Fatal("unfinished helpers outvoted the main thread")
	}
}
