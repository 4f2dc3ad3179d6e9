package workspace

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Defaults for Options fields left at zero.
const (
	DefaultCacheBytes   int64 = 64 << 20 // read cache bound
	DefaultMaxFileBytes int64 = 10 << 20 // largest file Read accepts
)

// Options configures a View. Zero values take the defaults above.
type Options struct {
	// Folders are the workspace roots. Relative paths given to Resolve are
	// relative to the first one; every path must be inside one of them.
	Folders []string
	// CacheBytes bounds the read cache (content bytes plus a small per-entry
	// overhead); least recently used entries are evicted first.
	CacheBytes int64
	// MaxFileBytes is the largest file Read returns; bigger ones fail with
	// ErrTooLarge so a tool never loads a 2 GB log into the model's context.
	MaxFileBytes int64
	// Logger receives debug logs (overlay version anomalies, evictions). Nil
	// discards them.
	Logger *slog.Logger
}

// View is the workspace view: open editor buffers first, then disk through
// a bounded read cache that re-validates every hit by stat, so it is correct
// even when no watcher runs. All methods are safe for concurrent use.
type View struct {
	log     *slog.Logger
	maxFile int64

	mu       sync.RWMutex
	folders  []string            // absolute, cleaned, symlinks resolved
	overlays map[string]*overlay // canonical key → current buffer state
	aliases  map[string]string   // key as given to Open → canonical key

	cache *fileCache
	ign   *ignoreCache
	subs  subscribers

	// validateAlways is true while no healthy watcher covers the folders.
	// See SetValidateAlways for what it changes.
	validateAlways atomic.Bool
}

// New returns a View over opts.Folders (see SetFolders for how they are
// normalised).
func New(opts Options) *View {
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	v := &View{
		log:      log,
		maxFile:  opts.MaxFileBytes,
		overlays: make(map[string]*overlay),
		aliases:  make(map[string]string),
		cache:    newFileCache(opts.CacheBytes),
		ign:      newIgnoreCache(),
	}
	v.validateAlways.Store(true)
	v.SetFolders(opts.Folders)
	return v
}

// SetFolders replaces the workspace folders (workspace/didChangeWorkspaceFolders).
// Each is made absolute and cleaned, and its symlinks are resolved so that
// confinement compares real paths. Duplicates are dropped; order is kept
// (the first folder anchors relative paths).
func (v *View) SetFolders(folders []string) {
	out := make([]string, 0, len(folders))
	seen := make(map[string]bool, len(folders))
	for _, f := range folders {
		if f == "" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			v.log.Warn("workspace folder ignored", "folder", f, "err", err)
			continue
		}
		real, err := evalPrefix(abs)
		if err != nil {
			v.log.Warn("workspace folder symlinks not resolved", "folder", f, "err", err)
			real = abs
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
	}
	v.mu.Lock()
	v.folders = out
	v.mu.Unlock()
	v.ign.reset()
}

// Folders returns the workspace folders as normalised by SetFolders.
func (v *View) Folders() []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return append([]string(nil), v.folders...)
}

// Rel is abs relative to the workspace folder holding it ("." for the
// folder itself), and whether a folder holds it. It compares cleaned
// paths by prefix, as the tools stage them (symlinks already resolved).
func (v *View) Rel(abs string) (string, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, dir := range v.folders {
		if rel, ok := RelTo(dir, abs); ok {
			return rel, true
		}
	}
	return "", false
}

// DisplayName is the name a person and the model know abs by in every
// face's messages: relative to its workspace folder, else abs itself.
func (v *View) DisplayName(abs string) string {
	if rel, ok := v.Rel(abs); ok {
		return rel
	}
	return abs
}

// RelTo returns abs relative to dir when abs is dir ("." ) or below it.
func RelTo(dir, abs string) (string, bool) {
	if abs == dir {
		return ".", true
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	if strings.HasPrefix(abs, prefix) {
		return abs[len(prefix):], true
	}
	return "", false
}

// SetValidateAlways tells the view whether a healthy file watcher covers
// the folders (false) or not (true, the default; also what the watcher sets
// when it hits the inotify limits).
//
// File contents never depend on it: Read validates every cache hit by stat
// (size, mtime, ctime, inode) in both modes. What it changes is the cache of
// parsed ignore rules used by Ignored: while a watcher is healthy, cached
// rules are trusted until the watcher invalidates the .gitignore/.ignore
// file or directory; in validate-always mode every use re-stats them.
func (v *View) SetValidateAlways(on bool) {
	if v.validateAlways.Swap(on) != on {
		v.log.Debug("workspace validate-always mode", "on", on)
	}
}

// ValidateAlways reports the mode set by SetValidateAlways, so the server
// can say that file watching is degraded (and e.g. ask the client for
// workspace/didChangeWatchedFiles instead).
func (v *View) ValidateAlways() bool { return v.validateAlways.Load() }

// CacheStats reports the read cache's entry count and accounted bytes, for
// memory measurements and tests of the bound.
func (v *View) CacheStats() (entries int, bytes int64) { return v.cache.stats() }

// MaxFileBytes is the largest text the view reads from disk
// (Options.MaxFileBytes). An editor's buffer taken on request (ACP's
// fs/read_text_file) is held to the same bound: a tool reads either the
// same way, and a model context has the same room for both.
func (v *View) MaxFileBytes() int64 { return v.maxFile }
