package client

import (
	"context"
	"time"

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

// answerOffers answers draw and takeback offers of the opponent, once per ply.
func (g *gameWorker) answerOffers(ctx context.Context, st lichess.GameState) {
	ply := len(g.moves)
	if g.moverPly >= 0 && g.moverPly < ply {
		// Our move is played but its result (the evaluation) is not in
		// yet: answer from moverResult.
		return
	}
	oppDraw, oppTakeback := st.WDraw, st.WTakeback
	if g.white {
		oppDraw, oppTakeback = st.BDraw, st.BTakeback
	}
	if oppDraw && g.drawAnswered != ply {
		g.drawAnswered = ply
		accept := g.acceptDraw()
		ev := g.l().Info().Bool("accept", accept)
		if tb := g.tb(); g.s.Game.DrawTablebase && tb.Known {
			ev = ev.Str("tablebase", tb.Result())
		}
		ev.Msg("draw offered")
		g.background(ctx, "answer draw offer", func(ctx context.Context) error { return g.c.Draw(ctx, g.id, accept) })
	}
	if oppTakeback && g.takebackAnswers != ply {
		g.takebackAnswers = ply
		accept := g.s.Game.AcceptTakebacks
		g.l().Info().Bool("accept", accept).Msg("takeback proposed")
		g.background(ctx, "answer takeback", func(ctx context.Context) error { return g.c.Takeback(ctx, g.id, accept) })
	}
}

func (g *gameWorker) acceptDraw() bool {
	gs := g.s.Game
	if !gs.AcceptDraws {
		return false
	}
	if g.b.CannotWin(g.white) {
		return true
	}
	if tb := g.tb(); gs.DrawTablebase && tb.Known {
		// The tablebase knows: a draw or a loss for us is accepted at
		// once, a win (cursed ones too) never.
		return tb.WDL <= 0
	}
	e := g.eval()
	fullMove := len(g.moves)/2 + 1
	if fullMove < gs.DrawAfterMove || e == nil || e.Mate != 0 {
		return false
	}
	return abs(e.ScoreCP) <= gs.DrawWithinCP
}

// tb is the tablebase result of our last move (unknown if none).
func (g *gameWorker) tb() TBResult {
	g.evalMu.Lock()
	defer g.evalMu.Unlock()
	return g.lastTB
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
	log := g.l()
	ctx = g.bgctx // the game may end first (e.g. a draw accepted): still send it
	goRecovering(*log, what, func() {
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
