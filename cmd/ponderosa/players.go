package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/config"
)

// playerFactory returns the factory of the players chosen by engine.type:
// the built-in engine or an external UCI engine.
func playerFactory(cfg *config.Config, log zerolog.Logger) (client.PlayerFactory, error) {
	var f client.PlayerFactory
	switch e := cfg.Engine; e.Type {
	case config.EngineBuiltin, "":
		// engine.builtin.hash_mb is the memory of all games together;
		// each game has its own table.
		hash := max(e.Builtin.HashMB/max(cfg.Challenge.Concurrency, 1), 1)
		f = client.NewBuiltinPlayer(client.BuiltinOptions{
			HashMB:    hash,
			Threads:   e.Builtin.Threads,
			TreeMB:    e.Builtin.TreeMemoryMB,
			Ponder:    e.Ponder,
			VarietyCP: e.Builtin.VarietyCP,
			Logger:    log,
		})
	case config.EngineExternal:
		f = client.NewUCIPlayer(client.UCIOptions{
			Path:    e.External.Path,
			Args:    e.External.Args,
			Dir:     e.External.Dir,
			Options: e.External.Options,
			Ponder:  e.Ponder,
			Logger:  log,
		})
	default:
		return nil, fmt.Errorf("engine.type %q: want %s or %s", e.Type, config.EngineBuiltin, config.EngineExternal)
	}
	return f, nil
}

// swappableFactory hands out players from the factory set last, so that a
// reloaded configuration applies to the next game while running games keep
// the players they have.
type swappableFactory struct {
	cur atomic.Pointer[client.PlayerFactory]
}

func newSwappableFactory(f client.PlayerFactory) *swappableFactory {
	s := &swappableFactory{}
	s.set(f)
	return s
}

func (s *swappableFactory) set(f client.PlayerFactory) { s.cur.Store(&f) }

func (s *swappableFactory) factory(ctx context.Context) (client.Player, error) {
	return (*s.cur.Load())(ctx)
}
