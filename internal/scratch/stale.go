package scratch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultBaseDir is where copies live: $XDG_CACHE_HOME/agentls/views (or
// the platform's cache directory), else a per-user folder in the temporary
// directory. Never inside a workspace.
func DefaultBaseDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "agentls", "views")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("agentls-views-%d", os.Getuid()))
}

const lockSuffix = ".lock"

// makeDirs creates the copy's lock file (held for the copy's life) and
// then its directory. Lock first: a directory without its lock file is
// stale by definition, so CleanStale never removes a copy being made.
func (c *Copy) makeDirs(base, label string) error {
	dir, lockP, f, err := reserve(base, label)
	if err != nil {
		return err
	}
	c.dir, c.lockP, c.lock = dir, lockP, f
	name := filepath.Base(c.folder)
	if name == "/" || name == "." {
		name = "root"
	}
	c.root = filepath.Join(c.dir, name)
	if err := os.MkdirAll(c.root, 0o700); err != nil {
		f.Close()
		os.Remove(c.lockP)
		os.RemoveAll(c.dir)
		return err
	}
	return nil
}

// reserve names a new directory under base and creates and locks its
// lock file; the caller makes the directory.
func reserve(base, label string) (dir, lockP string, lock *os.File, err error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", "", nil, err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	id := fmt.Sprintf("%s-%d-%s", sanitize(label), os.Getpid(), hex.EncodeToString(rnd[:]))
	dir = filepath.Join(base, id)
	lockP = dir + lockSuffix
	// Locked under a temporary name, then renamed: a cleaner never sees
	// the lock file unlocked.
	f, err := os.CreateTemp(base, ".tmp-lock-*")
	if err != nil {
		return "", "", nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", "", nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid()) // for people; the flock is what counts
	if err := os.Rename(f.Name(), lockP); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", "", nil, err
	}
	return dir, lockP, f, nil
}

// sanitize keeps a label usable in a file name.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		s = "view"
	}
	return s
}

// tmpLockGrace is how old a temporary lock file must be before CleanStale
// takes it for one a dead process left.
const tmpLockGrace = time.Minute

var (
	cleanedMu sync.Mutex
	cleaned   = map[string]bool{}
)

// cleanOnce runs CleanStale on base the first time this process makes a
// copy there.
func cleanOnce(base string) {
	cleanedMu.Lock()
	done := cleaned[base]
	cleaned[base] = true
	cleanedMu.Unlock()
	if !done {
		_, _ = CleanStale(base)
	}
}

// CleanStale removes the copies in base whose owner is gone: their lock
// file can be locked (the flock of a process dies with it), or they have
// no lock file at all (New locks the file before the directory exists and
// Close removes the directory first). Copies of live processes, this one included, are
// left alone. It returns how many it removed; errors removing one copy do
// not stop the others (the first is returned).
func CleanStale(base string) (int, error) {
	entries, err := os.ReadDir(base)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	removed := 0
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-lock-"): // New died before renaming it
			// A young one is a reserve in progress, here or in another
			// process, between its creation and its flock (microseconds):
			// locking it first would remove it under that reserve.
			if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < tmpLockGrace {
				continue
			}
			f, err := os.OpenFile(filepath.Join(base, name), os.O_RDWR, 0)
			if err != nil {
				continue
			}
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
				note(os.Remove(filepath.Join(base, name)))
			}
			f.Close()
		case strings.HasSuffix(name, lockSuffix):
			dir := strings.TrimSuffix(name, lockSuffix)
			f, err := os.OpenFile(filepath.Join(base, name), os.O_RDWR, 0)
			if err != nil {
				continue
			}
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
				f.Close() // alive
				continue
			}
			err = removeAll(filepath.Join(base, dir))
			if err == nil {
				err = os.Remove(filepath.Join(base, name))
			}
			f.Close()
			note(err)
			if err == nil && names[dir] {
				removed++
			}
		case e.IsDir() && !names[name+lockSuffix]:
			if _, err := os.Lstat(filepath.Join(base, name+lockSuffix)); err == nil {
				continue // its lock appeared after the listing: being made
			}
			err := removeAll(filepath.Join(base, name))
			note(err)
			if err == nil {
				removed++
			}
		}
	}
	return removed, first
}
