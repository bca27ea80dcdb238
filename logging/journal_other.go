//go:build !unix

package logging

// fdDevIno: no journal outside Unix systems.
func fdDevIno(uintptr) (dev, ino uint64, ok bool) { return 0, 0, false }
