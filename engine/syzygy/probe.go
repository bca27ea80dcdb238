package syzygy

import "github.com/ponderosa-chess/ponderosa/engine/board"

// WDL is a result for the side to move, with the fifty-move rule kept
// apart: a CursedWin is a win that the fifty-move rule turns into a draw
// and a BlessedLoss a loss that it saves.
type WDL int8

// The five results.
const (
	Loss        WDL = -2
	BlessedLoss WDL = -1
	Draw        WDL = 0
	CursedWin   WDL = 1
	Win         WDL = 2
)

// String names the result as Syzygy tools do.
func (w WDL) String() string {
	switch w {
	case Loss:
		return "Loss"
	case BlessedLoss:
		return "BlessedLoss"
	case Draw:
		return "Draw"
	case CursedWin:
		return "CursedWin"
	case Win:
		return "Win"
	}
	return "WDL?"
}

// probeable reports why p cannot be probed, or nil.
func (tb *Tablebase) probeable(p *board.Position) error {
	if p.CastlingRights() != 0 {
		return ErrCastling
	}
	if p.Occupied().Count() > tb.largest {
		return ErrNoTable
	}
	return nil
}

// tableWDL returns the value stored for p in its WDL table, from the side
// to move's view. It ignores en passant and captures: see ProbeWDL.
func (tb *Tablebase) tableWDL(p *board.Position) (WDL, error) {
	if p.Occupied().Count() == 2 {
		return Draw, nil
	}
	key := positionKey(p)
	e := tb.entries[key]
	if e == nil || e.wdl == nil {
		return 0, ErrNoTable
	}
	t := e.wdl
	if err := t.ensure(); err != nil {
		return 0, err
	}
	d, _, idx, _, err := t.locate(p, key)
	if err != nil {
		return 0, t.decodeError(err)
	}
	v, err := t.value(d, idx)
	if err != nil {
		return 0, t.decodeError(err)
	}
	if v > 4 {
		return 0, t.decodeError(errDecode)
	}
	return WDL(v - 2), nil
}

// decodeError is err for a table whose data does not decode: it names the
// file. Only corrupt files get here.
func (t *table) decodeError(err error) error {
	return &TableError{Path: t.path, Err: err}
}

// TableError is a table file that could not be read or decoded.
type TableError struct {
	Path string
	Err  error
}

func (e *TableError) Error() string { return "syzygy table " + e.Path + ": " + e.Err.Error() }
func (e *TableError) Unwrap() error { return e.Err }

// search returns the value of p over its captures (en passant excluded)
// and its table value, with alpha-beta bounds. zeroing is set when the
// best result is a win reached by a capture (DTZ tables need not store
// such positions).
func (tb *Tablebase) search(p *board.Position, alpha, beta WDL) (v WDL, zeroing bool, err error) {
	var ml board.MoveList
	p.GenerateCaptures(&ml)
	for _, m := range ml.Slice() {
		if m.IsEnPassant() || !p.IsCapture(m) {
			continue
		}
		p.MakeMove(m)
		v, _, err = tb.search(p, -beta, -alpha)
		p.UnmakeMove()
		if err != nil {
			return 0, false, err
		}
		v = -v
		if v > alpha {
			if v >= beta {
				return v, true, nil
			}
			alpha = v
		}
	}
	v, err = tb.tableWDL(p)
	if err != nil {
		return 0, false, err
	}
	if alpha >= v {
		return alpha, alpha > Draw, nil
	}
	return v, false, nil
}

// ProbeWDL returns the result of p for the side to move, assuming the
// fifty-move counter is zero (see CursedWin). It errs with ErrCastling,
// ErrNoTable or a *TableError (a file missing, truncated or corrupt).
// It does not allocate once the tables it needs are open; p is played on
// and restored.
func (tb *Tablebase) ProbeWDL(p *board.Position) (WDL, error) {
	if err := tb.probeable(p); err != nil {
		return 0, err
	}
	return tb.wdl(p)
}

func (tb *Tablebase) wdl(p *board.Position) (WDL, error) {
	v, _, err := tb.search(p, Loss, Win)
	if err != nil || p.EPSquare() == board.NoSquare {
		return v, err
	}
	ep, found, err := tb.enPassant(p)
	if err != nil || !found {
		return v, err
	}
	if ep >= v {
		return ep, nil
	}
	if v == Draw && !tb.hasNonEnPassant(p) {
		return ep, nil
	}
	return v, nil
}

// enPassant returns the best result of the legal en-passant captures.
func (tb *Tablebase) enPassant(p *board.Position) (best WDL, found bool, err error) {
	var ml board.MoveList
	p.GenerateCaptures(&ml)
	best = Loss
	for _, m := range ml.Slice() {
		if !m.IsEnPassant() {
			continue
		}
		p.MakeMove(m)
		v, _, err := tb.search(p, Loss, Win)
		p.UnmakeMove()
		if err != nil {
			return 0, false, err
		}
		if -v >= best {
			best, found = -v, true
		}
	}
	return best, found, nil
}

// hasNonEnPassant reports whether p has a legal move other than en passant.
func (tb *Tablebase) hasNonEnPassant(p *board.Position) bool {
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		if !m.IsEnPassant() {
			return true
		}
	}
	return false
}
