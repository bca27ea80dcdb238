package client

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// updateAbortTimer runs the abort timer while we wait for the opponent's
// first move.
func (g *gameWorker) updateAbortTimer() {
	n := len(g.moves)
	waiting := g.s.Game.AbortAfter > 0 && !g.corr && !g.ourTurn() && ((g.white && n == 1) || (!g.white && n == 0))
	if waiting && g.abortTimer == nil {
		g.abortTimer = time.NewTimer(g.s.Game.AbortAfter)
		g.abortC = g.abortTimer.C
	}
	if !waiting && g.abortTimer != nil {
		g.abortTimer.Stop()
		g.abortTimer, g.abortC = nil, nil
	}
}

func (g *gameWorker) abortNow(ctx context.Context) {
	g.l().Info().Dur("after", g.s.Game.AbortAfter).Msg("opponent made no first move; aborting")
	g.background(ctx, "abort", func(ctx context.Context) error { return g.c.Abort(ctx, g.id) })
}

// theirOffer is the opponent's draw offer at one of our plies, as the
// mover of that ply must know it: an offer with our move would accept it.
type theirOffer struct {
	ply int // the ply (our turn) at which the offer was pending; -1: none
	// deferred: the worker left the answer to the mover of ply, which
	// answers by the tablebase result of its own move (answerWithMove);
	// otherwise the worker declined it at once.
	deferred  bool
	cannotWin bool // we cannot win on material (for the mover's answer)
}

// answerOffers answers draw and takeback offers of the opponent, once per ply.
//
// A draw offer is answered at once by acceptDraw, except when the
// tablebase may decide (game.draw.accept and game.draw.tablebase on) and it
// is our turn with our move still to come: the tablebase result we have is
// for the position of our previous move, and the opponent has moved since
// (a blunder may have turned a draw into a win for us), so the answer goes
// with our move, which carries the result for the position of the offer
// (answerWithMove): an acceptance is our move posted with offeringDraw=true
// (the Lichess API's "offer (or agree to) a draw"; lichesstest ends the
// game as drawn too), a refusal is a POST …/draw/no and our move without
// an offer (a move declines a pending offer).
func (g *gameWorker) answerOffers(ctx context.Context, st lichess.GameState) {
	ply := len(g.moves)
	if g.moverPly >= 0 && g.moverPly < ply {
		// Our move is played but its result (the evaluation) is not in
		// yet: answer from moverResult.
		return
	}
	if g.postedPly == ply && g.ourTurn() {
		// Our move of this ply is posted (it declined or accepted any
		// pending offer) and the state that shows it has not come yet:
		// answer from there.
		return
	}
	oppDraw, oppTakeback := st.WDraw, st.WTakeback
	if g.white {
		oppDraw, oppTakeback = st.BDraw, st.BTakeback
	}
	if oppDraw && g.drawAnswered != ply {
		gs := g.s.Game
		mover := g.ourTurn() && g.postedPly != ply && g.failed[ply]+g.moverPanics[ply] < 2
		switch {
		case gs.AcceptDraws && gs.DrawTablebase && mover:
			g.evalMu.Lock()
			first := g.their.ply != ply || !g.their.deferred
			g.their = theirOffer{ply: ply, deferred: true, cannotWin: g.b.CannotWin(g.white)}
			g.evalMu.Unlock()
			if first {
				g.l().Info().Msg("draw offered: answering with our move, by its tablebase result")
			}
		default:
			g.drawAnswered = ply
			accept := g.acceptDraw()
			if !accept {
				g.evalMu.Lock()
				g.their = theirOffer{ply: ply}
				g.evalMu.Unlock()
			}
			ev := g.l().Info().Bool("accept", accept)
			if tb, at := g.tb(); gs.DrawTablebase && tb.Known && at == ply {
				ev = ev.Str("tablebase", tb.Result())
			}
			ev.Msg("draw offered")
			g.background(ctx, "answer draw offer", func(ctx context.Context) error { return g.c.Draw(ctx, g.id, accept) })
		}
	}
	if oppTakeback && g.takebackAnswers != ply {
		g.takebackAnswers = ply
		accept := g.s.Game.AcceptTakebacks
		g.l().Info().Bool("accept", accept).Msg("takeback proposed")
		g.background(ctx, "answer takeback", func(ctx context.Context) error { return g.c.Takeback(ctx, g.id, accept) })
	}
}

// answerWithMove answers the opponent's draw offer o, left to the mover,
// by acceptDrawRule with the tablebase result d.TB of our move (for the
// position of the offer): it logs the answer, declines in the background,
// and returns whether to accept (by posting the move with offeringDraw).
// It runs in the mover goroutine.
func (g *gameWorker) answerWithMove(o theirOffer, d Choice, f offerFacts, log zerolog.Logger) bool {
	accept := acceptDrawRule(g.s.Game, o.cannotWin, d.TB, g.eval(), f.fullMove)
	ev := log.Info().Bool("accept", accept).Bool("with_move", true)
	if d.TB.Known {
		ev = ev.Str("tablebase", d.TB.Result())
	}
	ev.Msg("draw offered")
	if !accept {
		g.backgroundLog(log, "answer draw offer", func(ctx context.Context) error { return g.c.Draw(ctx, g.id, false) })
	}
	return accept
}

// acceptDraw is acceptDrawRule in the current position, answered at once:
// the tablebase result of our last move counts only if it is for this
// position (it never is once the opponent has moved: then the score rule
// decides).
func (g *gameWorker) acceptDraw() bool {
	ply := len(g.moves)
	tb, at := g.tb()
	if at != ply {
		tb = TBResult{}
	}
	return acceptDrawRule(g.s.Game, g.b.CannotWin(g.white), tb, g.eval(), fullMoveAt(g.info.InitialFEN, ply))
}

// acceptDrawRule is game.draw's accept rule: whether to accept a draw
// offer when we cannot win on material (cannotWin), with tb the tablebase
// result of the position of the offer (unknown if none), e our last
// evaluation (nil if none) and fullMove the position's full move number.
func acceptDrawRule(gs GameSettings, cannotWin bool, tb TBResult, e *Choice, fullMove int) bool {
	if !gs.AcceptDraws {
		return false
	}
	if cannotWin {
		return true
	}
	if gs.DrawTablebase && tb.Known {
		// The tablebase knows: a draw or a loss for us is accepted at
		// once, a win (cursed ones too) never.
		return tb.WDL <= 0
	}
	if fullMove < gs.DrawAfterMove || e == nil || e.Mate != 0 {
		return false
	}
	return abs(e.ScoreCP) <= gs.DrawWithinCP
}

// tb is the tablebase result of our last move (unknown if none) and the
// ply of the position it is for (-1 if none).
func (g *gameWorker) tb() (TBResult, int) {
	g.evalMu.Lock()
	defer g.evalMu.Unlock()
	return g.lastTB, g.lastTBPly
}

// eval is the last evaluation of the player (nil if none).
func (g *gameWorker) eval() *Choice {
	g.evalMu.Lock()
	defer g.evalMu.Unlock()
	return g.lastEval
}

func (g *gameWorker) onOpponentGone(ctx context.Context, og *lichess.OpponentGone) {
	if g.claimTimer != nil {
		g.claimTimer.Stop()
		g.claimTimer, g.claimC = nil, nil
	}
	if !og.Gone || og.ClaimWinInSeconds == nil || g.s.Game.OnOpponentGone == OpponentGoneWait {
		return
	}
	wait := time.Duration(*og.ClaimWinInSeconds) * time.Second
	g.l().Info().Dur("claim_in", wait).Msg("opponent gone")
	g.claimTimer = time.NewTimer(wait)
	g.claimC = g.claimTimer.C
}

// claim claims the win (or a draw when we cannot win). A refused claim is
// retried on the next opponentGone event (Lichess sends one with
// claimWinInSeconds 0 when the claim becomes possible).
func (g *gameWorker) claim(ctx context.Context) {
	if g.s.Game.OnOpponentGone == OpponentGoneClaimDraw || g.b.CannotWin(g.white) {
		g.l().Info().Msg("opponent gone; claiming a draw")
		g.background(ctx, "claim draw", func(ctx context.Context) error { return g.c.ClaimDraw(ctx, g.id) })
		return
	}
	g.l().Info().Msg("opponent gone; claiming victory")
	g.background(ctx, "claim victory", func(ctx context.Context) error { return g.c.ClaimVictory(ctx, g.id) })
}

// background runs a request in its own goroutine; a failure (or a panic)
// is only logged.
func (g *gameWorker) background(ctx context.Context, what string, f func(context.Context) error) {
	g.backgroundLog(*g.l(), what, f)
}

// backgroundLog is background with the logger log (for the mover
// goroutine, which must not read the worker's moves).
func (g *gameWorker) backgroundLog(log zerolog.Logger, what string, f func(context.Context) error) {
	ctx := g.bgctx // the game may end first (e.g. a draw accepted): still send it
	goRecovering(log, what, func() {
		if h := g.bot.hooks; h != nil && h.background != nil {
			h.background(g.opponent, what)
		}
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := f(ctx); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg(what + " failed")
		}
	})
}
