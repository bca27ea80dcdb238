//go:build !linux

package uci

import "os/exec"

func setProcAttr(cmd *exec.Cmd) {}
