package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogFileKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		want       string // "" valid; else in the error
		resolved   string // for a valid one: the path after Load
	}{
		{"absolute, in a directory that exists", filepath.Join(dir, "logs", "bot.log"), "", filepath.Join(dir, "logs", "bot.log")},
		{"relative: from the config file's directory", "logs/bot.log", "", filepath.Join(dir, "logs", "bot.log")},
		{"an existing file", filepath.Join(dir, "plain"), "", filepath.Join(dir, "plain")},
		{"directory missing", filepath.Join(dir, "nowhere", "bot.log"),
			`line 5: log.file: the directory "` + filepath.Join(dir, "nowhere") + `" does not exist: create it`, ""},
		{"relative, directory missing", "var/bot.log",
			`line 5: log.file: the directory "` + filepath.Join(dir, "var") + `" does not exist`, ""},
		{"a directory", filepath.Join(dir, "logs"),
			`line 5: log.file: "` + filepath.Join(dir, "logs") + `" is a directory: name a file in it`, ""},
		{"under a file", filepath.Join(dir, "plain", "bot.log"),
			`line 5: log.file: "` + filepath.Join(dir, "plain") + `" is not a directory`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "bot.yaml")
			src := "log:\n  level: info\n  format: json\n\n  file: " + tt.file + "\n"
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if c.Log.File != tt.resolved {
					t.Errorf("log.file = %q, want %q", c.Log.File, tt.resolved)
				}
				if !strings.Contains(c.Summary(), "to file "+tt.resolved) {
					t.Errorf("summary does not name the file:\n%s", c.Summary())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
	if c := Default(); c.Log.File != "" || !strings.Contains(c.Summary(), "to stderr") {
		t.Errorf("default log.file %q; summary:\n%s", c.Log.File, c.Summary())
	}
}
