package main

import (
	"fmt"
	"os"
)

// makeStateDir creates the bot's state directory and its missing parents
// (mode 0750; under systemd StateDirectory= has made it already) and checks
// that the bot can write in it, so that a wrong directory stops `ponderosa
// run` at start rather than losing the first game's record.
func makeStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("state directory %s: cannot create it: %w (set state_dir to a directory the bot may write)", dir, err)
	}
	f, err := os.CreateTemp(dir, ".ponderosa-write-check-*")
	if err != nil {
		return fmt.Errorf("state directory %s: cannot write in it: %w (set state_dir to a directory the bot may write, or fix its owner)", dir, err)
	}
	name := f.Name()
	_ = f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("state directory %s: cannot remove the file it just wrote: %w", dir, err)
	}
	return nil
}
