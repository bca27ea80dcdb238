package config

// The engine's knowledge beside its search: the endgame tablebases
// (engine.syzygy) and the opening books (engine.book).

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// Syzygy configures the Syzygy endgame tablebases of the built-in engine:
// in a position the tables hold, the engine keeps to the moves that keep
// their result: a win known by DTZ is played at once, without a search; in
// a draw or a loss (or with WDL files only) a short search chooses among
// those moves (engine/syzygy, ponder).
type Syzygy struct {
	// Paths are directories of .rtbw/.rtbz files (a table in an earlier
	// directory hides one of the same name in a later one). Load takes a
	// relative path from the config file's directory. Default none.
	Paths []string `yaml:"paths"`
	// FiftyMoveRule (default true) counts the game's fifty-move counter
	// when the tables choose: wins that would come too late rank below
	// those that do not. false ignores the counter. Either way a cursed
	// win is still played for, below plain wins and above draws.
	FiftyMoveRule bool `yaml:"fifty_move_rule"`
	// ProbeDepth (default 1) and ProbeLimit (default 7) set the search's
	// WDL probes: right after a capture or pawn move, in positions of at
	// most ProbeLimit pieces, at depth ProbeDepth or more (with fewer
	// pieces than the limit at any depth). ProbeDepth counts only when
	// ProbeLimit is at most the pieces of the largest tables found: a
	// larger limit (the default 7 with 3-to-6-piece tables) probes every
	// table at any depth, as in Stockfish. Tables of more pieces than
	// ProbeLimit are not used at all (as UCI SyzygyProbeLimit, and
	// Stockfish's): such a position's move and result do not come from
	// them, and the online tablebase is asked as if they were not there.
	// ProbeLimit 0 turns every use of the tables off: the daemon does not
	// open them.
	ProbeDepth int `yaml:"probe_depth"`
	ProbeLimit int `yaml:"probe_limit"`
}

// Open opens the tables of Paths and checks every file; nil without
// paths. The error names the key and the directory or file.
func (s Syzygy) Open() (*syzygy.Tablebase, error) {
	if len(s.Paths) == 0 {
		return nil, nil
	}
	tb, err := syzygy.Open(s.Paths...)
	if err != nil {
		return nil, fmt.Errorf("engine.syzygy.paths: %w", err)
	}
	if err := tb.Check(); err != nil {
		tb.Close()
		return nil, fmt.Errorf("engine.syzygy.paths: %w", err)
	}
	return tb, nil
}

// Book configures the Polyglot opening books of the built-in engine: while
// a game's position is in a book, the engine plays the book's move at once,
// without a search (engine/book, ponder).
type Book struct {
	// Files maps a variant, standard or chess960, to its books, asked in
	// order until one has a move; standard's books serve fromPosition
	// games too. Load takes a relative path from the config file's
	// directory. Default none.
	Files map[string][]string `yaml:"files"`
	// Selection is how a move is chosen among the book's moves:
	// weighted_random (by the book's weights, the default), uniform_random
	// or best_move.
	Selection string `yaml:"selection"`
	// MinWeight leaves out book moves of a lower weight. Default 0. A move
	// of weight 0 (Polyglot: known, not to be played) is never played. In
	// a book made by `ponderosa book make`, a weight is 2*wins + draws,
	// except in a position whose largest weight exceeded 65535: there the
	// weights were scaled so that the largest is 65535.
	MinWeight int `yaml:"min_weight"`
	// MaxDepth is the last ply of the game (counted from its start
	// position) played from the books; 0 (the default) means no limit.
	MaxDepth int `yaml:"max_depth"`
}

// Options returns the book settings as engine/book takes them; Validate
// has checked Selection.
func (b Book) Options() book.Options {
	m, _ := book.ParseMethod(b.Selection)
	return book.Options{Method: m, MinWeight: b.MinWeight, MaxDepth: b.MaxDepth}
}

// Open opens the books of each variant of Files (standard, chess960). The
// error names the key and the file of the first book that cannot be read.
func (b Book) Open() (map[string][]*book.Book, error) {
	out := map[string][]*book.Book{}
	for _, variant := range slices.Sorted(maps.Keys(b.Files)) {
		for i, path := range b.Files[variant] {
			bk, err := book.Open(path)
			if err != nil {
				return nil, fmt.Errorf("engine.book.files.%s[%d]: %w", variant, i, err)
			}
			out[variant] = append(out[variant], bk)
		}
	}
	return out, nil
}
