// Package board holds ponderosa's chess rules: bitboards, attack tables
// (fancy magic bitboards built once at init), the Position with incremental
// Zobrist keys and an allocation-free undo stack, FEN, UCI move text, legal
// move generation (standard chess and Chess960), static exchange evaluation
// and perft.
//
// # Types
//
//   - Square (a1 = 0 … h8 = 63, NoSquare = 64), Bitboard (uint64, bit i =
//     square i), Color (White, Black), PieceType (Pawn … King), Piece
//     (MakePiece(c, t); p.Type(), p.Color()).
//   - Move: 16 bits, From(), To(), Kind(), Promotion(), IsCastling(),
//     IsEnPassant(), IsPromotion(). Castling is encoded as the king taking
//     its own rook (To() is the rook square) in standard chess as well.
//     NoMove is 0; NullMove marks null-move plies.
//   - MoveList: a fixed [256]Move array plus N; generators fill it without
//     allocating. Slice() gives the moves.
//
// # Position
//
//	p, err := board.ParseFEN(fen) // or board.NewPosition(), p.SetFEN(fen)
//	p.MakeMove(m); p.UnmakeMove()
//	p.MakeNullMove(); p.UnmakeNullMove()
//
// A Position carries its history (undo stack and key history), so it must
// not be copied by value: use Clone or CopyFrom (which reuses a buffer).
// Accessors: SideToMove, PieceOn, Pieces(c, t), PiecesOfType(t),
// Occupancy(c), Occupied, KingSquare(c), Key, PawnKey (pawns only),
// EPSquare, CastlingRights, CastlingRook, HalfmoveClock, FullmoveNumber,
// Checkers, InCheck, Pinned(c), AttackersTo(s, occ), IsAttacked(s, by),
// LastMove, CapturedPiece, Plies, Chess960/SetChess960.
// Draw helpers: IsRepetition(plyFromRoot), RepetitionCount,
// IsInsufficientMaterial, HalfmoveClock (the search decides how to use the
// fifty-move rule; check for mate first when the clock reaches 100).
//
// # Move generation
//
// All generators produce legal moves only (pin and check masks; en passant
// and Chess960 castling fully checked):
//
//	p.GenerateLegal(&ml)   // all legal moves
//	p.GenerateCaptures(&ml) // captures, en passant, all capture-promotions, quiet queen promotions
//	p.GenerateQuiets(&ml)   // the rest: quiet moves, castling, quiet under-promotions
//
// Captures and quiets are disjoint and together are GenerateLegal;
// IsNoisy(m) says which stage a move belongs to. IsLegal(m) validates any
// 16-bit value (TT and killer moves) without generating moves; it agrees
// with GenerateLegal on all 65536 values. IsCapture, MovedPiece and
// GivesCheck help ordering and pruning. SEE(m) returns the static exchange
// value with SEEValue (P=100, N=B=300, R=500, Q=900); SEEGE(m, threshold)
// reports SEE(m) >= threshold.
//
// # Text
//
// FEN() writes KQkq when the castling rook is the outermost rook on its side
// (plain FEN in standard chess, X-FEN in Chess960) and Shredder file letters
// otherwise; ParseFEN accepts KQkq, X-FEN and Shredder letters. The
// en-passant square is kept only when a pawn of the side to move attacks it.
// Move.UCI(chess960) and p.MoveToUCI(m) print "e1g1" castling in standard
// mode and "e1h1" (king takes rook) in Chess960 mode; p.ParseUCIMove
// accepts both forms in either mode. p.MoveToSAN(m) and p.ParseSAN(s)
// handle Standard Algebraic Notation (for EPD suites, PGN and logs).
// ParseEPD(line) returns a position and its operations (bm, am, id, ...).
//
// # Perft
//
// Perft(p, depth) counts leaves with bulk counting at the last ply;
// Divide(p, depth) returns the count under each root move.
package board
