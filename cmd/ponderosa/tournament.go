package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/store"
)

// tournamentSettings are the client's arena settings from tournament.join.
func tournamentSettings(cfg *config.Config) client.TournamentSettings {
	var ts client.TournamentSettings
	for _, e := range cfg.Tournament.Join {
		ts.Join = append(ts.Join, client.ArenaEntry{ID: e.ID, Password: e.Password, Team: e.Team})
	}
	ts.StoreEvery = arenaStoreEvery // what `tournament join` tells
	return ts
}

const tournamentUsage = `usage: ponderosa tournament join ID [-password-file F | -password P] [-team T] [-pair] [-config FILE] [-state-dir DIR]
       ponderosa tournament withdraw ID [-config FILE] [-state-dir DIR]

join joins the Lichess arena tournament ID with the bot's token (the token
needs the tournament:write scope) and records it, with its password and
team, in the database of the bot's state directory (ponderosa.db, mode
0640: the bot's user and group read it). The bot plays the arenas recorded
there besides those of tournament.join: a running bot reads the record
within 20 seconds, a stopped one at its next start; it asks to be paired
while it has a free slot, plays its pairings, withdraws when it stops (and
joins again at its next start), and forgets the arena once it is over. With
-pair the join also asks to be paired for the next minute, which only a
running bot can play (a pairing nobody plays is lost and Lichess pauses the
bot). The password (or entry code) is read from -password-file, -password
or $` + arenaPasswordEnv + `. withdraw removes the record, so that a
running bot stops asking there, and leaves the arena before it starts, or
pauses it while it runs. Run both as the bot's user (sudo -u ponderosa
under systemd, with -state-dir /var/lib/ponderosa).

Exit codes: 0 done, 64 bad command line (-h too), 69 Lichess unreachable
(or a server error), 73 the state directory's database cannot be written,
75 rate limited, 77 token without tournament:write or refused, 78 no token,
no state directory or a bad configuration, 1 Lichess refused (its reason is
printed).`

// arenaPasswordEnv may hold the password of `tournament join`, so that it
// need not be on the command line (where other users may see it).
const arenaPasswordEnv = "PONDEROSA_ARENA_PASSWORD"

// tournamentCmd is `ponderosa tournament join|withdraw ID`.
func tournamentCmd(e env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, tournamentUsage)
		return exitUsage
	}
	switch args[0] {
	case "join", "withdraw":
		return tournamentActionCmd(e, args[0], args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(e.stdout, tournamentUsage)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "ponderosa tournament: unknown subcommand %q\n%s\n", args[0], tournamentUsage)
	return exitUsage
}

// tournamentActionCmd joins or withdraws from one arena.
func tournamentActionCmd(e env, action string, args []string) int {
	fs := flag.NewFlagSet("tournament "+action, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprintln(e.stderr, tournamentUsage); fs.PrintDefaults() }
	path := fs.String("config", defaultConfigPath, "the configuration file (for lichess.base_url, the token and state_dir)")
	stateDir := fs.String("state-dir", "", "the bot's state directory, whose database records the arena for the bot (default: state_dir of the configuration, else $STATE_DIRECTORY, $XDG_STATE_HOME/ponderosa or ~/.local/state/ponderosa)")
	var password, passwordFile, team *string
	var pair *bool
	if action == "join" {
		password = fs.String("password", "", "the arena's password or entry code, if it has one (visible to other users of the machine: prefer -password-file or $"+arenaPasswordEnv+")")
		passwordFile = fs.String("password-file", "", "a file holding the arena's password or entry code")
		team = fs.String("team", "", "the team to play for, in a team battle (the id of the team's address)")
		pair = fs.Bool("pair", false, "also ask to be paired for the next minute (only a running bot plays the pairing)")
	}
	// The id may come before the flags or after them.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	rest := fs.Args()
	if id == "" && len(rest) > 0 {
		id, rest = rest[0], rest[1:]
	}
	if id == "" || len(rest) > 0 {
		fs.Usage()
		return exitUsage
	}
	entry := config.ArenaEntry{ID: id}
	if action == "join" {
		pw, err := arenaPassword(*password, *passwordFile, e.getenv)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return exitUsage
		}
		entry.Password, entry.Team = pw, *team
	}
	if err := config.CheckArenaEntry(entry); err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitUsage
	}
	cfg, c, code := configClient(e, *path)
	if c == nil {
		return code
	}
	dir := *stateDir
	if dir == "" {
		d, _, err := cfg.ResolveStateDir(e.getenv)
		if err != nil {
			fmt.Fprintf(e.stderr, "state directory: %v (give -state-dir, the bot's)\n", err)
			return exitConfig
		}
		dir = d
	}
	dbPath := store.Path(dir)
	// The database first: a join that the bot cannot be told of is not
	// sent (nor a withdrawal that a running bot would undo).
	// A withdrawal goes on without the database only when there is none
	// (no bot with this state directory has run): a database that cannot
	// be looked at may record the arena, which a running bot would join
	// again.
	var db *store.DB
	_, statErr := os.Stat(dbPath)
	if action == "withdraw" && statErr != nil && !errors.Is(statErr, os.ErrNotExist) {
		fmt.Fprintf(e.stderr, "cannot read the bot's record of arenas: %v (run this as the bot's user, with its state directory); not withdrawn\n", statErr)
		return exitCantCreat
	}
	if action == "withdraw" && statErr != nil {
		fmt.Fprintf(e.stdout, "No database at %s: if the bot recorded this arena elsewhere (-state-dir), a running bot joins it again.\n", dbPath)
	}
	if action == "join" || statErr == nil {
		if action == "join" {
			if err := makeStateDir(dir); err != nil {
				fmt.Fprintln(e.stderr, err)
				return exitCantCreat
			}
		}
		d, err := store.Open(dbPath, store.Options{})
		if err != nil {
			fmt.Fprintf(e.stderr, "cannot open the bot's record of arenas: %v (run this as the bot's user, with its state directory); not %s\n", err, map[string]string{"join": "joined", "withdraw": "withdrawn"}[action])
			return exitCantCreat
		}
		defer d.Close()
		db = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if action == "join" {
		// What the record may fail on, before Lichess is asked.
		if err := db.CheckArenaWrite(ctx, entry.Password != ""); err != nil {
			fmt.Fprintf(e.stderr, "cannot record the arena for the bot: %v (run this as the bot's user, with its state directory); not joined\n", err)
			return exitCantCreat
		}
	}
	removed := false
	var err error
	if action == "join" {
		err = c.JoinArena(ctx, id, lichess.JoinRequest{Password: entry.Password, Team: entry.Team, PairMeAsap: *pair})
	} else if db != nil {
		if removed, err = db.RemoveArena(ctx, id); err != nil {
			fmt.Fprintf(e.stderr, "cannot remove the arena from the bot's record: %v (run this as the bot's user); not withdrawn\n", err)
			return exitCantCreat
		}
	}
	if action == "withdraw" {
		err = c.WithdrawArena(ctx, id)
		if err != nil && removed {
			fmt.Fprintf(e.stderr, "removed arena %s from the bot's arenas in %s: a running bot withdraws from it within %s\n", id, dbPath, arenaStoreEvery)
		}
	}
	if err != nil {
		return tournamentFailed(e, c, action, err)
	}
	name, state := id, ""
	if a, err := c.ArenaInfo(ctx, id); err == nil {
		name, state = fmt.Sprintf("%s (%s)", id, a.FullName), ", "+a.State()
	}
	if action == "withdraw" {
		fmt.Fprintf(e.stdout, "withdrew from arena %s%s\n", name, state)
		if removed {
			fmt.Fprintf(e.stdout, "Removed it from the bot's arenas in %s: a running bot asks for no more pairings there, and withdraws within %s.\n", dbPath, arenaStoreEvery)
		}
		if listed(cfg, id) {
			fmt.Fprintf(e.stdout, "It is still in tournament.join of %s: a running bot joins it again; take it off the list and reload the bot.\n", *path)
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "joined arena %s%s: %s/tournament/%s\n", name, state, c.BaseURL(), id)
	if *pair {
		fmt.Fprintln(e.stdout, "Asked to be paired for the next minute: only a running bot plays the pairing.")
	}
	if err := db.AddArena(ctx, store.Arena{ID: id, Team: entry.Team, Password: entry.Password}); err != nil {
		fmt.Fprintf(e.stderr, "joined on Lichess, but cannot record the arena for the bot: %v (add it to tournament.join instead, or withdraw)\n", err)
		return exitCantCreat
	}
	kept := ""
	if entry.Password != "" {
		kept = " with its password"
		if m, err := store.FileMode(dbPath); err == nil {
			kept += fmt.Sprintf(" (the file's mode is %04o: keep it closed to others)", m)
		}
	}
	fmt.Fprintf(e.stdout, "Recorded it for the bot in %s%s: the bot plays the arena while it runs (a running bot takes it up within %s, a stopped one at its next start), and forgets it once it is over.\n",
		dbPath, kept, arenaStoreEvery)
	if listed(cfg, id) {
		fmt.Fprintf(e.stdout, "It is also in tournament.join of %s, whose password and team the bot uses for it (not those recorded here).\n", *path)
	}
	return exitOK
}

// arenaStoreEvery is how soon a running bot reads what the commands
// recorded (the daemon's client.TournamentSettings.StoreEvery, set by
// tournamentSettings).
const arenaStoreEvery = 20 * time.Second

// arenaPassword is the password of `tournament join`: of -password-file
// (the file's first line), of -password, or of $PONDEROSA_ARENA_PASSWORD;
// "" for none. Both flags at once are an error.
func arenaPassword(flagValue, file string, getenv func(string) string) (string, error) {
	switch {
	case file != "" && flagValue != "":
		return "", errors.New("give the password with -password-file or with -password, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read the arena's password: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	case flagValue != "":
		return flagValue, nil
	}
	return getenv(arenaPasswordEnv), nil
}

// tournamentFailed reports a refused join or withdrawal and returns its
// exit code: 77 for a token that may not (the tournament:write scope
// missing, or refused), 69 or 75 for a Lichess that may mend, 1 otherwise.
func tournamentFailed(e env, c *lichess.Client, action string, err error) int {
	fmt.Fprintln(e.stderr, err)
	if lichess.StatusCode(err) == http.StatusForbidden {
		fmt.Fprintf(e.stderr, "The token needs the %s scope besides %s: create one at %s\n",
			lichess.ScopeTournamentWrite, lichess.ScopeBotPlay, lichess.TokenCreateURL(c.BaseURL(), lichess.ScopeBotPlay, lichess.ScopeTournamentWrite))
		return exitNoPerm
	}
	if errors.Is(err, lichess.ErrTokenRefused) {
		return exitNoPerm
	}
	if lichess.StatusCode(err) == http.StatusNotFound {
		fmt.Fprintf(e.stderr, "No arena tournament has that id (Swiss tournaments cannot be joined with %s).\n", action)
	}
	return exitCode(classifyLichess(err))
}

// errTournamentScope marks a token without the tournament:write scope
// when tournament.join lists arenas (check-config -online: exit 77).
var errTournamentScope = fmt.Errorf("lacks the %s scope that tournament.join needs (%w)", lichess.ScopeTournamentWrite, lichess.ErrMissingScope)

// tournamentScope checks, when tournament.join lists arenas, that the
// token's scopes include tournament:write.
func tournamentScope(cfg *config.Config, c *lichess.Client, scopes []string) error {
	if len(cfg.Tournament.Join) == 0 || slices.Contains(scopes, lichess.ScopeTournamentWrite) {
		return nil
	}
	return fmt.Errorf("the token %w: create one with bot:play and tournament:write at %s",
		errTournamentScope, lichess.TokenCreateURL(c.BaseURL(), lichess.ScopeBotPlay, lichess.ScopeTournamentWrite))
}

// errArenaUnplayable marks an arena of tournament.join whose games the bot
// does not play (check-config -online: exit 78).
var errArenaUnplayable = errors.New("tournament.join lists an arena whose games the bot does not play")

// checkArenas asks Lichess about each arena of tournament.join (for
// check-config -online): one whose variant or speed the bot would not
// play (client.ArenaVerdict, the daemon's own check: challenge.variants,
// challenge.speeds) is a configuration error; one Lichess does not know,
// or that is over, is a warning (the daemon leaves it alone); one Lichess
// cannot tell about now is a warning too.
func checkArenas(ctx context.Context, cfg *config.Config, c *lichess.Client) ([]string, error) {
	if len(cfg.Tournament.Join) == 0 {
		return nil, nil
	}
	policy := settingsFromConfig(cfg, "").Challenge
	var warnings, bad []string
	for i, e := range cfg.Tournament.Join {
		k := fmt.Sprintf("tournament.join[%d] %s", i, e.ID)
		a, err := c.ArenaInfo(ctx, e.ID)
		switch {
		case lichess.StatusCode(err) == http.StatusNotFound:
			warnings = append(warnings, k+": Lichess knows no such arena (Swiss tournaments are not supported): the bot will not join it")
			continue
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("%s: cannot ask Lichess about it now: %v", k, err))
			continue
		case a.State() == lichess.ArenaFinished:
			warnings = append(warnings, fmt.Sprintf("%s (%s) is over: the bot will not join it", k, a.FullName))
			continue
		}
		if variant, speed, rule := client.ArenaVerdict(policy, a); rule != "" {
			bad = append(bad, fmt.Sprintf("%s (%s): a %s %s arena, whose games the bot does not play: %s", k, a.FullName, variant, speed, rule))
		}
	}
	if len(bad) > 0 {
		return warnings, configError{fmt.Errorf("%w:\n%s\n(arena games come without a challenge to decline: add the variant to challenge.variants, with an engine that plays it, and the speed to challenge.speeds, or remove the arena)",
			errArenaUnplayable, strings.Join(bad, "\n"))}
	}
	return warnings, nil
}

// listed reports whether arena id is in tournament.join.
func listed(cfg *config.Config, id string) bool {
	for _, e := range cfg.Tournament.Join {
		if e.ID == id {
			return true
		}
	}
	return false
}
