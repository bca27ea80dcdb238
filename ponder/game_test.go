package ponder

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

func newTestGame(t *testing.T, opts Options) *Game {
	t.Helper()
	if opts.HashMB == 0 {
		opts.HashMB = 4
	}
	g := NewGame(opts)
	t.Cleanup(g.Close)
	return g
}

func think(t *testing.T, g *Game, lim ThinkLimits) Decision {
	t.Helper()
	d, err := g.Think(context.Background(), lim, nil)
	if err != nil {
		t.Fatalf("think: %v", err)
	}
	if d.UCI == "" {
		t.Fatalf("no move: %+v", d)
	}
	return d
}

func play(t *testing.T, g *Game, m string) {
	t.Helper()
	if err := g.Play(m); err != nil {
		t.Fatalf("play %s: %v", m, err)
	}
}

// waitRunDepth waits until Think has started its search (it may not have
// yet) and the search has completed depth d; 0: only started. It polls (no
// timing assertion): a search that never gets there makes the test time
// out rather than pass.
func waitRunDepth(g *Game, d int) {
	for {
		g.mu.Lock()
		ok := g.run != nil && g.run.depth >= d
		g.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// waitPonderDepth waits until the background or ponder-mode search has
// completed depth d. It polls (no timing assertion): a broken search makes
// the test time out rather than pass.
func waitPonderDepth(t *testing.T, g *Game, d int) {
	t.Helper()
	for {
		g.mu.Lock()
		r := g.run
		ok := r != nil && r.depth >= d
		g.mu.Unlock()
		if ok {
			return
		}
		if r == nil {
			t.Fatal("no search running")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestThinkFillsTree(t *testing.T) {
	g := newTestGame(t, Options{})
	d := think(t, g, ThinkLimits{Depth: 4})
	if d.Source != FromSearch || d.Depth != 4 {
		t.Fatalf("decision %+v", d)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	root := g.tree.root
	if n := len(g.tree.children(root)); n != 20 {
		t.Errorf("root has %d children, want the 20 root moves", n)
	}
	rn := g.tree.pool[root]
	if rn.best != d.Move || int(rn.depth) != 4 || rn.bound != search.BoundExact {
		t.Errorf("root node best %v depth %d bound %d, want %v 4 exact", rn.best, rn.depth, rn.bound, d.Move)
	}
	// The PV is a path of nodes below the root with alternating scores.
	p := root
	pos := board.NewPosition()
	for k, m := range d.RootMoves[0].PV {
		c := g.tree.findChild(p, m)
		if c == nilNode {
			t.Fatalf("PV move %d (%v) not in the tree", k, m)
		}
		pos.MakeMove(m)
		if g.tree.pool[c].key != pos.Key() {
			t.Fatalf("PV node %d has the wrong key", k)
		}
		want := d.Score
		if k%2 == 0 {
			want = -want
		}
		if int(g.tree.pool[c].score) != want {
			t.Errorf("PV node %d score %d, want %d", k, g.tree.pool[c].score, want)
		}
		p = c
	}
	var spent uint64
	for _, c := range g.tree.children(root) {
		spent += g.tree.pool[c].nodes
	}
	if spent == 0 {
		t.Error("no nodes recorded on the root children")
	}
}

func TestPlayRerootsAndKeepsPlayedSubtree(t *testing.T) {
	g := newTestGame(t, Options{})
	d := think(t, g, ThinkLimits{Depth: 5})
	g.mu.Lock()
	child := g.tree.findChild(g.tree.root, d.Move)
	want := dump(g.tree, child, "")
	liveBefore := g.tree.live
	g.mu.Unlock()
	play(t, g, d.UCI)
	// Deferred: the tree is not trimmed until the next Think.
	g.mu.Lock()
	if g.tree.live != liveBefore || g.cur != child {
		t.Errorf("position changed the tree before Think: live %d -> %d", liveBefore, g.tree.live)
	}
	g.mu.Unlock()
	d2 := think(t, g, ThinkLimits{Depth: 1})
	st := g.Stats()
	ms := st.PerMove[1]
	if ms.KeptNodes != len(want) || ms.TreeNodesBefore != liveBefore || ms.FreedNodes != liveBefore-len(want) {
		t.Errorf("kept %d of %d (freed %d), want %d of %d", ms.KeptNodes, ms.TreeNodesBefore, ms.FreedNodes, len(want), liveBefore)
	}
	if ms.KeptFraction <= 0 || ms.KeptFraction >= 1 {
		t.Errorf("kept fraction %v", ms.KeptFraction)
	}
	if ms.DepthAtMove != 4 {
		t.Errorf("depth at move %d, want 4 (depth 5 search one ply up)", ms.DepthAtMove)
	}
	// Every pool slot is either live or on the free list.
	g.mu.Lock()
	if g.tree.live+g.tree.nFree != len(g.tree.pool) || st.TreeNodes != g.tree.live {
		t.Errorf("live %d + free %d != pool %d", g.tree.live, g.tree.nFree, len(g.tree.pool))
	}
	g.mu.Unlock()
	if d2.Move == board.NoMove {
		t.Error("no move")
	}
}

func TestSetPositionExtendsOrStartsOver(t *testing.T) {
	g := newTestGame(t, Options{})
	think(t, g, ThinkLimits{Depth: 3})
	if err := g.SetPosition("startpos", false, []string{"e2e4", "e7e5"}); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 3})
	if g.Stats().PerMove[1].KeptNodes == 0 {
		t.Error("extension did not keep the tree")
	}
	// A different history starts over.
	if err := g.SetPosition("startpos", false, []string{"d2d4"}); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	live := g.tree.live
	g.mu.Unlock()
	if live != 1 {
		t.Errorf("start over left %d nodes", live)
	}
	for _, bad := range [][]string{{"e2e5"}, {"e2e4", "e2e4"}, {"zz"}} {
		if err := g.SetPosition("startpos", false, bad); err == nil {
			t.Errorf("moves %v accepted", bad)
		}
	}
	if err := g.SetPosition("not a fen", false, nil); err == nil {
		t.Error("bad FEN accepted")
	}
}

// A ponder hit with a deep enough pondered search replies without starting
// a search and without searching any node after the hit.
func TestPonderHitRepliesAtOnce(t *testing.T) {
	var logBuf bytes.Buffer
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 6, Logger: zerolog.New(&logBuf)})
	d := think(t, g, ThinkLimits{Depth: 5})
	if d.PonderUCI == "" {
		t.Fatal("no predicted reply")
	}
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	if !g.Pondering() {
		t.Fatal("not pondering")
	}
	waitPonderDepth(t, g, 6) // capped: the search now waits for the opponent
	play(t, g, d.PonderUCI)
	searches := g.Searches()
	d2 := think(t, g, ThinkLimits{Depth: 5})
	if d2.Source != FromPonderAtOnce {
		t.Errorf("source %v, want ponder-at-once", d2.Source)
	}
	if g.Searches() != searches {
		t.Errorf("%d searches started after the hit", g.Searches()-searches)
	}
	st := g.Stats()
	ms := st.PerMove[len(st.PerMove)-1]
	if !ms.Predicted || !ms.PonderHit || !ms.PonderTop3 {
		t.Errorf("stats %+v: want predicted hit", ms)
	}
	if ms.NodesAfterHit != 0 {
		t.Errorf("%d nodes searched after the hit", ms.NodesAfterHit)
	}
	if ms.DepthAtMove < 6 || d2.Depth < 6 {
		t.Errorf("depth at move %d, decision depth %d, want >= 6", ms.DepthAtMove, d2.Depth)
	}
	if ms.KeptNodes < 2 {
		t.Errorf("kept %d nodes", ms.KeptNodes)
	}
	if !strings.Contains(logBuf.String(), `"ponder_hit":true`) {
		t.Errorf("no ponder_hit in log: %s", logBuf.String())
	}
	// the log lines are JSON with the move stats
	for _, line := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
	}
}

// A hit whose ponder search is not deep enough converts the running search
// (no new search) and goes on under our limits.
func TestPonderHitConvertsRunningSearch(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 2)
	play(t, g, d.PonderUCI)
	searches := g.Searches()
	d2 := think(t, g, ThinkLimits{Depth: 40, Nodes: 20000})
	if d2.Source != FromPonder {
		t.Errorf("source %v, want ponder (converted)", d2.Source)
	}
	if g.Searches() != searches {
		t.Errorf("a new search was started on a hit")
	}
	if d2.Depth < 2 {
		t.Errorf("depth %d", d2.Depth)
	}
}

func TestPonderMissStartsNewSearch(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 4})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 4)
	// play any other legal reply
	g.mu.Lock()
	var ml board.MoveList
	g.pos.GenerateLegal(&ml)
	pos := g.pos.Clone()
	g.mu.Unlock()
	other := ""
	for _, m := range ml.Moves[:ml.N] {
		if s := pos.MoveToUCI(m); s != d.PonderUCI {
			other = s
			break
		}
	}
	play(t, g, other)
	searches := g.Searches()
	d2 := think(t, g, ThinkLimits{Depth: 3})
	if d2.Source != FromSearch || g.Searches() != searches+1 {
		t.Errorf("source %v, %d new searches; want a new search", d2.Source, g.Searches()-searches)
	}
	ms := g.Stats().PerMove[1]
	if !ms.Predicted || ms.PonderHit {
		t.Errorf("stats %+v: want predicted miss", ms)
	}
	if g.Pondering() {
		t.Error("still pondering")
	}
}

func TestPonderOpponentStrategyFillsReplies(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true, Strategy: PonderOpponent, PonderDepth: 4})
	d := think(t, g, ThinkLimits{Depth: 3})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 4)
	g.mu.Lock()
	r := g.run
	if r.node.idx != g.cur {
		t.Errorf("opponent strategy searches node %d, want the current %d", r.node.idx, g.cur)
	}
	g.mu.Unlock()
	if err := g.StopPonder(); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	kids := len(g.tree.children(g.cur))
	g.mu.Unlock()
	if kids != 20 {
		t.Errorf("%d replies recorded, want all 20", kids)
	}
	play(t, g, d.PonderUCI)
	d2 := think(t, g, ThinkLimits{Depth: 3})
	if ms := g.Stats().PerMove[1]; ms.DepthAtMove < 3 || !ms.Predicted {
		t.Errorf("stats %+v: want depth >= 3 available, predicted", ms)
	}
	_ = d2
}

// UCI "go ponder" then "ponderhit".
func TestUCIGoPonderThenPonderHit(t *testing.T) {
	g := newTestGame(t, Options{})
	if err := g.SetPosition("startpos", false, []string{"e2e4", "e7e5"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var d Decision
	var err error
	var infos int
	wg.Add(1)
	go func() {
		defer wg.Done()
		d, err = g.Think(context.Background(), ThinkLimits{Ponder: true, Depth: 3}, func(search.Info) { infos++ })
	}()
	waitRunDepth(g, 0)
	waitPonderDepth(t, g, 3)
	searches := g.Searches()
	g.PonderHit()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != FromPonderAtOnce || g.Searches() != searches {
		t.Errorf("source %v, searches +%d", d.Source, g.Searches()-searches)
	}
	if infos < 3 {
		t.Errorf("%d infos", infos)
	}
	ms := g.Stats().PerMove[0]
	if !ms.PonderHit || ms.NodesAfterHit != 0 {
		t.Errorf("stats %+v", ms)
	}
}

// UCI "go ponder" then "stop" (a miss): the search ends, nothing is committed.
func TestUCIGoPonderThenStop(t *testing.T) {
	g := newTestGame(t, Options{})
	if err := g.SetPosition("startpos", false, []string{"e2e4", "e7e5"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan Decision)
	go func() {
		d, _ := g.Think(context.Background(), ThinkLimits{Ponder: true}, nil)
		done <- d
	}()
	waitRunDepth(g, 2)
	if err := g.SetPosition("startpos", false, []string{"e2e4"}); err != ErrBusy {
		t.Errorf("position during go ponder: %v, want ErrBusy", err)
	}
	g.Stop()
	d := <-done
	if d.UCI == "" || d.Move == board.NoMove {
		t.Errorf("no move after stop: %+v", d)
	}
	if err := g.SetPosition("startpos", false, []string{"e2e4", "c7c5"}); err != nil {
		t.Fatal(err)
	}
	think(t, g, ThinkLimits{Depth: 2})
	if ms := g.Stats().PerMove[0]; !ms.Predicted || ms.PonderHit {
		t.Errorf("stats %+v: want a predicted miss", ms)
	}
}

func TestTreeCapHoldsDuringLongSearch(t *testing.T) {
	const capNodes = 100
	g := newTestGame(t, Options{TreeNodes: capNodes, Ponder: true, PonderNodes: 15000, VarietyCP: 1})
	moves := 0
	for moves < 4 {
		d := think(t, g, ThinkLimits{Nodes: 15000, MultiPV: 4})
		play(t, g, d.UCI)
		g.StartPonder(context.Background())
		waitPonderDepth(t, g, 1)
		if err := g.StopPonder(); err != nil {
			t.Fatal(err)
		}
		if d.PonderUCI != "" {
			play(t, g, d.PonderUCI)
		} else {
			break
		}
		moves++
		st := g.Stats()
		if st.MaxTreeNodes > capNodes || st.TreeNodes > capNodes {
			t.Fatalf("tree %d nodes (max %d), cap %d", st.TreeNodes, st.MaxTreeNodes, capNodes)
		}
	}
	st := g.Stats()
	if st.TrimmedNodes == 0 {
		t.Errorf("cap never reached (max %d nodes)", st.MaxTreeNodes)
	}
	if testing.Verbose() {
		t.Logf("max %d nodes, %d trimmed", st.MaxTreeNodes, st.TrimmedNodes)
	}
}

func TestVariety(t *testing.T) {
	const fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
	lim := ThinkLimits{Depth: 5}
	// Off: the search's best move, every time.
	var first string
	for i := 0; i < 3; i++ {
		g := newTestGame(t, Options{Seed: int64(i)})
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
		d := think(t, g, lim)
		if d.Move != d.RootMoves[0].Move {
			t.Errorf("variety off played %s, best %v", d.UCI, d.RootMoves[0].Move)
		}
		if i == 0 {
			first = d.UCI
		} else if d.UCI != first {
			t.Errorf("variety off: %s then %s", first, d.UCI)
		}
	}
	// On: only moves within the margin of the best exact score.
	const margin = 40
	seen := map[string]bool{}
	for seed := int64(0); seed < 8; seed++ {
		g := newTestGame(t, Options{Seed: seed, VarietyCP: margin})
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
		d := think(t, g, lim)
		best := d.RootMoves[0]
		found := false
		for _, rm := range d.RootMoves {
			if rm.Move == d.Move {
				found = true
				if rm.Bound != search.BoundExact || rm.Score < best.Score-margin {
					t.Errorf("seed %d: %s scored %d (bound %d), best %d", seed, d.UCI, rm.Score, rm.Bound, best.Score)
				}
			}
		}
		if !found {
			t.Errorf("seed %d: %s not a root move", seed, d.UCI)
		}
		seen[d.UCI] = true
	}
	t.Logf("variety moves: %v", seen)
	// Same seed, same choice.
	a, b := newTestGame(t, Options{Seed: 5, VarietyCP: margin}), newTestGame(t, Options{Seed: 5, VarietyCP: margin})
	for _, g := range []*Game{a, b} {
		if err := g.SetPosition(fen, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	if da, db := think(t, a, lim), think(t, b, lim); da.UCI != db.UCI {
		t.Errorf("seed 5: %s vs %s", da.UCI, db.UCI)
	}
}

func TestForcedMoveAndGameOver(t *testing.T) {
	g := newTestGame(t, Options{})
	// Black king h8, white rook g1: Kh7 is the only move.
	if err := g.SetPosition("7k/8/8/8/8/8/8/K5R1 b - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	searches := g.Searches()
	d, err := g.Think(context.Background(), ThinkLimits{BTime: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != FromForced || d.UCI != "h8h7" || g.Searches() != searches {
		t.Errorf("forced: %+v", d)
	}
	// With a depth limit (analysis) it searches anyway.
	if d = think(t, g, ThinkLimits{Depth: 2}); d.Source != FromSearch || d.UCI != "h8h7" {
		t.Errorf("forced with depth: %+v", d)
	}
	// Stalemate: no move.
	if err := g.SetPosition("k7/8/1Q6/8/8/8/8/7K b - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	if d, err = g.Think(context.Background(), ThinkLimits{Depth: 3}, nil); err != nil || !d.NoMove {
		t.Errorf("stalemate: %+v %v", d, err)
	}
	// Checkmated side: no move.
	if err := g.SetPosition("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", false, nil); err != nil {
		t.Fatal(err)
	}
	d, err = g.Think(context.Background(), ThinkLimits{Depth: 3}, nil)
	if err != nil || !d.NoMove {
		t.Errorf("mated: %+v %v", d, err)
	}
	g.StartPonder(context.Background())
	if g.Pondering() {
		t.Error("pondering a finished game")
	}
}

func TestCloseStopsPondering(t *testing.T) {
	g := NewGame(Options{HashMB: 2, Ponder: true})
	d := think(t, g, ThinkLimits{Depth: 3})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 1)
	g.Close()
	if g.Pondering() {
		t.Error("pondering after Close")
	}
	if _, err := g.Think(context.Background(), ThinkLimits{Depth: 1}, nil); err != ErrClosed {
		t.Errorf("think after close: %v", err)
	}
	if err := g.Play("e7e5"); err != ErrClosed {
		t.Errorf("play after close: %v", err)
	}
}

// With a clock, a hit's budget is the rule applied to the pondered time:
// exactly PlanMove(lim, pondered), so pondering shortens our thinking.
func TestPonderHitBudgetFollowsRule(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true, MoveOverhead: 10 * time.Millisecond})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 3)
	time.Sleep(20 * time.Millisecond) // some pondered time, whatever the machine
	play(t, g, d.PonderUCI)
	lim := ThinkLimits{WTime: 3 * time.Second, BTime: 3 * time.Second, WInc: 100 * time.Millisecond, BInc: 100 * time.Millisecond}
	d2 := think(t, g, lim)
	ms := g.Stats().PerMove[1]
	if !ms.PonderHit || ms.Pondered < 20*time.Millisecond {
		t.Fatalf("stats %+v", ms)
	}
	want := PlanMove(lim, true, 10*time.Millisecond, ms.Pondered)
	if d2.Budget != want {
		t.Errorf("budget %+v, want %+v", d2.Budget, want)
	}
	if base := PlanMove(lim, true, 10*time.Millisecond, 0); want.Soft >= base.Soft {
		t.Errorf("pondered %v did not shorten soft %v (unpondered %v)", ms.Pondered, want.Soft, base.Soft)
	}
	if d2.Source == FromSearch {
		t.Errorf("source %v on a hit", d2.Source)
	}
}

func TestTimedThink(t *testing.T) {
	g := newTestGame(t, Options{MoveOverhead: 5 * time.Millisecond})
	lim := ThinkLimits{WTime: 600 * time.Millisecond, BTime: 600 * time.Millisecond}
	d := think(t, g, lim)
	if !d.Budget.Timed || d.Budget != PlanMove(lim, true, 5*time.Millisecond, 0) || d.Source != FromSearch {
		t.Errorf("decision %+v", d)
	}
	// A cancelled context still yields a move.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	play(t, g, d.UCI)
	d2, err := g.Think(ctx, ThinkLimits{Infinite: true}, nil)
	if err != nil || d2.Move == board.NoMove {
		t.Errorf("cancelled infinite think: %+v %v", d2, err)
	}
}

// A hit whose ponder search stopped at its cap below what we need searches
// on (the TT keeps the pondered work).
func TestPonderHitBelowNeededDepthSearchesOn(t *testing.T) {
	g := newTestGame(t, Options{Ponder: true, PonderDepth: 3})
	d := think(t, g, ThinkLimits{Depth: 4})
	play(t, g, d.UCI)
	g.StartPonder(context.Background())
	waitPonderDepth(t, g, 3)
	play(t, g, d.PonderUCI)
	searches := g.Searches()
	d2 := think(t, g, ThinkLimits{Depth: 6})
	if d2.Depth != 6 || d2.Source != FromSearch || g.Searches() != searches+1 {
		t.Errorf("depth %d source %v searches +%d", d2.Depth, d2.Source, g.Searches()-searches)
	}
	if ms := g.Stats().PerMove[1]; !ms.PonderHit || ms.DepthAtMove < 3 {
		t.Errorf("stats %+v", ms)
	}
}

// An irreversible move (pawn move, capture, lost castling right) ages the
// TT before the next search; a reversible one does not.
func TestIrreversibleMoveAgesTT(t *testing.T) {
	g := newTestGame(t, Options{})
	think(t, g, ThinkLimits{Depth: 2})
	tests := []struct {
		move  string
		irrev bool
	}{
		{"g8f6", false}, // knight move
		{"e2e4", true},  // pawn move
		{"f6e4", true},  // capture
		{"f1e2", false},
		{"h8g8", true}, // rook move: loses a castling right
		{"e1f1", true}, // king move: loses the other ones
		{"g8h8", false},
	}
	moves := []string{"g1f3"}
	if err := g.SetPosition("startpos", false, moves); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		moves = append(moves, tc.move)
		if err := g.SetPosition("startpos", false, moves); err != nil {
			t.Fatalf("%s: %v", tc.move, err)
		}
		gen := g.Engine().TT().Generation()
		think(t, g, ThinkLimits{Depth: 1})
		// Each search advances the generation by one; AgeOut by 3 more.
		want := (gen + 1) & 63
		if tc.irrev {
			want = (gen + 4) & 63
		}
		if got := g.Engine().TT().Generation(); got != want {
			t.Errorf("after %s: generation %d -> %d, want %d", tc.move, gen, got, want)
		}
		st := g.Stats()
		if ms := st.PerMove[len(st.PerMove)-1]; ms.Irreversible != tc.irrev {
			t.Errorf("after %s: irreversible %v", tc.move, ms.Irreversible)
		}
	}
}

// A random walk through the API (both strategies, hits and misses, stops
// from another goroutine, start-overs) must neither hang nor break the
// tree's bookkeeping.
func TestRandomAPISequence(t *testing.T) {
	for _, strat := range []Strategy{PonderPredicted, PonderOpponent} {
		g := newTestGame(t, Options{Ponder: true, Strategy: strat, TreeNodes: 80, PonderNodes: 5000, Seed: 3})
		rng := rand.New(rand.NewSource(int64(strat) + 11))
		moves := []string{}
		for step := 0; step < 40; step++ {
			if err := g.SetPosition("startpos", false, moves); err != nil {
				t.Fatal(err)
			}
			lim := ThinkLimits{Nodes: uint64(500 + rng.Intn(3000))}
			if rng.Intn(4) == 0 {
				lim = ThinkLimits{WTime: 200 * time.Millisecond, BTime: 200 * time.Millisecond}
			}
			if rng.Intn(5) == 0 {
				go g.Stop()
			}
			d, err := g.Think(context.Background(), lim, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.NoMove {
				moves = nil
				continue
			}
			moves = append(moves, d.UCI)
			if err := g.SetPosition("startpos", false, moves); err != nil {
				t.Fatal(err)
			}
			g.StartPonder(context.Background())
			switch rng.Intn(5) {
			case 0:
				_ = g.StopPonder()
			case 1:
				moves = nil // start over while pondering
				continue
			}
			// the opponent: the predicted move or a random legal one
			reply := d.PonderUCI
			if reply == "" || rng.Intn(2) == 0 {
				g.mu.Lock()
				var ml board.MoveList
				g.pos.GenerateLegal(&ml)
				if ml.N > 0 {
					reply = g.pos.MoveToUCI(ml.Moves[rng.Intn(ml.N)])
				}
				g.mu.Unlock()
			}
			if reply == "" {
				moves = nil
				continue
			}
			moves = append(moves, reply)
		}
		g.mu.Lock()
		tr := g.tree
		if tr.live+tr.nFree != len(tr.pool) || tr.highWater > 80 || tr.subtreeSize(tr.root) != tr.live {
			t.Errorf("%v: live %d free %d pool %d high %d reachable %d", strat, tr.live, tr.nFree, len(tr.pool),
				tr.highWater, tr.subtreeSize(tr.root))
		}
		g.mu.Unlock()
		st := g.Stats()
		t.Logf("%v: %d moves, %d predicted, %d hits, %d at once, %d trimmed", strat, st.Moves, st.Predicted,
			st.PonderHits, st.AtOnce, st.TrimmedNodes)
	}
}

// A stop given the instant pondering starts, before the search goroutine
// has entered Engine.Search, must not be lost: StopPonder and Close would
// then wait for an endless ponder search. The 30 s guard only turns such a
// hang into a failure instead of a test-binary timeout.
func TestStopRightAfterStartPonder(t *testing.T) {
	g := newTestGame(t, Options{HashMB: 2, Ponder: true})
	d := think(t, g, ThinkLimits{Depth: 2})
	play(t, g, d.UCI)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			g.StartPonder(context.Background())
			if err := g.StopPonder(); err != nil {
				t.Errorf("stop ponder %d: %v", i, err)
				return
			}
			if g.Pondering() {
				t.Errorf("still pondering after StopPonder (%d)", i)
				return
			}
		}
		g.StartPonder(context.Background())
		g.Close()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("StopPonder or Close right after StartPonder hung")
	}
}
