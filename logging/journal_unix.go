//go:build unix

package logging

import "syscall"

// fdDevIno returns the device and inode numbers of the file open on fd.
func fdDevIno(fd uintptr) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(fd), &st); err != nil {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true // Dev is int32 on some systems
}
