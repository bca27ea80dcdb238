package logging

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
)

// Under systemd, stderr is a stream to the journal, and $JOURNAL_STREAM
// holds its "device:inode" (systemd.exec(5)). journald files a line by the
// syslog priority it starts with, "<N>" (sd-daemon(3); the unit's
// SyslogLevelPrefix=, on by default, strips it), and everything else as
// info. So when the log goes to the journal, each line starts with its
// level's priority: `journalctl -p warning` then shows warnings and errors,
// and `journalctl -o cat` shows the JSON after the prefix, intact.

// EnvJournalStream is the variable systemd sets to the device and inode
// numbers of the journal stream on stdout/stderr.
const EnvJournalStream = "JOURNAL_STREAM"

// Syslog priorities, as journald reads them from a "<N>" prefix.
const (
	prioCrit    = 2
	prioErr     = 3
	prioWarning = 4
	prioInfo    = 6
	prioDebug   = 7
)

// Priority is the syslog priority of a zerolog level: trace and debug 7,
// info (and events without a level) 6, warn 4, error 3, fatal and panic 2.
func Priority(l zerolog.Level) int {
	switch l {
	case zerolog.TraceLevel, zerolog.DebugLevel:
		return prioDebug
	case zerolog.WarnLevel:
		return prioWarning
	case zerolog.ErrorLevel:
		return prioErr
	case zerolog.FatalLevel, zerolog.PanicLevel:
		return prioCrit
	}
	return prioInfo
}

// OnJournal reports whether w writes to the journal stream named by
// $JOURNAL_STREAM (looked up with getenv): w has a file descriptor (an
// *os.File, or a Redactor or File over one) whose device and inode are
// those of the variable. A variable that names another file (stderr
// redirected by a wrapper script, a log file) does not count.
func OnJournal(w io.Writer, getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	dev, ino, ok := parseJournalStream(getenv(EnvJournalStream))
	if !ok {
		return false
	}
	f, isFile := w.(interface{ Fd() uintptr })
	if !isFile {
		return false
	}
	fdev, fino, ok := fdDevIno(f.Fd())
	return ok && fdev == dev && fino == ino
}

// parseJournalStream reads "device:inode", both decimal.
func parseJournalStream(s string) (dev, ino uint64, ok bool) {
	d, i, found := strings.Cut(strings.TrimSpace(s), ":")
	if !found {
		return 0, 0, false
	}
	dev, err1 := strconv.ParseUint(d, 10, 64)
	ino, err2 := strconv.ParseUint(i, 10, 64)
	return dev, ino, err1 == nil && err2 == nil
}

// journalWriter starts each line of an event with its level's priority,
// "<N>". zerolog hands it one whole event per WriteLevel; in the console
// format it formats the event first (a field with a line break gives
// several lines, each prefixed).
type journalWriter struct {
	out     io.Writer
	console *zerolog.ConsoleWriter // nil: the events stay JSON
}

func (j journalWriter) Write(p []byte) (int, error) {
	return j.WriteLevel(zerolog.NoLevel, p)
}

func (j journalWriter) WriteLevel(l zerolog.Level, p []byte) (int, error) {
	text := p
	if j.console != nil {
		var buf bytes.Buffer
		cw := *j.console
		cw.Out = &buf
		if _, err := cw.Write(p); err != nil {
			return 0, err
		}
		text = buf.Bytes()
	}
	prefix := []byte("<" + strconv.Itoa(Priority(l)) + ">")
	out := make([]byte, 0, len(text)+8)
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		out = append(append(out, prefix...), line...)
		text = text[len(line):]
	}
	if _, err := j.out.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
