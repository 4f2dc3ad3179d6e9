package script

import (
	"runtime/debug"
	"syscall"
)

// limitMemory caps the child's data segment (every private writable
// mapping, which is where the Go heap lives): an allocation past it fails
// and the runtime exits with "out of memory", which the parent reports.
// The soft limit makes the collector work before that point, so a program
// whose live data fits is not killed for garbage.
func limitMemory(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit * 3 / 4)
	lim := uint64(limit)
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim})
}
