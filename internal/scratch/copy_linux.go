package scratch

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// cloneOrCopy creates dst (which must not exist) with perm and the content
// of the open file srcFd: a reflink (FICLONE: shared extents, no data
// copied; btrfs, XFS, bcachefs) when the filesystem can, else an in-kernel
// copy (copy_file_range), else read/write. The first refused reflink turns
// reflinks off for the rest of the copy. Never a hard link: a command
// writing the copy's file would write the user's.
func (c *Copy) cloneOrCopy(srcFd int, dst string, perm fs.FileMode, size int64) (sig, bool, error) {
	fd, err := openNew(dst, perm)
	if err != nil {
		return sig{}, false, err
	}
	defer unix.Close(fd)
	cloned := false
	if size > 0 && !c.noClone.Load() {
		switch err := unix.IoctlFileClone(fd, srcFd); err {
		case nil:
			cloned = true
		case unix.EOPNOTSUPP, unix.EXDEV, unix.EINVAL, unix.ENOTTY, unix.ENOSYS, unix.EPERM, unix.EBADF:
			c.noClone.Store(true) // this filesystem (pair) cannot: stop asking
		}
	}
	if !cloned {
		if err := kernelCopy(fd, srcFd); err != nil {
			return sig{}, false, err
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return sig{}, false, err
	}
	return sig{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), typ: 0}, cloned, nil
}

// openNew creates a new file for writing, refusing to follow a symlink.
func openNew(path string, perm fs.FileMode) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, uint32(perm))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		if perm&0o022 != 0 { // what a usual umask (022) strips
			_ = unix.Fchmod(fd, uint32(perm))
		}
		return fd, nil
	}
}

// kernelCopy copies the rest of src to dst from their current offsets with
// copy_file_range, falling back to read/write where the kernel refuses.
func kernelCopy(dst, src int) error {
	for {
		n, err := unix.CopyFileRange(src, nil, dst, nil, 1<<30, 0)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err == unix.EXDEV || err == unix.ENOSYS || err == unix.EINVAL || err == unix.EOPNOTSUPP:
			return readWrite(dst, src)
		case err != nil:
			return err
		case n == 0:
			return nil
		}
	}
}

// readWrite copies the rest of src to dst through a buffer.
func readWrite(dst, src int) error {
	buf := make([]byte, 128<<10)
	for {
		n, err := unix.Read(src, buf)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return &readError{err}
		case n == 0:
			return nil
		}
		for b := buf[:n]; len(b) > 0; {
			m, err := unix.Write(dst, b)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return err
			}
			b = b[m:]
		}
	}
}
