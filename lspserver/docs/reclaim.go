package docs

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// Returning the memory of closed documents. didClose drops the buffer and
// every map entry keyed by the document (view, review aliases, preview
// diagnostics), so the garbage collector can free it; but Go collects only
// when the heap grows again and gives freed pages back to the system
// slowly, so an idle server that had just closed 5,000 documents kept its
// peak resident memory (1.1 GB, BenchmarkOpenCloseRSS). Once closes have
// released reclaimThreshold bytes and no document has been closed for
// reclaimQuiet, the server runs debug.FreeOSMemory (a collection and an
// immediate return of free pages) once. A burst of closes (an editor
// closing a workspace) costs one collection, not one per document.
const (
	reclaimThreshold = 16 << 20
	reclaimQuiet     = 300 * time.Millisecond
)

// reclaimer counts the bytes closed documents released since the last
// collection and runs it in a server-owned goroutine.
type reclaimer struct {
	mu      sync.Mutex
	freed   int
	started bool
	wake    chan struct{} // capacity 1
}

// released records that a closed document released n bytes. It never
// blocks (didClose runs on the read loop).
func (r *reclaimer) released(d *Docs, n int) {
	if n <= 0 {
		return
	}
	r.mu.Lock()
	r.freed += n
	due := r.freed >= reclaimThreshold
	if due && !r.started {
		r.started = true
		r.wake = make(chan struct{}, 1)
		d.core.Go("return closed documents' memory", r.loop)
	}
	wake := r.wake
	r.mu.Unlock()
	if due {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// loop waits for closes past the threshold, then for a quiet period, then
// collects.
func (r *reclaimer) loop(ctx context.Context) {
	r.mu.Lock()
	wake := r.wake
	r.mu.Unlock()
	quiet := time.NewTimer(reclaimQuiet)
	quiet.Stop()
	defer quiet.Stop()
	armed := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
			quiet.Reset(reclaimQuiet)
			armed = true
		case <-quiet.C:
			if !armed {
				continue
			}
			armed = false
			r.mu.Lock()
			r.freed = 0
			r.mu.Unlock()
			debug.FreeOSMemory()
		}
	}
}
