package config

import (
	"errors"
	"path/filepath"
	"strings"
)

// stateDirName is the bot's folder in the user's XDG state directory.
const stateDirName = "ponderosa"

// Where a state directory came from, as ResolveStateDir says.
const (
	StateFromConfig  = "state_dir"
	StateFromSystemd = "$STATE_DIRECTORY"
	StateFromXDG     = "$XDG_STATE_HOME"
	StateFromHome    = "$HOME"
)

// ErrNoStateDir is returned by ResolveStateDir when state_dir is not set
// and the environment names no directory to default to.
var ErrNoStateDir = errors.New("no state directory: set state_dir, or set $XDG_STATE_HOME or $HOME to an absolute path " +
	"(under systemd, StateDirectory= sets $STATE_DIRECTORY)")

// ResolveStateDir returns the bot's state directory, under which every file
// the bot keeps between runs lives, and where it came from (one of the
// StateFrom constants, safe to log). state_dir, when set, wins (Load has
// made a relative one absolute). Otherwise the environment, looked up with
// getenv (os.Getenv in the program), gives the default, in this order:
//
//   - $STATE_DIRECTORY, set by systemd for a unit with StateDirectory=
//     (the first directory when it lists several, separated by ":");
//   - $XDG_STATE_HOME/ponderosa;
//   - $HOME/.local/state/ponderosa.
//
// A variable that is empty or holds a relative path is skipped (as the XDG
// Base Directory specification asks). ResolveStateDir neither looks at nor
// changes the file system: `ponderosa run` creates the directory.
func (c *Config) ResolveStateDir(getenv func(string) string) (dir, from string, err error) {
	if c.StateDir != "" {
		return filepath.Clean(c.StateDir), StateFromConfig, nil
	}
	return defaultStateDir(getenv)
}

// defaultStateDir is the state directory when state_dir is not set; a pure
// function of the environment.
func defaultStateDir(getenv func(string) string) (dir, from string, err error) {
	first, _, _ := strings.Cut(getenv("STATE_DIRECTORY"), ":")
	if filepath.IsAbs(first) {
		return filepath.Clean(first), StateFromSystemd, nil
	}
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, stateDirName), StateFromXDG, nil
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", stateDirName), StateFromHome, nil
	}
	return "", "", ErrNoStateDir
}

// ResolvePGNDir returns where finished games are saved, given the state
// directory in use (from ResolveStateDir): "" when game.pgn_dir is empty
// (no PGN is saved), game.pgn_dir itself when it is absolute, else
// game.pgn_dir under stateDir.
func (c *Config) ResolvePGNDir(stateDir string) string {
	p := c.Game.PGNDir
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(stateDir, p)
}
