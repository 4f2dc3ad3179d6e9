//go:build !linux

package script

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// limitMemory bounds the child's heap where RLIMIT_DATA is not enforced:
// a watchdog exits the process once the heap passes limit. It can be late
// by one operation; the parent's wall clock bounds that.
func limitMemory(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit * 3 / 4)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for range time.Tick(5 * time.Millisecond) {
			metrics.Read(s)
			if int64(s[0].Value.Uint64()) > limit {
				fmt.Fprintln(os.Stderr, "fatal error: out of memory")
				os.Exit(3)
			}
		}
	}()
}
