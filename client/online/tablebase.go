package online

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Tablebase asks the Lichess tablebase (standard chess, up to 7 pieces,
// with DTZ and, up to 6 pieces, DTM) and plays the best move by its result
// for us, then by distance: a win as fast as the fifty-move rule allows
// (checkmate, then a zeroing move, then the least DTZ, then the least DTM),
// a loss as slow as possible, any draw otherwise.
type Tablebase struct {
	Client *lichess.Client
	// BaseURL is the tablebase server ("" for lichess.DefaultTablebaseURL).
	BaseURL string
	// MaxPieces is the most pieces (kings included) of a position asked
	// about, at most 7 (< 3: 7).
	MaxPieces int
}

// Name is online-tablebase, apart from the built-in engine's local tables
// (source tablebase) in logs, the archive and the metrics.
func (t *Tablebase) Name() string { return "online-tablebase" }

// ServesChess960: the tablebase applies only to positions without
// castling rights, which are the same in standard chess and Chess960.
func (t *Tablebase) ServesChess960() bool { return true }

func (t *Tablebase) Applies(p Position) bool {
	limit := t.MaxPieces
	if limit < 3 || limit > 7 {
		limit = 7
	}
	return p.Pieces() <= limit && !p.CanCastle()
}

// outcome ranks the category of the position after our move (the
// opponent's point of view) for us: higher is better; 0 is unknown.
func outcome(category string) int {
	switch category {
	case "loss":
		return 9
	case "syzygy-loss":
		return 8
	case "maybe-loss":
		return 7
	case "blessed-loss":
		return 6
	case "draw":
		return 5
	case "cursed-win":
		return 4
	case "maybe-win":
		return 3
	case "syzygy-win":
		return 2
	case "win":
		return 1
	}
	return 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// distance is |*d|, or big when unknown.
func distance(d *int, big int) int {
	if d == nil {
		return big
	}
	return abs(*d)
}

// WDL converts a category of the Lichess tablebase into Syzygy's WDL for
// the side it is given for, in a position whose halfmove clock (plies since
// the last capture or pawn move) is halfmove: win 2, cursed-win and
// maybe-win 1, draw 0, blessed-loss and maybe-loss -1, loss -2.
//
// syzygy-win and syzygy-loss are ±2 only with a halfmove clock of 0, and
// ±1 otherwise: they come from tables whose DTZ is rounded, which are exact
// only when no move since the last capture or pawn move has left the
// tablebase's line (the Lichess API's words), and the clock says nothing of
// those moves. A maybe-win or maybe-loss (the tablebase cannot tell
// whether the fifty-move rule spoils it) counts as cursed or blessed. So a
// result the fifty-move rule might change is never resigned and never
// offered as a draw that might be won. ok is false for unknown and
// anything else.
func WDL(category string, halfmove int) (wdl int, ok bool) {
	switch category {
	case "win":
		return 2, true
	case "syzygy-win":
		if halfmove == 0 {
			return 2, true
		}
		return 1, true
	case "cursed-win", "maybe-win":
		return 1, true
	case "draw":
		return 0, true
	case "blessed-loss", "maybe-loss":
		return -1, true
	case "syzygy-loss":
		if halfmove == 0 {
			return -2, true
		}
		return -1, true
	case "loss":
		return -2, true
	}
	return 0, false
}

// halfmoveClock is the halfmove clock of a FEN (its fifth field); -1 when
// it has none or it is not a number (so that no result counts as exact).
func halfmoveClock(fen string) int {
	f := strings.Fields(fen)
	if len(f) < 5 {
		return -1
	}
	n, err := strconv.Atoi(f[4])
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// compareTablebase orders moves best first for the mover.
func compareTablebase(a, b lichess.TablebaseMove) int {
	oa, ob := outcome(a.Category), outcome(b.Category)
	if oa != ob {
		return cmp.Compare(ob, oa)
	}
	const unknown = 1 << 20
	switch {
	case oa >= 7: // we win: fastest
		if a.Checkmate != b.Checkmate {
			if a.Checkmate {
				return -1
			}
			return 1
		}
		if a.Zeroing != b.Zeroing {
			if a.Zeroing {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(distance(a.DTZ, unknown), distance(b.DTZ, unknown)); c != 0 {
			return c
		}
		return cmp.Compare(distance(a.DTM, unknown), distance(b.DTM, unknown))
	case oa >= 1 && oa <= 3: // we lose: slowest
		if c := cmp.Compare(distance(b.DTZ, 0), distance(a.DTZ, 0)); c != 0 {
			return c
		}
		return cmp.Compare(distance(b.DTM, 0), distance(a.DTM, 0))
	}
	return 0
}

func (t *Tablebase) Move(ctx context.Context, p Position) (Move, error) {
	e, err := t.Client.Tablebase(ctx, t.BaseURL, p.FEN)
	if err != nil {
		return Move{}, err
	}
	moves := slices.Clone(e.Moves)
	slices.SortStableFunc(moves, compareTablebase)
	if len(moves) == 0 || outcome(moves[0].Category) == 0 || moves[0].UCI == "" {
		return Move{}, fmt.Errorf("tablebase: %w (category %q)", ErrNoMove, e.Category)
	}
	best := moves[0]
	note := fmt.Sprintf("%s for the opponent", best.Category)
	if best.DTZ != nil {
		note += fmt.Sprintf(", dtz %d", *best.DTZ)
	}
	if best.DTM != nil {
		note += fmt.Sprintf(", dtm %d", *best.DTM)
	}
	m := Move{UCI: best.UCI, Note: note}
	// The position's result for us: its own category, or else that of
	// the best move, which is the opponent's after it.
	// After a zeroing move the clock is 0; otherwise it goes up by one
	// (or stays unknown).
	half := halfmoveClock(p.FEN)
	after := half + 1
	if best.Zeroing {
		after = 0
	} else if half < 0 {
		after = -1
	}
	if w, ok := WDL(e.Category, half); ok {
		m.WDL, m.HasWDL = w, true
	} else if w, ok := WDL(best.Category, after); ok {
		m.WDL, m.HasWDL = -w, true
	}
	return m, nil
}
