package board

// Perft counts the leaf nodes of the legal move tree to the given depth
// (bulk counting: the last ply counts generated moves without playing them).
func Perft(p *Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	if depth == 1 {
		return uint64(ml.N)
	}
	var n uint64
	for _, m := range ml.Moves[:ml.N] {
		p.MakeMove(m)
		n += Perft(p, depth-1)
		p.UnmakeMove()
	}
	return n
}

// DivideEntry is one root move's share of a perft count.
type DivideEntry struct {
	Move  Move
	UCI   string // the move in UCI (per the position's Chess960 flag)
	Nodes uint64
}

// Divide returns perft(depth-1) below each legal root move, in generation
// order. The sum of Nodes is Perft(p, depth).
func Divide(p *Position, depth int) []DivideEntry {
	var ml MoveList
	p.GenerateLegal(&ml)
	out := make([]DivideEntry, 0, ml.N)
	for _, m := range ml.Moves[:ml.N] {
		uci := p.MoveToUCI(m)
		p.MakeMove(m)
		n := Perft(p, depth-1)
		p.UnmakeMove()
		out = append(out, DivideEntry{Move: m, UCI: uci, Nodes: n})
	}
	return out
}
