package watch

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/workspace"
)

// Folders keeps one Watcher over a view whose folders come and go (an
// editor's workspace folders). Adding a folder walks its tree, which can
// take a while on a big repository, so Add and Remove only queue the
// change and never block their caller (an editor's read loop); Run applies
// the queue in order on one goroutine, which owns the Watcher and closes it
// when it ends. The Watcher is created on the first Add, after the view
// has its folders, so starting it watches them all at once. If it cannot
// be created, the view keeps validating every read by stat: a failure
// here costs speed, not correctness.
type Folders struct {
	view *workspace.View
	log  *slog.Logger
	opts []Option

	mu    sync.Mutex
	queue []folderOp

	setMu sync.Mutex    // Set and Change, one after the other
	list  []string      // the folders as their owner gave them (Set)
	wake  chan struct{} // capacity 1: "queue is not empty"

	w      *Watcher // Run only
	failed bool     // Run only: creating the watcher failed
}

// folderOp adds (or removes) one folder; one with done set changes
// nothing and closes done once every change queued before it is applied.
type folderOp struct {
	dir  string
	add  bool
	done chan struct{}
}

// NewFolders returns a Folders for view; nothing is watched until Run
// runs and a folder is added.
func NewFolders(view *workspace.View, log *slog.Logger, opts ...Option) *Folders {
	return &Folders{view: view, log: log, opts: opts, wake: make(chan struct{}, 1)}
}

// Add queues watching dir, a folder the view already has.
func (f *Folders) Add(dir string) { f.push(folderOp{dir: dir, add: true}) }

// Remove queues dropping the watches under dir.
func (f *Folders) Remove(dir string) { f.push(folderOp{dir: dir}) }

// Set makes folders (absolute, first one first, as the editor names them)
// the view's folders at once and queues watching the new ones and
// dropping the old ones, so confinement never waits for a tree walk.
func (f *Folders) Set(folders []string) {
	f.setMu.Lock()
	defer f.setMu.Unlock()
	f.setLocked(folders)
}

func (f *Folders) setLocked(folders []string) {
	old := f.list
	f.list = slices.Clone(folders)
	f.view.SetFolders(folders)
	for _, d := range old {
		if !slices.Contains(folders, d) {
			f.Remove(d)
		}
	}
	for _, d := range folders {
		if !slices.Contains(old, d) {
			f.Add(d)
		}
	}
}

// Change drops removed and appends added (each folder once, in order) to
// the list, Sets it and returns it: an editor's folder change event.
func (f *Folders) Change(removed, added []string) []string {
	f.setMu.Lock()
	defer f.setMu.Unlock()
	next := slices.DeleteFunc(slices.Clone(f.list), func(d string) bool { return slices.Contains(removed, d) })
	next = AppendFolders(next, added...)
	f.setLocked(next)
	return slices.Clone(next)
}

// List is the folder list as last Set (not symlink-resolved, unlike the
// view's Folders: the names the editor and the MCP servers know).
func (f *Folders) List() []string {
	f.setMu.Lock()
	defer f.setMu.Unlock()
	return slices.Clone(f.list)
}

// AppendFolders appends each of dirs to list unless it is there already:
// a workspace folder counts once however often an editor names it.
func AppendFolders(list []string, dirs ...string) []string {
	for _, d := range dirs {
		if !slices.Contains(list, d) {
			list = append(list, d)
		}
	}
	return list
}

func (f *Folders) push(op folderOp) {
	f.mu.Lock()
	f.queue = append(f.queue, op)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Sync waits until every change queued before it is applied (or ctx
// ends): Add and Remove return at once, so whoever must know a removed
// folder is no longer watched (a test) waits here.
func (f *Folders) Sync(ctx context.Context) error {
	done := make(chan struct{})
	f.push(folderOp{done: done})
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run applies queued changes until ctx ends, then closes the watcher. Run
// it once, on a goroutine its owner waits for.
func (f *Folders) Run(ctx context.Context) {
	defer func() {
		if f.w != nil {
			if err := f.w.Close(); err != nil {
				f.log.Warn("close file watcher", "err", err)
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		f.mu.Lock()
		ops := f.queue
		f.queue = nil
		f.mu.Unlock()
		started := false
		for _, op := range ops {
			if ctx.Err() != nil {
				return
			}
			if op.done != nil {
				close(op.done)
				continue
			}
			if started && op.add {
				continue // Start just watched every folder the view has
			}
			started = f.apply(ctx, op) || started
		}
	}
}

// apply runs one folder change; it reports whether it created and
// started the watcher.
func (f *Folders) apply(ctx context.Context, op folderOp) bool {
	if f.failed || (f.w == nil && !op.add) {
		return false
	}
	if f.w == nil {
		// Start watches every folder the view has now, op.dir included.
		began := time.Now()
		w, err := New(f.view, f.log, f.opts...)
		if err == nil {
			if err = w.Start(ctx); err != nil {
				_ = w.Close()
			}
		}
		if err != nil {
			f.failed = true
			f.log.Warn("file watcher unavailable; reads are validated by stat instead", "err", err)
			return false
		}
		f.w = w
		// Said once: on a big tree this walk is the slow part of starting
		// (docs/performance.md measures it from this line).
		st := w.Stats()
		f.log.Info("file watcher ready", "dirs", st.WatchedDirs, "limit_hit", st.LimitHit, "took", time.Since(began).Round(time.Millisecond))
		return true
	}
	if !op.add {
		f.w.RemoveFolder(op.dir)
		return false
	}
	if err := f.w.AddFolder(op.dir); err != nil {
		f.log.Warn("cannot watch folder; its reads are validated by stat instead", "folder", op.dir, "err", err)
	}
	return false
}
