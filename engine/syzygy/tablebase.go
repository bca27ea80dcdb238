package syzygy

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Errors for positions the tablebase cannot answer. They are returned
// as they are (never wrapped) so that probing stays free of allocations.
var (
	// ErrNoTable: no table covers the position's material (too many
	// pieces, or a table missing from the directories).
	ErrNoTable = errors.New("syzygy: no table for this material")
	// ErrCastling: positions with castling rights are not in the tables.
	ErrCastling = errors.New("syzygy: position has castling rights")
)

// Tablebase is a set of Syzygy tables found in one or more directories.
// Files are opened (memory-mapped) on their first probe; a Tablebase is
// safe for concurrent probes.
type Tablebase struct {
	entries map[uint64]*entry
	all     []*table
	largest int
}

// entry is the pair of tables for one material.
type entry struct {
	wdl, dtz *table
}

// letterPiece maps the letters of table names to piece types.
func letterPiece(b byte) (board.PieceType, bool) {
	i := strings.IndexByte("PNBRQK", b)
	if i < 0 {
		return board.NoPieceType, false
	}
	return board.Pawn + board.PieceType(i), true
}

// materialKey packs the count of each coloured non-king piece into four
// bits: the key identifies a material balance.
func materialKey(count *[16]int8) uint64 {
	var key uint64
	for c := 0; c < 2; c++ {
		for pt := board.Pawn; pt < board.King; pt++ {
			key |= uint64(count[board.MakePiece(board.Color(c), pt)]&15) << (4 * (5*c + int(pt) - 1))
		}
	}
	return key
}

// positionKey returns the material key of p and its number of pieces.
func positionKey(p *board.Position) uint64 {
	var key uint64
	for c := 0; c < 2; c++ {
		for pt := board.Pawn; pt < board.King; pt++ {
			n := bits.OnesCount64(uint64(p.Pieces(board.Color(c), pt)))
			key |= uint64(n&15) << (4 * (5*c + int(pt) - 1))
		}
	}
	return key
}

// parseName reads a table name such as KQvKR into piece counts (the first
// side as White). It reports false for names that are not tables.
func parseName(name string) (count [16]int8, ok bool) {
	w, b, found := strings.Cut(name, "v")
	if !found || len(w) == 0 || len(b) == 0 || w[0] != 'K' || b[0] != 'K' {
		return count, false
	}
	n := 0
	for c, side := range [2]string{w, b} {
		for i := 0; i < len(side); i++ {
			pt, known := letterPiece(side[i])
			if !known || (pt == board.King) != (i == 0) {
				return count, false
			}
			count[board.MakePiece(board.Color(c), pt)]++
			n++
		}
	}
	return count, n >= 3 && n <= maxPieces
}

// newTable describes a table from its name without opening it.
func newTable(name, path string, k kind) *table {
	count, _ := parseName(name)
	t := &table{name: name, path: path, kind: k}
	for i, n := range count {
		t.material[i] = n
		t.pieces += int(n)
	}
	var mirror [16]int8
	for i, n := range count {
		mirror[i^8] = n
	}
	t.key = materialKey(&count)
	t.mirrorKey = materialKey(&mirror)
	t.symmetric = t.key == t.mirrorKey
	wp, bp := int(count[board.WhitePawn]), int(count[board.BlackPawn])
	t.pawns = wp+bp > 0
	for pc, n := range count {
		if n == 1 && board.Piece(pc).Type() != board.King {
			t.unique = true
		}
	}
	// The leading colour is the one with fewer pawns (White when equal),
	// or the only one with pawns.
	if bp == 0 || (wp > 0 && bp >= wp) {
		t.pawnCount = [2]int{wp, bp}
	} else {
		t.pawnCount = [2]int{bp, wp}
	}
	t.sides, t.files = 1, 1
	if k == kindWDL && !t.symmetric {
		t.sides = 2
	}
	if t.pawns {
		t.files = 4
	}
	return t
}

// Open finds the Syzygy tables (.rtbw and .rtbz files named like KQvKR) in
// the given directories; when a table is in several, the first directory
// wins. It opens no table yet: see Check. A directory that cannot be read
// is an error naming it.
func Open(dirs ...string) (*Tablebase, error) {
	tb := &Tablebase{entries: make(map[uint64]*entry)}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		files, err := os.ReadDir(dir)
		if err != nil {
			tb.Close()
			return nil, fmt.Errorf("opening syzygy directory: %w", err)
		}
		for _, f := range files {
			name := f.Name()
			var k kind
			switch filepath.Ext(name) {
			case ".rtbw":
				k = kindWDL
			case ".rtbz":
				k = kindDTZ
			default:
				continue
			}
			base := strings.TrimSuffix(name, filepath.Ext(name))
			if _, ok := parseName(base); !ok || f.IsDir() {
				continue
			}
			t := newTable(base, filepath.Join(dir, name), k)
			e := tb.entries[t.key]
			if e == nil {
				e = &entry{}
				tb.entries[t.key] = e
				tb.entries[t.mirrorKey] = e
			}
			slot := &e.wdl
			if k == kindDTZ {
				slot = &e.dtz
			}
			if *slot != nil {
				continue
			}
			*slot = t
			tb.all = append(tb.all, t)
			if k == kindWDL && t.pieces > tb.largest {
				tb.largest = t.pieces
			}
		}
	}
	sort.Slice(tb.all, func(i, j int) bool { return tb.all[i].path < tb.all[j].path })
	// A Tablebase dropped without Close (a configuration reloaded) still
	// unmaps its files once unreachable.
	runtime.AddCleanup(tb, func(all []*table) { closeTables(all) }, tb.all)
	return tb, nil
}

// MaxPieces returns the most pieces (kings included) of the WDL tables
// found; 0 when there are none.
func (tb *Tablebase) MaxPieces() int { return tb.largest }

// Covers reports whether the tables are used at all in a position of
// pieces pieces (kings included) under a probe limit: not beyond the
// largest table (MaxPieces), nor beyond a positive limit (0 or less: no
// limit). The search's own probe applies its limit with a depth rule
// besides (engine/search).
func (tb *Tablebase) Covers(pieces, limit int) bool {
	return pieces <= tb.largest && (limit <= 0 || pieces <= limit)
}

// Holds reports whether the tables found hold p for a root probe
// (ProbeRoot): no castling right, at most MaxPieces pieces, both the WDL
// and the DTZ table of p's material (two bare kings need none), and every
// other table the probe of p's moves reaches: the WDL tables of the
// materials after the captures and promotions it looks at (KQvKR's
// captures lead to KQvK and KRvK). Past the cheap checks it finds out by
// probing p's root moves (p is played on and restored; the tables it
// needs are opened): a table missing, or one that cannot be read, means p
// is not held.
func (tb *Tablebase) Holds(p *board.Position) bool {
	if tb.probeable(p) != nil {
		return false
	}
	if p.Occupied().Count() == 2 {
		return true
	}
	if e := tb.entries[positionKey(p)]; e == nil || e.wdl == nil || e.dtz == nil {
		return false
	}
	_, err := tb.ProbeRoot(p, false, nil)
	return err == nil
}

// Tables returns the number of table files found (WDL and DTZ).
func (tb *Tablebase) Tables() int { return len(tb.all) }

// Check opens every table and checks its header and sizes, returning an
// error that names each file that is missing, truncated or corrupt (for
// start-up checks; probes open tables lazily and report the same errors).
func (tb *Tablebase) Check() error {
	var errs []error
	for _, t := range tb.all {
		if err := t.ensure(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close unmaps every open table. No probe may run during or after it (a
// Tablebase simply dropped is unmapped once unreachable).
func (tb *Tablebase) Close() error { return closeTables(tb.all) }

func closeTables(all []*table) error {
	var errs []error
	for _, t := range all {
		if err := t.close(); err != nil {
			errs = append(errs, fmt.Errorf("closing %s: %w", t.path, err))
		}
	}
	return errors.Join(errs...)
}
