//go:build !linux

package mcptest

import "syscall"

// childAttr puts a test server in its own process group; without
// Pdeathsig, the group is killed by the returned stop func only.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
