package main

import (
	"context"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// The functions below talk to systemd when ponderosa runs as a Type=notify
// service (deploy/ponderosa.service). Outside systemd ($NOTIFY_SOCKET unset)
// they do nothing and return nil, so callers need no special case.
//
// Intended use in the run command:
//
//	sdReady("connected as " + username)       // after the event stream is open
//	go sdWatchdog(ctx, healthy, onErr)        // for WatchdogSec=
//	sdStatus("2 games")                       // now and then
//	sdStopping("finishing 2 games")           // on SIGTERM, before the grace period

// sdReady says start-up is over (READY=1), with a status line for
// systemctl status.
func sdReady(status string) error { return sdNotify(daemon.SdNotifyReady, status) }

// sdStopping says shutdown has begun (STOPPING=1).
func sdStopping(status string) error { return sdNotify(daemon.SdNotifyStopping, status) }

// sdStatus updates the status line shown by systemctl status.
func sdStatus(status string) error { return sdNotify("", status) }

func sdNotify(state, status string) error {
	msg := state
	if status != "" {
		if msg != "" {
			msg += "\n"
		}
		msg += "STATUS=" + status
	}
	// false: keep $NOTIFY_SOCKET, later notifications need it.
	_, err := daemon.SdNotify(false, msg)
	return err
}

// sdWatchdog pings systemd's watchdog (WATCHDOG=1) at half the interval of
// WatchdogSec= until ctx ends, but only while healthy() says the daemon
// works (e.g. the event stream has been read recently), so that a wedged
// daemon is restarted. It returns at once when no watchdog is configured.
// Errors go to onErr, which may be nil.
func sdWatchdog(ctx context.Context, healthy func() bool, onErr func(error)) {
	interval, err := daemon.SdWatchdogEnabled(false)
	if err != nil && onErr != nil {
		onErr(err)
	}
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval / 2)
	defer t.Stop()
	for {
		if healthy == nil || healthy() {
			if _, err := daemon.SdNotify(false, daemon.SdNotifyWatchdog); err != nil && onErr != nil {
				onErr(err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
