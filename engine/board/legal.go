package board

// IsLegal reports whether m, any 16-bit value (e.g. from the transposition
// table or a killer slot), is a legal move in this position.
func (p *Position) IsLegal(m Move) bool {
	if m == NoMove || m == NullMove {
		return false
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	return ml.Contains(m)
}
