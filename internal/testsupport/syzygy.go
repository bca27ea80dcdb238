package testsupport

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// SyzygyDir is the absolute path of the small 3–4-piece Syzygy tables
// that engine/syzygy's tests carry (engine/syzygy/testdata), found from
// this file's place in the module, whatever package's test asks.
func SyzygyDir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testsupport: cannot tell where the module is")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "engine", "syzygy", "testdata")
}

// Syzygy opens the tables of SyzygyDir, closed when the test ends.
func Syzygy(t testing.TB) *syzygy.Tablebase {
	t.Helper()
	tb, err := syzygy.Open(SyzygyDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}
