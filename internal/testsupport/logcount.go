package testsupport

import (
	"strings"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// CountingLogger returns a logger that writes nothing and counts its lines
// at level whose message contains substr (say, the recovered panics a test
// expects: zerolog.ErrorLevel, "panicked"). The counter may be read while
// the code under test logs.
func CountingLogger(level zerolog.Level, substr string) (zerolog.Logger, *atomic.Int32) {
	n := new(atomic.Int32)
	log := zerolog.New(nil).Hook(zerolog.HookFunc(func(_ *zerolog.Event, l zerolog.Level, msg string) {
		if l == level && strings.Contains(msg, substr) {
			n.Add(1)
		}
	}))
	return log, n
}
