package client

import (
	"context"
	"slices"
	"time"
)

// The arenas that an ArenaStore records, played besides the settings'
// (tournament.go).

// ArenaStore is a Store that also keeps arenas to play (cmd/ponderosa's
// store: the arenas `ponderosa tournament join` recorded). A Bot whose
// Store is one plays them besides TournamentSettings.Join.
type ArenaStore interface {
	// Arenas returns the recorded arenas, in order of preference.
	Arenas(ctx context.Context) ([]ArenaEntry, error)
	// RemoveArena forgets arena id (no error when it is not recorded).
	RemoveArena(ctx context.Context, id string) error
}

// arenaGoneAfter is how far apart two 404s for an arena that the store
// records must be for the bot to remove its record (every: CheckEvery, 30
// s by default, so 5 minutes): one stray 404 (a proxy's answer during a
// Lichess deploy) does not drop the operator's arena.
func arenaGoneAfter(every time.Duration) time.Duration { return 10 * every }

// arenaListLocked is the list of arenas to play: the settings' (their
// password and team win) and then the store's; b.mu must be held.
func (b *Bot) arenaListLocked() []ArenaEntry {
	list := slices.Clone(b.settings.Tournament.Join)
	for _, e := range b.arenas.stored {
		if !slices.ContainsFunc(list, func(l ArenaEntry) bool { return l.ID == e.ID }) {
			list = append(list, e)
		}
	}
	return list
}

// storedArenaLocked reports whether the store records arena id (as last
// read); b.mu must be held.
func (b *Bot) storedArenaLocked(id string) bool {
	return slices.ContainsFunc(b.arenas.stored, func(e ArenaEntry) bool { return e.ID == id })
}

// arenaOriginLocked names where arena id came from, for the log lines that
// tell the operator what to check; b.mu must be held.
func (b *Bot) arenaOriginLocked(id string) string {
	inSettings := slices.ContainsFunc(b.settings.Tournament.Join, func(e ArenaEntry) bool { return e.ID == id })
	switch stored := b.storedArenaLocked(id); {
	case inSettings && stored:
		return "tournament.join, whose password and team win over the record of `ponderosa tournament join`"
	case stored:
		return "the record of `ponderosa tournament join`; run it again once mended"
	}
	return "tournament.join"
}

// rereadArenasLocked asks arenaStoreLoop to read the store now (a reload);
// b.mu must be held.
func (b *Bot) rereadArenasLocked() {
	select {
	case b.arenasLocked().reread <- struct{}{}:
	default: // a read is due already
	}
}

// arenaStore is the Store as an ArenaStore; nil when it is none.
func (b *Bot) arenaStore() ArenaStore {
	as, _ := b.storeOf().(ArenaStore)
	return as
}

// loadArenas reads the arenas the store records; on failure the list read
// before stays (logged).
func (b *Bot) loadArenas(ctx context.Context, as ArenaStore) {
	got, err := as.Arenas(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.arenasLocked()
	if err != nil {
		if ctx.Err() == nil && !st.storeFailing { // once, not every StoreEvery
			b.log.Warn().Err(err).Msg("state store: cannot read the recorded arena tournaments; playing those read before, trying again")
		}
		st.storeFailing = ctx.Err() == nil
		return
	}
	if st.storeFailing {
		st.storeFailing = false
		b.log.Info().Msg("state store: the recorded arena tournaments can be read again")
	}
	if slices.Equal(got, st.stored) {
		return
	}
	for _, e := range got {
		if !b.storedArenaLocked(e.ID) {
			b.log.Info().Str("tournament", e.ID).Msg("arena tournament recorded in the state store: playing it")
		}
	}
	for _, e := range st.stored {
		if !slices.ContainsFunc(got, func(g ArenaEntry) bool { return g.ID == e.ID }) {
			b.log.Info().Str("tournament", e.ID).Msg("arena tournament no longer recorded in the state store: leaving it")
		}
	}
	st.stored = got
	b.notifyLocked() // the arena loop plans again
}

// arenaStoreLoop reads the arenas that the store records every
// StoreEvery, and at once when a reload asks, until ctx ends.
func (b *Bot) arenaStoreLoop(ctx context.Context, as ArenaStore) {
	b.mu.Lock()
	reread := b.arenasLocked().reread
	b.mu.Unlock()
	for {
		b.mu.Lock()
		every := b.settings.Tournament.StoreEvery
		b.mu.Unlock()
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-reread:
		case <-t.C:
		}
		t.Stop()
		b.loadArenas(ctx, as)
	}
}

// forgetStoredArenaLocked removes arena id, over or unknown to Lichess,
// from the store when the store records it (through the store writer: no
// waiting under b.mu); b.mu must be held.
func (b *Bot) forgetStoredArenaLocked(id string) {
	if !b.storedArenaLocked(id) {
		return
	}
	b.arenas.stored = slices.DeleteFunc(slices.Clone(b.arenas.stored), func(e ArenaEntry) bool { return e.ID == id })
	b.persist("arena over", func(ctx context.Context, s Store) error {
		as, ok := s.(ArenaStore)
		if !ok {
			return nil
		}
		if err := as.RemoveArena(ctx, id); err != nil {
			return err
		}
		b.log.Info().Str("tournament", id).Msg("arena tournament removed from the state store")
		return nil
	})
}
