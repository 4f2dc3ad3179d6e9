package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A buffer opened through a symlink is known by its target's path, and
// the target's path gives back the editor's name; closing forgets both.
func TestBufferPathAndKeyThroughASymlink(t *testing.T) {
	v, root := newTestView(t, Options{})
	real := filepath.Join(root, "real.go")
	writeFile(t, real, "disk\n")
	link := filepath.Join(root, "link.go")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got := v.BufferPath(link); got != link {
		t.Fatalf("BufferPath of a closed symlink = %q, want it unchanged", got)
	}
	v.Open(link, 1, "buffer\n")
	if got := v.BufferPath(link); got != real {
		t.Fatalf("BufferPath(link) = %q, want %q", got, real)
	}
	if got := v.BufferPath(real); got != real {
		t.Fatalf("BufferPath(real) = %q, want %q", got, real)
	}
	if got := v.BufferKey(real); got != link {
		t.Fatalf("BufferKey(real) = %q, want the editor's name %q", got, link)
	}
	other := filepath.Join(root, "other.go")
	if got := v.BufferKey(other); got != other {
		t.Fatalf("BufferKey of a path with no buffer = %q", got)
	}
	v.Close(link)
	if got := v.BufferPath(link); got != link {
		t.Fatalf("BufferPath after close = %q, want %q", got, link)
	}
	if got := v.BufferKey(real); got != real {
		t.Fatalf("BufferKey after close = %q, want %q", got, real)
	}
	if n, a := v.BufferMaps(); n != 0 || a != 0 {
		t.Fatalf("maps after close: %d buffers, %d aliases", n, a)
	}
}

// A non-file key (untitled:) maps to itself both ways.
func TestBufferPathOfANonFileKey(t *testing.T) {
	v, _ := newTestView(t, Options{})
	v.Open("untitled:Untitled-1", 1, "x")
	if got := v.BufferPath("untitled:Untitled-1"); got != "untitled:Untitled-1" {
		t.Fatalf("BufferPath = %q", got)
	}
	if got := v.BufferKey("untitled:Untitled-1"); got != "untitled:Untitled-1" {
		t.Fatalf("BufferKey = %q", got)
	}
}

func TestReadOrNone(t *testing.T) {
	v, root := newTestView(t, Options{MaxFileBytes: 8})
	p := filepath.Join(root, "a.txt")
	if snap, ok, err := v.ReadOrNone(p); err != nil || ok || snap.Text != "" {
		t.Fatalf("missing file: %+v %v %v", snap, ok, err)
	}
	writeFile(t, p, "disk\n")
	if snap, ok, err := v.ReadOrNone(p); err != nil || !ok || snap.Text != "disk\n" || snap.Open {
		t.Fatalf("file on disk: %+v %v %v", snap, ok, err)
	}
	v.Open(p, 2, "buffer\n")
	if snap, ok, err := v.ReadOrNone(p); err != nil || !ok || snap.Text != "buffer\n" || !snap.Open {
		t.Fatalf("open buffer: %+v %v %v", snap, ok, err)
	}
	big := filepath.Join(root, "big.txt")
	writeFile(t, big, strings.Repeat("x", 9))
	if _, ok, err := v.ReadOrNone(big); !errors.Is(err, ErrTooLarge) || ok {
		t.Fatalf("too large: ok=%v err=%v, want ErrTooLarge", ok, err)
	}
	if _, _, err := v.ReadOrNone(filepath.Join(filepath.Dir(root), "outside.txt")); !errors.Is(err, ErrOutside) {
		t.Fatalf("outside: err=%v, want ErrOutside", err)
	}
	if v.MaxFileBytes() != 8 {
		t.Fatalf("MaxFileBytes = %d", v.MaxFileBytes())
	}
}
