package client

import (
	"fmt"
	"strings"

	"github.com/notnil/chess"

	eboard "github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// The chess rules the game worker needs live behind the board interface, in
// this one file, so github.com/notnil/chess can later be swapped for the
// project's own board. Standard chess and fromPosition use notnil/chess for
// now; Chess960 uses the project's engine/board, which knows its castling.
// The other Lichess variants (crazyhouse, atomic, …) are followed without
// rules (plyBoard): their engine and Lichess know them.

// StartFEN is the standard initial position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// board is a game position plus its history.
type board interface {
	// Legal returns the canonical UCI form of move (as it will be posted)
	// if it is legal in the current position. Castling is accepted both as
	// king-to-destination (e1g1) and king-takes-rook (e1h1).
	Legal(move string) (string, error)
	// Play applies a legal move.
	Play(move string) error
	// LegalMoves lists the legal moves in canonical UCI; nil means unknown
	// (a board that cannot generate moves).
	LegalMoves() []string
	WhiteToMove() bool
	// SAN returns the standard algebraic notation of a legal move in the
	// current position (UCI if the board cannot).
	SAN(move string) string
	// CannotWin reports whether the side (white or black) has too little
	// material to ever mate.
	CannotWin(white bool) bool
	FEN() string
}

// KnowsRules reports whether the game worker follows variant by its rules:
// standard chess, games from a position, and Chess960. Games of the other
// Lichess variants are followed without rules (turn by ply parity, legality
// left to the engine and to Lichess) and played by a per-variant engine.
func KnowsRules(variant string) bool {
	switch variant {
	case "", "standard", "fromPosition", "chess960":
		return true
	}
	return false
}

// newBoard returns the position after moves from the variant's initial
// position; initialFEN "" or "startpos" is the standard start (the
// variant's own start for variants without rules here).
func newBoard(variant, initialFEN string, moves []string) (board, error) {
	var b board
	if !KnowsRules(variant) {
		b = newPlyBoard(initialFEN)
	} else if initialFEN == "" || initialFEN == "startpos" {
		initialFEN = StartFEN
	}
	switch {
	case b != nil:
	case variant == "chess960":
		// notnil/chess cannot castle in Chess960: the project's board can.
		pos, err := eboard.ParseFEN(initialFEN)
		if err != nil {
			return nil, fmt.Errorf("initial position %q: %w", initialFEN, err)
		}
		pos.SetChess960(true)
		b = &engineBoard{pos: pos}
	default:
		opt, err := chess.FEN(initialFEN)
		if err != nil {
			return nil, fmt.Errorf("initial position %q: %w", initialFEN, err)
		}
		b = &notnilBoard{pos: chess.NewGame(opt).Position()}
	}
	for i, m := range moves {
		if err := b.Play(m); err != nil {
			return nil, fmt.Errorf("replay move %d (%s): %w", i+1, m, err)
		}
	}
	return b, nil
}

// plyBoard follows a game of a variant whose rules the worker does not know
// (KnowsRules): it counts plies for the side to move (White first, unless
// the initial FEN says otherwise) and checks only that a move has the shape
// of a UCI move as variant engines and Lichess write them (drops such as
// P@e4, king promotions; uci.IsVariantMove). Which moves are legal is left
// to the engine and to Lichess: LegalMoves is unknown (nil), so there is no
// "only move" shortcut and no fallback move from a list (the worker asks a
// fresh engine instead); SAN is the UCI move as Lichess sent it; CannotWin
// is always false; FEN is the initial position.
type plyBoard struct {
	fen        string
	whiteFirst bool
	plies      int
}

func newPlyBoard(initialFEN string) *plyBoard {
	if initialFEN == "startpos" {
		initialFEN = ""
	}
	f := strings.Fields(initialFEN)
	return &plyBoard{fen: initialFEN, whiteFirst: len(f) < 2 || f[1] != "b"}
}

func (b *plyBoard) Legal(move string) (string, error) {
	m := strings.TrimSpace(move)
	if len(m) == 4 && m[1] == '@' {
		m = strings.ToUpper(m[:1]) + strings.ToLower(m[1:])
	} else {
		m = strings.ToLower(m)
	}
	if m == "0000" || !uci.IsVariantMove(m) {
		return "", fmt.Errorf("move %q is not a UCI move", move)
	}
	return m, nil
}

func (b *plyBoard) Play(move string) error {
	if _, err := b.Legal(move); err != nil {
		return err
	}
	b.plies++
	return nil
}

func (b *plyBoard) LegalMoves() []string      { return nil }
func (b *plyBoard) WhiteToMove() bool         { return (b.plies%2 == 0) == b.whiteFirst }
func (b *plyBoard) SAN(move string) string    { return move }
func (b *plyBoard) CannotWin(white bool) bool { return false }
func (b *plyBoard) FEN() string               { return b.fen }

// notnilBoard implements board with github.com/notnil/chess.
type notnilBoard struct {
	pos *chess.Position
}

func (b *notnilBoard) find(move string) (*chess.Move, error) {
	move = strings.ToLower(strings.TrimSpace(move))
	if len(move) < 4 || len(move) > 5 {
		return nil, fmt.Errorf("move %q: not UCI", move)
	}
	// King takes own rook → the standard castling destination.
	from, to := move[:2], move[2:4]
	switch {
	case from == "e1" && to == "h1" && b.isCastle("e1", "h1"):
		to = "g1"
	case from == "e1" && to == "a1" && b.isCastle("e1", "a1"):
		to = "c1"
	case from == "e8" && to == "h8" && b.isCastle("e8", "h8"):
		to = "g8"
	case from == "e8" && to == "a8" && b.isCastle("e8", "a8"):
		to = "c8"
	}
	want := from + to + move[4:]
	for _, m := range b.pos.ValidMoves() {
		if m.String() == want {
			return m, nil
		}
	}
	return nil, fmt.Errorf("move %s is not legal in %s", move, b.pos.String())
}

// isCastle reports whether from holds a king and to a rook of its colour.
func (b *notnilBoard) isCastle(from, to string) bool {
	sq := map[string]chess.Square{"e1": chess.E1, "h1": chess.H1, "a1": chess.A1, "e8": chess.E8, "h8": chess.H8, "a8": chess.A8}
	k, r := b.pos.Board().Piece(sq[from]), b.pos.Board().Piece(sq[to])
	return k.Type() == chess.King && r.Type() == chess.Rook && k.Color() == r.Color()
}

func (b *notnilBoard) Legal(move string) (string, error) {
	m, err := b.find(move)
	if err != nil {
		return "", err
	}
	return m.String(), nil
}

func (b *notnilBoard) Play(move string) error {
	m, err := b.find(move)
	if err != nil {
		return err
	}
	b.pos = b.pos.Update(m)
	return nil
}

func (b *notnilBoard) LegalMoves() []string {
	ms := b.pos.ValidMoves()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

func (b *notnilBoard) WhiteToMove() bool { return b.pos.Turn() == chess.White }

func (b *notnilBoard) SAN(move string) string {
	m, err := b.find(move)
	if err != nil {
		return move
	}
	return chess.AlgebraicNotation{}.Encode(b.pos, m)
}

func (b *notnilBoard) CannotWin(white bool) bool {
	c := chess.Black
	if white {
		c = chess.White
	}
	minors := 0
	for _, p := range b.pos.Board().SquareMap() {
		if p.Color() != c {
			continue
		}
		switch p.Type() {
		case chess.Pawn, chess.Rook, chess.Queen:
			return false
		case chess.Bishop, chess.Knight:
			minors++
		}
	}
	return minors <= 1
}

func (b *notnilBoard) FEN() string { return b.pos.String() }

// engineBoard implements board with the project's engine/board, which
// knows Chess960 castling (king takes rook, as Lichess writes it).
type engineBoard struct {
	pos *eboard.Position
}

func (b *engineBoard) Legal(move string) (string, error) {
	m, err := b.pos.ParseUCIMove(strings.ToLower(strings.TrimSpace(move)))
	if err != nil {
		return "", err
	}
	return b.pos.MoveToUCI(m), nil
}

func (b *engineBoard) Play(move string) error {
	m, err := b.pos.ParseUCIMove(strings.ToLower(strings.TrimSpace(move)))
	if err != nil {
		return err
	}
	b.pos.MakeMove(m)
	return nil
}

func (b *engineBoard) LegalMoves() []string {
	var ml eboard.MoveList
	b.pos.GenerateLegal(&ml)
	out := make([]string, 0, ml.N)
	for _, m := range ml.Slice() {
		out = append(out, b.pos.MoveToUCI(m))
	}
	return out
}

func (b *engineBoard) WhiteToMove() bool { return b.pos.SideToMove() == eboard.White }

// SAN writes standard algebraic notation: castling O-O / O-O-O, piece
// letter, disambiguation, capture, destination, promotion, check or mate.
func (b *engineBoard) SAN(move string) string {
	m, err := b.pos.ParseUCIMove(strings.ToLower(strings.TrimSpace(move)))
	if err != nil {
		return move
	}
	var sb strings.Builder
	from, to := m.From(), m.To()
	pt := b.pos.MovedPiece(m).Type()
	switch {
	case m.IsCastling():
		if to > from {
			sb.WriteString("O-O")
		} else {
			sb.WriteString("O-O-O")
		}
	case pt == eboard.Pawn:
		if b.pos.IsCapture(m) {
			sb.WriteByte("abcdefgh"[from.File()])
			sb.WriteByte('x')
		}
		sb.WriteString(to.String())
		if m.IsPromotion() {
			sb.WriteString("=" + strings.ToUpper(m.Promotion().String()))
		}
	default:
		sb.WriteString(strings.ToUpper(pt.String()))
		var ml eboard.MoveList
		b.pos.GenerateLegal(&ml)
		sameFile, sameRank, others := false, false, false
		for _, o := range ml.Slice() {
			if o == m || o.To() != to || o.IsCastling() || b.pos.MovedPiece(o).Type() != pt {
				continue
			}
			others = true
			sameFile = sameFile || o.From().File() == from.File()
			sameRank = sameRank || o.From().Rank() == from.Rank()
		}
		if others {
			switch {
			case !sameFile:
				sb.WriteByte("abcdefgh"[from.File()])
			case !sameRank:
				sb.WriteByte("12345678"[from.Rank()])
			default:
				sb.WriteString(from.String())
			}
		}
		if b.pos.IsCapture(m) {
			sb.WriteByte('x')
		}
		sb.WriteString(to.String())
	}
	b.pos.MakeMove(m)
	if b.pos.InCheck() {
		if b.pos.HasLegalMoves() {
			sb.WriteByte('+')
		} else {
			sb.WriteByte('#')
		}
	}
	b.pos.UnmakeMove()
	return sb.String()
}

func (b *engineBoard) CannotWin(white bool) bool {
	c := eboard.Black
	if white {
		c = eboard.White
	}
	if b.pos.Pieces(c, eboard.Pawn)|b.pos.Pieces(c, eboard.Rook)|b.pos.Pieces(c, eboard.Queen) != 0 {
		return false
	}
	return (b.pos.Pieces(c, eboard.Knight) | b.pos.Pieces(c, eboard.Bishop)).Count() <= 1
}

func (b *engineBoard) FEN() string { return b.pos.FEN() }
