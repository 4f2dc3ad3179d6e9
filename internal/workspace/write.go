//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/internal/atomicfile"
)

// ErrGitDir is wrapped by WritablePath and WriteFile for a path inside a
// .git directory: agentls never writes there (hooks and config there run
// commands).
var ErrGitDir = errors.New("path is inside .git")

// InGitDir reports whether path is a .git directory or inside one. Every
// component counts, compared case-insensitively and without trailing dots
// or spaces: on macOS and Windows ".GIT/config" and ".git./config" are
// the repository's own config, so a case-sensitive check would be no
// check there.
func InGitDir(path string) bool {
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if strings.EqualFold(strings.TrimRight(part, ". "), ".git") {
			return true
		}
	}
	return false
}

// WritablePath applies every write rule to path and returns it resolved:
// Resolve's confinement (inside a workspace folder once symlinks are
// resolved, no "~", no ".."), and never inside .git, judged on both the
// path as given and the resolved one (a symlink named "hooks" pointing
// into .git is still .git). Anything that writes for agentls (the CLI's
// --apply, restored or replayed proposals) checks here first.
func (v *View) WritablePath(path string) (string, error) {
	real, err := v.Resolve(path)
	if err != nil {
		return "", err
	}
	v.mu.RLock()
	folders := v.folders
	v.mu.RUnlock()
	lexical := path
	if !filepath.IsAbs(lexical) && len(folders) > 0 {
		lexical = filepath.Join(folders[0], lexical)
	}
	for _, p := range []string{filepath.Clean(lexical), real} {
		if f := folderOf(folders, p); f != "" && InGitDir(p[len(f):]) {
			return "", fmt.Errorf("%w: %s; agentls never writes inside .git", ErrGitDir, path)
		}
	}
	return real, nil
}

// WriteOptions say how WriteFile may write.
type WriteOptions struct {
	// Create allows creating the file (and missing parent directories);
	// without it the file must exist.
	Create bool
	// Mode is the new file's permission bits (default 0644); an existing
	// file keeps its own.
	Mode fs.FileMode
}

// WriteFile replaces (or creates) the file path with data, confined like
// every read: path passes WritablePath, then every directory from the
// workspace folder down is opened one component at a time without
// following a symlink (a directory swapped for a symlink to outside
// between the check and the write is refused with ErrOutside, never
// written through), missing directories are created the same way, and the
// file is written to a temporary file in its directory and renamed over
// path there, so a crash leaves the old or the new content, never a mix.
// An existing path that is not a regular file is refused (ErrNotRegular).
func (v *View) WriteFile(path string, data []byte, opts WriteOptions) error {
	real, err := v.WritablePath(path)
	if err != nil {
		return err
	}
	v.mu.RLock()
	folder := folderOf(v.folders, real)
	v.mu.RUnlock()
	if folder == "" || real == folder {
		return fmt.Errorf("write %s: %w", path, ErrOutside)
	}
	dfd, base, err := openParent(folder, real, path, opts.Create)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer unix.Close(dfd)
	mode := opts.Mode
	if mode == 0 {
		mode = 0o644
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("write %s: %w: it became a symlink", path, ErrOutside)
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return notRegular(path, uint32(st.Mode))
	case err == nil:
		mode = fs.FileMode(st.Mode & 0o777)
	case err == unix.ENOENT && opts.Create:
	case err == unix.ENOENT:
		return fmt.Errorf("write %s: %w", path, fs.ErrNotExist)
	default:
		return fmt.Errorf("write %s: %w", path, &os.PathError{Op: "stat", Path: path, Err: err})
	}
	return writeAt(dfd, base, path, data, mode)
}

// openParent opens the directory holding real (inside folder) by walking
// down from folder one component at a time without following a symlink,
// creating missing directories when create is set. It returns the
// directory's descriptor and real's base name.
func openParent(folder, real, shown string, create bool) (int, string, error) {
	rel := strings.TrimPrefix(real[len(folder):], "/")
	dirs, base := filepath.Split(rel)
	dfd, err := openNoFollow(unix.AT_FDCWD, folder, "", false)
	if err != nil {
		return -1, "", err
	}
	done := folder
	for _, c := range strings.Split(strings.TrimSuffix(dirs, "/"), "/") {
		if c == "" {
			continue
		}
		next, err := openNoFollow(dfd, c, filepath.Join(done, c), create)
		unix.Close(dfd)
		if err != nil {
			return -1, "", err
		}
		dfd, done = next, filepath.Join(done, c)
	}
	return dfd, base, nil
}

// openNoFollow opens the directory name below dirfd without following a
// symlink, creating it first when create is set and it is missing. shown
// is the path for messages.
func openNoFollow(dirfd int, name, shown string, create bool) (int, error) {
	if shown == "" {
		shown = name
	}
	for range 2 {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.EINTR:
			continue
		case err == unix.ELOOP || err == unix.ENOTDIR && isSymlinkAt(dirfd, name):
			return -1, fmt.Errorf("%w: %s is a symlink; agentls writes only through real directories of the workspace", ErrOutside, shown)
		case err == unix.ENOENT && create:
			if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && err != unix.EEXIST {
				return -1, &os.PathError{Op: "mkdir", Path: shown, Err: err}
			}
			create = false
			continue
		default:
			return -1, &os.PathError{Op: "open", Path: shown, Err: err}
		}
	}
	return -1, &os.PathError{Op: "open", Path: shown, Err: unix.ENOENT}
}

func isSymlinkAt(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// writeAt replaces base in dirfd with data (atomicfile.WriteAt: a fresh
// temporary file, synced, given mode, renamed over base, directory synced).
func writeAt(dirfd int, base, shown string, data []byte, mode fs.FileMode) error {
	return atomicfile.WriteAt(dirfd, base, shown, data, mode)
}

// RemoveFile deletes the regular file path under the rules of WriteFile:
// WritablePath first, then its directory reached without following a
// symlink, and only a regular file (or a symlink, which is the entry
// itself) is unlinked there.
func (v *View) RemoveFile(path string) error {
	real, err := v.WritablePath(path)
	if err != nil {
		return err
	}
	v.mu.RLock()
	folder := folderOf(v.folders, real)
	v.mu.RUnlock()
	if folder == "" || real == folder {
		return fmt.Errorf("remove %s: %w", path, ErrOutside)
	}
	dfd, base, err := openParent(folder, real, path, false)
	if err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("remove %s: %w", path, &os.PathError{Op: "stat", Path: path, Err: err})
	}
	if m := st.Mode & unix.S_IFMT; m != unix.S_IFREG && m != unix.S_IFLNK {
		return notRegular(path, uint32(st.Mode))
	}
	if err := unix.Unlinkat(dfd, base, 0); err != nil {
		return fmt.Errorf("remove %s: %w", path, &os.PathError{Op: "remove", Path: path, Err: err})
	}
	return nil
}
