package client

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Draw offers by the rule of GameSettings (game.draw.offer…): the worker
// decides, with each of our moves, whether to offer a draw with it, from
// the player's Choice (its score, a tablebase result) and what the worker
// knows of the game (the move number, the pieces on the board, the clocks,
// the offers made before). offerDraw is the rule itself, a pure function
// of these; the mover applies it (think) and the worker keeps its state
// once the move is posted (moverResult).

// drawOffers is the state of the offer rule in one game, after our moves so
// far. The zero value is the state before our first move.
type drawOffers struct {
	// level counts our scored moves in a row whose score was level
	// (within OfferWithinCP); a move without a score (the only move, a
	// book or tablebase move) leaves it as it is.
	level int
	// offered: our move number offeredAt (0 for our first move) offered
	// a draw. When the game reaches a later move of ours, the offer was
	// refused: the opponent moved instead of accepting it.
	offered   bool
	offeredAt int
	// pauseTo is the number of our first move that may offer again after
	// a refusal.
	pauseTo int
}

// offerFacts are what the worker knows of the game at one of our moves.
type offerFacts struct {
	index    int // our move's number in the game: 0 for our first move
	fullMove int // the position's full move number (from the initial FEN's)
	pieces   int // pieces on the board, kings and pawns included; 0 when unknown
	// refused: the opponent's draw offer is pending at this move and we
	// refused it; an offer with our move would accept it (Lichess).
	refused bool
	// clocked: the game has a real-time clock, and ours and theirs are
	// the time left on each side (not checked otherwise: correspondence,
	// unlimited).
	clocked      bool
	ours, theirs time.Duration
}

// timeTroubleRatio: an opponent with less than this share of our time
// left is in time trouble (besides GameSettings.OfferMinOpponentClock).
const timeTroubleRatio = 4

// offerDraw applies the draw-offer rule to our move d, made in the
// situation f with the state st of the moves before: it returns the state
// after the move (to be kept once the move is posted), whether to offer a
// draw with it, and why (or why not, when a condition other than the
// evaluation stops an offer; "" otherwise).
//
// A draw is offered when offers are on and either our score has been level
// for OfferForMoves of our scored moves in a row (this one included) from
// full move OfferAfterMove on, or, with DrawTablebase, the tablebase calls
// the position a draw (or a blessed loss) — a tablebase draw needs neither
// the streak nor the move number. Both need at most OfferMaxPieces pieces
// (when set), a move past the pause after a refused offer, and an opponent
// with at least OfferMinOpponentClock on their clock and at least a
// quarter of ours. A player that offers a draw itself (d.OfferDraw) is
// honoured whatever the rule says; its offer counts as ours for the pause.
// Nothing offers while the opponent's own offer is pending and was refused
// (f.refused): on Lichess our offer would accept theirs.
func offerDraw(s GameSettings, st drawOffers, d Choice, f offerFacts) (drawOffers, bool, string) {
	next := st
	if st.offered && st.offeredAt < f.index {
		// Our last offer was not accepted: the game went on.
		next.offered = false
		next.pauseTo = max(next.pauseTo, st.offeredAt+1+s.OfferPauseMoves)
	}
	if d.HasScore {
		if d.Mate == 0 && abs(d.ScoreCP) <= s.OfferWithinCP {
			next.level++
		} else {
			next.level = 0
		}
	}
	offered := func(why string) (drawOffers, bool, string) {
		next.offered, next.offeredAt = true, f.index
		return next, true, why
	}
	if f.refused {
		return next, false, "the opponent's draw offer was refused: an offer with our move would accept it"
	}
	if d.OfferDraw {
		return offered("the player offers a draw")
	}
	if !s.OfferDraws {
		return next, false, ""
	}
	byTB := s.DrawTablebase && d.TB.Known && (d.TB.WDL == 0 || d.TB.WDL == -1)
	byEval := d.HasScore && next.level >= max(s.OfferForMoves, 1) && f.fullMove >= s.OfferAfterMove
	var why string
	switch {
	case byTB:
		why = "the tablebase says " + d.TB.Result()
	case byEval:
		why = fmt.Sprintf("the score has been within %d cp for %d of our moves", s.OfferWithinCP, next.level)
	default:
		return next, false, ""
	}
	var not []string
	if s.OfferMaxPieces > 0 && (f.pieces <= 0 || f.pieces > s.OfferMaxPieces) {
		not = append(not, fmt.Sprintf("%d pieces on the board (at most %d)", f.pieces, s.OfferMaxPieces))
	}
	if f.index < next.pauseTo {
		not = append(not, fmt.Sprintf("an offer was refused %d of our moves ago (pause %d)", f.index-st.offeredAt, s.OfferPauseMoves))
	}
	if f.clocked && (f.theirs < s.OfferMinOpponentClock || f.theirs < f.ours/timeTroubleRatio) {
		not = append(not, fmt.Sprintf("the opponent is in time trouble (%v left, ours %v)", f.theirs.Round(100*time.Millisecond), f.ours.Round(100*time.Millisecond)))
	}
	if len(not) > 0 {
		return next, false, why + ", but no offer: " + strings.Join(not, "; ")
	}
	return offered(why)
}

// countPieces counts the pieces (kings and pawns included) of a FEN's
// board; 0 if it has none.
func countPieces(fen string) int {
	board, _, _ := strings.Cut(fen, " ")
	n := 0
	for _, r := range board {
		if strings.ContainsRune("pnbrqkPNBRQK", r) {
			n++
		}
	}
	return n
}

// offerFacts is the situation of job j's move for the offer rule.
func (g *gameWorker) offerFacts(j moveJob, now time.Time) offerFacts {
	f := offerFacts{index: j.ply / 2, fullMove: fullMoveAt(g.info.InitialFEN, j.ply), pieces: j.pieces}
	if g.corr || (g.info.Initial <= 0 && g.info.Increment <= 0) {
		return f
	}
	w, b := time.Duration(j.state.WTime)*time.Millisecond, time.Duration(j.state.BTime)*time.Millisecond
	f.clocked = true
	f.ours, f.theirs = w, b
	if !g.white {
		f.ours, f.theirs = b, w
	}
	if !j.receivedAt.IsZero() && j.ply >= 2 {
		// Our clock has run since the opponent's move came.
		f.ours = max(f.ours-now.Sub(j.receivedAt), 0)
	}
	return f
}

// fullMoveAt is the full move number of the position after ply plies from
// the initial position fen ("" for the standard start): the FEN's full
// move number (its last field; 1 when missing or not a number) plus the
// full moves since, counted from the FEN's side to move.
func fullMoveAt(fen string, ply int) int {
	start, black := 1, false
	if f := strings.Fields(fen); len(f) >= 2 {
		black = f[1] == "b"
		if len(f) >= 6 {
			if n, err := strconv.Atoi(f[len(f)-1]); err == nil && n >= 1 {
				start = n
			}
		}
	}
	if black {
		ply++
	}
	return start + ply/2
}
