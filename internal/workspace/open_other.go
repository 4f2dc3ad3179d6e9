//go:build !linux

package workspace

import (
	"fmt"
	"os"
	"syscall"
)

// openFlags are the flags of every tool open: read-only, non-blocking (a
// FIFO with no writer must not hang the open), never a controlling tty.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC | syscall.O_NOCTTY

func openDir(folder string) (*Dir, error) { return &Dir{folder: folder, fd: -1}, nil }

// openBeneath opens p without following a final symlink and then checks
// the descriptor: the path, walked again without following symlinks, must
// name the same inode, so a directory swapped for a symlink during the open
// is caught.
func (d *Dir) openBeneath(p string, extra int) (int, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(p, openFlags|syscall.O_NOFOLLOW|extra, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		if err == syscall.ELOOP {
			return -1, fmt.Errorf("open %s: %w: it became a symlink while being opened", p, ErrOutside)
		}
		return -1, fmt.Errorf("open %s: %w", p, &os.PathError{Op: "open", Path: p, Err: err})
	}
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil || !sameFile(d.folder, p, &st) {
		syscall.Close(fd)
		return -1, fmt.Errorf("open %s: %w: it changed while being opened", p, ErrOutside)
	}
	return fd, nil
}
