package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotRegular is wrapped by OpenFile (and so by Read) when a path names a
// FIFO, socket, device or directory: tools read regular files only, because
// opening anything else can block forever (a FIFO with no writer) or have
// side effects (a device).
var ErrNotRegular = errors.New("not a regular file")

// File is a regular file opened read-only inside a workspace folder. It
// wraps a raw descriptor rather than an *os.File so that callers opening
// thousands of files (grep) do not pay for poller registration.
type File struct {
	fd   int
	path string
	sig  statSig
}

// Path is the path the file was opened by.
func (f *File) Path() string { return f.path }

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.sig.size }

// Read reads from the file, retrying on EINTR. The descriptor is
// non-blocking, which for a regular file changes nothing.
func (f *File) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &pathError{"read", f.path, err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Fd is the file's descriptor, for callers that copy the file with the
// kernel's help (reflink, copy_file_range) instead of reading it. The File
// still owns it: it is valid until Close.
func (f *File) Fd() int { return f.fd }

// Close releases the descriptor.
func (f *File) Close() error {
	if f.fd < 0 {
		return nil
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	return err
}

// Dir is a workspace folder held open so that many files below it can be
// opened with one confinement anchor (grep opens thousands). Close it when
// done.
type Dir struct {
	folder string
	fd     int // -1 when files are confined by the descriptor check instead
}

// OpenDir returns the workspace folder that contains the absolute path p,
// ready for Dir.Open.
func (v *View) OpenDir(p string) (*Dir, error) {
	v.mu.RLock()
	folders := v.folders
	v.mu.RUnlock()
	f := folderOf(folders, filepath.Clean(p))
	if f == "" {
		return nil, fmt.Errorf("open %s: %w; %s", p, ErrOutside, insideHint(folders))
	}
	return openDir(f)
}

// OpenFile opens the absolute path p for reading if, and only if, it is a
// regular file that is really inside a workspace folder at the moment it is
// opened: confinement is checked on the opened descriptor (openat2 with
// RESOLVE_BENEATH on Linux), not on a path that could be swapped for a
// symlink between the check and the open. It never blocks: the open is
// non-blocking and anything but a regular file is refused with
// ErrNotRegular. Escapes are refused with ErrOutside. Every file a tool
// reads is opened through here (or Dir.Open).
func (v *View) OpenFile(p string) (*File, error) {
	d, err := v.OpenDir(p)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Open(p)
}

// Open opens the absolute path p below d; see View.OpenFile.
func (d *Dir) Open(p string) (*File, error) {
	p = filepath.Clean(p)
	if !within(p, d.folder) {
		return nil, fmt.Errorf("open %s: %w", p, ErrOutside)
	}
	fd, err := d.openBeneath(p, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("open %s: %w", p, &pathError{"fstat", p, err})
	}
	sig := sigOf(&st)
	if !sig.isRegular() {
		syscall.Close(fd)
		return nil, notRegular(p, sig.mode)
	}
	return &File{fd: fd, path: p, sig: sig}, nil
}

// ReadDir lists the directory p (inside a workspace folder), unsorted,
// with the same confinement as OpenFile: a directory swapped for a symlink
// to outside while being opened is refused, never listed.
func (v *View) ReadDir(p string) ([]fs.DirEntry, error) {
	d, err := v.OpenDir(p)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(p)
}

// ReadDir lists the directory p below d; see View.ReadDir.
func (d *Dir) ReadDir(p string) ([]fs.DirEntry, error) {
	p = filepath.Clean(p)
	if !within(p, d.folder) {
		return nil, fmt.Errorf("list %s: %w", p, ErrOutside)
	}
	fd, err := d.openBeneath(p, syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	return f.ReadDir(-1)
}

// Close releases the folder descriptor.
func (d *Dir) Close() {
	if d != nil && d.fd >= 0 {
		syscall.Close(d.fd)
		d.fd = -1
	}
}

// notRegular is the error for a path that is not a regular file, naming
// what it is.
func notRegular(p string, mode uint32) error {
	what := "a special file"
	switch mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		what = "a named pipe (FIFO)"
	case syscall.S_IFSOCK:
		what = "a socket"
	case syscall.S_IFCHR, syscall.S_IFBLK:
		what = "a device"
	case syscall.S_IFDIR:
		return fmt.Errorf("read %s: is a directory; list it with list_dir or search it with glob/grep", p)
	case syscall.S_IFLNK:
		what = "a symbolic link"
	}
	return fmt.Errorf("read %s: %w: it is %s; only regular files can be read", p, ErrNotRegular, what)
}

// sameFile reports whether p, looked up now without following any symlink
// below folder, is the file st describes. It is the portable confinement
// check on an opened descriptor: if a component was swapped for a symlink
// during the open, the descriptor's inode differs from what the path names
// now (or the path now goes through a symlink), and the open is refused.
func sameFile(folder, p string, st *syscall.Stat_t) bool {
	var cur syscall.Stat_t
	ok, have := realBelow(folder, p, &cur)
	if !ok || !have {
		return false
	}
	a, b := sigOf(st), sigOf(&cur)
	return a.dev == b.dev && a.ino == b.ino
}

// pathError is os.PathError without importing os into the raw-syscall
// paths.
type pathError struct {
	op, path string
	err      error
}

func (e *pathError) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		err := syscall.Fstat(fd, st)
		if err != syscall.EINTR {
			return err
		}
	}
}
