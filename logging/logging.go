// Package logging sets up the zerolog loggers of ponderosa: JSON lines when
// the output is not a terminal (systemd's journal, a file, a pipe), readable
// colored lines on a terminal, each line starting with its journald priority
// when it goes to the journal (journal.go), a per-game logger, a log file
// that can be reopened after logrotate moved it (file.go), and a writer that
// removes secrets (the Lichess token) from everything logged.
package logging

import (
	"io"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

// Formats, as in the config's log.format.
const (
	FormatAuto    = "auto"
	FormatJSON    = "json"
	FormatConsole = "console"
)

// Field names used on every game logger.
const (
	FieldGame     = "game"
	FieldOpponent = "opponent"
	FieldPly      = "ply"
)

// Option changes what New does.
type Option func(*options)

type options struct {
	getenv func(string) string
}

// WithGetenv lets New look at the environment through getenv: with
// $JOURNAL_STREAM naming w (see OnJournal), each line starts with its
// journald priority ("<3>" error, "<4>" warning, "<6>" info, "<7>" debug).
// Without this option New never adds the prefix.
func WithGetenv(getenv func(string) string) Option {
	return func(o *options) { o.getenv = getenv }
}

// New returns a logger writing to w at level (trace, debug, info, warn or
// error) in format: "json", "console", or "auto" (console when w is a
// terminal, JSON otherwise, which suits journald). An unknown level logs at
// info and an unknown format is taken as auto; both say so in a first warning.
// To keep a secret out of the output, pass a Redactor as w. The daemon
// passes WithGetenv, so that its lines carry their priority in the journal.
func New(w io.Writer, level, format string, opts ...Option) zerolog.Logger {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return newLogger(w, level, format, IsTerminal(w), OnJournal(w, o.getenv))
}

// newLogger is New with the terminal and journal tests done by the caller.
func newLogger(w io.Writer, level, format string, terminal, journal bool) zerolog.Logger {
	var warnings []string
	lvl, err := zerolog.ParseLevel(strings.ToLower(strings.TrimSpace(level)))
	if err != nil || lvl == zerolog.NoLevel || level == "" {
		warnings = append(warnings, "unknown log level "+quote(level)+", logging at info")
		lvl = zerolog.InfoLevel
	}
	switch format {
	case FormatAuto, FormatJSON, FormatConsole:
	default:
		warnings = append(warnings, "unknown log format "+quote(format)+", using auto")
		format = FormatAuto
	}
	console := format == FormatConsole || (format == FormatAuto && terminal)
	var out io.Writer = w
	var cw *zerolog.ConsoleWriter
	if console {
		cw = &zerolog.ConsoleWriter{Out: w, NoColor: !terminal, TimeFormat: "15:04:05.000"}
		out = *cw
	}
	if journal {
		out = journalWriter{out: w, console: cw}
	}
	l := zerolog.New(out).Level(lvl).With().Timestamp().Logger()
	for _, msg := range warnings {
		l.Warn().Msg(msg)
	}
	return l
}

func quote(s string) string { return `"` + s + `"` }

// IsTerminal reports whether w writes to a terminal: it has a file
// descriptor (an *os.File, or a Redactor over one) that is a tty.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// ForGame returns l with the fields of one game: its id and the opponent's
// name. Add the ply on each event: l.Info().Int(logging.FieldPly, ply).
func ForGame(l zerolog.Logger, gameID, opponent string) zerolog.Logger {
	return l.With().Str(FieldGame, gameID).Str(FieldOpponent, opponent).Logger()
}
