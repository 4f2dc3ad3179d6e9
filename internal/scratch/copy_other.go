//go:build !linux

package scratch

import (
	"io/fs"
	"syscall"
)

// cloneOrCopy creates dst (which must not exist) with perm and the content
// of the open file srcFd, through a buffer (reflinks and in-kernel copies
// are Linux-only here). Never a hard link.
func (c *Copy) cloneOrCopy(srcFd int, dst string, perm fs.FileMode, size int64) (sig, bool, error) {
	fd, err := syscall.Open(dst, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, uint32(perm))
	if err != nil {
		return sig{}, false, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 128<<10)
	for {
		n, err := syscall.Read(srcFd, buf)
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return sig{}, false, &readError{err}
		}
		if n == 0 {
			break
		}
		for b := buf[:n]; len(b) > 0; {
			m, err := syscall.Write(fd, b)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return sig{}, false, err
			}
			b = b[m:]
		}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return sig{}, false, err
	}
	return sig{ino: uint64(st.Ino), size: st.Size, mtime: st.Mtimespec.Nano(), typ: 0}, false, nil
}
