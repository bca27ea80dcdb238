package syzygy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTableRetriesTransientErrors: a table that cannot be opened for a
// reason other than its format (here the file is gone) fails until
// retryAfter has passed, then is tried again and works once the file is
// back; a table whose format is wrong fails for good.
func TestTableRetriesTransientErrors(t *testing.T) {
	p := mustFEN(t, "8/8/8/8/8/3k4/8/QK5r w - - 0 1") // KQvKR
	path := func(dir string) string { return filepath.Join(dir, "KQvKR.rtbw") }
	table := func(tb *Tablebase) *table {
		for _, tt := range tb.all {
			if tt.name == "KQvKR" && tt.kind == kindWDL {
				return tt
			}
		}
		t.Fatal("no KQvKR.rtbw")
		return nil
	}

	dir := t.TempDir()
	writeTable(t, dir, "KQvKR.rtbw", func(b []byte) []byte { return b })
	tb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if err := os.Rename(path(dir), path(dir)+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.ProbeWDL(p); err == nil || errors.Is(err, errCorrupt) {
		t.Fatalf("file gone: %v, want an error that is not a format error", err)
	}
	if err := os.Rename(path(dir)+".away", path(dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.ProbeWDL(p); err == nil {
		t.Errorf("file back within the back-off: no error, want the last one until %v has passed", retryAfter)
	}
	tt := table(tb)
	tt.mu.Lock()
	tt.errAt = time.Now().Add(-retryAfter - time.Second)
	tt.mu.Unlock()
	want, err := openTestdata(t).ProbeWDL(p)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := tb.ProbeWDL(p); err != nil || w != want {
		t.Errorf("file back after the back-off: %v, %v; want %v", w, err, want)
	}

	dir = t.TempDir()
	writeTable(t, dir, "KQvKR.rtbw", func(b []byte) []byte { b[0] ^= 0xFF; return b })
	tb2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb2.Close()
	if _, err := tb2.ProbeWDL(p); !errors.Is(err, errCorrupt) {
		t.Fatalf("bad magic: %v, want a format error", err)
	}
	writeTable(t, dir, "KQvKR.rtbw", func(b []byte) []byte { return b })
	tt = table(tb2)
	tt.mu.Lock()
	tt.errAt = time.Now().Add(-retryAfter - time.Second)
	tt.mu.Unlock()
	if _, err := tb2.ProbeWDL(p); !errors.Is(err, errCorrupt) {
		t.Errorf("a format error after the back-off: %v, want it kept", err)
	}
}

// TestReadFileLimit: where a file cannot be memory-mapped it is read into
// memory only up to maxHeapRead bytes; a larger one fails with an error
// that says why, without reading it.
func TestReadFileLimit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "KQRvKR.rtbw")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(maxHeapRead + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	m, err := readFile(f, maxHeapRead+1)
	if err == nil {
		m.Close()
		t.Fatal("a file above the limit was read into memory")
	}
	if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "memory-mapped") {
		t.Errorf("error %q does not name the file and the reason", err)
	}
	if err := f.Truncate(1000); err != nil {
		t.Fatal(err)
	}
	if m, err := readFile(f, 1000); err != nil || len(m.Bytes()) != 1000 {
		t.Errorf("a small file: %v", err)
	}
}

// TestCovers: the tables are used up to their largest table's pieces, and
// up to a positive limit; none at all when there are no tables.
func TestCovers(t *testing.T) {
	five, none := &Tablebase{largest: 5}, &Tablebase{}
	for _, c := range []struct {
		tb            *Tablebase
		pieces, limit int
		want          bool
	}{
		{five, 5, 0, true},
		{five, 6, 0, false},
		{five, 3, -1, true},
		{five, 4, 4, true},
		{five, 5, 4, false},
		{five, 5, 7, true},
		{none, 2, 0, false},
	} {
		if got := c.tb.Covers(c.pieces, c.limit); got != c.want {
			t.Errorf("largest %d: Covers(%d, %d) = %v, want %v", c.tb.largest, c.pieces, c.limit, got, c.want)
		}
	}
}
