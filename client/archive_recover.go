package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// A game whose end the daemon saw but whose record never reached the
// archive (the process was killed between the two, or while the game ran
// and the game ended before it came back) is not lost: a Store that is
// also an OpenGameStore notes each game as it begins (before a challenge
// is accepted, once ours is sent, at a gameStart or when a correspondence
// game is parked), the record of the game takes the note away,
// and at the next start recoverGames fetches every game still noted from
// Lichess' game export and archives what it finds over. The notes of an
// accepted challenge and of our own challenge are written at once
// (noteGameNow), before the game can be played; the note at a gameStart
// (a game that began otherwise: an arena pairing, a challenge another
// program accepted) goes through the store writer, so a kill in the
// first moments of such a game can leave it unnoted.

// OpenGameStore is a Store that notes the games that begin until their
// record is archived, so that a crash loses none (recoverGames).
type OpenGameStore interface {
	// NoteGame notes that game id began (or its challenge was accepted)
	// at t; noting a game twice notes it once.
	NoteGame(ctx context.Context, id string, t time.Time) error
	// OpenGames returns the games noted and not archived, oldest first.
	OpenGames(ctx context.Context) ([]string, error)
	// ForgetGame drops the note of a game that Lichess does not have (a
	// challenge that never became a game).
	ForgetGame(ctx context.Context, id string) error
	// RecordRecoveredGame archives a game recovered from Lichess unless
	// the archive has it already (the game's own record, with our
	// figures, is the better one); it takes the note away.
	RecordRecoveredGame(ctx context.Context, r GameRecord) error
}

// noteGameLocked notes game id in the store (an OpenGameStore), through
// the store writer; b.mu held.
func (b *Bot) noteGameLocked(id string) {
	s, ok := b.store.(OpenGameStore)
	if !ok || id == "" {
		return
	}
	now := time.Now()
	b.persist("game begun", func(ctx context.Context, _ Store) error { return s.NoteGame(ctx, id, now) })
}

// noteGameNow notes game id in the store (an OpenGameStore) at once, on
// the caller's goroutine, rather than through the store writer: the
// accept of a challenge (sendOne) and the challenge we send
// (matchmakeOnce) note their game so before it can be played, so that a
// kill in its first moments does not leave it unnoted. Not with b.mu
// held: the write may wait on the database (bounded by the store's busy
// timeout; a locked database spools the note).
func (b *Bot) noteGameNow(ctx context.Context, id string) {
	s, ok := b.storeOf().(OpenGameStore)
	if !ok || id == "" {
		return
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.NoteGame(nctx, id, time.Now()); err != nil && !errors.Is(err, ErrRecordKept) {
		b.log.Warn().Err(err).Str("game", id).Msg("archive: cannot note a game; were the bot killed before its record, it would not be recovered")
	}
}

const (
	// recoverPaceDefault is the least time between two exports of the
	// recovery: a crash-looping daemon must not burst Lichess.
	recoverPaceDefault = 500 * time.Millisecond
	// recoverRetryDefault is how long after a recovery pass that left
	// games noted (the database or Lichess failed) the next pass runs.
	recoverRetryDefault = 5 * time.Minute
	// recoverTries is how many times a pass asks for one game when Lichess
	// answers 429 (each try after the cool-down).
	recoverTries = 3
)

// recoverLoop runs recoverGames once the first list of games in progress
// was read (rejoined closed: their workers and parked games are known
// then, and not fetched), and again every b.recoverRetry until a pass
// leaves nothing to do but games in progress.
func (b *Bot) recoverLoop(ctx context.Context, rejoined <-chan struct{}) {
	select {
	case <-rejoined:
	case <-ctx.Done():
		return
	}
	for !b.recoverGames(ctx) {
		b.log.Info().Dur("in", b.recoverRetry).Msg("archive: games of earlier runs not archived yet are looked for again later")
		t := time.NewTimer(b.recoverRetry)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// recoverGames archives the games noted in earlier runs whose records a
// crash lost: each is fetched from Lichess (one at a time, b.recoverPace
// apart, a 429's cool-down waited out); one still in progress is left to
// its worker (rejoin; one this run plays or parks is not even fetched),
// one Lichess does not know is forgotten. It reports whether the pass
// got through: false when the database or Lichess failed, so that some
// game stays noted that a later pass may recover.
func (b *Bot) recoverGames(ctx context.Context) bool {
	s, ok := b.storeOf().(OpenGameStore)
	if !ok {
		return true
	}
	ids, err := s.OpenGames(ctx)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn().Err(err).Msg("archive: cannot list the games of earlier runs not archived yet")
		}
		return false
	}
	recovered, done, fetched := 0, true, 0
	for _, id := range ids {
		if b.playedHere(id) {
			continue // its worker, or its end as a parked game, records it
		}
		if fetched > 0 && !sleepCtx(ctx, b.recoverPace) {
			return false
		}
		fetched++
		switch rec, ok := b.recoverGame(ctx, s, id); {
		case ctx.Err() != nil:
			return false
		case rec:
			recovered++
		case !ok:
			done = false
		}
	}
	if recovered > 0 {
		b.log.Warn().Int("games", recovered).Msg("archive: games whose records an earlier run lost (a crash?) recovered from Lichess")
	}
	return done
}

// playedHere reports whether this run has a worker, a parked game or an
// accepted challenge of id.
func (b *Bot) playedHere(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, running := b.games[id]
	_, parked := b.parked[id]
	_, pending := b.pending[id]
	return running || parked || pending
}

// sleepCtx waits d or until ctx ends; false when ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// recoverGame archives game id from Lichess' export if it is over.
// recovered: it was archived (or spooled); ok: nothing is left to do for
// it now (false: Lichess or the database failed, a later pass tries
// again).
func (b *Bot) recoverGame(ctx context.Context, s OpenGameStore, id string) (recovered, ok bool) {
	log := b.log.With().Str("game", id).Logger()
	// The writes outlive a cancelled ctx (a shutdown in the middle of
	// one), as the worker's record does.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	forget := func() {
		if err := s.ForgetGame(wctx, id); err != nil && !errors.Is(err, ErrRecordKept) {
			log.Warn().Err(err).Msg("archive: forget a noted game")
		}
	}
	var ex lichess.GameExport
	var err error
	for try := 1; ; try++ {
		// A 429 (this request's or an earlier one's) is waited out, as
		// the client's essential requests wait: nothing waits on this.
		if !sleepCtx(ctx, b.c.Cooldown(lichess.ExportLimitKey)) {
			return false, false
		}
		ex, err = b.c.ExportGame(ctx, id)
		limited := errors.Is(err, lichess.ErrCoolingDown) || lichess.StatusCode(err) == http.StatusTooManyRequests
		if !limited || try == recoverTries {
			break
		}
	}
	switch {
	case lichess.StatusCode(err) == http.StatusNotFound:
		log.Debug().Msg("archive: a noted game Lichess does not have (a challenge that never became a game); forgotten")
		forget()
		return false, true
	case err != nil:
		if ctx.Err() == nil {
			log.Warn().Err(err).Msg("archive: cannot fetch a game of an earlier run not archived yet; tried again later")
		}
		return false, false
	case !ex.Finished():
		return false, true // in progress: its worker records it
	}
	r, err := b.recoveredRecord(ex)
	if err != nil {
		log.Warn().Err(err).Msg("archive: a game of an earlier run cannot be archived; forgotten")
		forget()
		return false, true
	}
	switch err := s.RecordRecoveredGame(wctx, r); {
	case err == nil:
		log.Info().Str("result", r.Result).Str("termination", r.Termination).
			Msg("archive: game recovered from Lichess (an earlier run ended before its record was written)")
	case errors.Is(err, ErrRecordKept):
		log.Warn().Err(err).Msg("archive: recovered game spooled; written when the database works")
	default:
		log.Error().Err(err).Msg("archive: the recovered game could not be recorded; tried again later")
		return false, false
	}
	return true, true
}

// recoveredRecord is the archive's record of an exported game: made as a
// worker makes it (gameRecord, pgn), without our figures. Moves that
// cannot be read back (SAN of a variant without rules here) leave the
// record without its moves, with Lichess' PGN.
func (b *Bot) recoveredRecord(ex lichess.GameExport) (GameRecord, error) {
	b.mu.Lock()
	me := b.me.ID
	b.mu.Unlock()
	w, bl := ex.Players.White, ex.Players.Black
	var white bool
	switch {
	case strings.EqualFold(w.User.ID, me):
		white = true
	case strings.EqualFold(bl.User.ID, me):
	default:
		return GameRecord{}, fmt.Errorf("game %s: %s is not one of its players (%q, %q)", ex.ID, me, w.User.ID, bl.User.ID)
	}
	opp := bl.User.Name
	if !white {
		opp = w.User.Name
	}
	b.mu.Lock()
	g := newGameWorker(b, ex.ID, b.settings, opp)
	b.mu.Unlock()
	g.white = white
	g.full = &lichess.GameFull{
		ID: ex.ID, Variant: lichess.Variant{Key: ex.Variant}, Speed: ex.Speed, Rated: ex.Rated,
		CreatedAt: ex.CreatedAt, InitialFEN: ex.InitialFEN, DaysPerTurn: ex.DaysPerTurn,
		White: lichess.GamePlayer{ID: w.User.ID, Name: w.User.Name, Title: w.User.Title, Rating: w.Rating, AILevel: w.AILevel},
		Black: lichess.GamePlayer{ID: bl.User.ID, Name: bl.User.Name, Title: bl.User.Title, Rating: bl.Rating, AILevel: bl.AILevel},
	}
	if ex.Clock != nil {
		g.full.Clock = &lichess.GameClock{Initial: ex.Clock.Initial * 1000, Increment: ex.Clock.Increment * 1000}
	}
	st := lichess.GameState{Status: ex.Status, Winner: ex.Winner}
	ended := time.UnixMilli(ex.LastMoveAt)
	if ex.LastMoveAt == 0 {
		ended = time.Now()
	}
	moves, merr := uciMoves(ex.Variant, ex.InitialFEN, strings.Fields(ex.Moves))
	var pgn string
	if merr == nil {
		g.moves = moves
		pgn, merr = g.pgn(st, ended)
	}
	if merr != nil {
		g.moves = nil
		b.log.Warn().Err(merr).Str("game", ex.ID).Msg("archive: the moves of a recovered game cannot be read; archived with Lichess' PGN only")
		pgn = ex.PGN
	}
	r := g.gameRecord(st, ended, pgn)
	if w.RatingDiff != nil || bl.RatingDiff != nil {
		// Given to the store with the record (RecordRatingDiffs would
		// race it through the writer).
		r.WhiteRatingDiff, r.BlackRatingDiff = w.RatingDiff, bl.RatingDiff
	}
	return r, nil
}

// uciMoves turns a game's SAN moves (Lichess' export) into UCI, replaying
// them from the initial position.
func uciMoves(variant, initialFEN string, sans []string) ([]string, error) {
	if variant == "fromPosition" && initialFEN == "" {
		initialFEN = StartFEN
	}
	b, err := newBoard(variant, initialFEN, nil)
	if err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	out := make([]string, 0, len(sans))
	for i, san := range sans {
		found := ""
		legal := b.LegalMoves()
		if legal == nil {
			// A variant without rules here: only UCI can be taken as is.
			m, err := b.Legal(san)
			if err != nil {
				return nil, fmt.Errorf("read moves: move %d %q of a variant without rules here is not UCI: %w", i+1, san, err)
			}
			found = m
		}
		for _, m := range legal {
			if m == san || trimSAN(b.SAN(m)) == trimSAN(san) {
				found = m
				break
			}
		}
		if found == "" {
			return nil, fmt.Errorf("read moves: move %d %q is not legal", i+1, san)
		}
		if err := b.Play(found); err != nil {
			return nil, fmt.Errorf("read moves: move %d %q: %w", i+1, san, err)
		}
		out = append(out, found)
	}
	return out, nil
}

// trimSAN drops SAN's check and annotation marks.
func trimSAN(s string) string { return strings.TrimRight(s, "+#!?") }
