package scratch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/workspace"
)

// copyJob is one regular file for a worker.
type copyJob struct {
	src, dst, rel string
	perm          fs.FileMode
}

// copied is a worker's result for one file.
type copied struct {
	rel    string
	sig    sig
	size   int64
	cloned bool
	err    error // reading the source failed: the file is left out
}

// build walks the folder once (directories and symlinks are made on the
// walking goroutine, so a directory exists before its files) and hands the
// regular files to opts.Workers copiers.
func (c *Copy) build(ctx context.Context, opts Options) error {
	src, err := opts.View.OpenDir(c.folder)
	if err != nil {
		return fmt.Errorf("scratch copy: %w", err)
	}
	defer src.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	jobs := make(chan copyJob, 256)
	results := make([][]copied, opts.Workers)
	var wg sync.WaitGroup
	for w := range opts.Workers {
		wg.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				res, fatal := c.copyFile(src, j)
				if fatal != nil {
					cancel(fatal)
					continue
				}
				results[w] = append(results[w], res)
			}
		})
	}
	files, bytes := 0, int64(0)
	walkErr := opts.View.WalkIgnored(ctx, c.folder, func(p string, d fs.DirEntry) error {
		rel, err := c.rel(p)
		if err != nil || rel == "." {
			return err
		}
		dst := filepath.Join(c.root, rel)
		switch t := d.Type(); {
		case t.IsDir():
			info, err := d.Info()
			perm := fs.FileMode(0o755)
			if err == nil {
				perm = info.Mode().Perm() | 0o700
			}
			return os.Mkdir(dst, perm)
		case t&fs.ModeSymlink != 0:
			target, err := c.linkTarget(p)
			if err != nil {
				return nil // vanished or unreadable: left out
			}
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
			c.record(rel, entry{kind: kindLink, target: target})
			c.stats.Links++
			return nil
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return nil // vanished
			}
			files++
			bytes += info.Size()
			if files > opts.MaxFiles {
				return fmt.Errorf("%w: more than %d files (put build output in .gitignore, or raise the bound)", ErrTooLarge, opts.MaxFiles)
			}
			if bytes > opts.MaxBytes {
				return fmt.Errorf("%w: more than %d MiB to copy (put large generated files in .gitignore)", ErrTooLarge, opts.MaxBytes>>20)
			}
			select {
			case jobs <- copyJob{src: p, dst: dst, rel: rel, perm: info.Mode().Perm()}:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		return nil // sockets, FIFOs, devices: nothing a command needs from a copy
	}, func(p string, d fs.DirEntry) error {
		if !c.shared[d.Name()] || !(d.IsDir() || d.Type()&fs.ModeSymlink != 0) {
			return nil
		}
		rel, err := c.rel(p)
		if err != nil {
			return err
		}
		if err := os.Symlink(p, filepath.Join(c.root, rel)); err != nil {
			return err
		}
		c.record(rel, entry{kind: kindShared, target: p})
		c.stats.Shared++
		c.stats.SharedDir = append(c.stats.SharedDir, rel)
		return nil
	})
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && walkErr == nil {
		walkErr = err
	}
	if walkErr != nil {
		if errors.Is(walkErr, ErrTooLarge) {
			return walkErr
		}
		return fmt.Errorf("scratch copy of %s: %w", c.folder, walkErr)
	}
	for _, rs := range results {
		for _, r := range rs {
			if r.err != nil {
				c.stats.Skipped++
				continue
			}
			c.entries[r.rel] = entry{kind: kindFile, sig: r.sig}
			c.stats.Files++
			c.stats.Bytes += r.size
			if r.cloned {
				c.stats.Cloned++
			}
		}
	}
	switch {
	case c.stats.Cloned == 0:
		c.stats.CopyMode = "copy"
	case c.stats.Cloned == c.stats.Files:
		c.stats.CopyMode = "reflink"
	default:
		c.stats.CopyMode = "reflink+copy"
	}
	return nil
}

// record notes an entry placed by the walking goroutine (workers' results
// are merged after the walk).
func (c *Copy) record(rel string, e entry) {
	if st, err := os.Lstat(filepath.Join(c.root, rel)); err == nil {
		e.sig = sigOf(st)
	}
	c.entries[rel] = e
}

// copyFile copies one file. A source that cannot be read is reported in
// the result (the file is left out); a destination that cannot be written
// (disk full, permissions) is fatal for the copy.
func (c *Copy) copyFile(src *workspace.Dir, j copyJob) (copied, error) {
	in, err := src.Open(j.src)
	if err != nil {
		return copied{rel: j.rel, err: err}, nil
	}
	defer in.Close()
	s, cloned, err := c.cloneOrCopy(in.Fd(), j.dst, j.perm, in.Size())
	if err != nil {
		var re *readError
		if errors.As(err, &re) {
			os.Remove(j.dst)
			return copied{rel: j.rel, err: err}, nil
		}
		return copied{}, fmt.Errorf("write %s: %w", j.dst, err)
	}
	return copied{rel: j.rel, sig: s, size: in.Size(), cloned: cloned}, nil
}

// readError marks a failure on the source side of a copy.
type readError struct{ err error }

func (e *readError) Error() string { return "read: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// linkTarget is what the copy's version of the symlink at p points to:
// into the copy when the link points inside the folder, else where it
// points now (made absolute when relative).
func (c *Copy) linkTarget(p string) (string, error) {
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(p), target)
	}
	rel, err := c.rel(abs)
	switch {
	case err != nil:
		return abs, nil // outside the folder: the same place
	case !filepath.IsAbs(target):
		return target, nil // relative and inside: resolves inside the copy too
	default:
		return filepath.Join(c.root, rel), nil
	}
}
