// Package online asks knowledge services on the Internet for a move: the
// Lichess tablebase, cloud evaluation and opening explorer (through the
// API client of package lichess) and chessdb (www.chessdb.cn, its own
// small HTTP client here). Each is a Source that answers a Position with a
// Move it recommends, or ErrNoMove when it knows no move that meets its
// settings; any other error is a failure of the service (a timeout, a 429,
// a 500, an answer that cannot be read).
//
// A Source only chooses among what its service answers; it does not check
// that the move is legal (the services are trusted for nothing: the bot's
// online player, package client, checks each move against the position and
// falls back to its own engine on any failure). It never sees the bot's
// token: the Lichess client adds it where Lichess wants it (the explorer,
// the cloud evaluation), and chessdb gets no token at all.
package online

import (
	"context"
	"errors"
	"strings"
)

// ErrNoMove is returned by a Source that knows no move for the position
// that meets its settings (the position is not in its database, too few
// games, too shallow an evaluation).
var ErrNoMove = errors.New("no move")

// Position is the position a Source is asked about.
type Position struct {
	FEN string // X-FEN
	Ply int    // plies played since the game's start position
	// Chess960 is set in a Chess960 game (castling rights in FEN are
	// X-FEN's: a rook's file where KQkq would be ambiguous). Only a
	// Chess960Source that serves Chess960 is asked in one.
	Chess960 bool
}

// Pieces counts the pieces (kings included) of the position.
func (p Position) Pieces() int {
	board, _, _ := strings.Cut(p.FEN, " ")
	n := 0
	for _, r := range board {
		if strings.ContainsRune("pnbrqkPNBRQK", r) {
			n++
		}
	}
	return n
}

// CanCastle reports whether either side still has a castling right.
func (p Position) CanCastle() bool {
	f := strings.Fields(p.FEN)
	return len(f) > 2 && f[2] != "-"
}

// WhiteToMove reports whether White is to move.
func (p Position) WhiteToMove() bool {
	f := strings.Fields(p.FEN)
	return len(f) < 2 || f[1] != "b"
}

// Move is a Source's recommendation.
type Move struct {
	UCI string
	// Score, when HasScore, is the evaluation after the move from the
	// mover's point of view: centipawns, or Mate (moves; > 0 the mover
	// mates) when Mate != 0.
	ScoreCP  int
	Mate     int
	HasScore bool
	Depth    int
	// WDL, when HasWDL, is a tablebase's result for the mover in the
	// position asked about (before the move), as Syzygy's: 2 a win, 1 a
	// cursed win (or a win the fifty-move rule may spoil), 0 a draw, -1 a
	// blessed loss (or a loss it may save), -2 a loss.
	WDL    int
	HasWDL bool
	// Note says in a few words why the move was chosen, for the log
	// ("win dtz 3", "1234 games 56%").
	Note string
}

// Source is one online knowledge service.
type Source interface {
	// Name is the source's name in logs, in Choice.Source (the archive's
	// per-move source, the metrics' label): online-tablebase, cloud,
	// explorer, chessdb.
	Name() string
	// Applies reports whether the source can know the position at all
	// (the tablebase: few enough pieces and no castling right); a source
	// that does not apply is not asked, and that is no miss.
	Applies(p Position) bool
	// Move asks the service. ctx bounds the request.
	Move(ctx context.Context, p Position) (Move, error)
}

// Chess960Source is a Source that can also be asked in Chess960 games
// (Position.Chess960) when ServesChess960 says so: the Lichess tablebase
// (a position without castling rights, the only ones it applies to, is
// the same in standard chess and Chess960) and the cloud evaluation
// (variant=chess960). The other sources are asked in standard chess
// only: the opening explorer (its variant chess960 is another name for
// standard chess: its games are standard games) and chessdb (standard
// chess only).
type Chess960Source interface {
	Source
	ServesChess960() bool
}
