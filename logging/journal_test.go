//go:build unix

package logging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// journalStream returns $JOURNAL_STREAM as systemd would set it for f.
func journalStream(t *testing.T, f *os.File) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// logEveryLevel logs one line per level through New, as the daemon builds
// its logger (a Redactor over the output, WithGetenv), and returns the
// lines written to f.
func logEveryLevel(t *testing.T, f *os.File, format string, getenv func(string) string) []string {
	t.Helper()
	red := Redact(f)
	l := New(red, "trace", format, WithGetenv(getenv))
	red.Add("lip_journalSecret")
	l.Trace().Msg("a trace")
	l.Debug().Msg("a debug")
	l.Info().Msg("an info")
	l.Warn().Msg("a warning")
	l.Error().Str("token", "lip_journalSecret").Msg("an error")
	l.Log().Msg("no level")
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestJournalPriorityPrefix(t *testing.T) {
	for _, format := range []string{FormatAuto, FormatJSON, FormatConsole} {
		t.Run(format, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lines := logEveryLevel(t, f, format, env(map[string]string{EnvJournalStream: journalStream(t, f)}))
			want := []struct{ prefix, msg string }{
				{"<7>", "a trace"}, {"<7>", "a debug"}, {"<6>", "an info"},
				{"<4>", "a warning"}, {"<3>", "an error"}, {"<6>", "no level"},
			}
			if len(lines) != len(want) {
				t.Fatalf("%d lines, want %d: %q", len(lines), len(want), lines)
			}
			for i, w := range want {
				line := lines[i]
				rest, ok := strings.CutPrefix(line, w.prefix)
				if !ok || !strings.Contains(rest, w.msg) {
					t.Errorf("line %d = %q, want %s then %q", i, line, w.prefix, w.msg)
					continue
				}
				if strings.HasPrefix(rest, "<") {
					t.Errorf("line %d has two prefixes: %q", i, line)
				}
				if format != FormatConsole {
					// journalctl -o cat | jq reads what follows the prefix.
					var ev map[string]any
					if err := json.Unmarshal([]byte(rest), &ev); err != nil {
						t.Errorf("line %d after the prefix is not JSON: %q (%v)", i, rest, err)
					}
				}
			}
			if out := strings.Join(lines, "\n"); strings.Contains(out, "journalSecret") {
				t.Errorf("the token got through: %q", out)
			}
		})
	}
}

func TestNoJournalPrefixOffTheJournal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other, err := os.Create(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for name, getenv := range map[string]func(string) string{
		"unset":           env(nil),
		"another file":    env(map[string]string{EnvJournalStream: journalStream(t, other)}),
		"malformed":       env(map[string]string{EnvJournalStream: "journal"}),
		"no WithGetenv":   nil,
		"half the number": env(map[string]string{EnvJournalStream: strings.Split(journalStream(t, f), ":")[0] + ":"}),
	} {
		if err := f.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		for i, line := range logEveryLevel(t, f, FormatJSON, getenv) {
			if strings.HasPrefix(line, "<") || !strings.HasPrefix(line, "{") {
				t.Errorf("%s: line %d = %q, want plain JSON", name, i, line)
			}
		}
	}
	// A writer without a file descriptor is never the journal.
	if OnJournal(&bytes.Buffer{}, env(map[string]string{EnvJournalStream: journalStream(t, f)})) {
		t.Error("a buffer is taken for the journal")
	}
}

// A log file is not the journal even under systemd: its lines carry no
// prefix.
func TestLogFileUnderSystemdHasNoPrefix(t *testing.T) {
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	path := filepath.Join(t.TempDir(), "ponderosa.log")
	lf, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	l := New(Redact(lf), "info", FormatAuto, WithGetenv(env(map[string]string{EnvJournalStream: journalStream(t, stderr)})))
	l.Warn().Msg("to the file")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if evs := events(t, string(data)); len(evs) != 1 || evs[0]["level"] != "warn" {
		t.Errorf("file holds %q", data)
	}
}
