// Package syzygy probes Syzygy endgame tablebases: WDL tables (.rtbw,
// win/draw/loss with the fifty-move rule kept apart) and DTZ tables
// (.rtbz, distance to the next capture or pawn move), in pure Go, written
// from the format's description. It is engine knowledge: it imports only
// engine/board and knows nothing of HTTP, YAML or UCI text.
//
// # Use
//
//	tb, err := syzygy.Open(dir1, dir2) // finds KQvKR.rtbw-style files; opens none
//	err = tb.Check()                   // optional: open and check every file now
//	w, err := tb.ProbeWDL(pos)         // Loss, BlessedLoss, Draw, CursedWin, Win
//	d, err := tb.ProbeDTZ(pos)         // plies to zeroing, signed; ±100 offset when cursed/blessed
//	moves, err := tb.ProbeRoot(pos, rule50, buf[:0]) // every legal move ranked
//	keep := syzygy.Best(moves)         // the moves that preserve the result
//	moves, err = tb.ProbeRootWDL(pos, rule50, buf[:0]) // the same without DTZ tables
//
// Positions with castling rights, or with more pieces than the largest
// table found, give ErrCastling or ErrNoTable at once; a material whose
// table is missing gives ErrNoTable. A file that is missing, truncated or
// corrupt gives a *TableError naming it (at Check, or at the first probe
// that needs it); damaged compressed data is caught by bounds checks and
// never panics. A file whose format is wrong fails for good; any other
// failure to open one (too many open files, no memory, a file gone for a
// while) is returned for a minute, then the file is tried again. Probes are safe for concurrent use and do not allocate
// once their tables are open; they play moves on the given position and
// restore it.
//
// # Files
//
// Tables are found by name in the directories given to Open (the first
// directory wins) and opened lazily, each on its first probe: the file is
// memory-mapped read-only (syscall.Mmap on unix; read into memory with
// ReadAt elsewhere, or where mapping fails, but only files of at most
// 64 MiB: a larger one then fails with an error saying so), its header is read and every
// offset and size it implies is checked against the file's length. This is
// what lets 5-7-piece sets (gigabytes) work: only the pages probed are
// read.
//
// # Format (as implemented here)
//
// A table is named by its material, the stronger side first (KQvKR); a
// position with the colours swapped is probed with the board turned upside
// down and the colours swapped, as is a position of a symmetric material
// (KRvKR) with Black to move. Each file starts with 4 magic bytes and a
// flags byte (two sides stored; pawns). A WDL table stores both sides to
// move (one for symmetric materials); a DTZ table stores one side per
// section, and a position of the other side is answered by a one-ply
// search.
//
// A position becomes an index: pawnless tables mirror the board so that
// the leading piece is in the a1-d1-d4 triangle (and the first piece off
// the a1-h8 diagonal is below it); the leading group is three unique
// pieces (31332 placements) or the two kings (462); pawn tables have one
// section per file a-d of the leading pawn (the pawn nearest the edge, then
// lowest) and number the leading pawns from their squares. Further groups
// of like pieces are numbered with binomial coefficients over the squares
// left; the order of the groups in the index is given per section.
//
// The values are compressed by recursive pairing: a canonical Huffman code
// of symbols, each symbol standing for a pair of symbols down to single
// values. The positions are cut into blocks of whole symbols; a sparse
// index (every 2^span positions) and the block lengths find the block of
// an index, and the symbol tree finds the value within the symbol.
// DTZ values may go through a per-result map and are stored in plies or
// in moves (then doubled).
//
// # Probing
//
// The tables may hold any value ("don't care") where the best move is a
// capture, and know nothing of en passant. ProbeWDL therefore searches
// captures (alpha-beta) and takes the best of those and the table value,
// then en-passant captures. ProbeDTZ does the same, answers 1 (or 101) when
// a capture or pawn move wins, and otherwise reads the DTZ table. ProbeRoot
// plays each legal move and ranks it from its DTZ and the root's
// fifty-move counter.
package syzygy
