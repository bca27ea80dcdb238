// Package book reads, chooses from and makes Polyglot opening books
// (.bin files). It is engine knowledge: it imports only engine/board and
// knows nothing of HTTP, YAML or UCI text.
//
// # Format
//
// A Polyglot book is a sequence of 16-byte entries, sorted by key, all
// fields big-endian: key (8 bytes), move (2), weight (2), learn (4). The key
// of a position (Key) is the xor of the format's 781 published numbers
// (random.go): one per piece kind and square (kind black pawn 0, white pawn
// 1, black knight 2, … white king 11; number 64*kind + square), one per
// castling right (768–771: White short, White long, Black short, Black
// long), one per en-passant file (772–779) when a pawn of the side to move
// stands next to the pawn that has just made a double step, and 780 when
// White is to move. A move holds the to square (bits 0–5), the from square
// (6–11) and the promotion piece (12–14: none, N, B, R, Q); castling is the
// king taking its own rook (e1h1), which is also how engine/board stores
// castling, in standard chess and Chess960.
//
// # Reading
//
//	b, err := book.Open(path)       // the whole file, checked: size and key order
//	moves := b.Moves(pos)           // legal book moves of pos, weights merged
//	m, from, ok := book.Choose([]*book.Book{b1, b2}, pos, ply, opt, rng)
//
// Open names the file in every error (missing, empty, truncated, unsorted);
// a Book it returned never fails later. Moves skips entries whose move is
// not legal in the position (another position with the same key, or a
// damaged entry). Choose asks the books in order and takes the first that
// has a move left after Options.MinWeight, unless the game is past
// Options.MaxDepth plies; Options.Method is weighted_random (probability
// weight/total), uniform_random or best_move (the highest weight, the first
// in the file among equals). A move of weight 0 is never chosen, by any
// method: Polyglot stores weight 0 for a move that is known but not to be
// played. Has tells whether Choose would find a move, without drawing one.
// The caller passes a seeded *rand.Rand: the package keeps no state of its
// own.
//
// # Making
//
// Maker counts PGN games (read with PGNReader: tags and the main line's SAN,
// comments, variations and NAGs skipped) into a book. A comment or variation
// left open ends at the next game's tag section (a tag line at the first
// column after a blank line) or at the end of the file, and its game is
// refused as broken, so one bad game never swallows the games after it.
// For every position up
// to MakeOptions.MaxPly it counts each move's results for the side that
// played it, once per game. The weight of a move is
//
//	weight = 2*wins + draws
//
// (its score in half points). Weights are 16 bits, so they are scaled per
// position: in a position whose largest weight exceeds 65535, all its
// weights are scaled by 65535/largest and rounded, with 1 as the least (the
// proportions within the position stay, but for rounding); every other
// position keeps its raw weights. A min_weight at choosing time is thus a
// count of half points in most positions, and relative to 65535 for the
// best move in the scaled ones. A move is left out when
// it was played in fewer than MinGames games, when its score
// (wins + draws/2) / games is below MinScore, or when its weight is 0. Games
// without a result ("*") or of another variant than standard chess or
// Chess960 are not counted. Write stores the entries (key order) as a file.
//
// The command line is `ponderosa book make` and `ponderosa book show`.
package book
