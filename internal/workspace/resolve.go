package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinkDepth bounds symlink chains followed by evalPrefix, like the
// kernel's ELOOP limit.
const maxLinkDepth = 40

// Resolve confines path to the workspace and returns it absolute, cleaned
// and with every symlink resolved (so two spellings of one file give one
// answer). Relative paths are relative to the first folder. It refuses, with
// ErrOutside and a message telling the model what to do: "~" paths (never
// expanded), paths whose cleaned or symlink-resolved form leaves every
// folder (".." escapes, absolute paths elsewhere, symlinks pointing out,
// including dangling ones and not-yet-existing files under an escaping
// symlinked directory), and any path when no folder is open. The file need
// not exist: the longest existing prefix is resolved.
func (v *View) Resolve(path string) (string, error) {
	var st syscall.Stat_t
	p, _, err := v.resolve(path, &st)
	return p, err
}

// resolve is Resolve that also reports whether st now holds the stat of
// the resolved path (true when the fast path lstat'ed it and it is not a
// symlink), which saves Read a second stat.
func (v *View) resolve(path string, st *syscall.Stat_t) (string, bool, error) {
	v.mu.RLock()
	folders := v.folders
	v.mu.RUnlock()
	return resolveIn(folders, path, st)
}

func resolveIn(folders []string, path string, st *syscall.Stat_t) (string, bool, error) {
	if len(folders) == 0 {
		return "", false, fmt.Errorf("%w: no workspace folder is open, so %q cannot be reached; open a folder first", ErrOutside, path)
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		return "", false, fmt.Errorf("%w: %q: \"~\" is not expanded; %s", ErrOutside, path, insideHint(folders))
	}
	var lexical string
	if filepath.IsAbs(path) {
		lexical = filepath.Clean(path)
	} else {
		lexical = filepath.Join(folders[0], path)
	}
	if f := folderOf(folders, lexical); f != "" {
		if ok, have := realBelow(f, lexical, st); ok {
			return lexical, have, nil
		}
	}
	real, err := evalPrefix(lexical)
	if err != nil {
		return "", false, fmt.Errorf("resolve %s: %w", path, err)
	}
	if folderOf(folders, real) != "" {
		return real, false, nil
	}
	if folderOf(folders, lexical) != "" {
		return "", false, fmt.Errorf("%w: %q goes through a symlink that leads outside the workspace (to %s); %s", ErrOutside, path, real, insideHint(folders))
	}
	return "", false, fmt.Errorf("%w: %q is outside the workspace; %s", ErrOutside, path, insideHint(folders))
}

// realBelow is the fast path of Resolve: folder is already real (resolved by
// SetFolders), so only the components of p below it need checking, one
// lstat each. ok means p is its own real path: no component is a symlink
// (a missing one ends the check, since nothing below it exists either).
// have means st holds p's lstat. Anything unusual (a symlink, a file used
// as a directory, an error) returns ok=false for the slow path to resolve
// or report.
func realBelow(folder, p string, st *syscall.Stat_t) (ok, have bool) {
	i := len(folder)
	if folder == "/" {
		i = 0
	}
	if p == folder {
		return syscall.Lstat(p, st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR, true
	}
	for {
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			j = len(p)
		} else {
			j += i + 1
		}
		if err := syscall.Lstat(p[:j], st); err != nil {
			return err == syscall.ENOENT, false
		}
		mode := st.Mode & syscall.S_IFMT
		if mode == syscall.S_IFLNK {
			return false, false
		}
		if j == len(p) {
			return true, true
		}
		if mode != syscall.S_IFDIR {
			return false, false
		}
		i = j
	}
}

// insideHint is the corrective half of every ErrOutside message.
func insideHint(folders []string) string {
	if len(folders) == 1 {
		return fmt.Sprintf("paths must be inside the workspace folder %s (use a path relative to it, without \"..\" leaving it)", folders[0])
	}
	return fmt.Sprintf("paths must be inside one of the workspace folders %s (relative paths are relative to %s)", strings.Join(folders, ", "), folders[0])
}

// folderOf returns the folder containing p, or "" if none does.
func folderOf(folders []string, p string) string {
	for _, f := range folders {
		if within(p, f) {
			return f
		}
	}
	return ""
}

// within reports whether p is dir or below it; both must be clean and absolute.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || (len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir))
}

// evalPrefix resolves the symlinks of the longest existing prefix of the
// clean absolute path p and appends the rest. A dangling symlink is followed
// to its (missing) target, because writing through it would create the
// target: /ws/link -> /etc/x must resolve to /etc/x, not /ws/link.
func evalPrefix(p string) (string, error) { return evalPrefixDepth(p, 0) }

func evalPrefixDepth(p string, depth int) (string, error) {
	if depth > maxLinkDepth {
		return "", fmt.Errorf("%s: %w", p, syscall.ELOOP)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir := filepath.Dir(p)
	if dir == p {
		return p, nil
	}
	if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, rerr := os.Readlink(p)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			realDir, derr := evalPrefixDepth(dir, depth+1)
			if derr != nil {
				return "", derr
			}
			target = filepath.Join(realDir, target)
		}
		return evalPrefixDepth(filepath.Clean(target), depth+1)
	}
	realDir, err := evalPrefixDepth(dir, depth)
	if err != nil {
		return "", err
	}
	return filepath.Join(realDir, filepath.Base(p)), nil
}
