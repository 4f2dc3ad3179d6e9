package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFileIn and ReadDirIn confine like View.OpenFile: symlinks inside the
// root are followed, symlinks out are refused, FIFOs do not block, sizes
// are capped.
func TestReadFileInAndReadDirInConfine(t *testing.T) {
	root, outside := tempRoot(t), tempRoot(t)
	writeFile(t, filepath.Join(root, "a", "f.txt"), "inside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside")
	mustSymlink := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	mustSymlink(filepath.Join(root, "a"), filepath.Join(root, "in-link"))
	mustSymlink(outside, filepath.Join(root, "out-dir"))
	mustSymlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "out-file"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	if got, err := ReadFileIn(root, filepath.Join(root, "in-link", "f.txt"), 100); err != nil || string(got) != "inside" {
		t.Fatalf("inside symlink: %q, %v", got, err)
	}
	for _, p := range []string{filepath.Join(root, "out-dir", "secret.txt"), filepath.Join(root, "out-file"), filepath.Join(outside, "secret.txt"), filepath.Join(root, "..", filepath.Base(outside), "secret.txt")} {
		if got, err := ReadFileIn(root, p, 100); !errors.Is(err, ErrOutside) {
			t.Errorf("%s: %q, %v; want ErrOutside", p, got, err)
		}
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "fifo"), 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v", err)
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "a", "f.txt"), 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("size cap: %v", err)
	}
	entries, err := ReadDirIn(root, filepath.Join(root, "in-link"))
	if err != nil || len(entries) != 1 || entries[0].Name() != "f.txt" {
		t.Fatalf("ReadDirIn inside: %v, %v", entries, err)
	}
	if entries, err := ReadDirIn(root, filepath.Join(root, "out-dir")); !errors.Is(err, ErrOutside) {
		t.Fatalf("ReadDirIn out-dir listed %v, %v", entries, err)
	}
	// A root given through a symlink is resolved first and still confines.
	link := filepath.Join(tempRoot(t), "root-link")
	mustSymlink(root, link)
	if got, err := ReadFileIn(link, filepath.Join(link, "a", "f.txt"), 100); err != nil || string(got) != "inside" {
		t.Fatalf("root via symlink: %q, %v", got, err)
	}
	if _, err := ReadFileIn(link, filepath.Join(link, "out-file"), 100); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("root via symlink, out-file: %v", err)
	}
}
