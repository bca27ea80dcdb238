package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/config/lichessbot"
)

// importLichessBotCmd translates a lichess-bot config.yml: the ponderosa
// YAML goes to stdout, the report (token hand-over, every setting not
// carried over as it was, the check-config result) to stderr. It exits 0
// when the result passes check-config's checks of the file, 1 when the
// lichess-bot file cannot be read (nothing on stdout) or the result does
// not pass yet (the YAML is still written, for the operator to fix).
func importLichessBotCmd(e env, args []string) int {
	fs := newFlagSet(e, "import-lichess-bot",
		"usage: ponderosa import-lichess-bot [-dir DIR] config.yml > config.yaml",
		"",
		"Translates a lichess-bot configuration into ponderosa's. The YAML goes to standard",
		"output; a report of every setting not carried over as it was, and how to hand",
		"over the token (never copied), goes to standard error.",
		"",
	)
	dir := fs.String("dir", "", "the directory lichess-bot ran in, which its relative engine paths start from (default: the config file's directory)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "import-lichess-bot: %v\n", err)
		return exitConfig
	}
	base := *dir
	if base == "" {
		base = filepath.Dir(path)
	}
	if base, err = filepath.Abs(base); err != nil {
		fmt.Fprintf(e.stderr, "import-lichess-bot: resolve -dir: %v\n", err)
		return exitUsage
	}
	res, err := lichessbot.Import(data, path, lichessbot.Options{Dir: base})
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		var probs config.Errors
		if errors.As(err, &probs) {
			fmt.Fprintf(e.stderr, "import-lichess-bot: %s cannot be imported: %d problem(s); nothing written\n", path, len(probs))
		}
		return exitConfig
	}
	if _, err := e.stdout.Write(res.YAML); err != nil {
		fmt.Fprintf(e.stderr, "import-lichess-bot: write the configuration: %v\n", err)
		return exitFailure
	}
	if err := res.WriteReport(e.stderr, path); err != nil {
		return exitFailure
	}
	if len(res.Problems) > 0 {
		return exitConfig // written, but check-config would refuse it
	}
	return exitOK
}
