package syzygy

import (
	"fmt"
	"io"
	"os"
)

// mapping is the read-only contents of one table file: memory-mapped where
// the system allows it (mapping_unix.go), read into memory otherwise.
type mapping interface {
	// Bytes returns the whole file; the slice must not be written.
	Bytes() []byte
	// Close releases the file's contents; Bytes must not be used after.
	Close() error
}

// heapMapping is the portable fallback: the file read with ReadAt.
type heapMapping struct{ data []byte }

func (h *heapMapping) Bytes() []byte { return h.data }
func (h *heapMapping) Close() error  { h.data = nil; return nil }

// maxHeapRead is the largest file that readFile reads into memory: a
// larger table needs memory mapping (5-piece tables and up).
const maxHeapRead = 64 << 20

// readFile reads the whole of f with ReadAt, if it is at most maxHeapRead
// bytes long.
func readFile(f *os.File, size int64) (mapping, error) {
	if size > maxHeapRead {
		return nil, fmt.Errorf("reading %s: %d bytes, more than the %d MiB read into memory where the file cannot be memory-mapped",
			f.Name(), size, maxHeapRead>>20)
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	return &heapMapping{data: data}, nil
}

// openMapping opens path read-only and maps (or reads) all of it.
func openMapping(path string) (mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := st.Size()
	if size < 16 {
		return nil, fmt.Errorf("%w: %s: truncated (%d bytes)", errCorrupt, path, size)
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%w: %s: too large (%d bytes)", errCorrupt, path, size)
	}
	return mapFile(f, size)
}
