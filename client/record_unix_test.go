//go:build unix

package client

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// A saved PGN is readable by the bot's group and no one else (0640), in a
// directory made 0750: the admin in the group reads the records of a bot
// running as its own system user.
func TestRecordFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	h := newHarness(t)
	h.addHouse("Alice", houseFirst(2))
	dir := filepath.Join(t.TempDir(), "games")
	_, stop := h.runBot(Settings{PGNDir: dir}, &playerPool{})
	id := h.challenge("Alice", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Color: "black"})
	h.waitOver(id)
	path := filepath.Join(dir, id+".pgn")
	testsupport.WaitFor(t, "record", func() bool { _, err := os.Stat(path); return err == nil })
	stop()
	for p, want := range map[string]os.FileMode{dir: 0o750, path: 0o640} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
	}
}
