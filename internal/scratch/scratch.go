// Package scratch makes and keeps the proposal view's scratch copy: a copy
// of one workspace folder, outside the workspace, in which commands
// (run_command, checks) run against what a run proposes while the user's
// files are never written.
//
// A copy holds every file the workspace's ignore rules do not exclude
// (cloned with FICLONE where the filesystem can, else copied in the kernel
// with copy_file_range; never hard-linked, since a command writing a
// hard-linked file would write the user's), the symlinks of the folder
// (pointing into the copy when they point into the folder), and the
// excluded dependency folders named in Options.Shared (node_modules,
// vendor, target, .venv, venv) as symlinks to the workspace's own, so a
// JavaScript or Python project is not copied gigabyte by gigabyte. Other
// excluded files and folders (build output, caches, .git) are left out.
//
// Callers then place their own text over the copy (WriteText: unsaved
// buffers, staged changes), put the disk's version back (Restore), and
// Repair what a command changed or deleted in the copy, so every command
// starts from the same proposal. Close removes the copy. Each copy's
// directory sits beside a lock file held (flock) for the copy's life;
// CleanStale removes the copies whose lock is free, i.e. whose process is
// gone (a crash, a kill), and New calls it once per process.
package scratch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/internal/workspace"
)

// DefaultShared are the excluded folders a copy shares with the workspace
// by symlink instead of leaving out: dependencies and build caches that
// commands need and that are too big to copy. Writes a command makes
// inside them reach the workspace's folder (they are not the user's
// sources: installed packages and build output).
var DefaultShared = []string{"node_modules", "vendor", "target", ".venv", "venv"}

// Default bounds of a copy.
const (
	DefaultMaxFiles       = 200_000
	DefaultMaxBytes int64 = 4 << 30
)

// ErrTooLarge is wrapped by New when the folder holds more than
// Options.MaxFiles files or Options.MaxBytes bytes to copy.
var ErrTooLarge = errors.New("workspace folder too large for a scratch copy")

// Options configure New.
type Options struct {
	// View is the workspace: files are read through it (confined to its
	// folders) and its ignore rules decide what is copied.
	View *workspace.View
	// Folder is the workspace folder to copy, one of View.Folders().
	Folder string
	// BaseDir holds the copies; "" is DefaultBaseDir().
	BaseDir string
	// Label goes into the copy's directory name (a run id), for people
	// looking at the cache directory.
	Label string
	// Shared names the excluded folders shared by symlink; nil is
	// DefaultShared, an empty non-nil slice shares none.
	Shared []string
	// MaxFiles and MaxBytes bound what New copies; 0 takes the defaults.
	MaxFiles int
	MaxBytes int64
	// Workers copy files in parallel; 0 is 8.
	Workers int
}

// Stats describe how a copy was made.
type Stats struct {
	Files     int           // regular files copied
	Bytes     int64         // their size
	Cloned    int           // of which shared extents with the original (FICLONE)
	Links     int           // symlinks recreated
	Shared    int           // excluded folders shared by symlink
	Skipped   int           // files that could not be read (left out)
	Duration  time.Duration // time New took
	CopyMode  string        // "reflink", "copy" or "reflink+copy"
	SharedDir []string      // the shared folders, relative to the folder
}

// Copy is one scratch copy. Its methods are safe for concurrent use.
type Copy struct {
	view   *workspace.View
	folder string
	shared map[string]bool
	dir    string   // BaseDir/<id>: the copy's own directory
	root   string   // dir/<folder's name>: mirrors folder
	lock   *os.File // BaseDir/<id>.lock, flocked until Close
	lockP  string

	noClone atomic.Bool // FICLONE failed once: copy from then on

	mu      sync.Mutex
	entries map[string]entry // relative path → what was placed there
	mtimes  map[string]int64 // relative path → latest mtime (s) of a file the copy rewrote there
	stats   Stats
	closed  bool
}

// kind says what an entry of the copy is.
type kind uint8

const (
	kindFile   kind = iota // a regular file copied from disk
	kindText               // a regular file written from text
	kindLink               // a symlink of the folder, recreated
	kindShared             // an excluded folder shared by symlink
)

// entry is what the copy placed at a path, with the stat signature it had
// right after, so Repair can tell whether a command changed it.
type entry struct {
	kind   kind
	text   string // kindText: the content
	target string // kindLink, kindShared: the link target
	sig    sig
}

// Root is the directory that mirrors the folder: run commands here.
func (c *Copy) Root() string { return c.root }

// Folder is the workspace folder this is a copy of.
func (c *Copy) Folder() string { return c.folder }

// Stats returns how the copy was made.
func (c *Copy) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Path maps a path in the workspace folder to its place in the copy.
func (c *Copy) Path(src string) (string, error) {
	rel, err := c.rel(src)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return c.root, nil
	}
	return filepath.Join(c.root, rel), nil
}

// rel returns src relative to the folder, refusing paths outside it.
func (c *Copy) rel(src string) (string, error) {
	src = filepath.Clean(src)
	if src == c.folder {
		return ".", nil
	}
	if !strings.HasPrefix(src, c.folder+string(filepath.Separator)) && c.folder != "/" {
		return "", fmt.Errorf("%s is not inside the workspace folder %s", src, c.folder)
	}
	return strings.TrimPrefix(src[len(c.folder):], string(filepath.Separator)), nil
}

// New makes a scratch copy of opts.Folder. It honours ctx (a cancelled
// run stops copying) and removes what it made when it fails.
func New(ctx context.Context, opts Options) (*Copy, error) {
	start := time.Now()
	if opts.View == nil || opts.Folder == "" {
		return nil, errors.New("scratch copy: no workspace folder")
	}
	if opts.BaseDir == "" {
		opts.BaseDir = DefaultBaseDir()
	}
	if opts.Shared == nil {
		opts.Shared = DefaultShared
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	cleanOnce(opts.BaseDir)
	c := &Copy{view: opts.View, folder: filepath.Clean(opts.Folder), shared: map[string]bool{}, entries: map[string]entry{}, mtimes: map[string]int64{}}
	for _, s := range opts.Shared {
		c.shared[s] = true
	}
	if err := c.makeDirs(opts.BaseDir, opts.Label); err != nil {
		return nil, fmt.Errorf("scratch copy in %s: %w", opts.BaseDir, err)
	}
	if err := c.build(ctx, opts); err != nil {
		c.Close()
		return nil, err
	}
	c.stats.Duration = time.Since(start)
	return c, nil
}

// Close removes the copy; it is safe to call more than once. The copy is
// moved aside at once and deleted in the background (a large copy takes
// seconds to delete, which no run should wait for); WaitRemovals waits
// for that.
func (c *Copy) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return removeAside(c.dir, c.lockP, c.lock)
}

// Dir is a directory of this process's own under a base directory, locked
// like a copy so that CleanStale removes it once the process is gone: the
// proposal view's overlay layers.
type Dir struct {
	path, lockP string
	lock        *os.File
	once        sync.Once
	err         error
}

// NewDir makes a locked directory in base ("" is DefaultBaseDir()) with
// label in its name.
func NewDir(base, label string) (*Dir, error) {
	if base == "" {
		base = DefaultBaseDir()
	}
	cleanOnce(base)
	dir, lockP, f, err := reserve(base, label)
	if err != nil {
		return nil, fmt.Errorf("scratch directory in %s: %w", base, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Close()
		os.Remove(lockP)
		return nil, fmt.Errorf("scratch directory in %s: %w", base, err)
	}
	return &Dir{path: dir, lockP: lockP, lock: f}, nil
}

// Path is the directory.
func (d *Dir) Path() string { return d.path }

// Close removes the directory as Copy.Close does: moved aside now,
// deleted in the background. Safe to call more than once.
func (d *Dir) Close() error {
	d.once.Do(func() { d.err = removeAside(d.path, d.lockP, d.lock) })
	return d.err
}

// removals counts the background deletions under way. Not a WaitGroup:
// a deletion may start (Add from zero) while another goroutine waits for
// the earlier ones, which WaitGroup forbids (the race detector reports
// it when parallel tests do both).
var removals struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond // signalled when n drops to 0
}

func init() { removals.idle = sync.NewCond(&removals.mu) }

func removalStarted() {
	removals.mu.Lock()
	removals.n++
	removals.mu.Unlock()
}

func removalDone() {
	removals.mu.Lock()
	removals.n--
	if removals.n == 0 {
		removals.idle.Broadcast()
	}
	removals.mu.Unlock()
}

// WaitRemovals waits for the copies and directories being deleted in the
// background: a process (or a test) that ends calls it so that it leaves
// nothing half-deleted behind.
func WaitRemovals() {
	removals.mu.Lock()
	for removals.n > 0 {
		removals.idle.Wait()
	}
	removals.mu.Unlock()
}

// removeAside renames dir to a name without a lock file (so that
// CleanStale of any process finishes the job if this one dies first),
// drops the lock, and deletes the renamed tree in the background. When it
// cannot be renamed it is deleted now.
func removeAside(dir, lockP string, lock *os.File) error {
	trash := filepath.Join(filepath.Dir(dir), ".removing-"+filepath.Base(dir))
	if err := os.Rename(dir, trash); err != nil {
		err = removeAll(dir)
		if err == nil {
			err = os.Remove(lockP)
		}
		lock.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove scratch directory %s: %w", dir, err)
		}
		return nil
	}
	err := os.Remove(lockP)
	lock.Close() // releases the flock
	removalStarted()
	go func() {
		defer removalDone()
		_ = removeAll(trash) // CleanStale retries what is left
	}()
	if err != nil {
		return fmt.Errorf("remove scratch lock %s: %w", lockP, err)
	}
	return nil
}

// removeAll is os.RemoveAll that also copes with directories a command
// made unwritable.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
