//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// journalStreamOf is $JOURNAL_STREAM as systemd sets it when f is the
// journal stream.
func journalStreamOf(t *testing.T, f *os.File) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
}

// readLines returns the lines of file p.
func readLines(t *testing.T, p string) []string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// waitFileSays waits until file p holds s.
func (r *runEnv) waitFileSays(p, s string) {
	r.t.Helper()
	for {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), s) {
			return
		}
		select {
		case <-r.ctx.Done():
			data, _ := os.ReadFile(p)
			r.t.Fatalf("%s never said %q:\n%s", p, s, data)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Under systemd (stderr is the journal stream JOURNAL_STREAM names) every
// line of the daemon starts with the journald priority of its level.
func TestRunDaemonJournalPriority(t *testing.T) {
	r := newRunEnv(t, true)
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	r.logOut = stderr
	r.start(map[string]string{"LICHESS_BOT_TOKEN": runBotToken, "JOURNAL_STREAM": journalStreamOf(t, stderr)})
	// A broken reload logs an error; a good one info lines.
	if err := os.WriteFile(r.cfgPath, []byte(runConfig(t, r.srv.URL(), "challenge:\n  concurency: 2\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sigs <- syscall.SIGHUP
	if err := <-r.reloads; err == nil {
		t.Fatal("a broken configuration reloaded")
	}
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatalf("runDaemon: %v", err)
	}

	wantPrio := map[string]string{"trace": "<7>", "debug": "<7>", "info": "<6>", "warn": "<4>", "error": "<3>"}
	seen := map[string]bool{}
	lines := readLines(t, stderr.Name())
	for i, line := range lines {
		prefix, rest, ok := strings.Cut(line, ">")
		if !ok || !strings.HasPrefix(line, "<") {
			t.Errorf("line %d has no priority: %q", i, line)
			continue
		}
		prefix += ">"
		var ev struct {
			Level   string `json:"level"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(rest), &ev); err != nil {
			t.Errorf("line %d is not JSON after its prefix: %q (%v)", i, line, err)
			continue
		}
		if want := wantPrio[ev.Level]; prefix != want {
			t.Errorf("line %d: level %s with prefix %s, want %s: %q", i, ev.Level, prefix, want, line)
		}
		seen[prefix] = true
		if ev.Message == "ponderosa starting" && !strings.Contains(rest, `"journal":true`) {
			t.Errorf("start line does not say it writes to the journal: %q", line)
		}
	}
	for _, p := range []string{"<6>", "<3>"} {
		if !seen[p] {
			t.Errorf("no line with priority %s among %d lines", p, len(lines))
		}
	}
	if r.logs.String() != "" {
		t.Errorf("the test's buffer got lines: %s", r.logs)
	}
}

// log.file: the log goes to the file (0640, no journald prefix even under
// systemd); SIGHUP reopens it, so that after logrotate renamed it the next
// lines go to a new file of that name.
func TestRunDaemonLogFileReopenedOnSIGHUP(t *testing.T) {
	r := newRunEnv(t, true)
	logPath := filepath.Join(t.TempDir(), "ponderosa.log")
	cfg := strings.Replace(runConfig(t, r.srv.URL(), ""), "  format: json\n", "  format: json\n  file: "+logPath+"\n", 1)
	if err := os.WriteFile(r.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	r.logOut = stderr
	r.start(map[string]string{"LICHESS_BOT_TOKEN": runBotToken, "JOURNAL_STREAM": journalStreamOf(t, stderr)})
	r.waitFileSays(logPath, "ready: event stream open")
	if fi, err := os.Stat(logPath); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("log file: %v, %v; want mode 0640", fi, err)
	}

	rotated := logPath + ".1"
	if err := os.Rename(logPath, rotated); err != nil {
		t.Fatal(err)
	}
	r.sigs <- syscall.SIGHUP
	if err := <-r.reloads; err != nil {
		t.Fatalf("reload: %v", err)
	}
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatalf("runDaemon: %v", err)
	}

	old := strings.Join(readLines(t, rotated), "\n")
	cur := strings.Join(readLines(t, logPath), "\n")
	for _, want := range []string{"ponderosa starting", "ready: event stream open"} {
		if !strings.Contains(old, want) {
			t.Errorf("rotated file lacks %q:\n%s", want, old)
		}
	}
	for _, want := range []string{"log file reopened", "configuration reloaded", "ponderosa stopped"} {
		if !strings.Contains(cur, want) {
			t.Errorf("new file lacks %q:\n%s", want, cur)
		}
		if strings.Contains(old, want) {
			t.Errorf("rotated file has %q, written after the reopen", want)
		}
	}
	for name, text := range map[string]string{"rotated": old, "new": cur} {
		for i, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "{") {
				t.Errorf("%s file line %d is not plain JSON: %q", name, i, line)
			}
		}
		if strings.Contains(text, runBotToken) {
			t.Errorf("the token is in the %s log file", name)
		}
	}
	if data, _ := os.ReadFile(stderr.Name()); len(data) != 0 {
		t.Errorf("stderr got lines though log.file is set: %s", data)
	}
}

// A log file that passes validation but cannot be opened stops the
// daemon at start, naming the key.
func TestRunDaemonLogFileUnwritable(t *testing.T) {
	r := newRunEnv(t, true)
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 { // root writes anywhere, but not into /proc
		dir = "/proc/self"
		if _, err := os.Stat(dir); err != nil {
			t.Skip("running as root without /proc")
		}
	}
	cfg := strings.Replace(runConfig(t, r.srv.URL(), ""), "  format: json\n", "  format: json\n  file: "+filepath.Join(dir, "bot.log")+"\n", 1)
	if err := os.WriteFile(r.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runDaemon(r.ctx, daemonOpts{configPath: r.cfgPath, getenv: func(string) string { return runBotToken }, logOut: r.logs, signals: r.sigs})
	if err == nil || !strings.Contains(err.Error(), "log.file: log file: open "+filepath.Join(dir, "bot.log")) {
		t.Errorf("runDaemon = %v, want a log.file error", err)
	}
}

// The error that ends the daemon after its logger exists (here the token
// refused at start) goes into log.file at error level, not only to stderr.
func TestRunDaemonErrorInLogFile(t *testing.T) {
	r := newRunEnv(t, true)
	logPath := filepath.Join(t.TempDir(), "ponderosa.log")
	cfg := strings.Replace(runConfig(t, r.srv.URL(), ""), "  format: json\n", "  format: json\n  file: "+logPath+"\n", 1)
	if err := os.WriteFile(r.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runDaemon(r.ctx, daemonOpts{configPath: r.cfgPath, getenv: func(k string) string {
		if k == "LICHESS_BOT_TOKEN" {
			return "lip_not-a-token-the-server-knows"
		}
		return ""
	}, logOut: r.logs, signals: r.sigs})
	if exitCode(err) != exitNoPerm {
		t.Fatalf("runDaemon = %v (exit %d), want a refused token (%d)", err, exitCode(err), exitNoPerm)
	}
	var found bool
	for _, line := range readLines(t, logPath) {
		var ev struct{ Level, Message, Error string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Message == "ponderosa run stopped" {
			found = ev.Level == "error" && ev.Error == err.Error()
		}
	}
	if !found {
		t.Errorf("log file lacks the stopping error at error level:\n%s", strings.Join(readLines(t, logPath), "\n"))
	}
}

// Under journald every line of the error that ends `ponderosa run` has
// the error priority, so that `journalctl -p err` shows it whole.
func TestErrorLines(t *testing.T) {
	msg := "ponderosa run: configuration config.yaml:\nline 3: unknown key \"foo\"\nline 9: bad value"
	if got, want := errorLines(msg, false), msg+"\n"; got != want {
		t.Errorf("off the journal: %q, want %q", got, want)
	}
	got := errorLines(msg, true)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("on the journal: %q, want 3 lines", got)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "<3>") {
			t.Errorf("line %q lacks the error priority", l)
		}
	}
}
