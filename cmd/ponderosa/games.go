package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/store"
)

// gamesCmd is `ponderosa games list|pgn`: the game archive of the state
// store, read-only (the bot may be running: WAL lets it write meanwhile).
func gamesCmd(e env, args []string) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: ponderosa games list [flags]   the archived games, newest first")
		fmt.Fprintln(w, "       ponderosa games pgn [flags]    their PGN, oldest first (for any filter)")
		fmt.Fprintln(w, "Run 'ponderosa games list -h' for the flags.")
	}
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "list":
		return gamesListCmd(e, args[1:], false)
	case "pgn":
		return gamesListCmd(e, args[1:], true)
	case "help", "-h", "-help", "--help":
		usage(e.stdout)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "ponderosa games: unknown command %q\n", args[0])
	usage(e.stderr)
	return exitUsage
}

func gamesListCmd(e env, args []string, pgn bool) int {
	name := "games list"
	if pgn {
		name = "games pgn"
	}
	fs := newFlagSet(e, name,
		"usage: ponderosa "+name+" [-state-dir DIR | -config FILE] [-opponent NAME] [-result win|loss|draw|aborted] [-speed SPEED] [-since DATE] [-limit N]",
		"The games of the archive in <state_dir>/"+store.FileName+" (the state directory of -state-dir, else of the",
		"configuration's state_dir, else the default one). Opens the database read-only: the bot may be running.")
	stateDir := fs.String("state-dir", "", "the bot's state directory (default: from the configuration)")
	cfgPath := fs.String("config", defaultConfigPath, "configuration file, for its state_dir (not read when -state-dir is given; a missing default file means the default state directory)")
	opponent := fs.String("opponent", "", "only games against this player (name or id, any case)")
	result := fs.String("result", "", "only games with this result from the bot's side: win, loss, draw or aborted")
	speed := fs.String("speed", "", "only games of this speed: bullet, blitz, rapid, classical, correspondence")
	since := fs.String("since", "", "only games that ended since: a date (2006-01-02, UTC), a time (RFC 3339) or a duration back from now (72h)")
	defLimit := 50
	if pgn {
		defLimit = 0
	}
	limit := fs.Int("limit", defLimit, "the newest N games at most (0: all)")
	if !parseArgs(fs, args) {
		return exitUsage
	}
	f := store.Filter{Opponent: *opponent, Speed: *speed, Limit: *limit}
	switch *result {
	case "", store.ResultWin, store.ResultLoss, store.ResultDraw, store.ResultAborted:
		f.Result = *result
	default:
		fmt.Fprintf(e.stderr, "ponderosa %s: -result %q: want win, loss, draw or aborted\n", name, *result)
		return exitUsage
	}
	if *limit < 0 {
		fmt.Fprintf(e.stderr, "ponderosa %s: -limit %d: want 0 (all) or more\n", name, *limit)
		return exitUsage
	}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(e.stderr, "ponderosa %s: -since: %v\n", name, err)
			return exitUsage
		}
		f.Since = t
	}
	cfgGiven := false
	fs.Visit(func(fl *flag.Flag) { cfgGiven = cfgGiven || fl.Name == "config" })
	dir, err := gamesStateDir(e, *stateDir, *cfgPath, cfgGiven)
	if err != nil {
		fmt.Fprintf(e.stderr, "ponderosa %s: %v\n", name, err)
		return exitConfig
	}
	path := store.Path(dir)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.stderr, "ponderosa %s: no game archive at %s (the bot writes it when it runs with this state directory)\n", name, path)
		return exitFailure
	}
	db, err := store.OpenReadOnly(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "ponderosa %s: %v\n", name, err)
		return exitFailure
	}
	defer db.Close()
	games, err := db.Games(context.Background(), f)
	if err != nil {
		fmt.Fprintf(e.stderr, "ponderosa %s: %v\n", name, err)
		return exitFailure
	}
	if n := spoolCount(filepath.Join(dir, store.SpoolName)); n > 0 {
		fmt.Fprintf(e.stderr, "ponderosa %s: %d records wait in %s (the database was not usable when they came): the bot writes them into it at its next record or start\n",
			name, n, filepath.Join(dir, store.SpoolName))
	}
	if pgn {
		for i := len(games) - 1; i >= 0; i-- { // oldest first, as a PGN file reads
			fmt.Fprint(e.stdout, games[i].PGN)
		}
		return exitOK
	}
	if len(games) == 0 {
		fmt.Fprintln(e.stderr, "no games")
		return exitOK
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ENDED (UTC)\tGAME\tSPEED\tCLOCK\tRATED\tCOLOR\tOPPONENT\tRESULT\tTERMINATION\tPLIES\tRATING")
	for _, g := range games {
		clock := "-"
		if g.Clock {
			clock = fmt.Sprintf("%g+%g", g.ClockInitial.Seconds(), g.ClockIncrement.Seconds())
		}
		rated := "casual"
		if g.Rated {
			rated = "rated"
		}
		opp, oppRating, ourDiff := g.Black, g.BlackRating, g.WhiteRatingDiff
		if g.OurColor == "black" {
			opp, oppRating, ourDiff = g.White, g.WhiteRating, g.BlackRatingDiff
		}
		if oppRating > 0 {
			opp = fmt.Sprintf("%s (%d)", opp, oppRating)
		}
		diff := ""
		if ourDiff != nil {
			diff = fmt.Sprintf("%+d", *ourDiff)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", g.Ended.UTC().Format("2006-01-02 15:04"), g.ID,
			g.Speed, clock, rated, g.OurColor, opp, g.Result, g.Termination, g.MoveCount, diff)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "ponderosa %s: %v\n", name, err)
		return exitFailure
	}
	return exitOK
}

// gamesStateDir is the state directory the games commands read: -state-dir,
// else the configuration's, else (no -config and no config.yaml here) the
// default one.
func gamesStateDir(e env, stateDir, cfgPath string, cfgGiven bool) (string, error) {
	if stateDir != "" {
		return stateDir, nil
	}
	cfg := config.Default()
	if _, err := os.Stat(cfgPath); err == nil || cfgGiven {
		c, err := config.Load(cfgPath)
		if err != nil {
			return "", fmt.Errorf("configuration %s: %w", cfgPath, err)
		}
		cfg = c
	}
	dir, _, err := cfg.ResolveStateDir(e.getenv)
	if err != nil {
		return "", fmt.Errorf("state directory: %w (give -state-dir)", err)
	}
	return dir, nil
}

// parseSince reads -since: a date (UTC), an RFC 3339 time, or a duration
// back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2006-01-02), a time (2006-01-02T15:04:05Z) nor a duration (72h)", s)
}

// spoolCount is the number of records in the spool (0 when there is none).
func spoolCount(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}
