package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// mkfifo creates a named pipe, the file that hung every read before
// OpenFile (open(2) of a FIFO blocks until a writer appears).
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

// A FIFO is refused by name, never opened for a blocking read; a FIFO named
// .gitignore does not hang a walk.
func TestFIFORefused(t *testing.T) {
	v, root := newTestView(t, Options{})
	pipe := filepath.Join(root, "pipe.txt")
	mkfifo(t, pipe)
	mkfifo(t, filepath.Join(root, ".gitignore"))
	writeFile(t, filepath.Join(root, "a.txt"), "a\n")

	_, err := v.Read(pipe)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "pipe.txt") || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("Read(fifo) = %v, want ErrNotRegular naming pipe.txt", err)
	}
	if _, err := v.OpenFile(pipe); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("OpenFile(fifo) = %v, want ErrNotRegular", err)
	}
	var seen []string
	err = v.Walk(context.Background(), root, func(p string, d fs.DirEntry) error {
		seen = append(seen, filepath.Base(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(seen, " "), "a.txt") {
		t.Fatalf("walk saw %v", seen)
	}
	// Invalidate (the watcher) re-hashing a cached file that became a FIFO.
	f := filepath.Join(root, "b.txt")
	writeFile(t, f, "b\n")
	mustRead(t, v, f)
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, f)
	v.Invalidate(f)
	if _, err := v.Read(f); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Read(file turned fifo) = %v", err)
	}
}

func TestOpenFileOutsideRefused(t *testing.T) {
	v, root := newTestView(t, Options{})
	outside := tempRoot(t)
	writeFile(t, filepath.Join(outside, "secret"), "OUTSIDE")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link", "dir/secret"} {
		if f, err := v.OpenFile(filepath.Join(root, p)); !errors.Is(err, ErrOutside) {
			if err == nil {
				f.Close()
			}
			t.Errorf("OpenFile(%s) = %v, want ErrOutside", p, err)
		}
	}
	if _, err := v.OpenFile(filepath.Join(outside, "secret")); !errors.Is(err, ErrOutside) {
		t.Errorf("OpenFile(outside) = %v, want ErrOutside", err)
	}
}

// swapLoop flips path between a regular file (inside) and a symlink to
// target (outside) with atomic renames until stop is closed.
func swapLoop(t *testing.T, path, target, inside string, stop <-chan struct{}, wg *sync.WaitGroup) {
	t.Helper()
	tmpLink, tmpFile := path+".l", path+".f"
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmpLink)
			if err := os.Symlink(target, tmpLink); err == nil {
				_ = os.Rename(tmpLink, path)
			}
			if err := os.WriteFile(tmpFile, []byte(inside), 0o644); err == nil {
				_ = os.Rename(tmpFile, path)
			}
		}
	})
}

// raceReads reads (and lists) both a file and a file below a directory
// that are being swapped for symlinks to outside, n times each, and fails
// if outside content or names are ever returned.
func raceReads(t *testing.T, n int) {
	v, root := newTestView(t, Options{})
	outside := tempRoot(t)
	writeFile(t, filepath.Join(outside, "f.txt"), "OUTSIDE SECRET\n")
	writeFile(t, filepath.Join(outside, "OUTSIDE-NAME.txt"), "")
	writeFile(t, filepath.Join(root, "f.txt"), "inside\n")
	writeFile(t, filepath.Join(root, "real", "f.txt"), "inside\n")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	swapLoop(t, filepath.Join(root, "f.txt"), filepath.Join(outside, "f.txt"), "inside\n", stop, &wg)
	// The directory d flips between a real directory and a symlink to outside.
	d := filepath.Join(root, "d")
	if err := os.Rename(filepath.Join(root, "real"), d); err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(d, d+".real")
			_ = os.Symlink(outside, d)
			_ = os.Remove(d)
			_ = os.Rename(d+".real", d)
		}
	})
	defer func() { close(stop); wg.Wait() }()
	ok := 0
	for range n {
		for _, p := range []string{"f.txt", "d/f.txt"} {
			s, err := v.Read(filepath.Join(root, p))
			if strings.Contains(s.Text, "OUTSIDE") {
				t.Fatalf("read %s returned outside content %q", p, s.Text)
			}
			if err == nil {
				ok++
			}
			if ents, err := v.ReadDir(filepath.Join(root, filepath.Dir(p))); err == nil {
				for _, e := range ents {
					if strings.Contains(e.Name(), "OUTSIDE") {
						t.Fatalf("ReadDir %s listed the outside directory", filepath.Dir(p))
					}
				}
			}
			if f, err := v.OpenFile(filepath.Join(root, p)); err == nil {
				buf := make([]byte, 64)
				m, _ := f.Read(buf)
				f.Close()
				if strings.Contains(string(buf[:m]), "OUTSIDE") {
					t.Fatalf("OpenFile %s returned outside content", p)
				}
			}
		}
	}
	if ok == 0 {
		t.Fatalf("no read succeeded in %d tries: the loop tested nothing", n)
	}
}

// Failure 5 of the security campaign: a symlink swapped in during a read
// was followed outside. Zero outside content, thousands of tries.
func TestSymlinkSwapRace(t *testing.T) { raceReads(t, 10000) }
