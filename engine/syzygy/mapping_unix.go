//go:build unix

package syzygy

import (
	"fmt"
	"os"
	"syscall"
)

// mmapMapping is a file mapped read-only into memory.
type mmapMapping struct{ data []byte }

func (m *mmapMapping) Bytes() []byte { return m.data }

func (m *mmapMapping) Close() error {
	if m.data == nil {
		return nil
	}
	err := syscall.Munmap(m.data)
	m.data = nil
	return err
}

// mapFile maps f read-only; if the system refuses, it reads the file.
func mapFile(f *os.File, size int64) (mapping, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		m, rerr := readFile(f, size)
		if rerr != nil {
			return nil, fmt.Errorf("mapping %s: %v; %w", f.Name(), err, rerr)
		}
		return m, nil
	}
	return &mmapMapping{data: data}, nil
}
