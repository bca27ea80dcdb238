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
	"github.com/ponderosa-chess/ponderosa/internal/panics"
	"github.com/ponderosa-chess/ponderosa/uci"
)

type moveResult struct {
	ply    int
	move   string
	choice Choice
	err    error
	posted bool       // the move (or resignation) reached Lichess
	offers drawOffers // the draw-offer rule's state after the move (kept once it is posted)
	// drawAnswered: the mover answered the opponent's draw offer at this
	// ply (declined it, or accepted it by a posted move offering a draw).
	drawAnswered bool
}

// maybeMove starts the mover when it is our turn and this ply has no move
// posted or under way.
func (g *gameWorker) maybeMove(ctx context.Context) {
	ply := len(g.moves)
	if !g.ourTurn() || g.finished || g.postedPly == ply || g.moverPly >= 0 {
		return
	}
	if g.failed[ply]+g.moverPanics[ply] >= 2 {
		return
	}
	mctx, cancel := context.WithCancel(ctx)
	g.moverCancel, g.moverPly = cancel, ply
	job := moveJob{ply: ply, moves: slices.Clone(g.canon), state: g.state, receivedAt: g.receivedAt,
		legal: g.b.LegalMoves(), failedBefore: g.failed[ply] > 0, fallback: g.moverPanics[ply] > 0, offers: g.offers}
	if KnowsRules(g.info.Variant) {
		job.pieces = countPieces(g.b.FEN())
	}
	go func() { g.moverDone <- g.moveRecovering(mctx, job) }()
}

type moveJob struct {
	ply          int
	moves        []string
	state        lichess.GameState
	receivedAt   time.Time
	legal        []string
	failedBefore bool
	fallback     bool       // a mover of this ply panicked: play a fallback move without the player
	offers       drawOffers // the draw-offer rule's state before this move
	pieces       int        // pieces on the board (0: unknown, a variant without rules here)
}

func (g *gameWorker) moverResult(ctx context.Context, r moveResult) {
	g.moverCancel()
	g.moverCancel, g.moverPly = nil, -1
	switch {
	case r.err == nil:
		g.postedPly = r.ply
		g.choices[r.ply] = r.choice
		g.offers = r.offers
	case errors.Is(r.err, context.Canceled):
	case panics.Is(r.err):
		g.moverPanics[r.ply]++ // logged by the mover; the next mover plays a fallback move
	case errors.Is(r.err, uci.ErrNoMove):
		// The variant's engine sees no move (logged by the mover): a
		// fresh one would not either. No more tries at this ply; Lichess
		// ends the game.
		g.failed[r.ply] = 2
	default:
		g.failed[r.ply]++
		g.l().Error().Err(r.err).Int("move_ply", r.ply).Msg("move not played")
	}
	if r.drawAnswered {
		g.drawAnswered = r.ply
	}
	if !g.finished {
		g.answerOffers(ctx, g.state)
		g.maybeMove(ctx)
	}
}

// think chooses and posts one move into res. It runs in the mover
// goroutine (moveRecovering).
func (g *gameWorker) think(ctx context.Context, j moveJob, res *moveResult) {
	log := g.log.With().Int("ply", j.ply).Logger()
	var d Choice
	var err error
	switch {
	case j.fallback && j.legal == nil:
		if d, err = g.quickMove(ctx, j, errors.New("a mover of this ply panicked"), log); err != nil {
			res.err = g.noMove(ctx, err, log)
			return
		}
	case j.fallback:
		d = Choice{Move: fallbackMove(j.legal, ""), Source: "fallback"}
		log.Warn().Str("move", d.Move).Msg("playing a fallback move after a panic")
	case len(j.legal) == 1:
		d = Choice{Move: j.legal[0], Source: "forced"}
		log.Debug().Str("move", d.Move).Msg("only move")
	default:
		if j.failedBefore && j.legal == nil {
			// The last try at this ply failed (Lichess refused the move,
			// or no move came), and there is no list to pick another
			// from: ask a fresh engine, in case this one lost track of
			// the game.
			log.Warn().Msg("the last try at this ply failed and this variant has no legal-move list here: asking a fresh engine")
			g.dropPlayer(log)
		}
		d, err = g.askPlayer(ctx, j, log)
		if ctx.Err() != nil {
			res.err = ctx.Err()
			return
		}
		if err == nil {
			if d.Resign {
				res.choice = d
				res.err = g.c.Resign(ctx, g.id)
				if res.err == nil {
					res.posted = true
					log.Info().Msg("resigned")
				}
				return
			}
			var canon string
			if canon, err = g.canonicalMove(j, d.Move); err == nil {
				d.Move = canon
			} else {
				err = fmt.Errorf("player proposed an illegal move: %w", err)
			}
		}
		switch {
		case err == nil:
		case j.legal == nil && errors.Is(err, uci.ErrNoMove):
			// The engine sees no move: by its rules the game is over.
			// Lichess, which knows them, ends it; another engine would
			// say the same, so this ply is not tried again
			// (moverResult).
			log.Warn().Err(err).Msg("the engine has no move in this variant position: the game should be over; waiting for Lichess to end it")
			res.err = fmt.Errorf("no move to play: %w", err)
			return
		case j.legal == nil:
			if d, err = g.quickMove(ctx, j, err, log); err != nil {
				res.err = g.noMove(ctx, err, log)
				return
			}
		default:
			fb := fallbackMove(j.legal, "")
			if fb == "" {
				res.err = fmt.Errorf("no move to play: %w", err)
				return
			}
			log.Warn().Err(err).Str("move", fb).Msg("playing a fallback move")
			d = Choice{Move: fb, Source: "fallback"}
		}
	}
	g.evalMu.Lock()
	if d.HasScore {
		dd := d
		g.lastEval = &dd
	}
	g.lastTB, g.lastTBPly = d.TB, j.ply
	their := g.their
	g.evalMu.Unlock()
	if g.shouldResign(d) {
		ev := log.Info()
		if d.HasScore {
			ev = ev.Int("cp", d.ScoreCP).Int("mate", d.Mate)
		}
		if d.TB.Known {
			ev = ev.Str("tablebase", d.TB.Result())
		}
		ev.Msg("lost position: resigning")
		res.choice = d
		res.err = g.c.Resign(ctx, g.id)
		res.posted = res.err == nil
		return
	}
	facts := g.offerFacts(j, time.Now())
	accepting := false
	if their.ply == j.ply {
		// The opponent's draw offer is pending at this move.
		if their.deferred {
			accepting = g.answerWithMove(their, d, facts, log)
			res.drawAnswered = !accepting // declined; an acceptance once posted
		}
		// An offer with our move would accept theirs: not when refused.
		facts.refused = !accepting
	}
	var offer bool
	var why string
	res.offers, offer, why = offerDraw(g.s.Game, j.offers, d, facts)
	switch {
	case accepting:
		offer = true
		log.Info().Msg("accepting the draw offer with the move (offeringDraw)")
	case offer:
		log.Info().Str("why", why).Msg("offering a draw with the move")
	case why != "":
		log.Debug().Str("why", why).Msg("no draw offer")
	}
	if j.failedBefore {
		// The previous post of this ply was refused: try another legal move.
		if fb := fallbackMove(j.legal, d.Move); fb != "" {
			d = Choice{Move: fb, Source: "fallback"}
		}
	}
	d.OfferDraw = offer
	res.move, res.choice = d.Move, d
	if h := g.bot.hooks; h != nil && h.beforePost != nil {
		h.beforePost(g.opponent, j.ply)
	}
	res.err = g.post(ctx, d, log)
	if res.err == nil {
		res.posted = true
		res.drawAnswered = res.drawAnswered || accepting
		g.afterOurMove(j, d.Move, log)
	}
}

// afterOurMove tells the player the position after our posted move and
// lets it ponder there. It runs in the mover goroutine, which owns the
// player; the player outlives the mover, so both get the game's context.
func (g *gameWorker) afterOurMove(j moveJob, move string, log zerolog.Logger) {
	p := g.player
	if p == nil {
		return
	}
	moves := append(slices.Clone(j.moves), move)
	if err := playerCall(log, "position", func() error { return p.Position(g.gctx, moves) }); err != nil {
		log.Debug().Err(err).Msg("player: position after our move")
		if isPanic(err) {
			g.dropPlayer(log)
		}
		return
	}
	if g.corr && !g.s.Correspondence.Ponder {
		return // correspondence.ponder is off
	}
	if err := playerCall(log, "ponder", func() error { return p.Ponder(g.gctx) }); err != nil {
		log.Debug().Err(err).Msg("ponder not started")
		if isPanic(err) {
			g.dropPlayer(log)
		}
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

// Quick moves: when the engine of a variant game without rules here
// (KnowsRules) gives no usable move, there is no legal-move list to take a
// fallback move from, so a fresh engine process is asked for a move with
// quickMoveTime to think, and waited for quickMoveWait at most after it has
// started.
const (
	quickMoveTime = 50 * time.Millisecond
	quickMoveWait = 2 * time.Second
)

// postGrace is how long a move post under way may run on once its game
// worker stops (see post).
const postGrace = 5 * time.Second

// quickReserve is the time kept back from the engine of a game without
// rules here, when it has left time until the deadline: the engine is
// given up that long before the deadline, so that a fresh engine (its
// start, its handshake and its quick move) can still answer in time.
func quickReserve(left time.Duration) time.Duration {
	return min(time.Second, left/3)
}

// quickMove asks a fresh player (a new engine process: the one that failed
// is closed) for a quick move in the job's position, and keeps it for the
// game's next moves. why is the failure that led here; the log says it.
func (g *gameWorker) quickMove(ctx context.Context, j moveJob, why error, log zerolog.Logger) (Choice, error) {
	log.Warn().Err(why).Msg("no usable move from the engine, and no legal-move list in this variant: asking a fresh engine for a quick move")
	g.dropPlayer(log)
	p, err := g.newPlayer(ctx)
	if err != nil {
		return Choice{}, fmt.Errorf("quick move: %w", err)
	}
	g.player = p
	// Never past the move's deadline, which askPlayer brought forward by
	// quickReserve for this.
	deadline := time.Now().Add(quickMoveWait)
	if d := g.moveClock(j).Deadline; d.Before(deadline) {
		deadline = d
	}
	c := MoveClock{MoveTime: quickMoveTime, White: g.white, Deadline: deadline}
	d, err := callPlayer(ctx, p, j.moves, c, log)
	if err == nil {
		var canon string
		if canon, err = g.canonicalMove(j, d.Move); err == nil {
			log.Warn().Str("move", canon).Msg("playing the fresh engine's quick move")
			return Choice{Move: canon, ScoreCP: d.ScoreCP, Mate: d.Mate, HasScore: d.HasScore, Depth: d.Depth, PV: d.PV, Nodes: d.Nodes, Duration: d.Duration, Source: "quick"}, nil
		}
	}
	g.dropPlayer(log) // the next move of this ply starts yet another
	return Choice{}, fmt.Errorf("quick move: %w", err)
}

// noMove logs that no move could be found for this ply, with why, and
// returns the error for the mover's result. The game goes on: the worker
// tries once more at its next event (moverResult), and otherwise waits for
// Lichess (the opponent may flag, resign or move on) rather than resign.
func (g *gameWorker) noMove(ctx context.Context, why error, log zerolog.Logger) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	log.Error().Err(why).Msg("no move for this ply: the fresh engine gave none either; not resigning, the game goes on")
	return fmt.Errorf("no move to play: %w", why)
}

// shouldResign applies the resign rule to our latest choice: a tablebase
// loss within the fifty-move rule with ResignTablebase, or the evaluation.
// It runs in the mover goroutine (movers run one after another, so
// badMoves needs no lock).
func (g *gameWorker) shouldResign(d Choice) bool {
	gs := g.s.Game
	if gs.ResignTablebase && d.TB.Known && d.TB.WDL <= -2 {
		return true
	}
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

// logChoice adds what the player said of its move to a log event: the
// score from our side (cp, or mate in moves), the depth, the principal
// variation, the nodes and the time used. A move without a score (the only
// legal move, a fallback) gets none of them. A move no search chose says
// where it came from (source: search, ponder, tree, book, tablebase,
// online-tablebase, …),
// and a tablebase's result for us comes as tablebase (win, cursed-win,
// draw, blessed-loss, loss).
func logChoice(ev *zerolog.Event, d Choice) *zerolog.Event {
	if d.Source != "" {
		ev = ev.Str("source", d.Source)
		if d.Note != "" {
			ev = ev.Str("note", d.Note)
		}
	}
	if d.TB.Known {
		ev = ev.Str("tablebase", d.TB.Result())
	}
	if !d.HasScore {
		return ev
	}
	if d.Mate != 0 {
		ev = ev.Int("mate", d.Mate)
	} else {
		ev = ev.Int("cp", d.ScoreCP)
	}
	ev = ev.Int("depth", d.Depth).Str("pv", strings.Join(d.PV, " "))
	if d.Nodes > 0 {
		ev = ev.Uint64("nodes", d.Nodes)
	}
	if d.Duration > 0 {
		ev = ev.Dur("used", d.Duration)
	}
	return ev
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
	clock := g.moveClock(j)
	if g.corr {
		clock = g.corrClock(clock, time.Now())
	}
	if j.legal == nil {
		// A game without rules here has no legal move to fall back on:
		// keep time for a fresh engine's quick move (quickMove).
		clock.Deadline = clock.Deadline.Add(-quickReserve(clock.Left(time.Now())))
	}
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
		d, err := callPlayer(ctx, g.player, j.moves, clock, log)
		if err == nil {
			log.Debug().Str("move", d.Move).Int("depth", d.Depth).Int("cp", d.ScoreCP).Dur("used", d.Duration).
				Dur("left", clock.Left(time.Now())).Msg("player decided")
			return d, nil
		}
		if ctx.Err() != nil {
			return Choice{}, ctx.Err()
		}
		if errors.Is(err, uci.ErrNoMove) {
			// The engine sees no legal move: a fresh one would not either.
			return Choice{}, err
		}
		if isPanic(err) {
			// Logged with its stack where it was recovered. No retry: this
			// move comes from the fallback path. A player that panicked is
			// dropped; one whose search panicked (ponder.SearchPanic) has
			// already started afresh and is kept.
			if panics.Is(err) {
				g.dropPlayer(log)
			}
			return Choice{}, err
		}
		lastErr = err
		log.Warn().Err(err).Msg("player failed; restarting it")
		g.dropPlayer(log)
	}
	if lastErr == nil {
		lastErr = errors.New("no time left to think")
	}
	return Choice{}, lastErr
}

// moveClock is the clock situation of j's move, with its hard deadline.
func (g *gameWorker) moveClock(j moveJob) MoveClock {
	return moveClock(g.s.Clock, j.state, g.white, j.ply >= 2, j.receivedAt, g.bot.latency.Value())
}

func (g *gameWorker) newPlayer(ctx context.Context) (Player, error) {
	if g.bot.factory == nil {
		return nil, errors.New("no player configured")
	}
	p, err := g.bot.factory(ctx)
	if err != nil {
		return nil, fmt.Errorf("start player: %w", err)
	}
	if err := playerCall(g.log, "new game", func() error { return p.NewGame(ctx, g.info) }); err != nil {
		go closePlayer(p, g.log)
		return nil, fmt.Errorf("start player: new game: %w", err)
	}
	g.viewPlayer(p)
	return p, nil
}

// callPlayer sets the position and thinks, giving up at c.Deadline even if
// the player does not return. A panic in the player is logged with its
// stack on log and returned as an error (see isPanic).
func callPlayer(ctx context.Context, p Player, moves []string, c MoveClock, log zerolog.Logger) (Choice, error) {
	tctx, cancel := context.WithDeadline(ctx, c.Deadline)
	defer cancel()
	type out struct {
		d   Choice
		err error
	}
	ch := make(chan out, 1)
	go func() {
		defer panics.Recover(func(e *panics.Error) {
			panics.Log(log, e, "player panicked")
			ch <- out{err: fmt.Errorf("player: %w", e)}
		})
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
// measures the round trip. A post under way when ctx ends (the bot
// stops, or the worker) gets postGrace more to finish: a request already
// sent may reach Lichess all the same, and a bot restarted at once would
// otherwise see the ply still open and post it a second time (refused).
func (g *gameWorker) post(ctx context.Context, d Choice, log zerolog.Logger) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(postGrace, cancel)
		context.AfterFunc(pctx, func() { t.Stop() })
	})
	defer stop()
	for tries := 0; ; tries++ {
		t0 := time.Now()
		err := g.c.Move(pctx, g.id, d.Move, d.OfferDraw)
		if err == nil {
			rtt := time.Since(t0)
			g.bot.latency.Observe(rtt)
			ev := log.Info().Str("move", d.Move).Dur("rtt", rtt)
			if d.OfferDraw {
				ev = ev.Bool("offering_draw", true)
			}
			logChoice(ev, d).Msg("move played")
			g.bot.obs.MovePlayed(g.gameFacts(), d)
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
