package logging

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLogFileAppendsAndReopens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ponderosa.log")
	if err := os.WriteFile(path, []byte(`{"message":"from before"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lf, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	l := New(Redact(lf, "lip_fileSecret"), "info", FormatAuto)
	l.Info().Str("t", "lip_fileSecret").Msg("first")

	// logrotate renames the file, then the daemon reopens on SIGHUP.
	rotated := path + ".1"
	if err := os.Rename(path, rotated); err != nil {
		t.Fatal(err)
	}
	l.Info().Msg("second") // still to the renamed file
	if err := lf.Reopen(); err != nil {
		t.Fatal(err)
	}
	l.Info().Msg("third")

	old, err := os.ReadFile(rotated)
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, string(old))
	if len(evs) != 3 || evs[0]["message"] != "from before" || evs[1]["message"] != "first" || evs[2]["message"] != "second" {
		t.Errorf("rotated file (appended to, not truncated): %q", old)
	}
	if strings.Contains(string(old), "fileSecret") {
		t.Errorf("token in the log file: %q", old)
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if evs := events(t, string(cur)); len(evs) != 1 || evs[0]["message"] != "third" {
		t.Errorf("new file: %q", cur)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != FileMode {
			t.Errorf("new log file mode %v, want %v", fi.Mode().Perm(), os.FileMode(FileMode))
		}
		// An existing file keeps its mode (logrotate's create chooses it).
		if fi, err := os.Stat(rotated); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("existing file mode %v, %v; want 0600 kept", fi.Mode().Perm(), err)
		}
	}
	if IsTerminal(lf) {
		t.Error("a log file taken for a terminal")
	}
}

func TestLogFileReopenFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "logs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "ponderosa.log")
	lf, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	if err := lf.Reopen(); err == nil {
		t.Fatal("reopen in a directory that is gone succeeded")
	}
	if _, err := lf.Write([]byte("still here\n")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(moved, "ponderosa.log")); err != nil || string(data) != "still here\n" {
		t.Errorf("old file holds %q, %v", data, err)
	}
	if err := lf.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := lf.Write([]byte("x")); err == nil {
		t.Error("write after Close succeeded")
	}
}

func TestOpenFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenFile(filepath.Join(dir, "missing", "ponderosa.log")); err == nil {
		t.Error("a file in a missing directory opened")
	}
	if _, err := OpenFile(dir); err == nil {
		t.Error("a directory opened as a log file")
	}
}
