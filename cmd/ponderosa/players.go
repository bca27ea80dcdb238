package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// playerFactory returns the factory of the players chosen by engine.type
// (the built-in engine or an external UCI engine) for standard chess,
// Chess960 and games from a position, and by engine.variants for the other
// variants: each game gets the player of its variant.
//
// cpu is the built-in engine's thread budget, one for the process (a
// reload sets its total, cpuShare): nil makes one for this factory.
func playerFactory(cfg *config.Config, log zerolog.Logger, cpu *ponder.CPUShare) (client.PlayerFactory, error) {
	f, _, err := playerFactoryTables(cfg, log, cpu)
	return f, err
}

// playerFactoryTables is playerFactory that also returns the built-in
// engine's local Syzygy tables (nil: none, or an external engine), for
// the online player (withOnline).
func playerFactoryTables(cfg *config.Config, log zerolog.Logger, cpu *ponder.CPUShare) (client.PlayerFactory, *syzygy.Tablebase, error) {
	return playerFactoryMemory(cfg, log, cpu, nil)
}

// playerFactoryMemory is playerFactoryTables whose built-in engine uses
// the learning memory mem (nil: none; see learningFor).
func playerFactoryMemory(cfg *config.Config, log zerolog.Logger, cpu *ponder.CPUShare, mem ponder.Memory) (client.PlayerFactory, *syzygy.Tablebase, error) {
	var f client.PlayerFactory
	var tables *syzygy.Tablebase
	switch e := cfg.Engine; e.Type {
	case config.EngineBuiltin, "":
		// engine.builtin.hash_mb is the memory of all games together;
		// each game that can run at once has its own table
		// (config.Config.HashPerGameMB).
		hash := cfg.HashPerGameMB()
		if cpu == nil {
			cpu = cpuShare(cfg, nil)
		}
		net, err := nnue.Choose(e.Builtin.Eval == config.EvalNNUE, e.Builtin.EvalFile)
		if err != nil {
			return nil, nil, fmt.Errorf("engine.builtin.eval %s: %w", e.Builtin.Eval, err)
		}
		books, err := e.Book.Open()
		if err != nil {
			return nil, nil, err
		}
		// engine.syzygy.probe_limit 0 turns every use of the tables off,
		// the root's included, as UCI SyzygyProbeLimit 0 does: they are
		// not opened, so the built-in engine and the online player
		// (withOnline) see no local tables.
		var tb *syzygy.Tablebase
		if e.Syzygy.ProbeLimit > 0 {
			if tb, err = e.Syzygy.Open(); err != nil {
				return nil, nil, err
			}
		}
		tables = tb
		f = client.NewBuiltinPlayer(client.BuiltinOptions{
			Net:                 net,
			HashMB:              hash,
			Threads:             e.Builtin.Threads,
			CPU:                 cpu,
			TreeMB:              e.Builtin.TreeMemoryMB,
			Ponder:              e.Ponder,
			VarietyCP:           e.Builtin.VarietyCP,
			Books:               books,
			BookOptions:         e.Book.Options(),
			Tablebase:           tb,
			TablebaseIgnore50:   !e.Syzygy.FiftyMoveRule,
			TablebaseProbeDepth: e.Syzygy.ProbeDepth,
			TablebaseProbeLimit: e.Syzygy.ProbeLimit,
			Memory:              mem,
			Logger:              log,
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
		return nil, nil, fmt.Errorf("engine.type %q: want %s or %s", e.Type, config.EngineBuiltin, config.EngineExternal)
	}
	perVariant := map[string]client.PlayerFactory{}
	for key, x := range cfg.Engine.Variants {
		name, ok := config.VariantUCINames[key]
		if !ok {
			return nil, nil, fmt.Errorf("engine.variants.%s: not a variant that needs an engine of its own", key)
		}
		perVariant[key] = client.NewUCIPlayer(client.UCIOptions{
			Path:    x.Path,
			Args:    x.Args,
			Dir:     x.Dir,
			Options: x.Options,
			Variant: name,
			Ponder:  cfg.Engine.Ponder,
			Logger:  log.With().Str("variant", key).Logger(),
		})
	}
	return client.NewVariantPlayer(f, perVariant), tables, nil
}

// cpuShare returns the built-in engine's thread budget for cfg
// (engine.builtin.threads_total): cur with its total set, or a new one when
// cur is nil. The running games' searches get their new share at once.
func cpuShare(cfg *config.Config, cur *ponder.CPUShare) *ponder.CPUShare {
	n := cfg.Engine.Builtin.ThreadsTotalOrCores()
	if cur == nil {
		return ponder.NewCPUShare(n)
	}
	cur.SetTotal(n)
	return cur
}

// probeTimeout bounds the start of all per-variant engines by
// probeVariantEngines.
const probeTimeout = 30 * time.Second

// probeVariantEngines starts each engine of engine.variants once and checks
// that it can play its variant: its UCI_Variant option lists the variant's
// name (Fairy-Stockfish builds differ in the variants they know); and
// engine.external likewise for chess960 (probeChess960). It
// returns every problem, one per engine, naming its key; nil when all can.
// check-config, run and reload call it, so that no configuration they take
// accepts games that its engines cannot play.
func probeVariantEngines(ctx context.Context, cfg *config.Config) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(cfg.Engine.Variants)) {
		x := cfg.Engine.Variants[key]
		name := config.VariantUCINames[key]
		e, err := uci.StartConfig(ctx, uci.ExternalConfig{Path: x.Path, Args: x.Args, Dir: x.Dir, Options: x.Options, Logger: zerolog.Nop()})
		if err != nil {
			errs = append(errs, fmt.Errorf("engine.variants.%s: cannot start %s: %w", key, x.Path, err))
			continue
		}
		spec, has := uci.FindOption(e.Options(), "UCI_Variant")
		switch {
		case !has:
			errs = append(errs, fmt.Errorf("engine.variants.%s: %s (%s) has no UCI_Variant option, so it plays no variant: give an engine that knows %s, such as Fairy-Stockfish", key, x.Path, e.Name(), key))
		case !slices.Contains(spec.Vars, name):
			errs = append(errs, fmt.Errorf("engine.variants.%s: %s (%s) does not play %s: its UCI_Variant does not list %q; give a build that does, or remove %s from the variants accepted and offered", key, x.Path, e.Name(), key, name, key))
		}
		if err := e.Close(); err != nil {
			errs = append(errs, fmt.Errorf("engine.variants.%s: stop %s: %w", key, x.Path, err))
		}
	}
	if err := probeChess960(ctx, cfg); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// probeChess960 checks, when chess960 is accepted or offered and the moves
// come from engine.external, that the engine has UCI_Chess960: without it
// the player refuses every Chess960 game at its start, and each move of it
// would be a fallback move.
func probeChess960(ctx context.Context, cfg *config.Config) error {
	if cfg.Engine.Type != config.EngineExternal ||
		!slices.Contains(cfg.Challenge.Variants, "chess960") && !(cfg.Matchmaking.Enabled && slices.Contains(cfg.Matchmaking.Variants, "chess960")) {
		return nil
	}
	x := cfg.Engine.External
	e, err := uci.StartConfig(ctx, uci.ExternalConfig{Path: x.Path, Args: x.Args, Dir: x.Dir, Options: x.Options, Logger: zerolog.Nop()})
	if err != nil {
		return fmt.Errorf("engine.external: cannot start %s: %w", x.Path, err)
	}
	defer e.Close()
	if _, ok := uci.FindOption(e.Options(), "UCI_Chess960"); !ok {
		return fmt.Errorf("engine.external: %s (%s) has no UCI_Chess960 option, so it cannot play chess960: remove chess960 from the variants accepted and offered, or give an engine that plays it", x.Path, e.Name())
	}
	return nil
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
