package panics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// recovered runs f and returns the *Error that Recover handed over (nil
// when f returned).
func recovered(f func()) (got *Error) {
	defer Recover(func(e *Error) { got = e })
	f()
	return nil
}

func TestRecoverKeepsValueAndStack(t *testing.T) {
	if e := recovered(func() {}); e != nil {
		t.Fatalf("Recover without a panic handed over %v", e)
	}
	boom := errors.New("boom")
	e := recovered(func() { panic(boom) })
	if e == nil || e.Value != boom {
		t.Fatalf("Recover handed over %v, want the panic value", e)
	}
	if !errors.Is(e, boom) || !Is(fmt.Errorf("wrapped: %w", e)) || Is(boom) {
		t.Errorf("Unwrap or Is is wrong for %v", e)
	}
	if !strings.Contains(string(e.Stack), "TestRecoverKeepsValueAndStack") {
		t.Errorf("Stack is not the panicking goroutine's:\n%s", e.Stack)
	}
	// Raised again on another goroutine, the first stack is kept.
	again := recovered(func() { panic(e) })
	if again != e {
		t.Errorf("a re-raised *Error became %v", again)
	}
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	Log(zerolog.New(&buf), &Error{Value: "boom", Stack: []byte("the stack")}, "mover panicked")
	var ev map[string]any
	if err := json.Unmarshal(buf.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
	if ev["level"] != "error" || ev[FieldPanic] != "boom" || ev[FieldStack] != "the stack" || ev["message"] != "mover panicked" {
		t.Errorf("logged %v", ev)
	}
}

// Once swallows every panic it contains and logs only the first of each
// kind; a call that does not panic logs nothing.
func TestOnceContainsAndLogsFirst(t *testing.T) {
	var buf bytes.Buffer
	l := zerolog.New(&buf)
	var once Once
	call := func(kind string, panicking bool) {
		defer once.Contain(l, kind)
		if panicking {
			panic("bug in " + kind)
		}
	}
	call("A", false)
	for range 3 {
		call("A", true)
		call("B", true)
	}
	for kind, want := range map[string]int{"A panicked": 1, "B panicked": 1, "bug in A": 1} {
		if got := strings.Count(buf.String(), kind); got != want {
			t.Errorf("%q logged %d times, want %d:\n%s", kind, got, want, buf.String())
		}
	}
}
