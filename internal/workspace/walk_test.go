package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
)

func smallTree(t *testing.T) (*View, string) {
	v, root := newTestView(t, Options{})
	buildTree(t, root, []string{"a/1.txt", "a/2.txt", "a/b/3.txt", "c/4.txt", "d.txt", ".git/config", "e/.git"}, nil)
	if err := os.Symlink("a", filepath.Join(root, "alink")); err != nil {
		t.Fatal(err)
	}
	return v, root
}

func TestWalkOrderAndEntries(t *testing.T) {
	v, root := smallTree(t)
	var got []string
	err := v.Walk(context.Background(), ".", func(p string, d fs.DirEntry) error {
		rel, _ := filepath.Rel(root, p)
		kind := "f"
		switch {
		case d.IsDir():
			kind = "d"
		case d.Type()&fs.ModeSymlink != 0:
			kind = "l"
		}
		got = append(got, kind+" "+rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Root first, lexical order, .git (dir or file) skipped, symlink reported not followed.
	want := []string{"d .", "d a", "f a/1.txt", "f a/2.txt", "d a/b", "f a/b/3.txt", "l alink", "d c", "f c/4.txt", "f d.txt", "d e"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestWalkSkipAndErrors(t *testing.T) {
	v, root := smallTree(t)
	collect := func(fn func(rel string, d fs.DirEntry) error) ([]string, error) {
		var got []string
		err := v.Walk(context.Background(), root, func(p string, d fs.DirEntry) error {
			rel, _ := filepath.Rel(root, p)
			got = append(got, rel)
			return fn(rel, d)
		})
		return got, err
	}
	got, err := collect(func(rel string, d fs.DirEntry) error {
		if rel == "a" {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []string{".", "a", "alink", "c", "c/4.txt", "d.txt", "e"}) {
		t.Fatalf("SkipDir on dir: %q %v", got, err)
	}
	got, err = collect(func(rel string, d fs.DirEntry) error {
		if rel == "a/1.txt" {
			return fs.SkipDir // from a file: skip the rest of a/
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []string{".", "a", "a/1.txt", "alink", "c", "c/4.txt", "d.txt", "e"}) {
		t.Fatalf("SkipDir on file: %q %v", got, err)
	}
	got, err = collect(func(rel string, d fs.DirEntry) error {
		if rel == "a/b" {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []string{".", "a", "a/1.txt", "a/2.txt", "a/b"}) {
		t.Fatalf("SkipAll: %q %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := collect(func(rel string, d fs.DirEntry) error {
		if rel == "c" {
			return boom
		}
		return nil
	}); err != boom {
		t.Fatalf("error not returned: %v", err)
	}
	// Root is a file: visited once.
	var files []string
	if err := v.Walk(context.Background(), "d.txt", func(p string, d fs.DirEntry) error {
		files = append(files, p)
		return nil
	}); err != nil || !reflect.DeepEqual(files, []string{root + "/d.txt"}) {
		t.Fatalf("file root: %v %v", files, err)
	}
	// Confined and missing roots.
	if err := v.Walk(context.Background(), "..", func(string, fs.DirEntry) error { return nil }); !errors.Is(err, ErrOutside) {
		t.Fatalf("walk outside: %v", err)
	}
	if err := v.Walk(context.Background(), "nope", func(string, fs.DirEntry) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("walk missing: %v", err)
	}
}

func TestWalkContextCancel(t *testing.T) {
	v, _ := smallTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := v.Walk(ctx, ".", func(p string, d fs.DirEntry) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("walk after cancel: %v", err)
	}
	if n > 4 {
		t.Fatalf("walk went on after cancel: %d entries", n)
	}
}

func TestWalkFilesParallel(t *testing.T) {
	v, root := newTestView(t, Options{})
	var want []string
	for i := range 40 {
		f := fmt.Sprintf("d%d/f%02d.txt", i%5, i)
		want = append(want, filepath.Join(root, f))
		writeFile(t, filepath.Join(root, f), "x")
	}
	writeFile(t, filepath.Join(root, ".gitignore"), "d4/\n")
	want = slices.DeleteFunc(want, func(p string) bool { return filepath.Base(filepath.Dir(p)) == "d4" })
	want = append(want, filepath.Join(root, ".gitignore"))
	slices.Sort(want)

	var mu sync.Mutex
	var got []string
	err := v.WalkFiles(context.Background(), ".", 4, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			t.Errorf("directory passed to WalkFiles fn: %s", p)
		}
		s, err := v.Read(p)
		if err != nil {
			return err
		}
		mu.Lock()
		got = append(got, s.Path)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d files, want %d:\n%q", len(got), len(want), got)
	}

	// First error wins and stops the walk; SkipAll stops without error.
	boom := errors.New("boom")
	if err := v.WalkFiles(context.Background(), ".", 3, func(p string, d fs.DirEntry) error { return boom }); err != boom {
		t.Fatalf("error: %v", err)
	}
	var calls int
	if err := v.WalkFiles(context.Background(), ".", 1, func(p string, d fs.DirEntry) error {
		calls++
		return fs.SkipAll
	}); err != nil || calls != 1 {
		t.Fatalf("SkipAll: %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.WalkFiles(ctx, ".", 2, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestWalkIgnoredReportsExcludedEntries(t *testing.T) {
	v, root := newTestView(t, Options{})
	buildTree(t, root, []string{"src/a.go", "node_modules/x/index.js", "build/out.o", "debug.log", "keep.txt", "sub/node_modules/y.js", ".git/HEAD"}, nil)
	writeFile(t, filepath.Join(root, ".gitignore"), "node_modules/\nbuild/\n*.log\n")
	var walked, ignored []string
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }
	err := v.WalkIgnored(context.Background(), root, func(p string, d fs.DirEntry) error {
		walked = append(walked, rel(p))
		return nil
	}, func(p string, d fs.DirEntry) error {
		ignored = append(ignored, rel(p))
		if d.IsDir() {
			return fs.SkipDir // changes nothing for an excluded directory
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantWalked := []string{".", ".gitignore", "keep.txt", "src", "src/a.go", "sub"}
	wantIgnored := []string{"build", "debug.log", "node_modules", "sub/node_modules"}
	if !reflect.DeepEqual(walked, wantWalked) || !reflect.DeepEqual(ignored, wantIgnored) {
		t.Fatalf("walked %q (want %q)\nignored %q (want %q)", walked, wantWalked, ignored, wantIgnored)
	}
	// Plain Walk still hides them.
	var plain []string
	if err := v.Walk(context.Background(), root, func(p string, d fs.DirEntry) error { plain = append(plain, rel(p)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, wantWalked) {
		t.Fatalf("Walk = %q", plain)
	}
}
