package workspace

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 is found missing (ENOSYS on kernels before
// 5.6, or EPERM under a seccomp filter that does not know it); from then on
// every open uses the descriptor check.
var noOpenat2 atomic.Bool

// openFlags are the flags of every tool open: read-only, non-blocking (a
// FIFO with no writer must not hang the open), never a controlling tty.
const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY

func openDir(folder string) (*Dir, error) {
	if noOpenat2.Load() {
		return &Dir{folder: folder, fd: -1}, nil
	}
	for {
		fd, err := unix.Open(folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("open workspace folder %s: %w", folder, err)
		}
		return &Dir{folder: folder, fd: fd}, nil
	}
}

// openBeneath opens p (inside d.folder) with the kernel refusing any
// resolution that leaves the folder, or, without openat2, opens it without
// following a final symlink and checks where the descriptor really is.
func (d *Dir) openBeneath(p string, extra int) (int, error) {
	if d.fd >= 0 && !noOpenat2.Load() {
		rel := "."
		if p != d.folder {
			rel = p[len(d.folder):]
			if d.folder != "/" {
				rel = rel[1:]
			}
		}
		how := unix.OpenHow{Flags: uint64(openFlags | extra), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
		for range 64 {
			fd, err := unix.Openat2(d.fd, rel, &how)
			switch {
			case err == nil:
				return fd, nil
			case err == unix.EINTR || err == unix.EAGAIN:
				continue // EAGAIN: a concurrent rename raced the lookup
			case err == unix.ENOSYS || err == unix.EPERM && !permDenied(p):
				noOpenat2.Store(true)
				return d.openChecked(p, extra)
			case err == unix.EXDEV || err == unix.ELOOP:
				return -1, fmt.Errorf("open %s: %w: it resolves (through a symlink) to a place outside the workspace folder %s", p, ErrOutside, d.folder)
			default:
				return -1, fmt.Errorf("open %s: %w", p, &os.PathError{Op: "open", Path: p, Err: err})
			}
		}
		return -1, fmt.Errorf("open %s: %w", p, &os.PathError{Op: "open", Path: p, Err: unix.EAGAIN})
	}
	return d.openChecked(p, extra)
}

// permDenied tells a real permission error (the file is unreadable, which
// access(2) confirms) from a seccomp filter refusing openat2 itself.
func permDenied(p string) bool {
	return unix.Access(p, unix.R_OK) != nil
}

// openChecked is the fallback confinement: open without following a final
// symlink, then ask the kernel where the descriptor points
// (/proc/self/fd), or, without /proc, compare it with what the path names
// now.
func (d *Dir) openChecked(p string, extra int) (int, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(p, openFlags|unix.O_NOFOLLOW|extra, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if err == unix.ELOOP {
			return -1, fmt.Errorf("open %s: %w: it became a symlink while being opened", p, ErrOutside)
		}
		return -1, fmt.Errorf("open %s: %w", p, &os.PathError{Op: "open", Path: p, Err: err})
	}
	if real, rerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); rerr == nil {
		if within(real, d.folder) {
			return fd, nil
		}
		syscall.Close(fd)
		return -1, fmt.Errorf("open %s: %w: it was swapped for a path outside the workspace while being opened", p, ErrOutside)
	} else if !errors.Is(rerr, os.ErrNotExist) {
		syscall.Close(fd)
		return -1, fmt.Errorf("open %s: checking where it leads: %w", p, rerr)
	}
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil || !sameFile(d.folder, p, &st) {
		syscall.Close(fd)
		return -1, fmt.Errorf("open %s: %w: it changed while being opened", p, ErrOutside)
	}
	return fd, nil
}
