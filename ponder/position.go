package ponder

import (
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// protected lists the nodes the trimmer keeps: the current position and the
// node of the running search.
func (g *Game) protected() []int32 {
	p := []int32{g.cur}
	if g.run != nil && g.tree.valid(g.run.node) {
		p = append(p, g.run.node.idx)
	}
	return p
}

// SetPosition sets the game's position: startFEN ("" or "startpos" for the
// standard start) and the moves played since, in UCI notation. When it
// extends the current game (same start, the moves of the tree root as a
// prefix) the tree is kept and walked down; the re-rooting (which frees
// the other branches) is deferred to the next Think or PonderHit, so a
// pondered subtree survives a speculative "position … moves … ponder".
// Otherwise the tree starts over (the TT is kept; call NewGame to clear
// it).
func (g *Game) SetPosition(startFEN string, chess960 bool, moves []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if g.run != nil && !g.run.background {
		return ErrBusy
	}
	if startFEN == "" || startFEN == "startpos" {
		startFEN = board.StartFEN
	}
	defer g.publish()
	return g.setPosition(startFEN, chess960, moves)
}

// Play appends one move (ours or the opponent's, UCI notation) to the game.
func (g *Game) Play(move string) error {
	g.mu.Lock()
	fen, c960 := g.startFEN, g.chess960
	moves := append(append([]string(nil), g.uciMoves...), move)
	g.mu.Unlock()
	return g.SetPosition(fen, c960, moves)
}

func (g *Game) setPosition(startFEN string, chess960 bool, moves []string) error {
	pos, err := board.ParseFEN(startFEN)
	if err != nil {
		return fmt.Errorf("set position: %w", err)
	}
	pos.SetChess960(chess960)
	ms := make([]board.Move, 0, len(moves))
	irrev := make([]bool, 0, len(moves))
	norm := make([]string, 0, len(moves))
	for i, s := range moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return fmt.Errorf("set position: move %d (%s): %w", i+1, s, err)
		}
		irrev = append(irrev, irreversible(pos, m))
		ms = append(ms, m)
		norm = append(norm, pos.MoveToUCI(m))
		pos.MakeMove(m)
	}

	extends := g.pos != nil && startFEN == g.startFEN && chess960 == g.chess960 && len(ms) >= g.rootPly
	if extends {
		for i := 0; i < g.rootPly; i++ {
			if ms[i] != g.moves[i] {
				extends = false
				break
			}
		}
	}
	if !extends && g.run != nil {
		g.stopAndWait(g.run)
	}
	if extends {
		// Irreversible moves were aged out only along the old line.
		for i := g.rootPly; i < g.agedPly; i++ {
			if i >= len(ms) || i >= len(g.moves) || ms[i] != g.moves[i] {
				g.agedPly = i
				break
			}
		}
	}
	g.moves, g.uciMoves, g.irrev, g.pos = ms, norm, irrev, pos
	if !extends {
		g.startFEN, g.chess960 = startFEN, chess960
		g.tree.reset(pos.Key())
		g.newGeneration()
		g.rootPly, g.agedPly = len(ms), len(ms)
		g.cur = g.tree.root
		g.pred = nil
		return nil
	}
	// Walk from the root along the new moves (creating nodes as needed).
	p, err := board.ParseFEN(startFEN)
	if err != nil {
		return err
	}
	p.SetChess960(chess960)
	for _, m := range ms[:g.rootPly] {
		p.MakeMove(m)
	}
	cur := g.tree.root
	for _, m := range ms[g.rootPly:] {
		p.MakeMove(m)
		c := g.tree.ensureChild(cur, m, p.Key())
		if c == nilNode {
			return fmt.Errorf("set position: tree full")
		}
		cur = c
	}
	g.cur = cur
	return nil
}

// irreversible reports whether m (legal in p) makes every earlier position
// unreachable: a capture, a pawn move or a change of castling rights.
func irreversible(p *board.Position, m board.Move) bool {
	if p.IsCapture(m) || p.MovedPiece(m).Type() == board.Pawn {
		return true
	}
	before := p.CastlingRights()
	p.MakeMove(m)
	after := p.CastlingRights()
	p.UnmakeMove()
	return before != after
}

// commit re-roots the tree at the current position, releasing every other
// branch, and fills the move's stats.
func (g *Game) commit() {
	ms := &g.pending
	t := g.tree
	before := t.live
	kept := t.subtreeSize(g.cur)
	freed := t.reroot(g.cur)
	if freed > 0 {
		g.newGeneration()
	}
	ms.TreeNodesBefore = before
	ms.KeptNodes = kept
	if before > 0 {
		ms.KeptFraction = float64(kept) / float64(before)
	}
	ms.FreedNodes += freed
	if g.pred != nil && g.pred.ply >= g.rootPly && g.pred.ply < len(g.moves) {
		actual := g.moves[g.pred.ply]
		ms.Predicted = true
		ms.PonderHit = actual == g.pred.move
		for _, m := range g.pred.top3 {
			if m == actual {
				ms.PonderTop3 = true
			}
		}
		g.pred = nil
	}
	g.rootPly = len(g.moves)
}

// ageTT skips TT generations when an irreversible move lies between the
// last aged ply and the position about to be searched (ply moves, plus
// extra when the predicted reply is irreversible).
func (g *Game) ageTT(ply int, extra bool) {
	if g.opts.IrreversibleAge < 0 {
		return
	}
	any := extra
	for i := g.agedPly; i < ply && i < len(g.irrev); i++ {
		if i == g.agedPredPly && g.moves[i] == g.agedPredMove {
			continue // aged when pondering started on it
		}
		any = any || g.irrev[i]
	}
	if ply > g.agedPly {
		g.agedPly = ply
	}
	if any {
		g.eng.TT().AgeOut(g.opts.IrreversibleAge)
		g.pending.Irreversible = true
	}
}

// NewGame clears the TT, the tree and the statistics, and sets the start
// position (UCI "ucinewgame").
func (g *Game) NewGame() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.resetTableLocked(g.eng.NewGame); err != nil {
		return err
	}
	g.stats = GameStats{NodeBytes: NodeBytes}
	g.pending = MoveStats{}
	g.depths = depthClock{}
	g.pos = nil
	return g.setPosition(board.StartFEN, false, nil)
}

// Close ends the game: it stops any search and frees the tree.
func (g *Game) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.closed = true
	if g.run != nil {
		g.stopAndWait(g.run)
	}
	g.waitLearning()
	g.run = nil
	g.tree = newTree(minTreeNodes)
	g.tree.reset(0)
	g.newGeneration()
	g.cur = g.tree.root
	g.live.active = false
	g.publish()
	g.log.Info().Int("moves", g.stats.Moves).Int("ponder_hits", g.stats.PonderHits).
		Int("predicted", g.stats.Predicted).Dur("time_saved", g.stats.TimeSaved).Msg("game closed")
}
