package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const (
	// TokenEnv is the environment variable that may hold the token.
	TokenEnv = "LICHESS_BOT_TOKEN"
	// CredentialName is the name of the systemd credential holding the token
	// (LoadCredential=token:/etc/ponderosa/token), read from
	// $CREDENTIALS_DIRECTORY/token.
	CredentialName = "token"
	// maxTokenFile is more than any Lichess token needs.
	maxTokenFile = 4096
)

// ErrNoToken is returned when no token was found anywhere.
var ErrNoToken = errors.New("no Lichess token: set " + TokenEnv + ", or set lichess.token_file to a file holding the token (chmod 600), " +
	"or under systemd use LoadCredential=" + CredentialName + ":/etc/ponderosa/token")

// LoadToken finds the bot's Lichess API token: first in $LICHESS_BOT_TOKEN,
// then in the systemd credential $CREDENTIALS_DIRECTORY/token, then in
// lichess.token_file. A token file that group or others may open is refused.
// The token is never part of an error, and never stored in the Config:
// keep it away from loggers (see logging.Redact).
func LoadToken(c *Config) (string, error) {
	tok, _, err := LoadTokenEnv(c, os.Getenv)
	return tok, err
}

// LoadTokenEnv is LoadToken with the environment given by getenv. It also
// says where the token came from (for a log line; the source is safe to log).
func LoadTokenEnv(c *Config, getenv func(string) string) (token, source string, err error) {
	if t := strings.TrimSpace(getenv(TokenEnv)); t != "" {
		if err := checkToken(t); err != nil {
			return "", "", fmt.Errorf("$%s %w", TokenEnv, err)
		}
		return t, "$" + TokenEnv, nil
	}
	if dir := getenv("CREDENTIALS_DIRECTORY"); dir != "" {
		p := filepath.Join(dir, CredentialName)
		t, err := readTokenFile(p, false)
		switch {
		case err == nil:
			return t, "systemd credential " + CredentialName, nil
		case !errors.Is(err, os.ErrNotExist):
			return "", "", err
		}
	}
	if p := c.Lichess.TokenFile; p != "" {
		t, err := readTokenFile(p, true)
		if err != nil {
			return "", "", err
		}
		return t, p, nil
	}
	return "", "", ErrNoToken
}

// readTokenFile reads a token file. checkMode refuses files open to group or
// others (systemd credentials are private by construction).
func readTokenFile(path string, checkMode bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read token file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("token file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); checkMode && perm&0o077 != 0 {
		return "", fmt.Errorf("token file %s may be read by group or others (mode %04o): run chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("read token file %s: %w", path, err)
	}
	if len(data) > maxTokenFile {
		return "", fmt.Errorf("token file %s is too large to hold only a token", path)
	}
	t := strings.TrimSpace(string(data))
	if err := checkToken(t); err != nil {
		return "", fmt.Errorf("token file %s %w", path, err)
	}
	return t, nil
}

// checkToken refuses what cannot be a token, without ever quoting it.
func checkToken(t string) error {
	if t == "" {
		return errors.New("is empty: it must hold the bot's API token")
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c <= ' ' || c >= 0x7f {
			return errors.New("holds spaces, line breaks or other characters a token cannot have: it must hold only the token")
		}
	}
	return nil
}
