// Package workspace is the one view of the workspace every tool reads
// through: editor buffers (overlays) first, then disk through a bounded,
// self-validating read cache; confinement of paths to the workspace folders;
// and gitignore-aware walking.
//
// CONTRACT (implemented by the workspace owner; other packages code against
// these names):
//
//	func New(opts Options) *View
//	func (v *View) SetFolders(folders []string)          // absolute dirs; symlinks resolved inside
//	func (v *View) Folders() []string
//	func (v *View) Resolve(path string) (string, error)  // confinement, see ErrOutside
//	func (v *View) Read(path string) (Snapshot, error)   // overlay, else disk (cache validated by size/mtime/ctime/inode)
//	func (v *View) Open(key string, version int32, text string)
//	func (v *View) Change(key string, version int32, changes []text.Change, enc text.Encoding) error
//	func (v *View) Close(key string)
//	func (v *View) Overlay(key string) (Snapshot, bool)
//	func (v *View) Invalidate(path string)               // watcher / didChangeWatchedFiles
//	func (v *View) Subscribe(fn func(Event)) (cancel func())
//	func (v *View) Walk(ctx context.Context, root string, fn WalkFunc) error  // gitignore-aware
//	func (v *View) Ignored(path string, isDir bool) bool
//
// Additions by the workspace owner (same package, documented where defined):
//
//	func (v *View) WalkFiles(ctx context.Context, root string, workers int, fn WalkFunc) error // files only, fn called from `workers` goroutines
//	func (v *View) WalkIgnored(ctx context.Context, root string, fn, ignored WalkFunc) error // Walk, and what the ignore files exclude
//	func (v *View) InvalidateTree(dir string)            // re-validate every cache entry under dir (watcher overflow)
//	func (v *View) SetValidateAlways(on bool)            // watcher degraded (inotify limits)
//	func (v *View) ValidateAlways() bool
//	func (v *View) CacheStats() (entries int, bytes int64)
//	func (v *View) OpenPaths() []string
//	func (v *View) BufferVersion(key string) (int32, bool) // an open buffer's version, no text copied
//	type WalkFunc func(path string, d fs.DirEntry) error
//	var ErrNotOpen                                       // Change on a key that is not open
//	Snapshot.Key                                         // the key the buffer was opened with
//
// Keys of overlays are absolute cleaned paths for file: URIs; non-file URIs
// (untitled:) use the URI string itself and are never reachable by Resolve.
package workspace

import (
	"errors"
	"time"
)

// ErrOutside is wrapped by Resolve when a path leaves every workspace folder
// (after resolving symlinks), uses "~", or there is no folder at all.
var ErrOutside = errors.New("path is outside the workspace")

// ErrBinary is wrapped by Read for files that are not valid UTF-8 text (NUL
// bytes or invalid UTF-8), which tools refuse to show or edit.
var ErrBinary = errors.New("binary file")

// ErrTooLarge is wrapped by Read for files over Options.MaxFileBytes.
var ErrTooLarge = errors.New("file too large")

// ErrNotOpen is wrapped by Change when the key has no open buffer (a
// didChange without didOpen); the server should log it and resync.
var ErrNotOpen = errors.New("document is not open")

// Snapshot is one consistent version of a file: a tool call reads one
// Snapshot and records its Hash, never half of one state and half of another.
type Snapshot struct {
	Path    string    // absolute path (or URI string for non-file overlays)
	Key     string    // overlays: the key given to Open (may be a symlink to Path); else Path
	Text    string    // whole content, valid UTF-8
	Hash    string    // hex SHA-256 of Text
	Version *int32    // editor version when Open, else nil
	Open    bool      // Text comes from an editor buffer
	Size    int64     // bytes on disk (len(Text) for overlays)
	ModTime time.Time // disk mtime (zero for overlays)
}

// EventKind says what happened to a path.
type EventKind int

// Event kinds delivered to subscribers.
const (
	Changed EventKind = iota // content may differ (buffer edit or disk write)
	Created
	Removed
)

// Event tells subscribers (lock checks, proposal rebase) that a path's
// content may have changed. Buffer is true when the change came from the
// editor (didChange), false for disk.
type Event struct {
	Path   string
	Kind   EventKind
	Buffer bool
}
