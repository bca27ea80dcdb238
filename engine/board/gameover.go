package board

// Reasons GameOver gives for the end of a game.
const (
	OverCheckmate  = "checkmate"
	OverStalemate  = "stalemate"
	OverMaterial   = "insufficient material"
	OverFiftyMoves = "fifty-move rule"
	OverRepetition = "threefold repetition"
)

// GameOver says why the game is over in p ("" while it goes on): the side
// to move is mated or stalemated, neither side can mate (IsInsufficient
// Material), fifty moves without a capture or pawn move, or the position
// occurred for the third time in p's history (a game played on p with
// MakeMove; a position parsed from a FEN has no history before it). The
// last three are the draws a match runner applies without a claim.
func (p *Position) GameOver() string {
	var ml MoveList
	p.GenerateLegal(&ml)
	switch {
	case ml.N == 0 && p.InCheck():
		return OverCheckmate
	case ml.N == 0:
		return OverStalemate
	case p.IsInsufficientMaterial():
		return OverMaterial
	case p.HalfmoveClock() >= 100:
		return OverFiftyMoves
	case p.RepetitionCount() >= 2:
		return OverRepetition
	}
	return ""
}
