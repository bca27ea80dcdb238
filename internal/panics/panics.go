// Package panics is what the goroutines of a game do with a panic: each one
// (the game worker and its stream, the mover, a call into a Player, a search
// run, the readers of an external engine, the UCI front end's search)
// recovers it at its top with Recover, logs it with its stack (Log) and
// turns it into an *Error for whoever waits on that goroutine, so that a
// panic ends that piece of work, never the process.
package panics

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/rs/zerolog"
)

// Field names of a logged panic.
const (
	FieldPanic = "panic" // what the goroutine panicked with
	FieldStack = "stack" // its stack at the panic
)

// Error is a panic recovered at the top of a goroutine, as an error.
type Error struct {
	Value any    // what the goroutine panicked with
	Stack []byte // the panicking goroutine's stack (runtime/debug.Stack)
}

func (e *Error) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// New returns v, recovered with the stack stack, as an *Error. A v that is
// already an *Error (recovered on another goroutine and raised again on
// this one) is returned as it is, keeping the stack where it happened.
func New(v any, stack []byte) *Error {
	if e, ok := v.(*Error); ok {
		return e
	}
	return &Error{Value: v, Stack: stack}
}

// Recover recovers a panic and hands it to handle as an *Error with the
// panicking goroutine's stack; it does nothing when there is no panic. Defer
// it directly (recover works only there):
//
//	defer panics.Recover(func(e *panics.Error) { … })
func Recover(handle func(*Error)) {
	if v := recover(); v != nil {
		handle(New(v, debug.Stack()))
	}
}

// Is reports whether err is, or wraps, a recovered panic.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Log writes e on l at error level with msg, the panic's value and its
// stack.
func Log(l zerolog.Logger, e *Error, msg string) {
	l.Error().Str(FieldPanic, fmt.Sprint(e.Value)).Str(FieldStack, string(e.Stack)).Msg(msg)
}

// Once contains panics of calls that must never stop their caller (an
// observer that feeds metrics): each is recovered, and logged the first
// time its kind panics; later ones of that kind are swallowed. The zero
// value is ready to use.
type Once struct {
	mu     sync.Mutex
	logged map[string]bool
}

// Contain recovers a panic (defer it directly: recover works only there)
// and logs it on l, naming kind, the first time kind panics.
//
//	defer once.Contain(log, "GameStarted")
func (o *Once) Contain(l zerolog.Logger, kind string) {
	v := recover()
	if v == nil {
		return
	}
	e := New(v, debug.Stack())
	o.mu.Lock()
	first := !o.logged[kind]
	if o.logged == nil {
		o.logged = map[string]bool{}
	}
	o.logged[kind] = true
	o.mu.Unlock()
	if first {
		Log(l, e, kind+" panicked (logged once; what it feeds may be incomplete)")
	}
}
