package main

import (
	"errors"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Exit codes, in the sysexits(3) convention that service managers know
// (README "Exit codes"; the systemd units do not restart on 64, 77 and 78,
// which a restart cannot mend; they do restart on 73, which may mend).
const (
	exitOK          = 0  // success, or a clean stop
	exitFailure     = 1  // any other failure
	exitUsage       = 64 // EX_USAGE: bad command line
	exitUnavailable = 69 // EX_UNAVAILABLE: Lichess could not be reached at start-up
	exitCantCreat   = 73 // EX_CANTCREAT: the state directory cannot be made or written (a full disk, a read-only file system)
	exitTempFail    = 75 // EX_TEMPFAIL: another transient failure (Lichess rate limits or errors at start-up)
	exitNoPerm      = 77 // EX_NOPERM: token refused (revoked, also while running), no bot:play scope, or not a Bot account
	exitConfig      = 78 // EX_CONFIG: configuration error (the file, the token's file or variable, where the state directory is, an engine)
)

// Kinds of errors that map to an exit code; lichess.ErrTokenRefused,
// lichess.ErrMissingScope and lichess.ErrNotBot are the others.
var (
	// errConfig marks errors that come from the configuration.
	errConfig = errors.New("configuration")
	// errUnavailable marks a Lichess that could not be reached at start-up.
	errUnavailable = errors.New("Lichess unreachable")
	// errTempFail marks other transient failures.
	errTempFail = errors.New("temporary failure")
	// errCantCreate marks a state directory that cannot be made or
	// written: often transient (a full disk, a file system mounted
	// read-only for a while), so not a configuration error.
	errCantCreate = errors.New("cannot create")
)

// exitCode is the exit code for err (nil: exitOK).
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, lichess.ErrTokenRefused), errors.Is(err, lichess.ErrMissingScope), errors.Is(err, lichess.ErrNotBot):
		return exitNoPerm
	case errors.Is(err, errConfig):
		return exitConfig
	case errors.Is(err, errCantCreate):
		return exitCantCreat
	case errors.Is(err, errUnavailable):
		return exitUnavailable
	case errors.Is(err, errTempFail):
		return exitTempFail
	default:
		return exitFailure
	}
}

// lichessTrouble classifies a failed request to Lichess that may mend by
// itself: no answer or a server error (5xx) is errUnavailable, a rate limit
// errTempFail. Other errors (nil included) are not transient: nil.
func lichessTrouble(err error) error {
	switch code := lichess.StatusCode(err); {
	case err == nil, errors.Is(err, lichess.ErrTokenRefused), errors.Is(err, lichess.ErrMissingScope), errors.Is(err, lichess.ErrNotBot):
		return nil
	case lichess.IsRateLimited(err):
		return errTempFail
	case code >= 500, code == 0: // 0: no answer (network, DNS, time-out)
		return errUnavailable
	}
	return nil
}

// classifyLichess marks err with its lichessTrouble kind, if any, keeping
// its text.
func classifyLichess(err error) error {
	if kind := lichessTrouble(err); kind != nil {
		return kindError{err: err, kind: kind}
	}
	return err
}

// kindError gives err a kind for exitCode without changing its text.
type kindError struct{ err, kind error }

func (e kindError) Error() string        { return e.err.Error() }
func (e kindError) Unwrap() error        { return e.err }
func (e kindError) Is(target error) bool { return target == e.kind }
