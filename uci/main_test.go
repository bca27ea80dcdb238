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
// scripted modes of testsupport, and "server", our own Server over the
// fakeBackend of server_test.go.
func TestMain(m *testing.M) {
	testsupport.Main(m, map[string]testsupport.Mode{"server": func(in io.Reader, out io.Writer) int {
		srv := NewServer("Ponderosa Fake", "The Ponderosa Tests", newFakeBackend())
		if err := srv.Run(context.Background(), in, out); err != nil {
			fmt.Fprintln(os.Stderr, "fake server:", err)
			return 1
		}
		return 0
	}})
}
