//go:build !unix

package syzygy

import "os"

// mapFile reads f into memory where memory mapping is not available.
func mapFile(f *os.File, size int64) (mapping, error) { return readFile(f, size) }
