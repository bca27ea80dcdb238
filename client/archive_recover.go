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

// recoverGames archives the games noted in earlier runs whose records a
// crash lost: each is fetched from Lichess; one still in progress is left
// to its worker (rejoin), one Lichess does not know is forgotten. A game
// that cannot be fetched now stays noted for the next start.
func (b *Bot) recoverGames(ctx context.Context) {
	s, ok := b.storeOf().(OpenGameStore)
	if !ok {
		return
	}
	ids, err := s.OpenGames(ctx)
	if err != nil {
		b.log.Warn().Err(err).Msg("archive: cannot list the games of earlier runs not archived yet; they are looked for at the next start")
		return
	}
	recovered := 0
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		if b.recoverGame(ctx, s, id) {
			recovered++
		}
	}
	if recovered > 0 {
		b.log.Warn().Int("games", recovered).Msg("archive: games whose records an earlier run lost (a crash?) recovered from Lichess")
	}
}

// recoverGame archives game id from Lichess' export if it is over; true
// when it was archived (or spooled).
func (b *Bot) recoverGame(ctx context.Context, s OpenGameStore, id string) bool {
	log := b.log.With().Str("game", id).Logger()
	ex, err := b.c.ExportGame(ctx, id)
	switch {
	case lichess.StatusCode(err) == http.StatusNotFound:
		log.Debug().Msg("archive: a noted game Lichess does not have (a challenge that never became a game); forgotten")
		if err := s.ForgetGame(ctx, id); err != nil && !errors.Is(err, ErrRecordKept) {
			log.Warn().Err(err).Msg("archive: forget a noted game")
		}
		return false
	case err != nil:
		if ctx.Err() == nil {
			log.Warn().Err(err).Msg("archive: cannot fetch a game of an earlier run not archived yet; tried again at the next start")
		}
		return false
	case !ex.Finished():
		return false // in progress: its worker records it
	}
	r, err := b.recoveredRecord(ex)
	if err != nil {
		log.Warn().Err(err).Msg("archive: a game of an earlier run cannot be archived; forgotten")
		if err := s.ForgetGame(ctx, id); err != nil && !errors.Is(err, ErrRecordKept) {
			log.Warn().Err(err).Msg("archive: forget a noted game")
		}
		return false
	}
	switch err := s.RecordRecoveredGame(ctx, r); {
	case err == nil:
		log.Info().Str("result", r.Result).Str("termination", r.Termination).
			Msg("archive: game recovered from Lichess (an earlier run ended before its record was written)")
	case errors.Is(err, ErrRecordKept):
		log.Warn().Err(err).Msg("archive: recovered game spooled; written when the database works")
	default:
		log.Error().Err(err).Msg("archive: the recovered game could not be recorded; tried again at the next start")
		return false
	}
	return true
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
