package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// gameWorker plays one game: it follows the game stream, keeps the
// position, asks the Player for our moves within the clock budget, posts
// them (once per ply), and handles draw and takeback offers, an absent
// opponent, the chat, and the record at the end.
//
// One goroutine (run) owns all fields; the mover goroutine (think and post
// one move) owns the Player while it runs, and run touches the Player only
// when no mover runs.
type gameWorker struct {
	bot  *Bot
	c    *lichess.Client
	id   string
	s    Settings
	me   string
	log  zerolog.Logger
	done chan struct{} // closed when run returns

	player Player          // owned by the mover while one runs
	gctx   context.Context // the game's context (for Ponder, which outlives a mover)
	bgctx  context.Context // the bot's context: requests that may outlive the game (goodbye, answers)

	full       *lichess.GameFull
	info       GameInfo
	white      bool
	moves      []string // as Lichess sends them
	canon      []string // canonical UCI, for the Player
	b          board
	state      lichess.GameState
	receivedAt time.Time
	finished   bool

	moverCancel context.CancelFunc
	moverPly    int // ply the mover works on; -1: none
	moverDone   chan moveResult
	postedPly   int              // ply of the last move posted; -1: none
	failed      map[int]int      // ply → failed posts
	decisions   map[int]Decision // by ply, for the record

	badMoves int // our moves in a row with a lost evaluation (mover-owned)

	evalMu   sync.Mutex
	lastEval *Decision // set by the mover before it posts; for !eval and draw offers

	greeted         bool
	drawAnswered    int // ply at which the last draw offer was answered
	takebackAnswers int // ply at which the last takeback offer was answered
	abortTimer      *time.Timer
	abortC          <-chan time.Time
	claimTimer      *time.Timer
	claimC          <-chan time.Time
}

type moveResult struct {
	ply      int
	move     string
	decision Decision
	err      error
}

func newGameWorker(b *Bot, id string, s Settings, opponent string) *gameWorker {
	return &gameWorker{
		bot:             b,
		c:               b.c,
		id:              id,
		s:               s,
		me:              b.me.ID,
		log:             b.log.With().Str("game", id).Str("opponent", opponent).Logger(),
		done:            make(chan struct{}),
		moverPly:        -1,
		moverDone:       make(chan moveResult, 1),
		postedPly:       -1,
		failed:          map[int]int{},
		decisions:       map[int]Decision{},
		drawAnswered:    -1,
		takebackAnswers: -1,
	}
}

// l is the game logger with the current ply.
func (g *gameWorker) l() *zerolog.Logger {
	l := g.log.With().Int("ply", len(g.moves)).Logger()
	return &l
}

// streamMsg is what the stream goroutine hands to run.
type streamMsg struct {
	ev  lichess.GameEvent
	end error // non-nil: the stream is gone for good (game not found)
}

// run plays the game until it ends or ctx ends.
func (g *gameWorker) run(ctx context.Context) {
	defer close(g.done)
	g.bgctx = ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g.gctx = ctx
	msgs := make(chan streamMsg, 64)
	go g.streamLoop(ctx, msgs)
	g.l().Info().Msg("game worker started")
	defer g.cleanup()
	for !g.finished {
		select {
		case <-ctx.Done():
			g.l().Info().Msg("game worker stopped before the end of the game")
			return
		case m := <-msgs:
			if m.end != nil {
				g.l().Warn().Err(m.end).Msg("game stream gone; leaving the game")
				return
			}
			g.handle(ctx, m.ev)
		case r := <-g.moverDone:
			g.moverResult(ctx, r)
		case <-g.abortC:
			g.abortC = nil
			g.abortNow(ctx)
		case <-g.claimC:
			g.claimC = nil
			g.claim(ctx)
		}
	}
}

// streamLoop keeps the game stream open while the game runs, reopening it
// with backoff when it drops.
func (g *gameWorker) streamLoop(ctx context.Context, msgs chan<- streamMsg) {
	bo := backoff{min: g.s.ReconnectMin, max: g.s.ReconnectMax}
	for ctx.Err() == nil {
		got := false
		err := g.c.StreamGame(ctx, g.id, func(ev lichess.GameEvent) error {
			got = true
			select {
			case msgs <- streamMsg{ev: ev}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if ctx.Err() != nil {
			return
		}
		if code := lichess.StatusCode(err); code == http.StatusNotFound || code == http.StatusBadRequest {
			select {
			case msgs <- streamMsg{end: err}:
			case <-ctx.Done():
			}
			return
		}
		if got {
			bo.reset()
		}
		d := bo.next()
		ev := g.log.Info()
		if errors.Is(err, lichess.ErrStreamEnded) {
			ev = g.log.Debug() // usually the end of the game
		}
		ev.Err(err).Dur("retry_in", d).Msg("game stream closed; reconnecting")
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
	}
}

func (g *gameWorker) handle(ctx context.Context, ev lichess.GameEvent) {
	switch ev.Type {
	case lichess.GameEventFull:
		g.onFull(ctx, ev.Full)
	case lichess.GameEventState:
		if g.full == nil {
			g.l().Debug().Msg("gameState before gameFull; ignored")
			return
		}
		g.onState(ctx, *ev.State)
	case lichess.GameEventChatLine:
		g.onChat(ctx, ev.Chat)
	case lichess.GameEventOpponentGone:
		g.onOpponentGone(ctx, ev.OpponentGone)
	}
}

func (g *gameWorker) onFull(ctx context.Context, f *lichess.GameFull) {
	first := g.full == nil
	g.full = f
	if first {
		g.white = strings.EqualFold(f.White.ID, g.me)
		opp := f.Black
		if !g.white {
			opp = f.White
		}
		fen := f.InitialFEN
		if fen == "startpos" {
			fen = ""
		}
		g.info = GameInfo{ID: g.id, Variant: f.Variant.Key, Chess960: f.Variant.Key == "chess960",
			InitialFEN: fen, White: g.white, Opponent: opp.Name, Rated: f.Rated}
		if f.Clock != nil {
			g.info.Initial = time.Duration(f.Clock.Initial) * time.Millisecond
			g.info.Increment = time.Duration(f.Clock.Increment) * time.Millisecond
		}
		b, err := newBoard(f.Variant.Key, f.InitialFEN, nil)
		if err != nil {
			g.l().Error().Err(err).Msg("cannot follow this game; resigning")
			g.background(ctx, "resign", func(ctx context.Context) error { return g.c.Resign(ctx, g.id) })
			g.finished = true
			return
		}
		g.b = b
		g.moves, g.canon = nil, nil
	}
	g.onState(ctx, f.State)
	if first && !g.finished && !g.greeted && len(g.moves) < 2 {
		g.greeted = true
		g.sayBoth(ctx, g.s.Chat.Greeting)
	}
}

func (g *gameWorker) onState(ctx context.Context, st lichess.GameState) {
	g.state = st
	g.receivedAt = time.Now()
	if err := g.syncMoves(strings.Fields(st.Moves)); err != nil {
		g.l().Error().Err(err).Msg("cannot follow the moves")
		return
	}
	if st.Status != "" && st.Status != "created" && st.Status != "started" {
		g.finish(ctx, st)
		return
	}
	g.updateAbortTimer()
	g.answerOffers(ctx, st)
	g.maybeMove(ctx)
}

// syncMoves brings the board to the moves of a state: new moves are
// applied; anything else (a takeback) rebuilds it from the start.
//
// g.moves keeps the moves as Lichess writes them (to compare states);
// g.canon the same moves in the board's canonical UCI (castling e1g1 in
// standard chess, king takes rook in Chess960), as the Player gets them.
func (g *gameWorker) syncMoves(moves []string) error {
	if len(moves) >= len(g.moves) && slices.Equal(moves[:len(g.moves)], g.moves) {
		for _, m := range moves[len(g.moves):] {
			c, err := g.b.Legal(m)
			if err == nil {
				err = g.b.Play(m)
			}
			if err != nil {
				return fmt.Errorf("apply move %s: %w", m, err)
			}
			g.moves = append(g.moves, m)
			g.canon = append(g.canon, c)
		}
		return nil
	}
	b, err := newBoard(g.full.Variant.Key, g.full.InitialFEN, nil)
	if err != nil {
		return err
	}
	var canon []string
	for _, m := range moves {
		c, err := b.Legal(m)
		if err == nil {
			err = b.Play(m)
		}
		if err != nil {
			return fmt.Errorf("replay move %s: %w", m, err)
		}
		canon = append(canon, c)
	}
	g.l().Info().Int("from_ply", len(g.moves)).Int("to_ply", len(moves)).Msg("moves taken back")
	g.b, g.moves, g.canon = b, slices.Clone(moves), canon
	g.postedPly = -1
	if g.moverCancel != nil && g.moverPly != len(moves) {
		g.moverCancel()
	}
	return nil
}

func (g *gameWorker) ourTurn() bool { return g.b != nil && g.b.WhiteToMove() == g.white }

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
		g.decisions[r.ply] = r.decision
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
	var d Decision
	var err error
	switch {
	case len(j.legal) == 1:
		d = Decision{Move: j.legal[0]}
		log.Debug().Str("move", d.Move).Msg("only move")
	default:
		d, err = g.askPlayer(ctx, j, log)
		if ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		if err == nil {
			if d.Resign {
				res.decision = d
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
			d = Decision{Move: fb}
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
		res.decision = d
		res.err = g.c.Resign(ctx, g.id)
		return res
	}
	if j.failedBefore {
		// The previous post of this ply was refused: try another legal move.
		if fb := fallbackMove(j.legal, d.Move); fb != "" {
			d = Decision{Move: fb}
		}
	}
	res.move, res.decision = d.Move, d
	res.err = g.post(ctx, d, log)
	if res.err == nil && len(j.legal) != 1 && g.player != nil {
		if err := g.player.Ponder(g.gctx); err != nil {
			log.Debug().Err(err).Msg("ponder not started")
		}
	}
	return res
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

// shouldResign applies the resign rule to our latest decision. It runs in
// the mover goroutine (movers run one after another, so badMoves needs no
// lock).
func (g *gameWorker) shouldResign(d Decision) bool {
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

// askPlayer gets a decision within the clock budget, restarting a failed
// player once through the factory.
func (g *gameWorker) askPlayer(ctx context.Context, j moveJob, log zerolog.Logger) (Decision, error) {
	st := j.state
	our, inc := st.BTime, st.BInc
	if g.white {
		our, inc = st.WTime, st.WInc
	}
	in := clockInput{
		Our:        time.Duration(our) * time.Millisecond,
		OurInc:     time.Duration(inc) * time.Millisecond,
		Running:    j.ply >= 2,
		Expiration: st.Expiration,
		Latency:    g.bot.latency.Value(),
	}
	budget, hard := moveBudget(g.s.Clock, in)
	deadline := j.receivedAt.Add(hard)
	lim := Limits{
		WTime: time.Duration(st.WTime) * time.Millisecond, BTime: time.Duration(st.BTime) * time.Millisecond,
		WInc: time.Duration(st.WInc) * time.Millisecond, BInc: time.Duration(st.BInc) * time.Millisecond,
		White: g.white, Budget: budget, Deadline: deadline,
	}
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
		d, err := callPlayer(ctx, g.player, j.moves, lim)
		if err == nil {
			log.Debug().Str("move", d.Move).Int("depth", d.Depth).Int("cp", d.ScoreCP).Dur("budget", budget).Msg("player decided")
			return d, nil
		}
		if ctx.Err() != nil {
			return Decision{}, ctx.Err()
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
	return Decision{}, lastErr
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

// callPlayer sets the position and thinks, giving up at lim.Deadline even if
// the player does not return.
func callPlayer(ctx context.Context, p Player, moves []string, lim Limits) (Decision, error) {
	tctx, cancel := context.WithDeadline(ctx, lim.Deadline)
	defer cancel()
	type out struct {
		d   Decision
		err error
	}
	ch := make(chan out, 1)
	go func() {
		if err := p.Position(tctx, moves); err != nil {
			ch <- out{err: fmt.Errorf("set position: %w", err)}
			return
		}
		d, err := p.Think(tctx, lim)
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
			return Decision{}, ctx.Err()
		}
		return Decision{}, errors.New("player did not answer before the deadline")
	}
}

// post sends the move, waiting out rate-limit cool-downs of this game, and
// measures the round trip.
func (g *gameWorker) post(ctx context.Context, d Decision, log zerolog.Logger) error {
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

// updateAbortTimer runs the abort timer while we wait for the opponent's
// first move.
func (g *gameWorker) updateAbortTimer() {
	n := len(g.moves)
	waiting := g.s.Game.AbortAfter > 0 && !g.ourTurn() && ((g.white && n == 1) || (!g.white && n == 0))
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
		g.l().Info().Bool("accept", accept).Msg("draw offered")
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
	e := g.eval()
	fullMove := len(g.moves)/2 + 1
	if fullMove < gs.DrawAfterMove || e == nil || e.Mate != 0 {
		return false
	}
	return abs(e.ScoreCP) <= gs.DrawWithinCP
}

// eval is the last evaluation of the player (nil if none).
func (g *gameWorker) eval() *Decision {
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

// background runs a request in its own goroutine; a failure is only logged.
func (g *gameWorker) background(ctx context.Context, what string, f func(context.Context) error) {
	log := g.l()
	ctx = g.bgctx // the game may end first (e.g. a draw accepted): still send it
	go func() {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := f(ctx); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg(what + " failed")
		}
	}()
}

// finish ends the game: stops the mover, tells the player, says goodbye
// and saves the record.
func (g *gameWorker) finish(ctx context.Context, st lichess.GameState) {
	g.finished = true
	g.l().Info().Str("status", st.Status).Str("winner", st.Winner).Msg("game over")
	g.stopMover()
	if g.player != nil {
		if err := g.player.EndGame(ctx); err != nil {
			g.l().Debug().Err(err).Msg("player end game")
		}
	}
	g.sayBoth(ctx, g.s.Chat.Goodbye)
	if g.s.PGNDir != "" {
		path, err := g.saveRecord(st)
		if err != nil {
			g.l().Error().Err(err).Msg("save game record")
		} else {
			g.l().Info().Str("path", path).Msg("game record saved")
		}
	}
}

// stopMover cancels a running mover and waits for it.
func (g *gameWorker) stopMover() {
	if g.moverCancel == nil {
		return
	}
	g.moverCancel()
	r := <-g.moverDone
	g.moverCancel, g.moverPly = nil, -1
	if r.err == nil {
		g.decisions[r.ply] = r.decision
	}
}

func (g *gameWorker) cleanup() {
	g.stopMover()
	for _, t := range []*time.Timer{g.abortTimer, g.claimTimer} {
		if t != nil {
			t.Stop()
		}
	}
	if g.player != nil {
		p := g.player
		g.player = nil
		if err := p.Close(); err != nil {
			g.l().Debug().Err(err).Msg("close player")
		}
	}
}
