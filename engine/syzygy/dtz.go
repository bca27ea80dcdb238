package syzygy

import (
	"encoding/binary"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// zeroingDTZ is the DTZ of a position whose best move zeroes the
// fifty-move counter (a capture or a pawn move) with result w.
func zeroingDTZ(w WDL) int {
	switch w {
	case Win:
		return 1
	case CursedWin:
		return 101
	case BlessedLoss:
		return -101
	case Loss:
		return -1
	}
	return 0
}

// tableDTZ returns the distance stored for p in its DTZ table (plies, or
// moves doubled, not yet signed nor offset), given p's result w. ok is
// false when the table stores only the other side to move.
func (tb *Tablebase) tableDTZ(p *board.Position, w WDL) (v int, ok bool, err error) {
	key := positionKey(p)
	e := tb.entries[key]
	if e == nil || e.dtz == nil {
		return 0, false, ErrNoTable
	}
	t := e.dtz
	if err := t.ensure(); err != nil {
		return 0, false, err
	}
	d, _, idx, ok, err := t.locate(p, key)
	if err != nil {
		return 0, false, t.decodeError(err)
	}
	if !ok {
		return 0, false, nil
	}
	v, err = t.value(d, idx)
	if err != nil {
		return 0, false, t.decodeError(err)
	}
	if d.flags&flagMapped != 0 {
		// One map per result: win, loss, cursed win, blessed loss.
		m := [5]int{1, 3, 0, 2, 0}[w+2]
		if d.flags&flagWide != 0 {
			at := t.mapOff + 2*(d.mapIdx[m]+v)
			if at < 0 || at+2 > len(t.data) {
				return 0, false, t.decodeError(errDecode)
			}
			v = int(binary.LittleEndian.Uint16(t.data[at:]))
		} else {
			at := t.mapOff + d.mapIdx[m] + v
			if at < 0 || at >= len(t.data) {
				return 0, false, t.decodeError(errDecode)
			}
			v = int(t.data[at])
		}
	}
	if (w == Win && d.flags&flagWinPlies == 0) || (w == Loss && d.flags&flagLossPlies == 0) ||
		w == CursedWin || w == BlessedLoss {
		v *= 2
	}
	return v, true, nil
}

// ProbeDTZ returns the distance to zero of p: the plies to the next capture
// or pawn move on a path that keeps the result, signed for the side to
// move (positive: winning), 0 for a draw; a win or loss that the
// fifty-move rule spoils is offset by 100 (above 100, below -100). Where
// the table stores moves rather than plies the answer may be one ply
// short of the true distance (the format's rounding). Errors are those of
// ProbeWDL.
func (tb *Tablebase) ProbeDTZ(p *board.Position) (int, error) {
	if err := tb.probeable(p); err != nil {
		return 0, err
	}
	return tb.dtz(p)
}

func (tb *Tablebase) dtz(p *board.Position) (int, error) {
	v, err := tb.dtzNoEP(p)
	if err != nil || p.EPSquare() == board.NoSquare {
		return v, err
	}
	ep, found, err := tb.enPassant(p)
	if err != nil || !found {
		return v, err
	}
	e := zeroingDTZ(ep)
	switch {
	case v < -100:
		if e >= 0 {
			v = e
		}
	case v < 0:
		if e >= 0 || e < -100 {
			v = e
		}
	case v > 100:
		if e > 0 {
			v = e
		}
	case v > 0:
		if e == 1 {
			v = e
		}
	case e >= 0:
		v = e
	default:
		if !tb.hasNonEnPassant(p) {
			v = e
		}
	}
	return v, nil
}

// dtzNoEP is the DTZ of p as if en passant were not allowed.
func (tb *Tablebase) dtzNoEP(p *board.Position) (int, error) {
	w, zeroing, err := tb.search(p, Loss, Win)
	if err != nil || w == Draw {
		return 0, err
	}
	if zeroing {
		return zeroingDTZ(w), nil
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	if w > Draw {
		// A pawn push that keeps the result zeroes at once.
		for _, m := range ml.Slice() {
			if p.MovedPiece(m).Type() != board.Pawn || p.IsCapture(m) {
				continue
			}
			p.MakeMove(m)
			v, err := tb.wdl(p)
			p.UnmakeMove()
			if err != nil {
				return 0, err
			}
			if -v == w {
				return zeroingDTZ(w), nil
			}
		}
	}
	v, ok, err := tb.tableDTZ(p, w)
	if err != nil {
		return 0, err
	}
	if ok {
		if w > Draw {
			return zeroingDTZ(w) + v, nil
		}
		return zeroingDTZ(w) - v, nil
	}
	// The table stores the other side to move: one ply of search.
	if w > Draw {
		best := 0xFFFF
		for _, m := range ml.Slice() {
			if p.MovedPiece(m).Type() == board.Pawn || p.IsCapture(m) {
				continue
			}
			p.MakeMove(m)
			v, err := tb.dtz(p)
			mate := err == nil && v == -1 && p.InCheck() && !p.HasLegalMoves()
			p.UnmakeMove()
			if err != nil {
				return 0, err
			}
			v = -v
			if mate {
				best = 1
			} else if v > 0 && v+1 < best {
				best = v + 1
			}
		}
		return best, nil
	}
	best := -1
	for _, m := range ml.Slice() {
		var v int
		p.MakeMove(m)
		if p.HalfmoveClock() == 0 {
			if w == Loss {
				v = -1
			} else {
				var r WDL
				r, _, err = tb.search(p, CursedWin, Win)
				if r == Win {
					v = 0
				} else {
					v = -101
				}
			}
		} else {
			v, err = tb.dtz(p)
			v = -v - 1
		}
		p.UnmakeMove()
		if err != nil {
			return 0, err
		}
		if v < best {
			best = v
		}
	}
	return best, nil
}
