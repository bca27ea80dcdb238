package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// notifySocket listens where $NOTIFY_SOCKET points, as systemd does.
func notifySocket(t *testing.T) *net.UnixConn {
	t.Helper()
	dir, err := os.MkdirTemp("", "sd") // short: socket paths are limited to ~108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return conn
}

// receive reads one notification; the deadline only guards against a hang.
func receive(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	buf := make([]byte, 4096)
	if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	return string(buf[:n])
}

func TestSdNotify(t *testing.T) {
	conn := notifySocket(t)
	tests := []struct {
		send func() error
		want string
	}{
		{func() error { return sdReady("connected as ponderbot") }, "READY=1\nSTATUS=connected as ponderbot"},
		{func() error { return sdStatus("2 games") }, "STATUS=2 games"},
		{func() error { return sdStopping("") }, "STOPPING=1"},
	}
	for _, tt := range tests {
		if err := tt.send(); err != nil {
			t.Fatal(err)
		}
		if got := receive(t, conn); got != tt.want {
			t.Errorf("sent %q, want %q", got, tt.want)
		}
	}
	// The socket stays set for later notifications.
	if os.Getenv("NOTIFY_SOCKET") == "" {
		t.Error("NOTIFY_SOCKET was unset")
	}
}

func TestSdNotifyOutsideSystemd(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if err := sdReady("x"); err != nil {
		t.Errorf("sdReady without systemd: %v", err)
	}
}

func TestSdWatchdog(t *testing.T) {
	conn := notifySocket(t)
	t.Setenv("WATCHDOG_USEC", "20000")
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	var healthy atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		sdWatchdog(ctx, healthy.Load, func(err error) { t.Errorf("watchdog: %v", err) })
		close(done)
	}()
	healthy.Store(true)
	if got := receive(t, conn); got != "WATCHDOG=1" {
		t.Errorf("got %q, want WATCHDOG=1", got)
	}
	cancel()
	<-done
}

func TestSdWatchdogUnhealthySendsNothing(t *testing.T) {
	conn := notifySocket(t)
	t.Setenv("WATCHDOG_USEC", "10000")
	t.Setenv("WATCHDOG_PID", "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var checks atomic.Int32
	go func() {
		sdWatchdog(ctx, func() bool { return checks.Add(1) > 3 }, nil)
		close(done)
	}()
	if got := receive(t, conn); got != "WATCHDOG=1" {
		t.Errorf("got %q", got)
	}
	if n := checks.Load(); n < 4 {
		t.Errorf("a ping was sent after %d health checks, want it only from the 4th (healthy) one", n)
	}
	cancel()
	<-done
}

func TestSdWatchdogDisabledReturns(t *testing.T) {
	t.Setenv("WATCHDOG_USEC", "")
	done := make(chan struct{})
	go func() {
		sdWatchdog(context.Background(), nil, nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // hang guard only
		t.Fatal("sdWatchdog did not return without a watchdog")
	}
}
