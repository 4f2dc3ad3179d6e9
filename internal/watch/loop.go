package watch

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// pendingPath is one path waiting for its burst to end.
type pendingPath struct {
	first, last time.Time
	op          fsnotify.Op
}

// readLoop only moves events into the pending map: it must never stall,
// because fsnotify's Events and Errors channels are unbuffered and an
// unread error blocks events for good.
func (w *Watcher) readLoop() {
	w.mu.Lock()
	fsw := w.fsw
	w.mu.Unlock()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-fsw.Events:
			if !ok {
				return
			}
			w.note(ev)
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.pmu.Lock()
				w.overflow = true
				w.pmu.Unlock()
				w.wake()
				continue
			}
			w.log.Warn("watch: error", "err", err)
		}
	}
}

// note records an event for debouncing. A bare CHMOD (touch, chmod) cannot
// change content and is dropped.
func (w *Watcher) note(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return
	}
	now := time.Now()
	w.pmu.Lock()
	p := w.pending[ev.Name]
	if p == nil {
		p = &pendingPath{first: now}
		w.pending[ev.Name] = p
	}
	p.last = now
	p.op |= ev.Op
	w.pmu.Unlock()
	w.wake()
}

func (w *Watcher) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// flushLoop hands paths to the view once they have been quiet for the
// debounce period (or pending for ten times that, so a file written
// continuously is still reported), and rescans after an overflow.
func (w *Watcher) flushLoop() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
		case <-timer.C:
		}
		due, overflow, next := w.takeDue(time.Now())
		w.takeGone(due)
		if overflow {
			w.rescan()
		}
		w.process(due)
		if next > 0 {
			timer.Reset(next)
		}
	}
}

// takeDue removes and returns the paths whose burst is over, and how long
// until the next one is due (0: nothing pending).
func (w *Watcher) takeDue(now time.Time) (map[string]fsnotify.Op, bool, time.Duration) {
	w.pmu.Lock()
	defer w.pmu.Unlock()
	overflow := w.overflow
	w.overflow = false
	due := make(map[string]fsnotify.Op)
	var next time.Duration
	for path, p := range w.pending {
		wait := min(p.last.Add(w.cfg.debounce).Sub(now), p.first.Add(w.cfg.maxDelay).Sub(now))
		if wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		due[path] = p.op
		delete(w.pending, path)
	}
	return due, overflow, next
}

// takeGone moves into due the pending paths that were renamed away or
// removed and are gone, whether or not their burst is over, when due holds
// anything. A directory renamed within the tree is reported twice under its
// old name (the parent's IN_MOVED_FROM and its own IN_MOVE_SELF, a little
// later), so the old name could settle after the new one: the new name's
// watch would be added first (the kernel hands back the watch of the same
// inode) and then removed with the old name's, leaving the renamed
// directory unwatched. process handles gone paths first, so they must be
// in the same batch.
func (w *Watcher) takeGone(due map[string]fsnotify.Op) {
	if len(due) == 0 {
		return
	}
	w.pmu.Lock()
	var cand []string
	for path, p := range w.pending {
		if p.op&(fsnotify.Rename|fsnotify.Remove) != 0 {
			cand = append(cand, path)
		}
	}
	w.pmu.Unlock()
	for _, path := range cand {
		if _, err := os.Lstat(path); err == nil {
			continue // there again: its burst decides
		}
		w.pmu.Lock()
		if p, ok := w.pending[path]; ok {
			due[path] |= p.op
			delete(w.pending, path)
		}
		w.pmu.Unlock()
	}
}

// process applies settled paths: gone ones first (forgetting their
// watches, so a directory renamed within the tree can be re-added under its
// new name: the kernel reuses the watch of the same inode), then the rest,
// adding and walking new directories. Every path is then handed to
// view.Invalidate, which decides what subscribers hear.
func (w *Watcher) process(due map[string]fsnotify.Op) {
	if len(due) == 0 {
		return
	}
	type item struct {
		path string
		fi   os.FileInfo
	}
	var gone, present []item
	for _, path := range slices.Sorted(maps.Keys(due)) {
		fi, err := os.Lstat(path)
		if err != nil {
			gone = append(gone, item{path, nil})
		} else {
			present = append(present, item{path, fi})
		}
	}
	for _, it := range gone {
		w.forget(it.path, false)
		w.view.Invalidate(it.path)
	}
	for _, it := range present {
		if it.fi.IsDir() && w.wantDir(it.path) {
			if err := w.addTree(it.path, true); err != nil {
				w.log.Debug("watch: new directory", "dir", it.path, "err", err)
			}
		}
		w.view.Invalidate(it.path)
	}
}

// wantDir reports whether a directory that appeared should be watched.
func (w *Watcher) wantDir(dir string) bool {
	if w.cfg.skip[filepath.Base(dir)] || w.view.Ignored(dir, true) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[dir] {
		return false
	}
	for f := range w.folders {
		if dir == f || len(dir) > len(f) && dir[len(f)] == '/' && dir[:len(f)] == f {
			return true
		}
	}
	return false
}

// rescan recovers from lost events: directories created meanwhile get
// their watches, then every cached file under each folder is re-validated.
func (w *Watcher) rescan() {
	w.log.Info("watch: event queue overflowed; rescanning the workspace")
	w.mu.Lock()
	folders := slices.Collect(maps.Keys(w.folders))
	w.mu.Unlock()
	for _, f := range folders {
		// Watches first, so nothing changed after the validation is lost.
		if err := w.addTree(f, false); err != nil {
			w.log.Debug("watch: rescan", "folder", f, "err", err)
		}
		w.view.InvalidateTree(f)
	}
}
