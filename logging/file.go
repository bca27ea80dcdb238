package logging

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// FileMode is the mode of a log file File creates: the owner writes, its
// group (an admin's) reads.
const FileMode = 0o640

// File is a log file (log.file) written by appending. Reopen opens it again
// by its name, which is what logrotate needs: once it has renamed the file,
// a reopen (on SIGHUP) sends the next lines to a new file of that name. A
// File is safe for concurrent use; zerolog writes one whole event per Write.
type File struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// OpenFile opens path for appending, creating it with FileMode (whatever
// the umask) when it does not exist; an existing file keeps its mode.
func OpenFile(path string) (*File, error) {
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, f: f}, nil
}

func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, FileMode)
	switch {
	case err == nil:
		// The umask may have taken the group's read away.
		if err := f.Chmod(FileMode); err != nil {
			f.Close()
			return nil, fmt.Errorf("log file %s: set mode: %w", path, err)
		}
		return f, nil
	case !errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("log file: %w", err)
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("log file %s: is a directory", path)
	}
	return f, nil
}

// Path is the file's name, as given to OpenFile.
func (l *File) Path() string { return l.path }

// Write appends p to the file open now.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, fmt.Errorf("log file %s: closed", l.path)
	}
	return l.f.Write(p)
}

// Reopen opens the file's name again and writes there from now on, closing
// the file written so far. When the name cannot be opened the old file
// stays in use and the error says why.
func (l *File) Reopen() error {
	f, err := openLogFile(l.path)
	if err != nil {
		return err
	}
	l.mu.Lock()
	old := l.f
	l.f = f
	l.mu.Unlock()
	if old != nil {
		_ = old.Close() // appended writes are on the disk already; a close error loses nothing
	}
	return nil
}

// Close closes the file; later writes fail.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Fd returns the descriptor of the file open now, so that terminal and
// journal detection see the file (neither a terminal nor the journal).
func (l *File) Fd() uintptr {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ^uintptr(0)
	}
	return l.f.Fd()
}
