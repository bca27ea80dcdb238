package syzygy

import "github.com/ponderosa-chess/ponderosa/engine/board"

// maxRank is the rank of a win that the fifty-move rule cannot spoil.
const maxRank = 1 << 16

// RootMove is a legal move of a root position with what the tables say
// of it, from the view of the side that plays it.
type RootMove struct {
	Move board.Move
	// DTZ counts the plies from the root to the next capture or pawn move
	// on a path that keeps the result, the move included: positive when
	// the mover wins, negative when it loses, 0 for a draw; above 100 (or
	// below -100) when the result is a cursed win (blessed loss) however
	// the game goes on.
	DTZ int
	// WDL is the move's result with the root's fifty-move counter
	// counted: a win that would come too late is a CursedWin, a loss that
	// comes too late a BlessedLoss. As DTZ may be one ply short, Win and
	// Loss need |DTZ| + the counter <= 99; at exactly 100 the move is
	// reported CursedWin (BlessedLoss).
	WDL WDL
	// Rank orders the moves: higher is better, and moves of equal rank are
	// equally good for the tables (the search may choose among them).
	// Wins that are safe within the fifty-move rule share the top rank as
	// long as no position has been repeated since the last capture or pawn
	// move; otherwise wins rank by shorter DTZ so that the game makes
	// progress. Cursed wins rank below wins and above draws
	// (0); losses rank equal unless a fifty-move draw is in sight, then
	// the longer loss ranks higher.
	Rank int
}

// ProbeRoot probes every legal move of p with DTZ and returns them in
// moves (reused: pass moves[:0] of a buffer to avoid allocating), best
// first. With rule50 the root's fifty-move counter counts: a win that it
// would spoil ranks below the wins it does not (UCI Syzygy50MoveRule);
// without, only the tables' own curse does. Either way a cursed win ranks
// below plain wins and above draws, and WDL reports it. Best gives the
// moves that preserve the result. Errors are those of ProbeWDL.
func (tb *Tablebase) ProbeRoot(p *board.Position, rule50 bool, moves []RootMove) ([]RootMove, error) {
	moves = moves[:0]
	if err := tb.probeable(p); err != nil {
		return moves, err
	}
	cnt50 := p.HalfmoveClock()
	repeated := hasRepeated(p)
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		p.MakeMove(m)
		var dtz int
		var err error
		switch {
		case p.HalfmoveClock() == 0:
			var w WDL
			w, err = tb.wdl(p)
			dtz = zeroingDTZ(-w)
		case p.RepetitionCount() >= 2:
			dtz = 0
		default:
			dtz, err = tb.dtz(p)
			dtz = -dtz
			if dtz > 0 {
				dtz++
			} else if dtz < 0 {
				dtz--
			}
		}
		if err == nil && dtz == 2 && p.InCheck() && !p.HasLegalMoves() {
			dtz = 1
		}
		p.UnmakeMove()
		if err != nil {
			return moves[:0], err
		}
		rm := RootMove{Move: m, DTZ: dtz}
		switch {
		case dtz > 0:
			// DTZ may be one ply short (see Rank): a win is proven only
			// with one ply to spare, and one at the limit is reported as
			// cursed.
			rm.WDL = CursedWin
			if dtz+cnt50 <= 99 {
				rm.WDL = Win
			}
			// DTZ may be one ply short: a win is safe with one to spare.
			rm.Rank = maxRank - dtz - cnt50
			if dtz+cnt50 <= 99 && !repeated {
				rm.Rank = maxRank
			}
			if !rule50 && dtz <= 100 && !repeated {
				// Without the rule only the table's own curse counts.
				rm.Rank = maxRank
			}
		case dtz < 0:
			// Likewise a loss is proven only with one ply to spare: one
			// at the limit may be blessed, and is reported so (a rule
			// that resigns a loss never resigns it).
			rm.WDL = BlessedLoss
			if -dtz+cnt50 <= 99 {
				rm.WDL = Loss
			}
			rm.Rank = -maxRank
			if rule50 && -2*dtz+cnt50 >= 100 {
				rm.Rank = -maxRank + (-dtz + cnt50)
			}
		}
		moves = append(moves, rm)
	}
	for i := 1; i < len(moves); i++ { // stable, best first
		for j := i; j > 0 && moves[j].Rank > moves[j-1].Rank; j-- {
			moves[j], moves[j-1] = moves[j-1], moves[j]
		}
	}
	return moves, nil
}

// ProbeRootWDL ranks the legal moves of p with the WDL tables alone, for
// when ProbeRoot cannot (a DTZ table missing: ErrNoTable). Each move's WDL
// is the tables' result of the position it leads to (a repetition a
// draw), from the mover's view, as if the fifty-move counter were reset:
// without DTZ the root's counter cannot be counted. DTZ is 0. Rank is the
// WDL, except that without rule50 a cursed win ranks as a win and a
// blessed loss as a loss. Best then gives the moves that keep the result;
// unlike ProbeRoot's, they need not make progress, so a win among them is
// for a search to convert. moves is reused as in ProbeRoot. Errors are
// those of ProbeWDL.
func (tb *Tablebase) ProbeRootWDL(p *board.Position, rule50 bool, moves []RootMove) ([]RootMove, error) {
	moves = moves[:0]
	if err := tb.probeable(p); err != nil {
		return moves, err
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		p.MakeMove(m)
		w, err := Draw, error(nil)
		if p.RepetitionCount() < 2 {
			w, err = tb.wdl(p)
		}
		p.UnmakeMove()
		if err != nil {
			return moves[:0], err
		}
		rm := RootMove{Move: m, WDL: -w, Rank: int(-w)}
		if !rule50 && rm.WDL == CursedWin {
			rm.Rank = int(Win)
		} else if !rule50 && rm.WDL == BlessedLoss {
			rm.Rank = int(Loss)
		}
		moves = append(moves, rm)
	}
	for i := 1; i < len(moves); i++ { // stable, best first
		for j := i; j > 0 && moves[j].Rank > moves[j-1].Rank; j-- {
			moves[j], moves[j-1] = moves[j-1], moves[j]
		}
	}
	return moves, nil
}

// Best returns the leading moves of ProbeRoot's answer that share the best
// rank: the moves that keep the result (and, with DTZ, convert a win
// within the fifty-move rule).
func Best(moves []RootMove) []RootMove {
	n := 0
	for n < len(moves) && moves[n].Rank == moves[0].Rank {
		n++
	}
	return moves[:n]
}

// hasRepeated reports whether a position since the last capture or pawn
// move (the current one included) occurred before. It takes moves back and
// plays them again, without allocating.
func hasRepeated(p *board.Position) bool {
	var undo [128]board.Move
	n := 0
	repeated := false
	for {
		if p.RepetitionCount() > 0 {
			repeated = true
			break
		}
		m := p.LastMove()
		if n == len(undo) || p.Plies() == 0 || p.HalfmoveClock() == 0 || m == board.NoMove || m == board.NullMove {
			break
		}
		undo[n] = m
		n++
		p.UnmakeMove()
	}
	for n > 0 {
		n--
		p.MakeMove(undo[n])
	}
	return repeated
}
