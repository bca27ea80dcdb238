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
