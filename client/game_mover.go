package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

type moveResult struct {
	ply    int
	move   string
	choice Choice
	err    error
}

// maybeMove starts the mover when it is our turn and this ply has no move
// posted or under way.
func (g *gameWorker) maybeMove(ctx context.Context) {
	ply := len(g.moves)
	if !g.ourTurn() || g.finished || g.postedPly == ply || g.moverPly >= 0 {
		return
	}
	if g.failed[ply] >= 2 {
		return
	}
	mctx, cancel := context.WithCancel(ctx)
	g.moverCancel, g.moverPly = cancel, ply
	job := moveJob{ply: ply, moves: slices.Clone(g.canon), state: g.state, receivedAt: g.receivedAt,
		legal: g.b.LegalMoves(), failedBefore: g.failed[ply] > 0}
	go func() { g.moverDone <- g.think(mctx, job) }()
}

type moveJob struct {
	ply          int
	moves        []string
	state        lichess.GameState
	receivedAt   time.Time
	legal        []string
	failedBefore bool
}

func (g *gameWorker) moverResult(ctx context.Context, r moveResult) {
	g.moverCancel()
	g.moverCancel, g.moverPly = nil, -1
	switch {
	case r.err == nil:
		g.postedPly = r.ply
		g.choices[r.ply] = r.choice
	case errors.Is(r.err, context.Canceled):
	default:
		g.failed[r.ply]++
		g.l().Error().Err(r.err).Int("move_ply", r.ply).Msg("move not played")
	}
	if !g.finished {
		g.answerOffers(ctx, g.state)
		g.maybeMove(ctx)
	}
}

// think chooses and posts one move. It runs in the mover goroutine.
func (g *gameWorker) think(ctx context.Context, j moveJob) moveResult {
	res := moveResult{ply: j.ply}
	log := g.log.With().Int("ply", j.ply).Logger()
	var d Choice
	var err error
	switch {
	case len(j.legal) == 1:
		d = Choice{Move: j.legal[0]}
		log.Debug().Str("move", d.Move).Msg("only move")
	default:
		d, err = g.askPlayer(ctx, j, log)
		if ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		if err == nil {
			if d.Resign {
				res.choice = d
				res.err = g.c.Resign(ctx, g.id)
				if res.err == nil {
					log.Info().Msg("resigned")
				}
				return res
			}
			var canon string
			if canon, err = g.canonicalMove(j, d.Move); err == nil {
				d.Move = canon
			} else {
				err = fmt.Errorf("player proposed an illegal move: %w", err)
			}
		}
		if err != nil {
			fb := fallbackMove(j.legal, "")
			if fb == "" {
				res.err = fmt.Errorf("no move to play: %w", err)
				return res
			}
			log.Warn().Err(err).Str("move", fb).Msg("playing a fallback move")
			d = Choice{Move: fb}
		}
	}
	if d.HasScore {
		dd := d
		g.evalMu.Lock()
		g.lastEval = &dd
		g.evalMu.Unlock()
	}
	if g.shouldResign(d) {
		log.Info().Int("cp", d.ScoreCP).Int("mate", d.Mate).Msg("lost position: resigning")
		res.choice = d
		res.err = g.c.Resign(ctx, g.id)
		return res
	}
	if j.failedBefore {
		// The previous post of this ply was refused: try another legal move.
		if fb := fallbackMove(j.legal, d.Move); fb != "" {
			d = Choice{Move: fb}
		}
	}
	res.move, res.choice = d.Move, d
	res.err = g.post(ctx, d, log)
	if res.err == nil {
		g.afterOurMove(j, d.Move, log)
	}
	return res
}

// afterOurMove tells the player the position after our posted move and
// lets it ponder there. It runs in the mover goroutine, which owns the
// player; the player outlives the mover, so both get the game's context.
func (g *gameWorker) afterOurMove(j moveJob, move string, log zerolog.Logger) {
	if g.player == nil {
		return
	}
	if err := g.player.Position(g.gctx, append(slices.Clone(j.moves), move)); err != nil {
		log.Debug().Err(err).Msg("player: position after our move")
		return
	}
	if err := g.player.Ponder(g.gctx); err != nil {
		log.Debug().Err(err).Msg("ponder not started")
	}
}

// canonicalMove returns the canonical UCI form of move if it is legal in
// the job's position. A move found in the job's legal moves is taken as it
// is; only other spellings (castling as king-takes-rook, a board that cannot
// list moves) replay the game, which costs milliseconds late in a game and
// must not delay every move.
func (g *gameWorker) canonicalMove(j moveJob, move string) (string, error) {
	if m := strings.ToLower(strings.TrimSpace(move)); slices.Contains(j.legal, m) {
		return m, nil
	}
	b, err := newBoard(g.info.Variant, g.info.InitialFEN, j.moves)
	if err != nil {
		return "", fmt.Errorf("replay the game: %w", err)
	}
	return b.Legal(move)
}

// shouldResign applies the resign rule to our latest choice. It runs in
// the mover goroutine (movers run one after another, so badMoves needs no
// lock).
func (g *gameWorker) shouldResign(d Choice) bool {
	gs := g.s.Game
	if !gs.Resign || !d.HasScore {
		return false
	}
	if d.Mate < 0 || (d.Mate == 0 && d.ScoreCP <= -gs.ResignBelowCP) {
		g.badMoves++
	} else {
		g.badMoves = 0
	}
	return g.badMoves >= gs.ResignForMoves
}

// fallbackMove returns a legal move other than not ("" if none).
func fallbackMove(legal []string, not string) string {
	for _, m := range legal {
		if m != not {
			return m
		}
	}
	return ""
}

// askPlayer gets a choice within the move's clock situation, restarting a
// failed player once through the factory.
func (g *gameWorker) askPlayer(ctx context.Context, j moveJob, log zerolog.Logger) (Choice, error) {
	clock := moveClock(g.s.Clock, j.state, g.white, j.ply >= 2, j.receivedAt, g.bot.latency.Value())
	deadline := clock.Deadline
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if time.Until(deadline) <= 0 {
			break
		}
		if g.player == nil {
			p, err := g.newPlayer(ctx)
			if err != nil {
				lastErr = err
				break
			}
			g.player = p
		}
		d, err := callPlayer(ctx, g.player, j.moves, clock)
		if err == nil {
			log.Debug().Str("move", d.Move).Int("depth", d.Depth).Int("cp", d.ScoreCP).Dur("used", d.Duration).
				Dur("left", clock.Left(time.Now())).Msg("player decided")
			return d, nil
		}
		if ctx.Err() != nil {
			return Choice{}, ctx.Err()
		}
		lastErr = err
		log.Warn().Err(err).Msg("player failed; restarting it")
		p := g.player
		g.player = nil
		go func() { _ = p.Close() }() // may block on a hung engine
	}
	if lastErr == nil {
		lastErr = errors.New("no time left to think")
	}
	return Choice{}, lastErr
}

func (g *gameWorker) newPlayer(ctx context.Context) (Player, error) {
	if g.bot.factory == nil {
		return nil, errors.New("no player configured")
	}
	p, err := g.bot.factory(ctx)
	if err != nil {
		return nil, fmt.Errorf("start player: %w", err)
	}
	if err := p.NewGame(ctx, g.info); err != nil {
		go func() { _ = p.Close() }()
		return nil, fmt.Errorf("start player: new game: %w", err)
	}
	return p, nil
}

// callPlayer sets the position and thinks, giving up at c.Deadline even if
// the player does not return.
func callPlayer(ctx context.Context, p Player, moves []string, c MoveClock) (Choice, error) {
	tctx, cancel := context.WithDeadline(ctx, c.Deadline)
	defer cancel()
	type out struct {
		d   Choice
		err error
	}
	ch := make(chan out, 1)
	go func() {
		if err := p.Position(tctx, moves); err != nil {
			ch <- out{err: fmt.Errorf("set position: %w", err)}
			return
		}
		d, err := p.Think(tctx, c)
		if err != nil {
			err = fmt.Errorf("think: %w", err)
		} else if d.Move == "" {
			err = errors.New("think: no move")
		}
		ch <- out{d, err}
	}()
	select {
	case o := <-ch:
		return o.d, o.err
	case <-tctx.Done():
		if ctx.Err() != nil {
			return Choice{}, ctx.Err()
		}
		return Choice{}, errors.New("player did not answer before the deadline")
	}
}

// post sends the move, waiting out rate-limit cool-downs of this game, and
// measures the round trip.
func (g *gameWorker) post(ctx context.Context, d Choice, log zerolog.Logger) error {
	for tries := 0; ; tries++ {
		t0 := time.Now()
		err := g.c.Move(ctx, g.id, d.Move, d.OfferDraw)
		if err == nil {
			rtt := time.Since(t0)
			g.bot.latency.Observe(rtt)
			log.Info().Str("move", d.Move).Dur("rtt", rtt).Msg("move played")
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case lichess.IsRateLimited(err):
			log.Warn().Err(err).Msg("move rate limited; waiting for the cool-down")
			continue // the client waits out the cool-down of this game
		case lichess.StatusCode(err) == 0 && tries < 3:
			// Network trouble: the move may or may not have arrived. Lichess
			// refuses a second move for the same ply, so retrying is safe.
			log.Warn().Err(err).Msg("move post failed; retrying")
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		return err
	}
}
