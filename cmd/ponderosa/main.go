// Command ponderosa is a Lichess bot with its own chess engine.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// defaultConfigPath is the -config flag's default.
const defaultConfigPath = "config.yaml"

// env is what a subcommand gets from the process, so that tests can give
// their own.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// commands lists the subcommands for the usage text, in order.
var commands = []struct{ name, summary string }{
	{"run", "play on Lichess as a bot (the daemon)"},
	{"demo", "play a game between two local bots over HTTP, no network needed"},
	{"check-config", "check a configuration file and summarize it"},
	{"import-lichess-bot", "translate a lichess-bot config.yml into ponderosa's YAML (on stdout)"},
	{"upgrade", "turn the Lichess account into a Bot account (irreversible)"},
	{"tournament", "Lichess arena tournaments: tournament join ID, tournament withdraw ID"},
	{"version", "print the version"},
	{"uci", "speak UCI on stdin/stdout with the built-in engine"},
	{"bench", "run the engine benchmark: bench [-eval classical|nnue|both] [-evalfile FILE] [depth]"},
	{"book", "Polyglot opening books: book make (from PGN games), book show (a position's entries)"},
	{"games", "the game archive: games list (filter by opponent, result, speed, date), games pgn (export)"},
}

func main() {
	os.Exit(run(env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:]))
}

// run dispatches to one function per subcommand and returns the exit code
// (exitcodes.go: 0 success, 64 bad usage, 78 configuration error, ...).
func run(e env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return runCmd(e, rest)
	case "demo":
		return demoCmd(e, rest)
	case "check-config":
		return checkConfigCmd(e, rest)
	case "import-lichess-bot":
		return importLichessBotCmd(e, rest)
	case "upgrade":
		return upgradeCmd(e, rest)
	case "tournament":
		return tournamentCmd(e, rest)
	case "version":
		return versionCmd(e, rest)
	case "uci":
		return uciCmd(e, rest, os.Stdin)
	case "bench":
		return benchCmd(e, rest)
	case "book":
		return bookCmd(e, rest)
	case "games":
		return gamesCmd(e, rest)
	case "help", "-h", "-help", "--help":
		usage(e.stdout)
		return exitOK
	default:
		fmt.Fprintf(e.stderr, "ponderosa: unknown command %q\n", cmd)
		usage(e.stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ponderosa <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'ponderosa <command> -h' for the flags of a command.")
}

// newFlagSet is a subcommand's flag set: errors go to e.stderr, and its
// usage prints usage (a usage line, then any explanation), then the flags.
func newFlagSet(e env, name string, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(e.stderr, l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses a subcommand's arguments. It is false (exit status
// exitUsage) on a bad flag or a stray argument, or for -h, after the usage
// has been printed.
func parseArgs(fs *flag.FlagSet, args []string) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return false
	}
	return true
}
