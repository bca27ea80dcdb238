package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runWith runs the program with args and an environment, returning the exit
// code and outputs.
func runWith(t *testing.T, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return environ[k] }}, args)
	return code, stdout.String(), stderr.String()
}

func TestUsage(t *testing.T) {
	if code, _, stderr := runWith(t, nil); code != exitUsage || !strings.Contains(stderr, "check-config") {
		t.Errorf("no command: code %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runWith(t, nil, "frobnicate"); code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: code %d, stderr %q", code, stderr)
	}
	code, stdout, _ := runWith(t, nil, "help")
	if code != 0 {
		t.Errorf("help: code %d", code)
	}
	for _, c := range []string{"run", "demo", "check-config", "upgrade", "version"} {
		if !strings.Contains(stdout, "\n  "+c+" ") {
			t.Errorf("help lacks %q:\n%s", c, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runWith(t, nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "ponderosa dev (go") {
		t.Errorf("version: code %d, %q", code, stdout)
	}
	if code, _, _ := runWith(t, nil, "version", "extra"); code != exitUsage {
		t.Errorf("version with an argument: code %d", code)
	}
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckConfig(t *testing.T) {
	example := filepath.Join("..", "..", "config.example.yaml")
	worldReadable := writeConfig(t, "lip_token")
	if err := os.Chmod(worldReadable, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		environ    map[string]string
		args       []string
		code       int
		stdout     []string
		stderr     []string
		notOutputs []string
	}{
		{
			name:   "example",
			args:   []string{"-config", example},
			code:   0,
			stdout: []string{"config OK: " + example, "built-in, hash 64 MiB", "token:", "not found here", "state dir:   none here (no state directory: set state_dir"},
		},
		{
			name:    "state directory from systemd",
			environ: map[string]string{"STATE_DIRECTORY": "/var/lib/ponderosa", "HOME": "/root"},
			args:    []string{"-config", example},
			code:    0,
			stdout:  []string{"state dir:   /var/lib/ponderosa (from $STATE_DIRECTORY)\n"},
		},
		{
			name:    "state directory from HOME",
			environ: map[string]string{"HOME": "/home/bot"},
			args:    []string{"-config", example},
			code:    0,
			stdout:  []string{"state dir:   /home/bot/.local/state/ponderosa here (from $HOME; under systemd it is $STATE_DIRECTORY)"},
		},
		{
			name:    "state directory from the file",
			environ: map[string]string{"STATE_DIRECTORY": "/var/lib/ponderosa"},
			args:    []string{"-config", writeConfig(t, "state_dir: /srv/bot\n")},
			code:    0,
			stdout:  []string{"state:       /srv/bot\n", "state dir:   /srv/bot (from state_dir)"},
		},
		{
			name:       "token from the environment is found, never shown",
			environ:    map[string]string{"LICHESS_BOT_TOKEN": "lip_visibleSecret"},
			args:       []string{"-config", example},
			code:       0,
			stdout:     []string{"found in $LICHESS_BOT_TOKEN"},
			notOutputs: []string{"lip_visibleSecret"},
		},
		{
			name:   "bad file",
			args:   []string{"-config", writeConfig(t, "challenge:\n  concurrency: 2\n  incremnt: 3\nlog:\n  level: loud\n")},
			code:   exitConfig,
			stderr: []string{`line 3: unknown key "incremnt" in challenge`, `line 5: log.level: "loud" is not one of`, "config NOT OK: 2 problem(s)"},
		},
		{
			name:   "missing file",
			args:   []string{"-config", filepath.Join(t.TempDir(), "none.yaml")},
			code:   exitConfig,
			stderr: []string{"no such file", "config NOT OK"},
		},
		{
			// A problem, reported before any OK: the bot would refuse it.
			name:       "token file open to others",
			args:       []string{"-config", writeConfig(t, "lichess:\n  token_file: "+worldReadable+"\n")},
			code:       exitConfig,
			stderr:     []string{"chmod 600 " + worldReadable, "config NOT OK: the token cannot be used"},
			notOutputs: []string{"config OK"},
		},
		{
			name:   "warnings",
			args:   []string{"-config", writeConfig(t, "challenge:\n  accept: false\n")},
			code:   0,
			stderr: []string{"warning: challenge.accept is false and matchmaking is off"},
		},
		{
			name: "stray argument",
			args: []string{"extra"},
			code: exitUsage,
		},
		{
			name: "bad flag",
			args: []string{"-cfg", "x"},
			code: exitUsage,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWith(t, tt.environ, append([]string{"check-config"}, tt.args...)...)
			if code != exitOK && strings.Contains(stdout, "config OK") {
				t.Errorf("exit code %d after \"config OK\"", code)
			}
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tt.notOutputs {
				if strings.Contains(stdout+stderr, w) {
					t.Errorf("output shows %q", w)
				}
			}
		})
	}
}

// fixtureEngine is a UCI engine with the options of the lichess-bot
// fixture's uci_options, as far as check-config needs one.
const fixtureEngine = `#!/bin/sh
while read -r line; do
  case "$line" in
    uci) printf '%s\n' 'id name Fixture Fish' \
      'option name Threads type spin default 1 min 1 max 64' \
      'option name Hash type spin default 16 min 1 max 4096' \
      'option name Move Overhead type spin default 10 min 0 max 5000' \
      'option name UCI_ShowWDL type check default false' \
      'option name Ponder type check default false' \
      'option name UCI_Chess960 type check default false' uciok ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
  esac
done
`

// TestImportLichessBot imports the lichess-bot fixture of config/lichessbot
// and checks the result with check-config, as an operator would.
func TestImportLichessBot(t *testing.T) {
	dir := t.TempDir()
	fixture, err := os.ReadFile(filepath.Join("..", "..", "config", "lichessbot", "testdata", "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	lbConfig := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(lbConfig, fixture, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "engines"), 0o755); err != nil {
		t.Fatal(err)
	}
	// check-config starts the engine (for UCI_Chess960, as chess960 is
	// accepted) and sets the imported UCI options, which it must have.
	if err := os.WriteFile(filepath.Join(dir, "engines", "stockfish-17"), []byte(fixtureEngine), 0o755); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runWith(t, nil, "import-lichess-bot", lbConfig)
	if code != 0 {
		t.Fatalf("import: code %d\n%s", code, stderr)
	}
	const token = "lip_FixtureTokenNotReal0123"
	if strings.Contains(stdout, token) || strings.Contains(stderr, token) {
		t.Fatal("the token is in the output")
	}
	for _, want := range []string{"challenge.decline_on_full_moon", "LICHESS_BOT_TOKEN", "passes check-config"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
	out := filepath.Join(dir, "ponderosa.yaml")
	if err := os.WriteFile(out, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, checkOut, checkErr := runWith(t, nil, "check-config", "-config", out)
	if code != 0 || !strings.Contains(checkOut, "config OK") {
		t.Errorf("check-config of the imported file: code %d\n%s%s\n%s", code, checkOut, checkErr, stdout)
	}
	// -dir: relative engine paths start from the given directory.
	code, stdout, _ = runWith(t, nil, "import-lichess-bot", "-dir", "/srv/lb", lbConfig)
	if code != exitConfig || !strings.Contains(stdout, "path: /srv/lb/engines/stockfish-17") {
		t.Errorf("-dir: code %d (want %d: no engine there)\n%s", code, exitConfig, stdout)
	}

	// Bad input: an error with its line, nothing on stdout.
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("engine:\n  dir: .\nchallenge:\n  concurrency: lots\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runWith(t, nil, "import-lichess-bot", bad)
	if code != exitConfig || stdout != "" || !strings.Contains(stderr, "line 4: challenge.concurrency: expected a whole number") {
		t.Errorf("bad input: code %d stdout %q stderr %q", code, stdout, stderr)
	}
	if code, _, _ := runWith(t, nil, "import-lichess-bot"); code != exitUsage {
		t.Errorf("no file: code %d, want %d", code, exitUsage)
	}
}
