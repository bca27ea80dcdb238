package uci

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The test binary doubles as a fake UCI engine (testsupport.Main): the
// scripted modes of testsupport; "server", our own Server over the
// fakeBackend of server_test.go; and "engine", our own Server over the real
// EngineBackend (the engine of the external-engine panic tests).
func TestMain(m *testing.M) {
	testsupport.Main(m, map[string]testsupport.Mode{
		"server": func(in io.Reader, out io.Writer) int {
			return serve("fake server", newFakeBackend(), in, out)
		},
		"engine": func(in io.Reader, out io.Writer) int {
			b := NewEngineBackend()
			defer b.Close()
			return serve("engine", b, in, out)
		},
	})
}

// serve runs a Server over b on in and out, for a mode of TestMain.
func serve(what string, b Backend, in io.Reader, out io.Writer) int {
	srv := NewServer("Ponderosa Fake", "The Ponderosa Tests", b)
	if err := srv.Run(context.Background(), in, out); err != nil {
		fmt.Fprintln(os.Stderr, what+":", err)
		return 1
	}
	return 0
}
