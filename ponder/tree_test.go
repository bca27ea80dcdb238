package ponder

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// dump lists the subtree under i as "path: fields" lines in a canonical
// order, so two subtrees can be compared node by node.
func dump(t *tree, i int32, prefix string) []string {
	n := t.pool[i]
	line := fmt.Sprintf("%s: key=%x score=%d depth=%d bound=%d best=%v nodes=%d visits=%d serial=%d",
		prefix, n.key, n.score, n.depth, n.bound, n.best, n.nodes, n.visits, n.serial)
	out := []string{line}
	cs := t.children(i)
	slices.SortFunc(cs, func(a, b int32) int { return int(t.pool[a].move) - int(t.pool[b].move) })
	for _, c := range cs {
		out = append(out, dump(t, c, prefix+"/"+t.pool[c].move.String())...)
	}
	return out
}

// randomTree grows a tree of about n nodes under the root with random
// moves, scores and depths.
func randomTree(t *tree, rng *rand.Rand, n int) {
	nodes := []int32{t.root}
	for len(nodes) < n {
		p := nodes[rng.Intn(len(nodes))]
		m := board.NewMove(board.Square(rng.Intn(64)), board.Square(rng.Intn(64)))
		c := t.ensureChild(p, m, rng.Uint64())
		if c == nilNode {
			return
		}
		if t.findChild(p, m) == c && !slices.Contains(nodes, c) {
			nodes = append(nodes, c)
		}
		t.update(c, rng.Intn(400)-200, search.BoundExact, rng.Intn(10), board.NoMove)
		t.pool[c].nodes = uint64(rng.Intn(100000))
	}
}

func TestRerootKeepsExactlyThePlayedSubtree(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	tr := newTree(100000)
	tr.reset(42)
	randomTree(tr, rng, 3000)
	kids := tr.children(tr.root)
	if len(kids) < 3 {
		t.Fatalf("root has %d children", len(kids))
	}
	// pick the child with the biggest subtree
	keep := kids[0]
	for _, c := range kids {
		if tr.subtreeSize(c) > tr.subtreeSize(keep) {
			keep = c
		}
	}
	liveBefore, freeBefore := tr.live, tr.nFree
	kept := tr.subtreeSize(keep)
	want := dump(tr, keep, "")
	var siblings []nodeRef
	for _, c := range kids {
		if c != keep {
			siblings = append(siblings, tr.ref(c))
		}
	}

	freed := tr.reroot(keep)

	if tr.root != keep || tr.pool[keep].parent != nilNode {
		t.Fatalf("root is %d (parent %d), want %d", tr.root, tr.pool[keep].parent, keep)
	}
	if got := tr.subtreeSize(tr.root); got != kept || tr.live != kept {
		t.Errorf("after reroot: subtree %d, live %d, want %d", got, tr.live, kept)
	}
	if freed != liveBefore-kept {
		t.Errorf("freed %d, want %d", freed, liveBefore-kept)
	}
	if tr.nFree != freeBefore+freed {
		t.Errorf("free list %d, want %d", tr.nFree, freeBefore+freed)
	}
	if tr.live+tr.nFree != len(tr.pool) {
		t.Errorf("live %d + free %d != pool %d", tr.live, tr.nFree, len(tr.pool))
	}
	if got := dump(tr, tr.root, ""); !slices.Equal(got, want) {
		t.Errorf("kept subtree changed:\n got %d lines\nwant %d lines", len(got), len(want))
	}
	for _, s := range siblings {
		if tr.valid(s) {
			t.Errorf("sibling %d still alive", s.idx)
		}
	}
	// Freed nodes are reused before the pool grows.
	poolLen := len(tr.pool)
	for i := 0; i < freed; i++ {
		if tr.alloc(tr.root, board.Move(i+1), 0) == nilNode {
			t.Fatal("alloc failed")
		}
	}
	if len(tr.pool) != poolLen || tr.nFree != freeBefore {
		t.Errorf("pool grew to %d (was %d), free %d", len(tr.pool), poolLen, tr.nFree)
	}
}

func TestTrimHoldsCapAndKeepsProtected(t *testing.T) {
	const capNodes = 500
	rng := rand.New(rand.NewSource(7))
	tr := newTree(capNodes)
	tr.reset(1)
	// A protected line from the root: root -> a -> b -> c, with best links.
	line := []board.Move{board.NewMove(12, 28), board.NewMove(52, 36), board.NewMove(6, 21)}
	p := tr.root
	var lineNodes []nodeRef
	for _, m := range line {
		tr.pool[p].best = m
		p = tr.ensureChild(p, m, uint64(m))
		lineNodes = append(lineNodes, tr.ref(p))
	}
	for round := 0; round < 20; round++ {
		randomTree(tr, rng, capNodes*2)
		if tr.live > capNodes {
			t.Fatalf("round %d: %d live nodes, cap %d", round, tr.live, capNodes)
		}
	}
	if tr.highWater > capNodes {
		t.Errorf("high water %d > cap %d", tr.highWater, capNodes)
	}
	if tr.trims == 0 || tr.trimmedTotal == 0 {
		t.Errorf("never trimmed (trims %d)", tr.trims)
	}
	for i, r := range lineNodes {
		if !tr.valid(r) {
			t.Errorf("best line node %d was trimmed", i)
		}
	}
	if tr.live+tr.nFree != len(tr.pool) {
		t.Errorf("live %d + free %d != pool %d", tr.live, tr.nFree, len(tr.pool))
	}
}

func TestTrimFreesLeastPromisingFirst(t *testing.T) {
	tr := newTree(minTreeNodes)
	tr.reset(1)
	// Two root children: a good, well searched one and a bad, barely searched one,
	// each with a few grandchildren.
	good := tr.ensureChild(tr.root, board.NewMove(12, 28), 2)
	bad := tr.ensureChild(tr.root, board.NewMove(11, 27), 3)
	tr.update(good, -50, search.BoundExact, 8, board.NoMove) // +50 for the mover
	tr.pool[good].nodes = 1 << 20
	tr.update(bad, 300, search.BoundUpper, 8, board.NoMove) // -300 for the mover
	tr.pool[bad].nodes = 100
	for i := 0; i < 20; i++ {
		g := tr.ensureChild(good, board.NewMove(48, board.Square(i)), uint64(100+i))
		tr.update(g, 0, search.BoundExact, 3, board.NoMove)
		b := tr.ensureChild(bad, board.NewMove(49, board.Square(i)), uint64(200+i))
		tr.update(b, 0, search.BoundExact, 3, board.NoMove)
	}
	// 43 nodes; a cap of 25 trims down to 22: the whole bad branch must go.
	tr.cap = 25
	tr.trim(nilNode)
	for _, c := range tr.children(good) {
		if !tr.pool[c].alive {
			t.Error("trimmed inside the good branch")
		}
	}
	if n := len(tr.children(good)); n != 20 {
		t.Errorf("good branch has %d children, want 20", n)
	}
	if !tr.pool[good].alive {
		t.Error("trimmed the good branch")
	}
	if tr.pool[bad].alive {
		t.Error("kept the bad branch")
	}
	if tr.live != 22 {
		t.Errorf("live %d after trim, want 22", tr.live)
	}
}
