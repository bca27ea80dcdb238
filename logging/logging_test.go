package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// events decodes JSON lines, failing when a line is not JSON.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestFormatByTerminal(t *testing.T) {
	tests := []struct {
		format   string
		terminal bool
		json     bool
		color    bool
	}{
		{FormatAuto, false, true, false},
		{FormatAuto, true, false, true},
		{FormatJSON, true, true, false},
		{FormatConsole, false, false, false},
		{FormatConsole, true, false, true},
		{"", false, true, false}, // unknown: auto
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		l := newLogger(&buf, "info", tt.format, tt.terminal, false)
		l.Info().Str("k", "v").Msg("hello")
		out := buf.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last := lines[len(lines)-1]
		var ev map[string]any
		isJSON := json.Unmarshal([]byte(last), &ev) == nil
		if isJSON != tt.json {
			t.Errorf("format %q terminal %v: JSON = %v, want %v: %q", tt.format, tt.terminal, isJSON, tt.json, out)
			continue
		}
		if isJSON {
			if ev["message"] != "hello" || ev["level"] != "info" || ev["k"] != "v" || ev["time"] == nil {
				t.Errorf("format %q: event %v", tt.format, ev)
			}
		} else if !strings.Contains(last, "hello") || !strings.Contains(last, "INF") || !strings.Contains(last, "k=") {
			t.Errorf("format %q: console line %q", tt.format, last)
		}
		if hasColor := strings.Contains(out, "\x1b["); hasColor != tt.color {
			t.Errorf("format %q terminal %v: color = %v, want %v", tt.format, tt.terminal, hasColor, tt.color)
		}
	}
}

func TestNewOnAFileIsJSON(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(Redact(f)) || IsTerminal(&bytes.Buffer{}) {
		t.Fatal("a file or a buffer is taken for a terminal")
	}
	l := New(Redact(f, "s3cret-token"), "info", FormatAuto)
	l.Info().Msg("to a file")
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if evs := events(t, string(data)); len(evs) != 1 || evs[0]["message"] != "to a file" {
		t.Errorf("events %v", evs)
	}
}

func TestRedactorFd(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := Redact(f).Fd(); got != f.Fd() {
		t.Errorf("Fd() = %d, want the file's %d", got, f.Fd())
	}
	if got := Redact(&bytes.Buffer{}).Fd(); got != ^uintptr(0) {
		t.Errorf("Fd() of a buffer = %d", got)
	}
}

func TestLevels(t *testing.T) {
	var buf bytes.Buffer
	l := newLogger(&buf, "warn", FormatJSON, false, false)
	l.Info().Msg("hidden")
	l.Warn().Msg("shown")
	evs := events(t, buf.String())
	if len(evs) != 1 || evs[0]["message"] != "shown" {
		t.Errorf("at warn level: %v", evs)
	}

	buf.Reset()
	l = newLogger(&buf, "loud", FormatJSON, false, false)
	l.Debug().Msg("hidden")
	l.Info().Msg("shown")
	evs = events(t, buf.String())
	if len(evs) != 2 || !strings.Contains(evs[0]["message"].(string), `unknown log level "loud"`) || evs[1]["message"] != "shown" {
		t.Errorf("unknown level: %v", evs)
	}

	buf.Reset()
	l = newLogger(&buf, "TRACE", FormatJSON, false, false)
	l.Trace().Msg("shown")
	if evs := events(t, buf.String()); len(evs) != 1 {
		t.Errorf("trace level: %v", evs)
	}
}

func TestForGame(t *testing.T) {
	var buf bytes.Buffer
	base := newLogger(&buf, "info", FormatJSON, false, false).With().Str("bot", "ponderbot").Logger()
	g := ForGame(base, "abcd1234", "alice")
	g.Info().Int(FieldPly, 7).Msg("moved")
	base.Info().Msg("not a game")
	evs := events(t, buf.String())
	if len(evs) != 2 {
		t.Fatalf("events %v", evs)
	}
	if e := evs[0]; e[FieldGame] != "abcd1234" || e[FieldOpponent] != "alice" || e[FieldPly] != float64(7) || e["bot"] != "ponderbot" {
		t.Errorf("game event %v", e)
	}
	if _, ok := evs[1][FieldGame]; ok {
		t.Errorf("the base logger got the game fields: %v", evs[1])
	}
}

func TestRedaction(t *testing.T) {
	const token = "lip_S3cretT0kenValue"
	tests := []struct {
		name   string
		format string
		log    func(l *testLogger)
	}{
		{"message", FormatJSON, func(l *testLogger) { l.Info().Msg("token is " + token) }},
		{"field", FormatJSON, func(l *testLogger) { l.Info().Str("authorization", "Bearer "+token).Msg("request") }},
		{"error", FormatJSON, func(l *testLogger) { l.Error().Err(errors.New("bad header " + token)).Msg("failed") }},
		{"console", FormatConsole, func(l *testLogger) { l.Info().Str("t", token).Msg(token) }},
		{"twice in one event", FormatJSON, func(l *testLogger) { l.Info().Str("a", token).Str("b", token+token).Msg("x") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := Redact(&buf)
			l := &testLogger{newLogger(r, "info", tt.format, false, false)}
			r.Add(token) // after the logger exists, as when the token is read after the config
			tt.log(l)
			out := buf.String()
			if strings.Contains(out, token) || strings.Contains(out, "S3cret") {
				t.Errorf("token in the output: %q", out)
			}
			if !strings.Contains(out, Redacted) {
				t.Errorf("no %s marker in %q", Redacted, out)
			}
			if tt.format == FormatJSON {
				events(t, out) // still valid JSON
			}
		})
	}
}

type testLogger struct{ zerolog.Logger }

func TestRedactorEscapedAndEmptySecrets(t *testing.T) {
	var buf bytes.Buffer
	r := Redact(&buf, "", `we"ird\secret`)
	l := newLogger(r, "info", FormatJSON, false, false)
	l.Info().Str("s", `we"ird\secret`).Msg("escaped")
	out := buf.String()
	if strings.Contains(out, `ird`) {
		t.Errorf("escaped secret in the output: %q", out)
	}
	if ev := events(t, out); ev[0]["s"] != Redacted {
		t.Errorf("field = %v", ev[0]["s"])
	}

	// An empty secret must not redact everything.
	buf.Reset()
	r = Redact(&buf, "")
	r.Add("")
	if n, err := r.Write([]byte("plain")); err != nil || n != 5 || buf.String() != "plain" {
		t.Errorf("Write = %d, %v, %q", n, err, buf.String())
	}
}

func TestRedactorWriteCount(t *testing.T) {
	var buf bytes.Buffer
	r := Redact(&buf, "secret")
	in := []byte("a secret b")
	n, err := r.Write(in)
	if err != nil || n != len(in) {
		t.Errorf("Write = %d, %v; want %d (the input's length)", n, err, len(in))
	}
	if buf.String() != "a "+Redacted+" b" {
		t.Errorf("wrote %q", buf.String())
	}
	if string(in) != "a secret b" {
		t.Errorf("the caller's buffer was changed: %q", in)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRedactorPassesErrors(t *testing.T) {
	if _, err := Redact(failingWriter{}, "x").Write([]byte("x")); err == nil {
		t.Error("write error lost")
	}
}

func TestRedactorConcurrent(t *testing.T) {
	var out testsupport.SyncBuffer // the race detector checks Redactor, not bytes.Buffer
	r := Redact(&out)
	l := newLogger(r, "info", FormatJSON, false, false)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				r.Add("tok_concurrent")
			}
			for range 50 {
				l.Info().Msg("x")
			}
		}()
	}
	wg.Wait()
	l.Info().Msg("tok_concurrent")
	if strings.Contains(out.String(), "tok_concurrent") {
		t.Error("secret added concurrently was not redacted")
	}
	if got := len(events(t, out.String())); got != 8*50+1 {
		t.Errorf("%d events, want %d", got, 8*50+1)
	}
}
