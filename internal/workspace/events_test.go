package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestInvalidateReportsOnlyRealChanges(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "f.txt")
	writeFile(t, p, "one")
	mustRead(t, v, p)
	ev := record(t, v)

	// touch / chmod: stat changes, content does not → silent.
	later := time.Now().Add(-time.Hour)
	os.Chtimes(p, later, later)
	os.Chmod(p, 0o600)
	v.Invalidate(p)
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("touch emitted %+v", got)
	}
	// Real change → Changed, and the cache now holds the new text.
	writeFile(t, p, "two!")
	v.Invalidate(p)
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Changed}}) {
		t.Fatalf("write: %+v", got)
	}
	if s := mustRead(t, v, p); s.Text != "two!" {
		t.Fatal(s.Text)
	}
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("read after invalidate re-reported: %+v", got)
	}
	// Removed.
	os.Remove(p)
	v.Invalidate(p)
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Removed}}) {
		t.Fatalf("remove: %+v", got)
	}
	// A file the view never read: Created.
	q := filepath.Join(root, "new.txt")
	writeFile(t, q, "n")
	v.Invalidate("new.txt") // relative to the first folder
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: q, Kind: Created}}) {
		t.Fatalf("create: %+v", got)
	}
}

func TestInvalidateDirectoryRemovedAndTree(t *testing.T) {
	v, root := newTestView(t, Options{})
	files := []string{"d/a.txt", "d/e/b.txt", "keep.txt"}
	for _, f := range files {
		writeFile(t, filepath.Join(root, f), f)
		mustRead(t, v, f)
	}
	ev := record(t, v)
	// A directory renamed away reports only itself; cached files below go too.
	if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	v.Invalidate(filepath.Join(root, "d"))
	var paths []string
	for _, e := range ev.take() {
		if e.Kind != Removed {
			t.Fatalf("unexpected %+v", e)
		}
		paths = append(paths, strings.TrimPrefix(e.Path, root+"/"))
	}
	slices.Sort(paths)
	if !reflect.DeepEqual(paths, []string{"d", "d/a.txt", "d/e/b.txt"}) {
		t.Fatalf("removed events: %q", paths)
	}
	if n, _ := v.CacheStats(); n != 1 {
		t.Fatalf("cache entries left: %d", n)
	}
	// InvalidateTree after lost events: only the changed file is reported.
	writeFile(t, filepath.Join(root, "other.txt"), "o")
	mustRead(t, v, "other.txt")
	writeFile(t, filepath.Join(root, "keep.txt"), "changed")
	v.InvalidateTree(root)
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: filepath.Join(root, "keep.txt"), Kind: Changed}}) {
		t.Fatalf("tree events: %+v", got)
	}
}

func TestSubscribeCancelAndReentrancy(t *testing.T) {
	v, root := newTestView(t, Options{})
	p := filepath.Join(root, "a")
	var got []string
	cancel := v.Subscribe(func(ev Event) {
		// A callback may call back into the view.
		s, ok := v.Overlay(ev.Path)
		got = append(got, s.Text)
		if !ok {
			got = append(got, "closed")
		}
	})
	v.Open(p, 1, "x")
	cancel()
	cancel() // idempotent
	v.Close(p)
	if !reflect.DeepEqual(got, []string{"x"}) {
		t.Fatalf("got %q", got)
	}
}

func TestInvalidateThroughSymlinkedFolderPath(t *testing.T) {
	v, root := newTestView(t, Options{})
	link := filepath.Join(tempRoot(t), "ws")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "a.txt")
	writeFile(t, p, "1")
	mustRead(t, v, p)
	ev := record(t, v)
	writeFile(t, p, "2")
	v.Invalidate(filepath.Join(link, "a.txt"))
	if got := ev.take(); !reflect.DeepEqual(got, []Event{{Path: p, Kind: Changed}}) {
		t.Fatalf("events: %+v", got)
	}
}
