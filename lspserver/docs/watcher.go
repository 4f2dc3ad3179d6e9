package docs

import (
	"context"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/watch"
)

// folderWatch drives the fsnotify watcher (internal/watch) for the workspace
// folders. Adding a folder walks its tree, which can take a while on a big
// repository, so folder operations are queued by the read loop and run in
// order on one server-owned worker goroutine, which also owns the watcher
// and closes it when the server stops. Without a watcher the view validates
// every read by stat, so a failure here costs speed, not correctness.
type folderWatch struct {
	mu    sync.Mutex
	queue []watchOp
	wake  chan struct{} // capacity 1: "queue is not empty"

	w      *watch.Watcher // worker goroutine only
	failed bool           // worker goroutine only: creating the watcher failed
}

// watchOp adds (or removes) one folder.
type watchOp struct {
	dir string
	add bool
}

func (fw *folderWatch) add(dir string)    { fw.push(watchOp{dir: dir, add: true}) }
func (fw *folderWatch) remove(dir string) { fw.push(watchOp{dir: dir}) }

func (fw *folderWatch) push(op watchOp) {
	fw.mu.Lock()
	fw.queue = append(fw.queue, op)
	fw.mu.Unlock()
	select {
	case fw.wake <- struct{}{}:
	default:
	}
}

// StartWatcher starts the worker; with Options.NoWatcher queued operations
// are never run.
func (d *Docs) StartWatcher() {
	if d.opts.NoWatcher {
		return
	}
	d.core.Go("folder watcher", d.runWatcher)
}

func (d *Docs) runWatcher(ctx context.Context) {
	fw := &d.watch
	defer func() {
		if fw.w != nil {
			if err := fw.w.Close(); err != nil {
				d.log.Warn("close file watcher", "err", err)
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-fw.wake:
		}
		fw.mu.Lock()
		ops := fw.queue
		fw.queue = nil
		fw.mu.Unlock()
		started := false
		for _, op := range ops {
			if ctx.Err() != nil {
				return
			}
			if started && op.add {
				continue // Start just watched every folder the view has
			}
			started = d.applyWatchOp(ctx, op) || started
		}
	}
}

// applyWatchOp runs one folder operation; it reports whether it created
// and started the watcher.
func (d *Docs) applyWatchOp(ctx context.Context, op watchOp) bool {
	fw := &d.watch
	if fw.failed || (fw.w == nil && !op.add) {
		return false
	}
	if fw.w == nil {
		// Start watches every folder the view has now, op.dir included.
		began := time.Now()
		w, err := watch.New(d.view, d.log.With("component", "watch"))
		if err == nil {
			if err = w.Start(ctx); err != nil {
				_ = w.Close()
			}
		}
		if err != nil {
			fw.failed = true
			d.log.Warn("file watcher unavailable; reads are validated by stat instead", "err", err)
			return false
		}
		fw.w = w
		// Said once per server: on a big tree this walk is the slow part
		// of starting (docs/performance.md measures it from this line).
		st := w.Stats()
		d.log.Info("file watcher ready", "dirs", st.WatchedDirs, "limit_hit", st.LimitHit, "took", time.Since(began).Round(time.Millisecond))
		return true
	}
	if !op.add {
		fw.w.RemoveFolder(op.dir)
		return false
	}
	if err := fw.w.AddFolder(op.dir); err != nil {
		d.log.Warn("cannot watch folder; its reads are validated by stat instead", "folder", op.dir, "err", err)
	}
	return false
}
