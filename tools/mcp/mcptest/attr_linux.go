package mcptest

import "syscall"

// childAttr puts a test server in its own process group, killed with the
// test binary if it dies first (Pdeathsig is Linux-only).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
