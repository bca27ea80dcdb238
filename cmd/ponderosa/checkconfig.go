package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/config"
)

// checkConfigCmd validates a configuration file: it prints a summary and
// exits 0, or prints every problem (file, line, key, what to change) and
// exits 1. It also looks for the token as the bot would, never printing it,
// and says which state directory the bot would use here. Each engine of
// engine.variants is started once to check that it knows its variant.
func checkConfigCmd(e env, args []string) int {
	fs := newFlagSet(e, "check-config",
		"usage: ponderosa check-config [-config FILE]",
	)
	path := fs.String("config", defaultConfigPath, "the configuration file to check")
	if !parseArgs(fs, args) {
		return 2
	}

	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		var probs config.Errors
		if errors.As(err, &probs) {
			fmt.Fprintf(e.stderr, "config NOT OK: %d problem(s) in %s\n", len(probs), *path)
		}
		return 1
	}
	// A per-variant engine must know its variant: start each once.
	if err := probeVariantEngines(context.Background(), cfg); err != nil {
		fmt.Fprintln(e.stderr, err)
		fmt.Fprintf(e.stderr, "config NOT OK: an engine of engine.variants cannot play its variant (%s)\n", *path)
		return 1
	}
	fmt.Fprintf(e.stdout, "config OK: %s\n%s", *path, cfg.Summary())

	code := 0
	switch _, source, err := config.LoadTokenEnv(cfg, e.getenv); {
	case err == nil:
		fmt.Fprintf(e.stdout, "  %-12s found in %s\n", "token:", source)
	case errors.Is(err, config.ErrNoToken):
		// Not an error here: under systemd the credential exists only
		// while the service runs.
		fmt.Fprintf(e.stdout, "  %-12s not found here (%v)\n", "token:", err)
	default:
		fmt.Fprintf(e.stderr, "token: %v\n", err)
		code = 1
	}
	// The default state directory depends on the environment: under
	// systemd the service gets $STATE_DIRECTORY, which a shell does not.
	switch dir, from, err := cfg.ResolveStateDir(e.getenv); {
	case err != nil:
		fmt.Fprintf(e.stdout, "  %-12s none here (%v)\n", "state dir:", err)
	case from == config.StateFromConfig || from == config.StateFromSystemd:
		fmt.Fprintf(e.stdout, "  %-12s %s (from %s)\n", "state dir:", dir, from)
	default:
		fmt.Fprintf(e.stdout, "  %-12s %s here (from %s; under systemd it is $STATE_DIRECTORY)\n", "state dir:", dir, from)
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintln(e.stderr, "warning:", w)
	}
	return code
}
