// Package watch keeps a workspace.View current with the disk through
// fsnotify (inotify on Linux). inotify is not recursive, so the watcher
// walks every folder and watches each directory except .git, node_modules
// and ignored ones; directories created later are added and walked, with
// invalidations synthesised for the files already inside. Bursts of events
// are coalesced per path before the view is told (View.Invalidate), and the
// view decides whether content really changed.
//
// Correctness never depends on the watcher: the view validates every read
// by stat. When the kernel's watch or instance limit is hit, the watcher
// logs one warning saying how to raise it, stops adding watches and puts
// the view in validate-always mode.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a path must be quiet before it is
// invalidated: long enough to fold an editor's temp-file-and-rename save
// into one event, short enough that the agent sees changes at once.
const DefaultDebounce = 75 * time.Millisecond

// Option configures a Watcher.
type Option func(*config)

type config struct {
	debounce   time.Duration
	maxDelay   time.Duration
	maxWatches int
	skip       map[string]bool
}

// WithDebounce sets the per-path quiet period (tests use a few ms).
func WithDebounce(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.debounce = d
		}
	}
}

// WithMaxWatches makes the watcher behave as if the kernel refused watches
// past n directories (ENOSPC), to exercise the limit fallback in tests, or
// to cap descriptor use deliberately. 0 means no cap of our own.
func WithMaxWatches(n int) Option { return func(c *config) { c.maxWatches = n } }

// WithSkipDirs adds directory names never watched (besides .git and
// node_modules, and whatever the ignore files exclude).
func WithSkipDirs(names ...string) Option {
	return func(c *config) {
		for _, n := range names {
			c.skip[n] = true
		}
	}
}

// Stats describes the watcher's footprint.
type Stats struct {
	WatchedDirs int  // inotify watches held (one per directory)
	LimitHit    bool // the watch/instance limit was reached; view validates always
	Pending     int  // paths waiting for their debounce period
}

// Watcher feeds disk changes under the view's folders into the view. Start
// it once; Close it to release every goroutine and watch.
type Watcher struct {
	view *workspace.View
	log  *slog.Logger
	cfg  config

	mu       sync.Mutex
	fsw      *fsnotify.Watcher
	watched  map[string]bool
	folders  map[string]bool
	limitHit bool
	started  bool

	pmu      sync.Mutex
	pending  map[string]*pendingPath
	overflow bool
	kick     chan struct{}

	done     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// New returns a Watcher for view; nothing is watched until Start. A nil
// logger discards logs.
func New(view *workspace.View, logger *slog.Logger, opts ...Option) (*Watcher, error) {
	if view == nil {
		return nil, errors.New("watch: nil view")
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg := config{debounce: DefaultDebounce, skip: map[string]bool{".git": true, "node_modules": true}}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.maxDelay = 10 * cfg.debounce
	return &Watcher{
		view:    view,
		log:     logger,
		cfg:     cfg,
		watched: make(map[string]bool),
		folders: make(map[string]bool),
		pending: make(map[string]*pendingPath),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}, nil
}

// Start creates the inotify instance, watches every folder of the view and
// starts the event goroutines; it returns once the watches are in place.
// Cancelling ctx stops the watcher like Close (Close must still be called
// to wait for it). Hitting the kernel's limits is not an error: the
// watcher degrades (see the package doc) and Start returns nil.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return errors.New("watch: already started")
	}
	w.started = true
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.mu.Unlock()
		if isLimit(err) {
			w.hitLimit(err)
			return nil
		}
		return fmt.Errorf("watch: start: %w", err)
	}
	select {
	case <-w.done: // closed while starting
		w.mu.Unlock()
		fsw.Close()
		return errors.New("watch: closed before start")
	default:
	}
	w.fsw = fsw
	w.mu.Unlock()

	w.wg.Go(w.readLoop)
	w.wg.Go(w.flushLoop)
	w.wg.Go(func() {
		select {
		case <-ctx.Done():
			w.stop()
		case <-w.done:
		}
	})
	for _, f := range w.view.Folders() {
		if err := w.AddFolder(f); err != nil {
			w.log.Warn("watch: folder not watched", "folder", f, "err", err)
		}
	}
	w.mu.Lock()
	healthy := !w.limitHit
	w.mu.Unlock()
	if healthy {
		w.view.SetValidateAlways(false)
	}
	return nil
}

// AddFolder watches dir and everything below it (after view.SetFolders has
// made it a folder of the view). Adding a watched folder again re-walks it
// to pick up directories that are not watched yet.
func (w *Watcher) AddFolder(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("watch: add folder %s: %w", dir, err)
	}
	w.mu.Lock()
	w.folders[real] = true
	w.mu.Unlock()
	return w.addTree(real, false)
}

// RemoveFolder stops watching dir and everything below it.
func (w *Watcher) RemoveFolder(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = filepath.Clean(dir)
	}
	w.mu.Lock()
	delete(w.folders, real)
	w.mu.Unlock()
	w.forget(real, true)
}

// Stats reports the number of watched directories and the degraded state.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	s := Stats{WatchedDirs: len(w.watched), LimitHit: w.limitHit}
	w.mu.Unlock()
	w.pmu.Lock()
	s.Pending = len(w.pending)
	w.pmu.Unlock()
	return s
}

// stop ends the goroutines and releases the inotify instance without
// waiting; safe from any goroutine, any number of times.
func (w *Watcher) stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.mu.Lock()
		fsw := w.fsw
		w.mu.Unlock()
		if fsw != nil {
			if err := fsw.Close(); err != nil {
				w.log.Debug("watch: close", "err", err)
			}
		}
	})
}

// Close stops the watcher and waits for its goroutines; pending events are
// dropped (the view validates on read anyway). Safe to call twice, or
// without Start.
func (w *Watcher) Close() error {
	w.stop()
	w.wg.Wait()
	w.mu.Lock()
	clear(w.watched)
	w.mu.Unlock()
	return nil
}
