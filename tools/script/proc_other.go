//go:build !linux

package script

import "syscall"

// sysProcAttr: there is no parent death signal outside Linux; the child
// ends when its pipes close (its next call or print fails).
func sysProcAttr() *syscall.SysProcAttr { return nil }
