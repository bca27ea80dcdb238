package main

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/config"
)

// upgradeCmd is `ponderosa upgrade -confirm`: it turns the Lichess account
// of the token into a Bot account. Lichess cannot undo it, so it refuses to
// act without -confirm.
func upgradeCmd(e env, args []string) int {
	fs := newFlagSet(e, "upgrade",
		"usage: ponderosa upgrade -confirm [-config FILE]",
		"\nTurns the Lichess account of the token into a Bot account. This cannot be",
		"undone, and the account must not have played any game.",
	)
	path := fs.String("config", defaultConfigPath, "the configuration file (for lichess.base_url and the token)")
	confirm := fs.Bool("confirm", false, "really upgrade: this is irreversible")
	if !parseArgs(fs, args) {
		return exitUsage
	}
	_, c, code := configClient(e, *path)
	if c == nil {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	acct, _, err := c.CheckToken(ctx)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitCode(classifyLichess(err))
	}
	if acct.IsBot() {
		fmt.Fprintf(e.stdout, "%s is already a Bot account: nothing to do.\n", acct.Username)
		return exitOK
	}
	if !*confirm {
		fmt.Fprintf(e.stderr, "NOT upgraded: this would turn %s (%s) into a Bot account for good; Lichess cannot undo it,\n"+
			"and the account must not have played any game. If that is what you want, run again with -confirm:\n"+
			"  ponderosa upgrade -confirm -config %s\n", acct.Username, c.BaseURL(), *path)
		return exitUsage
	}
	if err := c.UpgradeToBot(ctx); err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitFailure
	}
	fmt.Fprintf(e.stdout, "%s is now a Bot account.\n", acct.Username)
	return exitOK
}

// configClient is the set-up the one-shot online commands (upgrade,
// tournament join and withdraw) share: it loads the configuration file at
// path and the token, and makes a Lichess client for them. On failure it
// has told e.stderr why and returns a nil client with the exit code.
func configClient(e env, path string) (*config.Config, *lichess.Client, int) {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "%v\nconfig NOT OK: %s\n", err, path)
		return nil, nil, exitConfig
	}
	token, _, err := config.LoadTokenEnv(cfg, e.getenv)
	if err != nil {
		fmt.Fprintln(e.stderr, "token:", err)
		return nil, nil, exitConfig
	}
	c, err := lichess.New(cfg.Lichess.BaseURL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		lichess.WithUserAgent("ponderosa/"+appVersion()), lichess.WithRequestTimeout(cfg.Lichess.RequestTimeout))
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return nil, nil, exitConfig
	}
	return cfg, c, 0
}
