package ponder

import (
	"math"
	"sort"
	"unsafe"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// nilNode marks "no node" in the index links of the tree.
const nilNode int32 = -1

// node is one position searched near the root of the game. Nodes live in one
// slice (the pool) and link by index, so the tree costs no pointer chasing
// for the garbage collector and freed nodes are reused through a free list.
type node struct {
	key    uint64 // Zobrist key of the position
	nodes  uint64 // search nodes spent under this position (root moves only; 0 if unknown)
	serial uint32 // changes every time the slot is reused; guards stale references
	visits uint32 // how many iterations/results updated this node: how well-searched it is
	parent int32
	child  int32 // first child
	next   int32 // next sibling; in the free list, next free node
	move   board.Move
	best   board.Move // best reply from this position (NoMove if unknown)
	score  int16      // value for the side to move here, in TT convention (mates counted from here)
	depth  int16      // depth this position was searched to (-1: never searched)
	bound  search.Bound
	alive  bool
}

// NodeBytes is the memory one tree node takes.
const NodeBytes = int(unsafe.Sizeof(node{}))

// nodeRef is a node index together with the serial it had when taken, so a
// reference held across unlocks notices that the node was freed meanwhile.
type nodeRef struct {
	idx    int32
	serial uint32
}

// tree is the per-game tree of positions. It is not safe for concurrent use;
// Game guards it with its mutex.
type tree struct {
	pool    []node
	free    int32 // head of the free list
	nFree   int
	live    int
	cap     int // most live nodes allowed
	root    int32
	serials uint32

	// protect returns the nodes the trimmer must keep (with all their
	// ancestors); set by Game.
	protect func() []int32

	// Counters.
	freedTotal   uint64 // nodes released by re-rooting and trimming
	trimmedTotal uint64 // nodes released by the memory cap
	trims        int
	highWater    int // most live nodes ever
}

func newTree(capNodes int) *tree {
	if capNodes < minTreeNodes {
		capNodes = minTreeNodes
	}
	t := &tree{free: nilNode, cap: capNodes, root: nilNode}
	return t
}

// minTreeNodes is the smallest cap: a root, a PV and some children.
const minTreeNodes = 64

func (t *tree) ref(i int32) nodeRef {
	if i == nilNode {
		return nodeRef{idx: nilNode}
	}
	return nodeRef{idx: i, serial: t.pool[i].serial}
}

// valid reports whether r still names the node it was taken from.
func (t *tree) valid(r nodeRef) bool {
	return r.idx >= 0 && int(r.idx) < len(t.pool) && t.pool[r.idx].alive && t.pool[r.idx].serial == r.serial
}

// alloc takes a node from the free list or grows the pool. It returns nilNode
// when the cap is reached (the caller may trim and retry).
func (t *tree) alloc(parent int32, m board.Move, key uint64) int32 {
	if t.live >= t.cap {
		return nilNode
	}
	var i int32
	if t.free != nilNode {
		i = t.free
		t.free = t.pool[i].next
		t.nFree--
	} else {
		t.pool = append(t.pool, node{})
		i = int32(len(t.pool) - 1)
	}
	t.serials++
	t.pool[i] = node{key: key, serial: t.serials, parent: parent, child: nilNode, next: nilNode,
		move: m, depth: -1, alive: true}
	if parent != nilNode {
		p := &t.pool[parent]
		t.pool[i].next = p.child
		p.child = i
	}
	t.live++
	if t.live > t.highWater {
		t.highWater = t.live
	}
	return i
}

// release puts one node (already unlinked from its parent) on the free list.
func (t *tree) release(i int32) {
	n := &t.pool[i]
	n.alive = false
	n.child = nilNode
	n.parent = nilNode
	n.next = t.free
	t.free = i
	t.nFree++
	t.live--
}

// freeSubtree releases i and all its descendants (i must already be
// unlinked from its parent or be about to be). It returns how many nodes
// were released.
func (t *tree) freeSubtree(i int32) int {
	freed := 0
	stack := []int32{i}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := t.pool[j].child; c != nilNode; {
			next := t.pool[c].next
			stack = append(stack, c)
			c = next
		}
		t.release(j)
		freed++
	}
	t.freedTotal += uint64(freed)
	return freed
}

// unlink removes i from its parent's child list.
func (t *tree) unlink(i int32) {
	p := t.pool[i].parent
	if p == nilNode {
		return
	}
	if t.pool[p].child == i {
		t.pool[p].child = t.pool[i].next
	} else {
		for c := t.pool[p].child; c != nilNode; c = t.pool[c].next {
			if t.pool[c].next == i {
				t.pool[c].next = t.pool[i].next
				break
			}
		}
	}
	t.pool[i].next = nilNode
	t.pool[i].parent = nilNode
}

// findChild returns the child of p reached by m, or nilNode.
func (t *tree) findChild(p int32, m board.Move) int32 {
	for c := t.pool[p].child; c != nilNode; c = t.pool[c].next {
		if t.pool[c].move == m {
			return c
		}
	}
	return nilNode
}

// ensureChild returns the child of p reached by m, creating it (and trimming
// the tree when it is full) if needed. It returns nilNode only when the cap
// is reached and nothing can be trimmed.
func (t *tree) ensureChild(p int32, m board.Move, key uint64) int32 {
	if c := t.findChild(p, m); c != nilNode {
		return c
	}
	c := t.alloc(p, m, key)
	if c == nilNode {
		t.trim(p)
		if !t.pool[p].alive {
			return nilNode
		}
		c = t.alloc(p, m, key)
	}
	return c
}

// setRoot empties the tree and starts it at a new root position.
func (t *tree) reset(key uint64) {
	if t.root != nilNode {
		t.freeSubtree(t.root)
	}
	t.root = nilNode
	// Reset can always allocate: the tree is empty.
	t.root = t.alloc(nilNode, board.NoMove, key)
}

// reroot makes nr (a descendant of the root) the new root and releases every
// node that is not in its subtree. It returns the number of nodes released.
func (t *tree) reroot(nr int32) int {
	if nr == t.root {
		return 0
	}
	// Path from nr up to the root.
	var path []int32
	for i := nr; i != nilNode; i = t.pool[i].parent {
		path = append(path, i)
	}
	if path[len(path)-1] != t.root {
		panic("ponder: reroot to a node outside the tree")
	}
	t.unlink(nr)
	freed := t.freeSubtree(t.root) // nr is unlinked, so it survives
	t.root = nr
	return freed
}

// subtreeSize counts the nodes under i (i included).
func (t *tree) subtreeSize(i int32) int {
	if i == nilNode {
		return 0
	}
	n := 0
	stack := []int32{i}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		for c := t.pool[j].child; c != nilNode; c = t.pool[c].next {
			stack = append(stack, c)
		}
	}
	return n
}

// children returns the children of p.
func (t *tree) children(p int32) []int32 {
	var cs []int32
	for c := t.pool[p].child; c != nilNode; c = t.pool[c].next {
		cs = append(cs, c)
	}
	return cs
}

// trimSlack is the part of the cap freed at once when the tree is full, so
// that trimming (a sort of all nodes) happens rarely.
const trimSlack = 8 // free down to cap - cap/trimSlack

// trim frees the least promising branches until the tree holds at most
// cap - cap/trimSlack nodes. The root, the path to extra (the node being
// extended), the nodes named by protect and their ancestors, and the chain
// of best replies below them are never freed.
//
// A branch's promise is
//
//	log2(1+nodes spent) + log2(1+visits) - gap/25 - 0.5*distance from root
//
// where gap is how many centipawns the move is worse than its best sibling
// from the mover's view (1000 if never scored), summed over the node and
// its ancestors (a node inside a bad branch is bad): badly scored, little
// searched, deep branches go first.
func (t *tree) trim(extra int32) {
	t.trims++
	target := t.cap - t.cap/trimSlack
	keep := make(map[int32]bool)
	mark := func(i int32) {
		for j := i; j != nilNode && !keep[j]; j = t.pool[j].parent {
			keep[j] = true
		}
		// the chain of best replies below
		for j := i; j != nilNode; {
			b := t.pool[j].best
			if b == board.NoMove {
				break
			}
			c := t.findChild(j, b)
			if c == nilNode {
				break
			}
			keep[c] = true
			j = c
		}
	}
	mark(t.root)
	if extra != nilNode {
		mark(extra)
	}
	if t.protect != nil {
		for _, i := range t.protect() {
			if i >= 0 && int(i) < len(t.pool) && t.pool[i].alive {
				mark(i)
			}
		}
	}
	type cand struct {
		idx     int32
		serial  uint32
		promise float64
	}
	var cands []cand
	var walk func(i int32, dist int, gapSum float64)
	walk = func(i int32, dist int, gapSum float64) {
		// best value among children, from i's side-to-move view
		best := math.MinInt
		for c := t.pool[i].child; c != nilNode; c = t.pool[c].next {
			if t.pool[c].depth >= 0 && -int(t.pool[c].score) > best {
				best = -int(t.pool[c].score)
			}
		}
		for c := t.pool[i].child; c != nilNode; c = t.pool[c].next {
			n := &t.pool[c]
			gap := 1000.0
			if n.depth >= 0 && best != math.MinInt {
				gap = float64(min(best-(-int(n.score)), 1000))
			}
			g := gapSum + gap
			if !keep[c] {
				p := math.Log2(1+float64(n.nodes)) + math.Log2(1+float64(n.visits)) - g/25 - 0.5*float64(dist+1)
				cands = append(cands, cand{c, n.serial, p})
			}
			walk(c, dist+1, g)
		}
	}
	walk(t.root, 0, 0)
	sort.Slice(cands, func(a, b int) bool {
		if cands[a].promise != cands[b].promise {
			return cands[a].promise < cands[b].promise
		}
		return cands[a].idx < cands[b].idx
	})
	for _, c := range cands {
		if t.live <= target {
			break
		}
		if !t.pool[c.idx].alive || t.pool[c.idx].serial != c.serial {
			continue // freed with an ancestor already
		}
		t.unlink(c.idx)
		n := t.freeSubtree(c.idx)
		t.trimmedTotal += uint64(n)
	}
}

// update stores a search result for node i if it is at least as deep as
// what the node holds.
func (t *tree) update(i int32, score int, bound search.Bound, depth int, best board.Move) {
	n := &t.pool[i]
	n.visits++
	if depth < int(n.depth) {
		return
	}
	n.score = int16(max(min(score, math.MaxInt16), math.MinInt16))
	n.bound = bound
	n.depth = int16(min(depth, math.MaxInt16))
	if best != board.NoMove {
		n.best = best
	}
}
