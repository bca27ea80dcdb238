package client

import (
	"fmt"
	"strings"

	"github.com/notnil/chess"
)

// The chess rules the game worker needs live behind the board interface, in
// this one file, so github.com/notnil/chess can later be swapped for the
// project's own board (which also handles Chess960 castling).

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

// newBoard returns the position after moves from the variant's initial
// position; initialFEN "" or "startpos" is the standard start.
func newBoard(variant, initialFEN string, moves []string) (board, error) {
	var b board
	if initialFEN == "" || initialFEN == "startpos" {
		initialFEN = StartFEN
	}
	switch variant {
	case "", "standard", "fromPosition":
		opt, err := chess.FEN(initialFEN)
		if err != nil {
			return nil, fmt.Errorf("initial position %q: %w", initialFEN, err)
		}
		b = &notnilBoard{pos: chess.NewGame(opt).Position()}
	case "chess960":
		if initialFEN == StartFEN {
			opt, _ := chess.FEN(initialFEN)
			b = &notnilBoard{pos: chess.NewGame(opt).Position()}
		} else {
			// notnil/chess cannot castle in Chess960: moves are trusted
			// until the project's board replaces it.
			b = newUncheckedBoard(initialFEN)
		}
	default:
		return nil, fmt.Errorf("variant %q is not supported", variant)
	}
	for i, m := range moves {
		if err := b.Play(m); err != nil {
			return nil, fmt.Errorf("replay move %d (%s): %w", i+1, m, err)
		}
	}
	return b, nil
}

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

// uncheckedBoard trusts the moves it is given (syntax only); it stands in for
// Chess960 until a board that knows Chess960 castling replaces notnil/chess.
type uncheckedBoard struct {
	fen   string
	white bool
	moves []string
}

func newUncheckedBoard(fen string) *uncheckedBoard {
	f := strings.Fields(fen)
	return &uncheckedBoard{fen: fen, white: len(f) < 2 || f[1] != "b"}
}

func validUCI(m string) bool {
	if len(m) < 4 || len(m) > 5 {
		return false
	}
	for i := 0; i < 4; i += 2 {
		if m[i] < 'a' || m[i] > 'h' || m[i+1] < '1' || m[i+1] > '8' {
			return false
		}
	}
	return len(m) == 4 || strings.ContainsRune("qrbn", rune(m[4]))
}

func (b *uncheckedBoard) Legal(move string) (string, error) {
	move = strings.ToLower(strings.TrimSpace(move))
	if !validUCI(move) {
		return "", fmt.Errorf("move %q: not UCI", move)
	}
	return move, nil
}

func (b *uncheckedBoard) Play(move string) error {
	m, err := b.Legal(move)
	if err != nil {
		return err
	}
	b.moves = append(b.moves, m)
	b.white = !b.white
	return nil
}

func (b *uncheckedBoard) LegalMoves() []string      { return nil }
func (b *uncheckedBoard) WhiteToMove() bool         { return b.white }
func (b *uncheckedBoard) SAN(move string) string    { return move }
func (b *uncheckedBoard) CannotWin(white bool) bool { return false }
func (b *uncheckedBoard) FEN() string               { return b.fen }
