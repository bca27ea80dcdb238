package config

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// engine.builtin.threads_total: unset (0) means the machine's cores; a
// number is taken as given.
func TestThreadsTotalDefaultsToCores(t *testing.T) {
	d := Default()
	if d.Engine.Builtin.ThreadsTotal != 0 || d.Engine.Builtin.ThreadsTotalOrCores() != runtime.NumCPU() {
		t.Errorf("default threads_total %d (effective %d), want 0 (effective %d, the cores)",
			d.Engine.Builtin.ThreadsTotal, d.Engine.Builtin.ThreadsTotalOrCores(), runtime.NumCPU())
	}
	c, err := Parse([]byte("engine:\n  builtin:\n    threads: 2\n    threads_total: 3\n"), "bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Engine.Builtin.ThreadsTotalOrCores(); got != 3 {
		t.Errorf("threads_total: 3 gives %d", got)
	}
	if s := c.Summary(); !strings.Contains(s, "2 thread(s) per search and 3 in all") {
		t.Errorf("summary lacks the threads:\n%s", s)
	}
}

func TestThreadsTotalValidation(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want string // "" = valid
	}{
		{"threads: 1\n    threads_total: 1", ""},
		{"threads: 2\n    threads_total: 2", ""},
		{"threads: 2\n    threads_total: 0", ""},
		{"threads_total: -1", "engine.builtin.threads_total: must be between 0 and 1024"},
		{"threads_total: 2000", "engine.builtin.threads_total: must be between 0 and 1024"},
		{"threads: 4\n    threads_total: 2", "engine.builtin.threads_total: 2 is below engine.builtin.threads (4)"},
	} {
		_, err := Parse([]byte("engine:\n  builtin:\n    "+tc.yaml+"\n"), "bot.yaml")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

func TestThreadsTotalWarnings(t *testing.T) {
	n := runtime.NumCPU()
	for _, tc := range []struct {
		yaml, want string
	}{
		{fmt.Sprintf("threads_total: %d", n+1), "engine.builtin.threads_total (" + fmt.Sprint(n+1) + ") is more than the"},
		{fmt.Sprintf("threads: %d", n+1), "a search will get at most " + fmt.Sprint(n) + " threads"},
	} {
		c, err := Parse([]byte("engine:\n  builtin:\n    "+tc.yaml+"\n"), "bot.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, tc.want) {
			t.Errorf("%q: warnings lack %q:\n%s", tc.yaml, tc.want, w)
		}
	}
	c, err := Parse([]byte(fmt.Sprintf("engine:\n  builtin:\n    threads: 1\n    threads_total: %d\nchallenge:\n  concurrency: %d\n", n, min(4*n, 64))), "bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.Warnings(), "\n"); strings.Contains(w, "thread") {
		t.Errorf("more games than cores under a threads_total of the cores is shared, not a problem; warned:\n%s", w)
	}
}

// The hash is divided by the games that can hold an engine at once: the
// real-time slots (those reserved for humans are among them) and the
// correspondence slots when correspondence is accepted.
func TestHashPerGame(t *testing.T) {
	for _, tc := range []struct {
		yaml        string
		games, hash int
	}{
		{"engine: {builtin: {hash_mb: 64}}", 1, 64},
		{"engine: {builtin: {hash_mb: 64}}\nchallenge: {concurrency: 4}", 4, 16},
		{"engine: {builtin: {hash_mb: 64}}\nchallenge: {concurrency: 2, games_reserved_for_humans: 1}", 2, 32},
		{"engine: {builtin: {hash_mb: 64}}\nchallenge: {concurrency: 2, speeds: [blitz, correspondence]}\ncorrespondence: {concurrency: 2}", 4, 16},
		{"engine: {builtin: {hash_mb: 60}}\nchallenge: {concurrency: 1, speeds: [correspondence]}", 6, 10},
		{"engine: {builtin: {hash_mb: 64}}\nchallenge: {concurrency: 2}\ncorrespondence: {concurrency: 7}", 2, 32},
		{"engine: {builtin: {hash_mb: 3}}\nchallenge: {concurrency: 4}", 4, 1},
	} {
		c, err := Parse([]byte(tc.yaml+"\n"), "bot.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if g, h := c.GamesAtOnce(), c.HashPerGameMB(); g != tc.games || h != tc.hash {
			t.Errorf("%q: %d games at once, %d MiB each; want %d and %d", tc.yaml, g, h, tc.games, tc.hash)
		}
	}
}
