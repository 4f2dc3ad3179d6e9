// Package reclaim gives memory that a server released back to the system
// once it is quiet. Dropping a closed document (buffer, view entry, every
// map keyed by it) lets the garbage collector free it, but Go collects only
// when the heap grows again and returns freed pages slowly, so an idle
// server that had just closed 5,000 documents kept its peak resident
// memory (1.1 GB, lspserver's BenchmarkOpenCloseRSS). Once releases reach
// Threshold bytes and none came for Quiet, Memory runs debug.FreeOSMemory
// (a collection and an immediate return of free pages) once: a burst of
// closes (an editor closing a workspace) costs one collection, not one per
// document.
package reclaim

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// Threshold and Quiet are when a collection is worth its cost: enough
// freed to matter, and the burst over.
const (
	Threshold = 16 << 20
	Quiet     = 300 * time.Millisecond
)

// Memory counts the bytes released since the last collection and runs it
// on a goroutine its owner starts and waits for (the server's lifetime).
type Memory struct {
	start func(name string, fn func(context.Context)) // the owner's Go

	// what tests shorten or observe
	quiet time.Duration
	free  func()

	mu      sync.Mutex
	freed   int
	started bool
	wake    chan struct{} // capacity 1
}

// New returns a Memory that starts its goroutine, the first time releases
// reach Threshold, with start (a server's Go: the goroutine ends with the
// context it is given).
func New(start func(name string, fn func(context.Context))) *Memory {
	return &Memory{start: start, quiet: Quiet, free: debug.FreeOSMemory, wake: make(chan struct{}, 1)}
}

// Released records that n bytes were let go. It never blocks (an editor's
// didClose runs on the read loop).
func (r *Memory) Released(n int) {
	if n <= 0 {
		return
	}
	r.mu.Lock()
	r.freed += n
	due := r.freed >= Threshold
	start := due && !r.started
	r.started = r.started || due
	r.mu.Unlock()
	if start {
		r.start("return released memory", r.loop)
	}
	if due {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// loop waits for releases past the threshold, then for a quiet period,
// then collects.
func (r *Memory) loop(ctx context.Context) {
	quiet := time.NewTimer(r.quiet)
	quiet.Stop()
	defer quiet.Stop()
	armed := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
			quiet.Reset(r.quiet)
			armed = true
		case <-quiet.C:
			if !armed {
				continue
			}
			armed = false
			r.mu.Lock()
			r.freed = 0
			r.mu.Unlock()
			r.free()
		}
	}
}
