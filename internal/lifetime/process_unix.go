//go:build unix

package lifetime

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid exists: signal 0 checks without
// signalling. EPERM means it exists but belongs to someone else. A zombie
// still counts as alive until its parent reaps it.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
