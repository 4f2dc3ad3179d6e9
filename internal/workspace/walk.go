package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// WalkFunc is called for each entry Walk visits, with the absolute path.
// Returning fs.SkipDir from a directory skips it (from a file: skips the
// rest of its directory), fs.SkipAll ends the walk without error, and any
// other error ends it and is returned.
type WalkFunc func(path string, d fs.DirEntry) error

// walker is the state of one walk; comps is reused for every entry so
// matching allocates nothing per file.
type walker struct {
	v     *View
	ctx   context.Context
	fn    WalkFunc
	noIgn bool // root was explicitly asked for although ignored
	// ignored, when set, is told about each entry the ignore files
	// exclude (WalkIgnored); its return value is handled like fn's.
	ignored WalkFunc
	comps   []string
	levels  []level
}

// Walk visits root and everything below it in lexical order, like
// filepath.WalkDir, but skips .git and whatever the ignore files exclude
// (.gitignore, .ignore, .git/info/exclude, nested ones included; see
// Ignored). root is confined by Resolve; relative roots are relative to the
// first folder. Symlinks are reported, never followed. Directories that
// cannot be read are skipped (logged at debug); only an unreadable root is
// an error. If root itself is ignored, the caller asked for it explicitly
// and its contents are walked without ignore filtering (.git still
// skipped), as ripgrep does for explicit paths. ctx is checked before each
// directory is read.
func (v *View) Walk(ctx context.Context, root string, fn WalkFunc) error {
	return v.walk(ctx, root, fn, nil)
}

// WalkIgnored is Walk that also reports what the ignore files exclude:
// ignored is called for each excluded entry (an excluded directory once,
// never descended into), in the same order, with the same meaning of its
// return value as fn's. .git is still skipped silently. The proposal
// view's copy uses it to share excluded dependency folders (node_modules,
// .venv) instead of copying them.
func (v *View) WalkIgnored(ctx context.Context, root string, fn, ignored WalkFunc) error {
	return v.walk(ctx, root, fn, ignored)
}

func (v *View) walk(ctx context.Context, root string, fn, ignored WalkFunc) error {
	r, err := v.Resolve(root)
	if err != nil {
		return err
	}
	info, err := os.Lstat(r)
	if err != nil {
		return fmt.Errorf("walk %s: %w", root, err)
	}
	d := fs.FileInfoToDirEntry(info)
	if err := fn(r, d); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
			return nil
		}
		return err
	}
	w := &walker{v: v, ctx: ctx, fn: fn, ignored: ignored}
	v.mu.RLock()
	folder := folderOf(v.folders, r)
	v.mu.RUnlock()
	if folder == "" || v.Ignored(r, true) || strings.Contains(r+"/", "/.git/") {
		w.noIgn = true
	} else {
		w.levels, w.comps = v.ign.chain(folder, r, false)
	}
	if err := w.dir(r, false); err != nil && !errors.Is(err, fs.SkipAll) {
		return err
	}
	return nil
}

// dir walks the entries of directory path. w.comps holds path's components
// relative to the ignore base; w.levels the rules of its ancestors, plus
// its own when own is false (the walk root, whose chain Walk built).
func (w *walker) dir(path string, own bool) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := w.v.ReadDir(path)
	if err != nil {
		w.v.log.Debug("walk: directory skipped", "dir", path, "err", err)
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	saved := w.levels
	defer func() { w.levels = saved }()
	if own && !w.noIgn {
		w.pushRules(path, entries)
	}
	n := len(w.comps)
	prefix := path + "/"
	if path == "/" {
		prefix = "/"
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		isDir := e.IsDir()
		w.comps = append(w.comps[:n], name)
		child := prefix + name
		if len(w.levels) > 0 && matchLevels(w.levels, w.comps, isDir) {
			if w.ignored == nil {
				continue
			}
			// Reported, never descended into: SkipDir changes nothing
			// for a directory, and skips the rest of this one for a file.
			if err := w.ignored(child, e); err != nil {
				if errors.Is(err, fs.SkipDir) && isDir {
					continue
				}
				if errors.Is(err, fs.SkipDir) {
					return nil
				}
				return err
			}
			continue
		}
		if err := w.fn(child, e); err != nil {
			if errors.Is(err, fs.SkipDir) {
				if isDir {
					continue
				}
				return nil
			}
			return err
		}
		if !isDir {
			continue
		}
		if err := w.dir(child, true); err != nil {
			return err
		}
	}
	w.comps = w.comps[:n]
	return nil
}

// pushRules adds directory path's own rules to the chain. Whether it has
// ignore files or .git is read off its listing, so the common directory
// without any costs no syscall and no lock. A nested repository root
// starts a fresh chain (a new backing array, so the parent's stays intact).
func (w *walker) pushRules(path string, entries []fs.DirEntry) {
	var present [numIgnoreFiles + 1]bool
	found := false
	for _, e := range entries {
		switch e.Name() {
		case ".gitignore":
			present[ixGitignore], found = true, true
		case ".ignore":
			present[ixIgnore], found = true, true
		case ".git":
			present[numIgnoreFiles], found = true, true
		}
	}
	if !found {
		return
	}
	r := w.v.ign.rules(path, &present, false)
	if r.repoRoot {
		w.levels = nil
	}
	if len(r.patterns) > 0 {
		w.levels = append(w.levels, level{r, len(w.comps)})
	}
}
