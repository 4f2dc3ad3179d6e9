//go:build unix

package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// WriteFile replaces path with data (WriteAt in path's directory, which
// must exist). perm is applied exactly (umask does not apply): callers pass
// 0o600 for anything holding code, conversations or credentials.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	dfd, err := openDir(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, &os.PathError{Op: "open", Path: dir, Err: err})
	}
	defer unix.Close(dfd)
	return WriteAt(dfd, filepath.Base(path), path, data, perm)
}

func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// WriteAt replaces the entry base of the open directory dirfd with data:
// a fresh temporary file beside it (created exclusively, never through a
// symlink, 0600 until written) gets data and perm, is synced to disk and
// renamed over base, and the directory is synced so the rename itself
// survives a crash. A reader sees the old file or the new one, never a
// part; on failure base is untouched and the temporary file removed.
// shown names the file in errors. Callers that confine writes
// (workspace.View.WriteFile) reach dirfd without following symlinks and
// write here.
func WriteAt(dirfd int, base, shown string, data []byte, perm fs.FileMode) (err error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + base + ".agentls-" + hex.EncodeToString(rnd[:])
	if len(tmp) > 255 {
		tmp = ".agentls-" + hex.EncodeToString(rnd[:])
	}
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", shown, &os.PathError{Op: "create", Path: tmp, Err: err})
	}
	f := os.NewFile(uintptr(fd), tmp)
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", shown, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if err = unix.Renameat(dirfd, tmp, dirfd, base); err != nil {
		return fmt.Errorf("write %s: %w", shown, &os.PathError{Op: "rename", Path: shown, Err: err})
	}
	if err := unix.Fsync(dirfd); err != nil {
		// The new content is in place; only its durability across a
		// power loss is in doubt. Say so rather than pretend it failed.
		return fmt.Errorf("wrote %s, but syncing its directory failed: %w", shown, err)
	}
	return nil
}
