package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// errLimit is what a watch past WithMaxWatches fails with, standing in for
// the kernel's ENOSPC.
var errLimit = fmt.Errorf("watch limit of this watcher reached: %w", syscall.ENOSPC)

// isLimit reports the kernel refusing more watches (ENOSPC: over
// max_user_watches) or another inotify instance (EMFILE: over
// max_user_instances, or the process is out of descriptors).
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

// addTree watches root and every directory below it that is not skipped or
// ignored. Each directory is watched before it is listed, so a file created
// meanwhile is either in the listing or produces an event. With synth, every
// file found is invalidated in the view (a directory that appeared after
// Start: "mkdir -p a/b/c && touch a/b/c/f" yields only "CREATE a").
func (w *Watcher) addTree(root string, synth bool) error {
	err := w.view.Walk(context.Background(), root, func(p string, d fs.DirEntry) error {
		select {
		case <-w.done:
			return fs.SkipAll
		default:
		}
		if !d.IsDir() {
			if synth {
				w.view.Invalidate(p)
			}
			return nil
		}
		if p != root && w.cfg.skip[d.Name()] {
			return fs.SkipDir
		}
		switch err := w.watchDir(p); {
		case err == nil:
			return nil
		case isLimit(err):
			w.hitLimit(err)
			if synth {
				return nil // keep synthesising for what is already there
			}
			return fs.SkipAll
		case errors.Is(err, fsnotify.ErrClosed):
			return fs.SkipAll
		default:
			// Vanished meanwhile, or unreadable: not fatal for the rest.
			w.log.Debug("watch: directory not watched", "dir", p, "err", err)
			return nil
		}
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed before we got to it
	}
	return err
}

// watchDir adds one inotify watch, honouring the limit state.
func (w *Watcher) watchDir(dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.fsw == nil:
		return fsnotify.ErrClosed
	case w.watched[dir]:
		return nil
	case w.limitHit:
		return errLimit
	case w.cfg.maxWatches > 0 && len(w.watched) >= w.cfg.maxWatches:
		return errLimit
	}
	if err := w.fsw.Add(dir); err != nil {
		return err
	}
	w.watched[dir] = true
	return nil
}

// forget drops the watches at and below dir (removed, renamed away, or a
// folder no longer in the workspace). Watches the kernel already dropped
// are only removed from the bookkeeping. Unless all is set, a dir that is
// not watched itself is taken for a file and nothing is scanned, so a
// burst of file removals costs no scans of the watch set.
func (w *Watcher) forget(dir string, all bool) {
	w.mu.Lock()
	if !all && !w.watched[dir] {
		w.mu.Unlock()
		return
	}
	var gone []string
	for d := range w.watched {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			gone = append(gone, d)
			delete(w.watched, d)
		}
	}
	fsw := w.fsw
	w.mu.Unlock()
	if fsw == nil {
		return
	}
	for _, d := range gone {
		if err := fsw.Remove(d); err != nil && !errors.Is(err, fsnotify.ErrNonExistentWatch) && !errors.Is(err, fsnotify.ErrClosed) {
			w.log.Debug("watch: remove", "dir", d, "err", err)
		}
	}
}

// hitLimit switches to degraded mode once: one warning with the fix, no
// more watches, and the view validates everything on use.
func (w *Watcher) hitLimit(err error) {
	w.mu.Lock()
	first := !w.limitHit
	w.limitHit = true
	n := len(w.watched)
	w.mu.Unlock()
	w.view.SetValidateAlways(true)
	if !first {
		return
	}
	if errors.Is(err, syscall.EMFILE) {
		w.log.Warn(fmt.Sprintf("file watching is off: the inotify instance limit is reached (fs.inotify.max_user_instances=%s). "+
			"agentls still sees every change, by checking files when it reads them. "+
			"To restore watching, raise the limit: sudo sysctl fs.inotify.max_user_instances=1024 "+
			"(add the setting to /etc/sysctl.d/ to keep it)", procValue("max_user_instances")), "err", err)
		return
	}
	w.log.Warn(fmt.Sprintf("file watching is partial: the inotify watch limit is reached after %d directories (fs.inotify.max_user_watches=%s). "+
		"agentls still sees every change, by checking files when it reads them. "+
		"To watch the whole workspace, raise the limit: sudo sysctl fs.inotify.max_user_watches=524288 "+
		"(add the setting to /etc/sysctl.d/ to keep it), or add large generated directories to .gitignore/.ignore",
		n, procValue("max_user_watches")), "err", err)
}

// procValue reads an inotify sysctl for the warning ("unknown" if absent).
func procValue(name string) string {
	b, err := os.ReadFile(filepath.Join("/proc/sys/fs/inotify", name))
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
