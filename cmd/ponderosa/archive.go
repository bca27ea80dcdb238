package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/store"
)

// storeAdapter is the state store (package store) as the client's Store:
// the client knows nothing of SQL.
type storeAdapter struct{ a *store.Archive }

var (
	_ client.Store         = storeAdapter{}
	_ client.OpenGameStore = storeAdapter{}
)

// kept maps the store's "spooled" to the client's ErrRecordKept.
func kept(err error) error {
	if err != nil && errors.Is(err, store.ErrSpooled) {
		return fmt.Errorf("%w: %w", client.ErrRecordKept, err)
	}
	return err
}

func (s storeAdapter) RecordGame(ctx context.Context, r client.GameRecord) error {
	return kept(s.a.RecordGame(ctx, storeGame(r)))
}

func (s storeAdapter) RecordRecoveredGame(ctx context.Context, r client.GameRecord) error {
	return kept(s.a.RecordRecoveredGame(ctx, storeGame(r)))
}

func (s storeAdapter) NoteGame(ctx context.Context, id string, t time.Time) error {
	return kept(s.a.NoteGame(ctx, id, t))
}

func (s storeAdapter) OpenGames(ctx context.Context) ([]string, error) {
	return s.a.OpenGames(ctx)
}

func (s storeAdapter) ForgetGame(ctx context.Context, id string) error {
	return kept(s.a.ForgetGame(ctx, id))
}

func (s storeAdapter) RecordRatingDiffs(ctx context.Context, id string, white, black *int) error {
	return kept(s.a.RecordRatingDiffs(ctx, id, white, black))
}

func (s storeAdapter) AddBotGame(ctx context.Context, id string, t time.Time) error {
	return kept(s.a.AddBotGame(ctx, id, t))
}

func (s storeAdapter) BotGamesSince(ctx context.Context, t time.Time) ([]time.Time, error) {
	return s.a.BotGamesSince(ctx, t)
}

func (s storeAdapter) AddDecline(ctx context.Context, d client.DeclineRecord) error {
	return kept(s.a.AddDecline(ctx, store.Decline{Opponent: d.Opponent, Reason: d.Reason, At: d.At,
		Variant: d.Variant, Speed: d.Speed, Mode: d.Mode}))
}

func (s storeAdapter) DeclinesSince(ctx context.Context, t time.Time) ([]client.DeclineRecord, error) {
	ds, err := s.a.DeclinesSince(ctx, t)
	out := make([]client.DeclineRecord, 0, len(ds))
	for _, d := range ds {
		out = append(out, client.DeclineRecord{Opponent: d.Opponent, Reason: d.Reason, At: d.At,
			Variant: d.Variant, Speed: d.Speed, Mode: d.Mode})
	}
	return out, err
}

func (s storeAdapter) SetPause(ctx context.Context, name string, until time.Time) error {
	return kept(s.a.SetPause(ctx, name, until))
}

func (s storeAdapter) PauseUntil(ctx context.Context, name string) (time.Time, error) {
	return s.a.PauseUntil(ctx, name)
}

// ArenaStore: the arenas `ponderosa tournament join` recorded.
var _ client.ArenaStore = storeAdapter{}

func (s storeAdapter) Arenas(ctx context.Context) ([]client.ArenaEntry, error) {
	as, err := s.a.Arenas(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]client.ArenaEntry, 0, len(as))
	for _, a := range as {
		out = append(out, client.ArenaEntry{ID: a.ID, Password: a.Password, Team: a.Team, Recorded: a.AddedAt})
	}
	return out, nil
}

func (s storeAdapter) RemoveArena(ctx context.Context, id string) error {
	return s.a.RemoveArena(ctx, id)
}

// storeGame is the archive's form of a game record.
func storeGame(r client.GameRecord) store.Game {
	g := store.Game{
		ID: r.ID, URL: r.URL, White: r.White, Black: r.Black,
		WhiteRating: r.WhiteRating, BlackRating: r.BlackRating,
		WhiteRatingDiff: r.WhiteRatingDiff, BlackRatingDiff: r.BlackRatingDiff,
		OurColor: r.OurColor, Speed: r.Speed, Variant: r.Variant, Rated: r.Rated,
		Clock: r.Clock, ClockInitial: r.ClockInitial, ClockIncrement: r.ClockIncrement,
		Result: r.Result, Termination: r.Termination, InitialFEN: r.InitialFEN,
		Started: r.Started, Ended: r.Ended, PGN: r.PGN,
		Moves: make([]store.Move, 0, len(r.Moves)),
	}
	for _, m := range r.Moves {
		g.Moves = append(g.Moves, store.Move{
			Ply: m.Ply, UCI: m.UCI, SAN: m.SAN, Ours: m.Ours, HasScore: m.HasScore,
			ScoreCP: m.ScoreCP, Mate: m.Mate, Depth: m.Depth, Nodes: m.Nodes, Time: m.Time, Source: m.Source,
		})
	}
	return g
}
