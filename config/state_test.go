package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envOf is a getenv over a map, so that no test touches the process
// environment.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveStateDir(t *testing.T) {
	tests := []struct {
		name     string
		stateDir string // the state_dir key
		env      map[string]string
		want     string
		from     string
	}{
		{"systemd wins over XDG and HOME", "", map[string]string{
			"STATE_DIRECTORY": "/var/lib/ponderosa", "XDG_STATE_HOME": "/home/u/.state", "HOME": "/home/u"},
			"/var/lib/ponderosa", StateFromSystemd},
		{"systemd with several directories: the first", "", map[string]string{
			"STATE_DIRECTORY": "/var/lib/ponderosa/mybot:/var/lib/other"},
			"/var/lib/ponderosa/mybot", StateFromSystemd},
		{"XDG_STATE_HOME", "", map[string]string{"XDG_STATE_HOME": "/home/u/.state", "HOME": "/home/u"},
			"/home/u/.state/ponderosa", StateFromXDG},
		{"HOME only", "", map[string]string{"HOME": "/home/u"},
			"/home/u/.local/state/ponderosa", StateFromHome},
		{"relative XDG_STATE_HOME is skipped", "", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"},
			"/home/u/.local/state/ponderosa", StateFromHome},
		{"relative STATE_DIRECTORY is skipped", "", map[string]string{"STATE_DIRECTORY": "ponderosa", "XDG_STATE_HOME": "/x"},
			"/x/ponderosa", StateFromXDG},
		{"state_dir wins over the environment", "/srv/bot", map[string]string{
			"STATE_DIRECTORY": "/var/lib/ponderosa", "HOME": "/home/u"},
			"/srv/bot", StateFromConfig},
		{"state_dir is cleaned", "/srv/bot/", nil, "/srv/bot", StateFromConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.StateDir = tt.stateDir
			dir, from, err := c.ResolveStateDir(envOf(tt.env))
			if err != nil || dir != tt.want || from != tt.from {
				t.Errorf("ResolveStateDir = %q, %q, %v; want %q, %q", dir, from, err, tt.want, tt.from)
			}
		})
	}
}

func TestResolveStateDirWithoutEnvironment(t *testing.T) {
	for _, env := range []map[string]string{nil, {"HOME": "relative", "XDG_STATE_HOME": "also/relative", "STATE_DIRECTORY": ":"}} {
		dir, _, err := Default().ResolveStateDir(envOf(env))
		if !errors.Is(err, ErrNoStateDir) || dir != "" {
			t.Errorf("env %v: ResolveStateDir = %q, %v; want ErrNoStateDir", env, dir, err)
		}
	}
	if !strings.Contains(ErrNoStateDir.Error(), "set state_dir") {
		t.Errorf("ErrNoStateDir does not say what to do: %v", ErrNoStateDir)
	}
}

// A relative state_dir is taken from the config file's directory, as
// token_file is; the default stays "" in the Config (it depends on the
// environment, which Load does not read).
func TestLoadStateDir(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ src, want string }{
		{"", ""},
		{"state_dir: state\n", filepath.Join(dir, "state")},
		{"state_dir: ../elsewhere\n", filepath.Join(filepath.Dir(dir), "elsewhere")},
		{"state_dir: /srv/ponderosa\n", "/srv/ponderosa"},
	} {
		p := filepath.Join(dir, "bot.yaml")
		if err := os.WriteFile(p, []byte(tt.src), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if c.StateDir != tt.want {
			t.Errorf("%q: state_dir = %q, want %q", tt.src, c.StateDir, tt.want)
		}
	}
	// Parse has no file directory: a relative state_dir stays as written.
	c, err := Parse([]byte("state_dir: state\n"), "x.yaml")
	if err != nil || c.StateDir != "state" {
		t.Errorf("Parse: state_dir %q, %v", c.StateDir, err)
	}
}

func TestResolvePGNDir(t *testing.T) {
	for _, tt := range []struct{ pgnDir, want string }{
		{"", ""}, // no PGN saved, whatever the state directory
		{"games", "/var/lib/ponderosa/games"},
		{"a/b", "/var/lib/ponderosa/a/b"},
		{"/srv/pgn", "/srv/pgn"},
	} {
		c := Default()
		c.Game.PGNDir = tt.pgnDir
		if got := c.ResolvePGNDir("/var/lib/ponderosa"); got != tt.want {
			t.Errorf("pgn_dir %q: ResolvePGNDir = %q, want %q", tt.pgnDir, got, tt.want)
		}
	}
}

func TestStateDirThatIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	probs := problemsOf(t, "log:\n  level: info\nstate_dir: "+file+"\n")
	if len(probs) != 1 || probs[0].Key != "state_dir" || probs[0].Line != 3 || !strings.Contains(probs[0].Msg, "is a file, not a directory") {
		t.Errorf("problems = %v", probs)
	}
	// A relative pgn_dir naming a file under state_dir is found too.
	dir := filepath.Dir(file)
	probs = problemsOf(t, "state_dir: "+dir+"\ngame:\n  pgn_dir: file\n")
	if len(probs) != 1 || probs[0].Key != "game.pgn_dir" || !strings.Contains(probs[0].Msg, file) {
		t.Errorf("problems = %v", probs)
	}
	// A directory is fine, and so is one that does not exist yet.
	for _, d := range []string{dir, filepath.Join(dir, "new")} {
		if _, err := Parse([]byte("state_dir: "+d+"\n"), "x.yaml"); err != nil {
			t.Errorf("state_dir %s: %v", d, err)
		}
	}
}

// A config that used a relative pgn_dir before state_dir existed is told
// where its old games are.
func TestWarningRelativePGNDirMoved(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "games"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(p, []byte("state_dir: /nonexistent/state\ngame:\n  pgn_dir: games\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(c.Warnings(), "\n")
	if !strings.Contains(w, "is now taken under state_dir") || !strings.Contains(w, filepath.Join(dir, "games")) {
		t.Errorf("warnings = %q", w)
	}
	// No such warning when the config names the state directory itself.
	if err := os.WriteFile(p, []byte("state_dir: .\ngame:\n  pgn_dir: games\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(p); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.Warnings(), "\n"); strings.Contains(w, "is now taken under state_dir") {
		t.Errorf("warning for a pgn_dir that did not move: %q", w)
	}
}

func TestSummaryStateDir(t *testing.T) {
	c := Default()
	if s := c.Summary(); !strings.Contains(s, "state:") || !strings.Contains(s, "$STATE_DIRECTORY under systemd") || !strings.Contains(s, "PGN not saved") {
		t.Errorf("Summary of the defaults:\n%s", s)
	}
	c.StateDir = "/srv/bot"
	c.Game.PGNDir = "games"
	if s := c.Summary(); !strings.Contains(s, "state:       /srv/bot\n") || !strings.Contains(s, "PGN saved in /srv/bot/games") {
		t.Errorf("Summary with state_dir:\n%s", s)
	}
	c.StateDir = ""
	if s := c.Summary(); !strings.Contains(s, "PGN saved in games under the state directory") {
		t.Errorf("Summary with the default state_dir:\n%s", s)
	}
}
