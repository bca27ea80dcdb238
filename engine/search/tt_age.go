package search

// AgeOut makes every entry stored so far look n generations older, so that
// the replacement scheme (which counts each generation of age as eight
// plies of depth) overwrites them before any entry of the current search.
// The per-game tree calls it after an irreversible move (capture, pawn
// move, lost castling right): positions from before that move can never
// occur again. Entries are not erased: a search that revisits one stores it
// again with the current generation. n < 1 does nothing.
func (t *TT) AgeOut(n int) {
	if n < 1 {
		return
	}
	for {
		old := t.gen.Load()
		if t.gen.CompareAndSwap(old, (old+uint32(n))&genMask) {
			return
		}
	}
}
