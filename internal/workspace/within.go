package workspace

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"
)

// ReadFileIn reads the regular file p inside root with the confinement of
// View.OpenFile, for files that belong to a folder but are read without a
// View (skills): p may go through symlinks only as long as they stay
// inside root (openat2 RESOLVE_BENEATH, else the descriptor check), the
// open never blocks, anything but a regular file is refused
// (ErrNotRegular), and more than max bytes is ErrTooLarge. root is the
// confinement anchor and is itself resolved first: callers pass a folder
// they trust (a workspace folder, a skill folder the user installed).
func ReadFileIn(root, p string, max int64) ([]byte, error) {
	d, real, err := openIn(root, p)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, err := d.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes", p, ErrTooLarge, max)
	}
	return data, nil
}

// ReadDirIn lists the directory p inside root with the same confinement
// as ReadFileIn: a directory that is (or becomes) a symlink leading out of
// root is refused with ErrOutside, never listed.
func ReadDirIn(root, p string) ([]fs.DirEntry, error) {
	d, real, err := openIn(root, p)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(real)
}

// openIn opens root, resolved, as a confinement anchor, and returns p
// (lexically below root) resolved as View.Resolve does (symlinks inside
// root followed, ErrOutside for those leading out), so the open below is
// the same two-step confinement as every read through a View.
func openIn(root, p string) (*Dir, string, error) {
	root = filepath.Clean(root)
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil, "", fmt.Errorf("open %s: %w: it is not inside %s", p, ErrOutside, root)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", root, err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, "", fmt.Errorf("open %s: %w", root, err)
	}
	var st syscall.Stat_t
	resolved, _, err := resolveIn([]string{real}, filepath.Join(real, rel), &st)
	if err != nil {
		return nil, "", err
	}
	d, err := openDir(real)
	if err != nil {
		return nil, "", err
	}
	return d, resolved, nil
}
