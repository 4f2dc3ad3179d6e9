package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadDiskSnapshot(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "a.txt")
	writeFile(t, p, "héllo 😀\r\n")
	s := mustRead(t, v, "a.txt")
	fi, _ := os.Stat(p)
	if s.Path != p || s.Text != "héllo 😀\r\n" || s.Open || s.Version != nil ||
		s.Size != fi.Size() || !s.ModTime.Equal(fi.ModTime()) || s.Hash != hashString(s.Text) {
		t.Fatalf("%+v", s)
	}
	if n, b := v.CacheStats(); n != 1 || b <= int64(len(s.Text)) {
		t.Fatalf("cache stats after one read: %d entries, %d bytes", n, b)
	}
	// Empty file.
	writeFile(t, filepath.Join(root, "empty"), "")
	if s := mustRead(t, v, "empty"); s.Text != "" || s.Hash != hashString("") {
		t.Fatalf("empty: %+v", s)
	}
}

// A rewrite with the same size that puts the old mtime back must still be
// seen: ctime (which nobody can set) and the racy-window re-hash catch it.
func TestReadFreshAfterSameSizeSameMtimeRewrite(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "f.txt")
	writeFile(t, p, "version-1")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	ev := record(t, v)
	if s := mustRead(t, v, p); s.Text != "version-1" {
		t.Fatal(s.Text)
	}
	for i := 2; i <= 5; i++ {
		want := fmt.Sprintf("version-%d", i)
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		if s := mustRead(t, v, p); s.Text != want || !s.ModTime.Equal(old) {
			t.Fatalf("stale read: got %q (mtime %v), want %q", s.Text, s.ModTime, want)
		}
	}
	// Read noticed each change and told subscribers.
	got := ev.take()
	if len(got) != 4 || got[0] != (Event{Path: p, Kind: Changed}) {
		t.Fatalf("events from validating reads: %+v", got)
	}
	// An unchanged file read again emits nothing.
	mustRead(t, v, p)
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("unchanged re-read emitted %+v", got)
	}
}

func TestStatSignatureFields(t *testing.T) {
	base := statSig{size: 1, mtime: 2, ctime: 3, ino: 4, dev: 5, mode: 6}
	for _, mod := range []func(*statSig){
		func(s *statSig) { s.size++ }, func(s *statSig) { s.mtime++ }, func(s *statSig) { s.ctime++ },
		func(s *statSig) { s.ino++ }, func(s *statSig) { s.dev++ },
	} {
		s := base
		mod(&s)
		if s == base {
			t.Fatal("signature field not compared")
		}
	}
	now := time.Unix(100, 0)
	if (statSig{mtime: time.Unix(90, 0).UnixNano(), ctime: time.Unix(90, 0).UnixNano()}).racyAt(now) {
		t.Fatal("old file considered racy")
	}
	if !(statSig{mtime: time.Unix(90, 0).UnixNano(), ctime: now.UnixNano() - 1}).racyAt(now) {
		t.Fatal("file changed just now not considered racy")
	}
}

func TestReadAtomicRenameSave(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "f.go")
	writeFile(t, p, "package a // one")
	mustRead(t, v, p)
	tmp := filepath.Join(root, ".f.go.tmp")
	writeFile(t, tmp, "package a // two") // same size
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if s := mustRead(t, v, p); s.Text != "package a // two" {
		t.Fatalf("stale after rename save: %q", s.Text)
	}
}

func TestReadErrors(t *testing.T) {
	v, root := newTestView(t, Options{MaxFileBytes: 100})
	writeFile(t, filepath.Join(root, "nul.bin"), "text\x00more")
	writeFile(t, filepath.Join(root, "latin1.txt"), "caf\xe9")
	writeFile(t, filepath.Join(root, "big.txt"), strings.Repeat("x", 101))
	writeFile(t, filepath.Join(root, "ok.txt"), strings.Repeat("x", 100))
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
		msg  string
	}{
		{"nul.bin", ErrBinary, "only text files"},
		{"latin1.txt", ErrBinary, "not valid UTF-8"},
		{"big.txt", ErrTooLarge, "limit is 100"},
		{"missing.txt", fs.ErrNotExist, "missing.txt"},
		{"dir", nil, "is a directory; list it"},
	} {
		_, err := v.Read(c.path)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Read(%s) = %v, want %v containing %q", c.path, err, c.want, c.msg)
		}
	}
	mustRead(t, v, "ok.txt")
	// A FIFO is refused, not opened (opening would block).
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Read("fifo"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
	// A binary file stays refused on repeated (cached) reads.
	if _, err := v.Read("nul.bin"); !errors.Is(err, ErrBinary) {
		t.Fatalf("second read of binary: %v", err)
	}
	// A file that grows past the limit after being cached is refused.
	writeFile(t, filepath.Join(root, "ok.txt"), strings.Repeat("y", 150))
	if _, err := v.Read("ok.txt"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("grown file: %v", err)
	}
}

func TestReadRemovedFileEmitsRemoved(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "gone.txt")
	writeFile(t, p, "x")
	mustRead(t, v, p)
	ev := record(t, v)
	os.Remove(p)
	if _, err := v.Read(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read removed: %v", err)
	}
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Removed}}) {
		t.Fatalf("events: %+v", got)
	}
	if n, _ := v.CacheStats(); n != 0 {
		t.Fatalf("entry kept for removed file: %d", n)
	}
}

func TestCacheLRUBound(t *testing.T) {
	const limit = 16 << 10
	v, root := newTestView(t, Options{CacheBytes: limit})
	content := func(i int) string { return fmt.Sprintf("%04d", i) + strings.Repeat("z", 1020) }
	for i := range 64 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("f%02d", i)), content(i))
	}
	for i := range 64 {
		mustRead(t, v, fmt.Sprintf("f%02d", i))
		if _, b := v.CacheStats(); b > limit {
			t.Fatalf("cache holds %d bytes, bound %d", b, limit)
		}
	}
	n, b := v.CacheStats()
	if n < 8 || n > 16 || b > limit {
		t.Fatalf("after 64 files: %d entries, %d bytes", n, b)
	}
	// The most recent files are the ones kept: reading f63 must not evict.
	mustRead(t, v, "f63")
	if n2, _ := v.CacheStats(); n2 != n {
		t.Fatalf("hit changed entry count %d → %d", n, n2)
	}
	v.cache.mu.Lock()
	_, oldKept := v.cache.m[filepath.Join(root, "f00")]
	_, newKept := v.cache.m[filepath.Join(root, "f63")]
	v.cache.mu.Unlock()
	if oldKept || !newKept {
		t.Fatalf("LRU order wrong: f00 kept=%v f63 kept=%v", oldKept, newKept)
	}
	// Evicted files still read correctly.
	for i := range 64 {
		if s := mustRead(t, v, fmt.Sprintf("f%02d", i)); s.Text != content(i) {
			t.Fatalf("f%02d content wrong", i)
		}
	}
	// A file larger than the whole bound is served but not cached.
	writeFile(t, filepath.Join(root, "huge"), strings.Repeat("h", 2*limit))
	if s := mustRead(t, v, "huge"); len(s.Text) != 2*limit {
		t.Fatal("huge file content")
	}
	if _, b := v.CacheStats(); b > limit {
		t.Fatalf("huge file broke the bound: %d", b)
	}
}
