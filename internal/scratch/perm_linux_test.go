package scratch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fsImmutable is FS_IMMUTABLE_FL (linux/fs.h): nobody, root included,
// may create anything in such a directory.
const fsImmutable = 0x10

func setImmutable(dir string, on bool) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	var flags int
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.FS_IOC_GETFLAGS, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	if on {
		flags |= fsImmutable
	} else {
		flags &^= fsImmutable
	}
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.FS_IOC_SETFLAGS, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	return nil
}

// A base directory where nothing may be created (permissions): New fails
// with the reason, and leaves nothing. Root ignores mode bits, so under
// root the directory is made immutable instead (ext4, XFS, btrfs), or,
// where the filesystem has no such flag (tmpfs), the base is put in
// sysfs, where nobody may create a directory.
func TestNewWithoutPermission(t *testing.T) {
	root, v := project(t)
	locked := t.TempDir()
	base := filepath.Join(locked, "views")
	switch {
	case os.Getuid() != 0:
		if err := os.Chmod(locked, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(locked, 0o700) })
	case setImmutable(locked, true) == nil:
		t.Cleanup(func() { setImmutable(locked, false) })
	default:
		base = "/sys/agentls-test-views"
	}
	_, err := New(context.Background(), Options{View: v, Folder: root, BaseDir: base})
	if err == nil || !(errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EROFS)) || !strings.Contains(err.Error(), base) {
		t.Fatalf("New = %v, want a permission error naming %s", err, base)
	}
	if entries, _ := os.ReadDir(locked); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}
