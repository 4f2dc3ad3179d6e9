package script

import "syscall"

// sysProcAttr kills the child with the server, even when the server is
// killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
