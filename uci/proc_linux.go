//go:build linux

package uci

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the engine in its own process group, so a Ctrl-C at the
// terminal reaches only the daemon (which then shuts the engine down in
// order), and asks the kernel to kill the engine if the daemon dies first.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
