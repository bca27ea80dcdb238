package logging

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// Redacted replaces every secret in the log output.
const Redacted = "[REDACTED]"

// Redactor is an io.Writer that replaces secrets in everything written
// through it before passing it on. Put it between a logger and its output as
// a last line of defence: the token is never logged on purpose, and this
// makes sure a mistake cannot leak it either. zerolog writes one whole event
// per Write, so a secret is never split across two writes.
//
// Secrets may be added after the logger is built (the token is read after
// the config). A Redactor is safe for concurrent use.
type Redactor struct {
	out     io.Writer
	mu      sync.RWMutex
	secrets [][]byte
}

// Redact returns a Redactor writing to out and removing secrets. Empty
// secrets are ignored.
func Redact(out io.Writer, secrets ...string) *Redactor {
	r := &Redactor{out: out}
	for _, s := range secrets {
		r.Add(s)
	}
	return r
}

// Add makes r remove secret from now on, both as written and as it appears
// inside a JSON string. An empty secret is ignored.
func (r *Redactor) Add(secret string) {
	if secret == "" {
		return
	}
	forms := [][]byte{[]byte(secret)}
	// The JSON encoder escapes quotes, backslashes and control characters;
	// remove that form too.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(secret) == nil {
		if q := bytes.TrimSpace(buf.Bytes()); len(q) >= 2 && string(q[1:len(q)-1]) != secret {
			forms = append(forms, q[1:len(q)-1])
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, forms...)
}

// Write writes p to the underlying writer with every secret replaced. It
// reports len(p) on success, as callers expect.
func (r *Redactor) Write(p []byte) (int, error) {
	r.mu.RLock()
	out := p
	for _, s := range r.secrets {
		if bytes.Contains(out, s) {
			out = bytes.ReplaceAll(out, s, []byte(Redacted))
		}
	}
	r.mu.RUnlock()
	if _, err := r.out.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Fd returns the file descriptor of the underlying writer, so that terminal
// detection sees through the Redactor; ^uintptr(0) when there is none.
func (r *Redactor) Fd() uintptr {
	if f, ok := r.out.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
