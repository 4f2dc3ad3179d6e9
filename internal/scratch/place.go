package scratch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/atomicfile"
)

// sig is a stat signature: enough to notice that a command replaced,
// rewrote or removed what the copy placed.
type sig struct {
	ino   uint64
	size  int64
	mtime int64       // nanoseconds
	typ   fs.FileMode // type bits only: 0 for a regular file
}

func sigOf(fi fs.FileInfo) sig {
	s := sig{size: fi.Size(), mtime: fi.ModTime().UnixNano(), typ: fi.Mode().Type()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
	}
	return s
}

// WriteText places text at src's place in the copy (an unsaved buffer, a
// staged change), replacing what is there; the file keeps the mode of the
// copy's previous file, else of the workspace's, else 0644.
func (c *Copy) WriteText(src, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("scratch copy is closed")
	}
	rel, err := c.rel(src)
	if err != nil {
		return err
	}
	if old, ok := c.entries[rel]; ok && old.kind == kindText && old.text == text && c.intact(rel, old) {
		return nil
	}
	return c.writeText(rel, text)
}

func (c *Copy) writeText(rel, text string) error {
	dst, err := c.prepare(rel)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	var prev time.Time
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() {
		perm, prev = fi.Mode().Perm(), fi.ModTime()
	} else if fi, err := os.Lstat(filepath.Join(c.folder, rel)); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	// The one way agentls replaces a file (a temporary file renamed over
	// it: a symlink a command left there is replaced, never followed).
	if err := atomicfile.WriteFile(dst, []byte(text), perm); err != nil {
		return fmt.Errorf("scratch copy: %w", err)
	}
	if err := c.newerThan(rel, dst, prev); err != nil {
		return fmt.Errorf("scratch copy: %w", err)
	}
	e := entry{kind: kindText, text: text}
	if fi, err := os.Lstat(dst); err == nil {
		e.sig = sigOf(fi)
	}
	c.entries[rel] = e
	return nil
}

// prepare makes rel's parent directories in the copy and returns rel's
// path there. A parent that is a symlink the copy made (a shared
// dependency folder) is refused: writing through it would write the
// workspace. One a command put there is replaced by a directory.
func (c *Copy) prepare(rel string) (string, error) {
	parts := strings.Split(rel, string(filepath.Separator))
	cur := c.root
	for i, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			prefix := filepath.Join(parts[:i+1]...)
			if e, ok := c.entries[prefix]; ok && (e.kind == kindShared || e.kind == kindLink) {
				return "", fmt.Errorf("%s is inside %s, which the scratch copy shares with the workspace by symlink; it cannot be changed there", rel, prefix)
			}
			if err := os.Remove(cur); err != nil {
				return "", err
			}
		case err == nil:
			if err := os.Remove(cur); err != nil { // a file where a directory belongs
				return "", err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		if err := os.Mkdir(cur, 0o755); err != nil {
			return "", err
		}
	}
	dst := filepath.Join(c.root, rel)
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		if err := removeAll(dst); err != nil { // a directory where a file belongs
			return "", err
		}
	}
	return dst, nil
}

// Restore makes src's place in the copy what the workspace holds on disk
// again (after WriteText, or when the disk changed): the file copied anew,
// a directory copied whole, or removed when the workspace has nothing
// there or ignores it (a shared folder is shared again).
func (c *Copy) Restore(ctx context.Context, src string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("scratch copy is closed")
	}
	rel, err := c.rel(src)
	if err != nil || rel == "." {
		return err
	}
	return c.restore(ctx, rel)
}

func (c *Copy) restore(ctx context.Context, rel string) error {
	src := filepath.Join(c.folder, rel)
	dst, err := c.prepare(rel)
	if err != nil {
		return err
	}
	var prev time.Time
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() {
		prev = fi.ModTime()
	}
	c.forget(rel)
	if err := removeAll(dst); err != nil {
		return err
	}
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.view.Ignored(src, fi.IsDir()) {
		if c.shared[fi.Name()] && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
			return c.link(rel, src, kindShared)
		}
		return nil
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := c.linkTarget(src)
		if err != nil {
			return nil
		}
		return c.link(rel, target, kindLink)
	case fi.Mode().IsRegular():
		if err := c.copyOne(rel); err != nil {
			return err
		}
		if e, ok := c.entries[rel]; ok {
			if err := c.newerThan(rel, dst, prev); err != nil {
				return err
			}
			c.record(rel, e)
		}
		return nil
	case fi.IsDir():
		return c.copyTree(ctx, rel)
	}
	return nil
}

// newerThan makes the modification time of path (the new file for rel)
// later, in whole seconds, than prev (the file it replaces) and than any
// file placed at rel before. Tools that cache by (mtime in seconds, size)
// would otherwise take a file rewritten within the same second, at the
// same size, for the old one: Python's .pyc files do, and so did a pytest
// check in agent's tests (a + b → a * b) until this was added; make
// wants sources to move forward, never back.
func (c *Copy) newerThan(rel, path string, prev time.Time) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	floor := c.mtimes[rel]
	if !prev.IsZero() {
		floor = max(floor, prev.Unix())
	}
	now := fi.ModTime().Unix()
	if floor == 0 || now > floor {
		c.mtimes[rel] = now
		return nil
	}
	t := time.Unix(floor+1, 0)
	c.mtimes[rel] = floor + 1
	return os.Chtimes(path, t, t)
}

// forget drops rel and everything recorded below it.
func (c *Copy) forget(rel string) {
	delete(c.entries, rel)
	prefix := rel + string(filepath.Separator)
	for k := range c.entries {
		if strings.HasPrefix(k, prefix) {
			delete(c.entries, k)
		}
	}
}

func (c *Copy) link(rel, target string, k kind) error {
	dst := filepath.Join(c.root, rel)
	if err := os.Symlink(target, dst); err != nil {
		return err
	}
	c.record(rel, entry{kind: k, target: target})
	return nil
}

// copyOne copies the workspace's file at rel into the (free) place.
func (c *Copy) copyOne(rel string) error {
	d, err := c.view.OpenDir(c.folder)
	if err != nil {
		return err
	}
	defer d.Close()
	fi, err := os.Lstat(filepath.Join(c.folder, rel))
	if err != nil {
		return nil
	}
	res, err := c.copyFile(d, copyJob{src: filepath.Join(c.folder, rel), dst: filepath.Join(c.root, rel), rel: rel, perm: fi.Mode().Perm()})
	if err != nil || res.err != nil {
		return err // a source that cannot be read is left out, as in New
	}
	c.entries[rel] = entry{kind: kindFile, sig: res.sig}
	return nil
}

// copyTree copies the workspace's directory at rel (a directory that
// appeared, or one a command removed) with the same rules as New.
func (c *Copy) copyTree(ctx context.Context, rel string) error {
	return c.view.WalkIgnored(ctx, filepath.Join(c.folder, rel), func(p string, d fs.DirEntry) error {
		r, err := c.rel(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(c.root, r)
		switch t := d.Type(); {
		case t.IsDir():
			if err := os.Mkdir(dst, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case t&fs.ModeSymlink != 0:
			if target, err := c.linkTarget(p); err == nil {
				return c.link(r, target, kindLink)
			}
		case t.IsRegular():
			return c.copyOne(r)
		}
		return nil
	}, func(p string, d fs.DirEntry) error {
		if c.shared[d.Name()] && (d.IsDir() || d.Type()&fs.ModeSymlink != 0) {
			r, err := c.rel(p)
			if err != nil {
				return err
			}
			return c.link(r, p, kindShared)
		}
		return nil
	})
}

// intact reports whether what the copy placed at rel is still there as
// placed.
func (c *Copy) intact(rel string, e entry) bool {
	fi, err := os.Lstat(filepath.Join(c.root, rel))
	return err == nil && sigOf(fi) == e.sig
}

// Repair puts back everything the copy placed that a command changed,
// replaced or removed since (files it added are left), so the next
// command sees the proposal again. It returns how many places it
// repaired. One stat per placed entry: about 20 ms for 11,000 files.
func (c *Copy) Repair(ctx context.Context) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, errors.New("scratch copy is closed")
	}
	var broken []string
	for rel, e := range c.entries {
		if !c.intact(rel, e) {
			broken = append(broken, rel)
		}
	}
	for i, rel := range broken {
		if i%256 == 0 && ctx.Err() != nil {
			return i, ctx.Err()
		}
		e, ok := c.entries[rel]
		if !ok {
			continue // under a directory already restored
		}
		var err error
		if e.kind == kindText {
			err = c.writeText(rel, e.text)
		} else {
			err = c.restore(ctx, rel)
		}
		if err != nil {
			return i, fmt.Errorf("repair %s in the scratch copy: %w", rel, err)
		}
	}
	return len(broken), nil
}
