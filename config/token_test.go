package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is masked by the umask
		t.Fatal(err)
	}
	return path
}

func TestLoadTokenEnv(t *testing.T) {
	const (
		envTok  = "lip_fromEnvironment123"
		credTok = "lip_fromCredential456"
		fileTok = "lip_fromTokenFile789"
	)
	dir := t.TempDir()
	credDir := filepath.Join(dir, "creds")
	writeFile(t, filepath.Join(credDir, "token"), credTok+"\n", 0o400)
	emptyCredDir := filepath.Join(dir, "nocreds")
	if err := os.Mkdir(emptyCredDir, 0o700); err != nil {
		t.Fatal(err)
	}
	goodFile := writeFile(t, filepath.Join(dir, "token"), "  "+fileTok+"\n\n", 0o600)
	readOnlyFile := writeFile(t, filepath.Join(dir, "token-ro"), fileTok, 0o400)
	worldReadable := writeFile(t, filepath.Join(dir, "token-644"), fileTok, 0o644)
	groupReadable := writeFile(t, filepath.Join(dir, "token-640"), fileTok, 0o640)
	emptyFile := writeFile(t, filepath.Join(dir, "token-empty"), "\n", 0o600)
	twoWords := writeFile(t, filepath.Join(dir, "token-two"), fileTok+" "+fileTok, 0o600)
	huge := writeFile(t, filepath.Join(dir, "token-huge"), strings.Repeat("a", 5000), 0o600)

	tests := []struct {
		name       string
		env        map[string]string
		tokenFile  string
		want       string
		wantSource string
		wantErr    string // part of the error
	}{
		{name: "environment first", env: map[string]string{TokenEnv: envTok, "CREDENTIALS_DIRECTORY": credDir}, tokenFile: goodFile, want: envTok, wantSource: "$LICHESS_BOT_TOKEN"},
		{name: "environment trimmed", env: map[string]string{TokenEnv: " " + envTok + "\n"}, want: envTok, wantSource: "$LICHESS_BOT_TOKEN"},
		{name: "credential before file", env: map[string]string{"CREDENTIALS_DIRECTORY": credDir}, tokenFile: goodFile, want: credTok, wantSource: "systemd credential token"},
		{name: "credential without file", env: map[string]string{"CREDENTIALS_DIRECTORY": credDir}, want: credTok, wantSource: "systemd credential token"},
		{name: "credentials dir without token falls through", env: map[string]string{"CREDENTIALS_DIRECTORY": emptyCredDir}, tokenFile: goodFile, want: fileTok, wantSource: goodFile},
		{name: "token file", tokenFile: goodFile, want: fileTok, wantSource: goodFile},
		{name: "read-only token file", tokenFile: readOnlyFile, want: fileTok, wantSource: readOnlyFile},
		{name: "world-readable file refused", tokenFile: worldReadable, wantErr: "may be read by group or others (mode 0644): run chmod 600 " + worldReadable},
		{name: "group-readable file refused", tokenFile: groupReadable, wantErr: "run chmod 600 " + groupReadable},
		{name: "empty file", tokenFile: emptyFile, wantErr: "is empty"},
		{name: "two words", tokenFile: twoWords, wantErr: "must hold only the token"},
		{name: "huge file", tokenFile: huge, wantErr: "too large"},
		{name: "missing file", tokenFile: filepath.Join(dir, "nope"), wantErr: "no such file"},
		{name: "directory", tokenFile: dir, wantErr: "not a regular file"},
		{name: "environment with a space", env: map[string]string{TokenEnv: "lip_a lip_b"}, wantErr: "$LICHESS_BOT_TOKEN holds spaces"},
		{name: "nowhere", wantErr: ErrNoToken.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.Lichess.TokenFile = tt.tokenFile
			tok, src, err := LoadTokenEnv(c, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if tok != "" {
					t.Errorf("token %q returned with an error", tok)
				}
				for _, secret := range []string{envTok, fileTok, credTok, "lip_a", "aaaaaaaaaa"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q shows the token", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadTokenEnv: %v", err)
			}
			if tok != tt.want || src != tt.wantSource {
				t.Errorf("got %q from %q, want %q from %q", tok, src, tt.want, tt.wantSource)
			}
		})
	}
}

func TestLoadTokenNoneIsErrNoToken(t *testing.T) {
	_, _, err := LoadTokenEnv(Default(), func(string) string { return "" })
	if !errors.Is(err, ErrNoToken) {
		t.Errorf("err = %v, want ErrNoToken", err)
	}
}

func TestLoadTokenReadsProcessEnvironment(t *testing.T) {
	t.Setenv(TokenEnv, "lip_processEnv")
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	tok, err := LoadToken(Default())
	if err != nil || tok != "lip_processEnv" {
		t.Errorf("LoadToken = %q, %v", tok, err)
	}
}
