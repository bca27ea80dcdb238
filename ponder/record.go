package ponder

import (
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// recordLine writes one finished line (search root + PV) into the tree.
func (g *Game) recordLine(r *run, inf search.Info) {
	if !g.tree.valid(r.node) || len(inf.PV) == 0 {
		return
	}
	if inf.MultiPV == 1 {
		g.tree.update(r.node.idx, inf.Score, search.BoundExact, inf.Depth, inf.PV[0])
		g.tree.pool[r.node.idx].nodes = inf.Nodes
	}
	g.recordPath(r, inf.PV, inf.Score, search.BoundExact, inf.Depth, 0)
}

// recordPath stores pv below the run's node: the node after pv[k] gets the
// score from its side to move's view, depth-(k+1), and pv[k+1] as best.
// rootNodes, when non-zero, is stored as the nodes spent on pv[0].
func (g *Game) recordPath(r *run, pv []board.Move, score int, bound search.Bound, depth int, rootNodes uint64) {
	t := g.tree
	i := r.node.idx
	p := r.rec
	made := 0
	for k, m := range pv {
		if m == board.NoMove || !p.IsLegal(m) {
			break
		}
		p.MakeMove(m)
		made++
		c := t.ensureChild(i, m, p.Key())
		if c == nilNode || !t.valid(r.node) {
			break
		}
		ply := k + 1
		s, b := search.ScoreToTT(score, ply), bound
		if ply%2 == 1 {
			s = -s
			b = flipBound(b)
		}
		best := board.NoMove
		if k+1 < len(pv) {
			best = pv[k+1]
		}
		t.update(c, s, b, max(depth-ply, 0), best)
		if k == 0 && rootNodes > 0 {
			t.pool[c].nodes = rootNodes
		}
		i = c
	}
	for ; made > 0; made-- {
		p.UnmakeMove()
	}
}

func flipBound(b search.Bound) search.Bound {
	switch b {
	case search.BoundLower:
		return search.BoundUpper
	case search.BoundUpper:
		return search.BoundLower
	}
	return b
}

// recordResult stores the root-move statistics of a finished search as
// children of the run's node, each with its PV below.
func (g *Game) recordResult(r *run, res search.Result) {
	if !g.tree.valid(r.node) {
		return
	}
	if res.Depth > 0 && res.BestMove != board.NoMove {
		g.tree.update(r.node.idx, res.Score, search.BoundExact, res.Depth, res.BestMove)
		g.tree.pool[r.node.idx].nodes = res.Nodes
	}
	for _, rm := range res.RootMoves {
		if rm.Depth <= 0 {
			continue
		}
		pv := rm.PV
		if len(pv) == 0 || pv[0] != rm.Move {
			pv = []board.Move{rm.Move}
		}
		g.recordPath(r, pv, rm.Score, rm.Bound, rm.Depth, max(rm.Nodes, 1))
	}
}
