package script

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// limitMemory caps the child's address space at what it uses now plus
// limit: an allocation past it fails at once and the runtime exits with
// "out of memory", which the parent reports. The Go runtime reserves
// gigabytes of address space it never touches, so an absolute RLIMIT_AS
// would not work; RLIMIT_DATA does not either, because a mapping placed
// over the runtime's own reservation is not checked against it (a 1.6 GB
// list then gets built and only a later allocation fails, seconds later).
// The soft limit makes the collector work before that point, so a program
// whose live data fits is not stopped for its garbage.
func limitMemory(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit * 3 / 4)
	base := vmSize()
	if base == 0 {
		return
	}
	lim := base + uint64(limit)
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// vmSize is the process's address space in bytes (VmSize), or 0.
func vmSize() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseUint(string(f[0]), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
