package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/config"
)

// checkConfigCmd validates a configuration file: it prints a summary and
// exits 0, or prints every problem (file, line, key, what to change) and
// exits exitConfig; it never says OK and then fails. It also looks for the
// token as the bot would, never printing it (a token that the bot would
// refuse, such as a file others may read, is a problem; no token at all is
// not, since under systemd the credential exists only while the service
// runs), and says which state directory the bot would use here. Each
// engine of engine.variants is started once to check that it knows its
// variant. With -online it also asks Lichess whether the token works, has
// the bot:play scope and belongs to a Bot account (exitNoPerm if not;
// exitUnavailable or exitTempFail when Lichess cannot answer).
func checkConfigCmd(e env, args []string) int {
	fs := newFlagSet(e, "check-config",
		"usage: ponderosa check-config [-online] [-config FILE]",
	)
	path := fs.String("config", defaultConfigPath, "the configuration file to check")
	online := fs.Bool("online", false, "also ask Lichess whether the token has the bot:play scope and the account is a Bot account")
	if !parseArgs(fs, args) {
		return exitUsage
	}

	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		var probs config.Errors
		if errors.As(err, &probs) {
			fmt.Fprintf(e.stderr, "config NOT OK: %d problem(s) in %s\n", len(probs), *path)
		} else {
			fmt.Fprintf(e.stderr, "config NOT OK: %s\n", *path)
		}
		return exitConfig
	}
	// A per-variant engine must know its variant: start each once.
	if err := probeVariantEngines(context.Background(), cfg); err != nil {
		fmt.Fprintln(e.stderr, err)
		fmt.Fprintf(e.stderr, "config NOT OK: an engine of engine.variants cannot play its variant (%s)\n", *path)
		return exitConfig
	}
	token, source, tokenErr := config.LoadTokenEnv(cfg, e.getenv)
	if tokenErr != nil && !errors.Is(tokenErr, config.ErrNoToken) {
		// The bot would refuse it and not start.
		fmt.Fprintf(e.stderr, "token: %v\n", tokenErr)
		fmt.Fprintf(e.stderr, "config NOT OK: the token cannot be used (%s)\n", *path)
		return exitConfig
	}
	var onlineLine string
	if *online {
		if tokenErr != nil {
			fmt.Fprintf(e.stderr, "token: %v\n", tokenErr)
			fmt.Fprintln(e.stderr, "NOT OK: -online needs the token (here: in $"+config.TokenEnv+" or lichess.token_file)")
			return exitConfig
		}
		line, arenaWarnings, err := checkOnline(cfg, token)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			fmt.Fprintf(e.stderr, "NOT OK: Lichess at %s: %s\n", lichessBase(cfg), onlineVerdict(err))
			return exitCode(err)
		}
		onlineLine = line
		for _, w := range arenaWarnings {
			fmt.Fprintln(e.stderr, "warning:", w)
		}
	}

	fmt.Fprintf(e.stdout, "config OK: %s\n%s", *path, cfg.Summary())
	if tokenErr == nil {
		fmt.Fprintf(e.stdout, "  %-12s found in %s\n", "token:", source)
	} else {
		// Not an error here: under systemd the credential exists only
		// while the service runs.
		fmt.Fprintf(e.stdout, "  %-12s not found here (%v)\n", "token:", tokenErr)
	}
	if onlineLine != "" {
		fmt.Fprintf(e.stdout, "  %-12s %s\n", "lichess:", onlineLine)
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
	return exitOK
}

func lichessBase(cfg *config.Config) string {
	if cfg.Lichess.BaseURL == "" {
		return lichess.DefaultBaseURL
	}
	return cfg.Lichess.BaseURL
}

// checkOnline asks Lichess about the token, as the daemon does at start:
// it must be accepted, have the bot:play scope and belong to a Bot
// account; the arenas of tournament.join must be games the bot plays
// (checkArenas). It returns a line for the summary and warnings, or an
// error for exitCode.
func checkOnline(cfg *config.Config, token string) (string, []string, error) {
	c, err := lichess.New(cfg.Lichess.BaseURL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		lichess.WithUserAgent("ponderosa/"+appVersion()), lichess.WithRequestTimeout(cfg.Lichess.RequestTimeout))
	if err != nil {
		return "", nil, configError{err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.Lichess.RequestTimeout)
	defer cancel()
	acct, scopes, err := c.CheckToken(ctx)
	if err != nil {
		return "", nil, classifyLichess(err)
	}
	if !acct.IsBot() {
		return "", nil, fmt.Errorf("account %s %w: upgrade it once with `ponderosa upgrade -confirm` (irreversible; the account must not have played any game)", acct.Username, lichess.ErrNotBot)
	}
	if err := tournamentScope(cfg, c, scopes); err != nil { // tournament.go
		return "", nil, err
	}
	ctx, cancel = context.WithTimeout(context.Background(), 2*cfg.Lichess.RequestTimeout)
	defer cancel()
	warnings, err := checkArenas(ctx, cfg, c) // tournament.go
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("token accepted by %s for Bot account %s (scopes %s)", c.BaseURL(), acct.Username, strings.Join(scopes, ",")), warnings, nil
}

// onlineVerdict is the last line of a failed online check.
func onlineVerdict(err error) string {
	switch {
	case errors.Is(err, errArenaUnplayable):
		return "tournament.join lists an arena whose variant or speed the bot does not play"
	case errors.Is(err, errTournamentScope):
		return "the token lacks the tournament:write scope that tournament.join needs"
	case errors.Is(err, lichess.ErrMissingScope):
		return "the token lacks the bot:play scope"
	case errors.Is(err, lichess.ErrNotBot):
		return "the account is not a Bot account"
	case errors.Is(err, lichess.ErrTokenRefused):
		return "the token is refused (revoked, expired or mistyped)"
	case errors.Is(err, errUnavailable):
		return "cannot reach Lichess; try again later"
	case errors.Is(err, errTempFail):
		return "Lichess is busy (rate limited); try again later"
	}
	return "the check failed"
}
