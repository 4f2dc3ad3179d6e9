package watch

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"

	"github.com/agentls/agentls/internal/workspace"
)

func TestCreateModifyDelete(t *testing.T) {
	f := start(t, map[string]string{"keep.txt": "k"})
	if !slices.Equal(kinds(f.drain(), f.root), nil) {
		t.Fatal("events before any change")
	}
	if f.view.ValidateAlways() {
		t.Fatal("healthy watcher left the view in validate-always mode")
	}
	write(t, f.path("a.txt"), "one")
	f.waitFor("a.txt", workspace.Created)
	if got := f.read("a.txt"); got != "one" {
		t.Fatal(got)
	}
	write(t, f.path("a.txt"), "two")
	f.waitFor("a.txt", workspace.Changed)
	if got := f.read("a.txt"); got != "two" {
		t.Fatal(got)
	}
	os.Remove(f.path("a.txt"))
	f.waitFor("a.txt", workspace.Removed)
	if _, err := f.view.Read("a.txt"); err == nil {
		t.Fatal("removed file still readable")
	}
}

func TestTouchIsSilent(t *testing.T) {
	f := start(t, map[string]string{"a.txt": "same"})
	f.read("a.txt")
	os.Chmod(f.path("a.txt"), 0o600)
	write(t, f.path("a.txt"), "same") // rewrite, identical content
	if got := kinds(f.sync("sentinel"), f.root); len(got) != 0 {
		t.Fatalf("unchanged content reported: %q", got)
	}
}

func TestRename(t *testing.T) {
	f := start(t, map[string]string{"old.txt": "content"})
	f.read("old.txt")
	if err := os.Rename(f.path("old.txt"), f.path("new.txt")); err != nil {
		t.Fatal(err)
	}
	f.waitFor("old.txt", workspace.Removed)
	f.waitFor("new.txt", workspace.Created)
	if got := f.read("new.txt"); got != "content" {
		t.Fatal(got)
	}
}

// An editor's atomic save (write a temp file, rename it over the original)
// shows up as CREATE of a path we know: the content must be re-read.
func TestAtomicSave(t *testing.T) {
	f := start(t, map[string]string{"main.go": "package main // v1\n"})
	if got := f.read("main.go"); got != "package main // v1\n" {
		t.Fatal(got)
	}
	write(t, f.path(".main.go.swp~"), "package main // v2\n") // same size
	if err := os.Rename(f.path(".main.go.swp~"), f.path("main.go")); err != nil {
		t.Fatal(err)
	}
	f.waitFor("main.go", workspace.Changed)
	if got := f.read("main.go"); got != "package main // v2\n" {
		t.Fatalf("stale after atomic save: %q", got)
	}
	for _, e := range f.drain() {
		if e.Path == f.path("main.go") && e.Kind == workspace.Removed {
			t.Fatal("atomic save reported as removal")
		}
	}
}

// mkdir -p a/b/c && touch a/b/c/f produces only CREATE a: the watcher must
// walk the new directory, watch all of it and report the file.
func TestNewNestedDirectory(t *testing.T) {
	f := start(t, nil)
	before := f.w.Stats().WatchedDirs
	write(t, f.path("a/b/c/f.txt"), "deep")
	write(t, f.path("a/x.txt"), "shallow")
	f.waitFor("a/b/c/f.txt", workspace.Created)
	f.waitFor("a/x.txt", workspace.Created)
	if got := f.w.Stats().WatchedDirs; got != before+3 {
		t.Fatalf("watched dirs %d → %d, want +3", before, got)
	}
	// The new deep directory is really watched.
	write(t, f.path("a/b/c/g.txt"), "later")
	f.waitFor("a/b/c/g.txt", workspace.Created)
	if got := f.read("a/b/c/g.txt"); got != "later" {
		t.Fatal(got)
	}
}

func TestIgnoredDirectoriesNotWatched(t *testing.T) {
	f := start(t, map[string]string{
		".gitignore":          "build/\n*.tmp\n",
		"src/a.go":            "a",
		"build/out/bin":       "b",
		"node_modules/m/i.js": "m",
		".git/HEAD":           "h",
		"custom/x":            "x",
	}, WithSkipDirs("custom"))
	// Watched: root and src only.
	if got := f.w.Stats().WatchedDirs; got != 2 {
		t.Fatalf("watched %d dirs, want 2 (root, src)", got)
	}
	write(t, f.path("build/out/bin"), "changed")
	write(t, f.path("node_modules/m/i.js"), "changed")
	os.MkdirAll(f.path("build/new"), 0o755)
	os.MkdirAll(f.path("gen.tmp"), 0o755) // an ignored directory created later
	write(t, f.path("gen.tmp/z"), "z")
	seen := kinds(f.sync("sentinel"), f.root)
	for _, s := range seen {
		if strings.Contains(s, "build/") || strings.Contains(s, "node_modules") || strings.Contains(s, "gen.tmp/") {
			t.Fatalf("event from an ignored directory: %q", seen)
		}
	}
	if got := f.w.Stats().WatchedDirs; got != 2 {
		t.Fatalf("ignored new directory got watched: %d", got)
	}
	// Reads in ignored directories are still fresh (validated by stat).
	if got := f.read("build/out/bin"); got != "changed" {
		t.Fatal(got)
	}
}

func TestDirectoryRemoveAndRename(t *testing.T) {
	f := start(t, map[string]string{"d/sub/a.txt": "a", "d/b.txt": "b"})
	f.read("d/sub/a.txt")
	if got := f.w.Stats().WatchedDirs; got != 3 {
		t.Fatalf("watched %d", got)
	}
	// Rename within the tree: watches follow the new name.
	if err := os.Rename(f.path("d"), f.path("e")); err != nil {
		t.Fatal(err)
	}
	// In either order: the new name may be walked before the old one is
	// reported gone.
	f.waitForAll(want{"d/sub/a.txt", workspace.Removed}, want{"e/sub/a.txt", workspace.Created})
	write(t, f.path("e/sub/new.txt"), "n")
	f.waitFor("e/sub/new.txt", workspace.Created)
	if got := f.w.Stats().WatchedDirs; got != 3 {
		t.Fatalf("after rename watched %d, want 3", got)
	}
	// Remove: watches dropped, cached files reported.
	f.read("e/sub/new.txt")
	if err := os.RemoveAll(f.path("e")); err != nil {
		t.Fatal(err)
	}
	f.waitFor("e/sub/new.txt", workspace.Removed)
	f.sync("sentinel")
	if got := f.w.Stats().WatchedDirs; got != 1 {
		t.Fatalf("after remove watched %d, want 1", got)
	}
}

// Hitting the watch limit: one warning with the fix, no more watches, view
// in validate-always mode, and reads still never stale.
func TestWatchLimitFallback(t *testing.T) {
	f := start(t, map[string]string{"a/1.txt": "1", "b/2.txt": "2", "c/3.txt": "3", "d/4.txt": "4"}, WithMaxWatches(2))
	st := f.w.Stats()
	if st.WatchedDirs != 2 || !st.LimitHit {
		t.Fatalf("stats %+v", st)
	}
	if !f.view.ValidateAlways() {
		t.Fatal("view not switched to validate-always")
	}
	for _, rel := range []string{"a/1.txt", "b/2.txt", "c/3.txt", "d/4.txt"} {
		f.read(rel)
	}
	// A directory created in a watched one: still no new watch, no new warning.
	write(t, f.path("e/5.txt"), "5")
	f.waitFor("e/5.txt", workspace.Created)
	if got := f.w.Stats().WatchedDirs; got != 2 {
		t.Fatalf("watch added past the limit: %d", got)
	}
	logs := f.logs.String()
	if n := strings.Count(logs, "level=WARN"); n != 1 {
		t.Fatalf("%d warnings, want exactly 1:\n%s", n, logs)
	}
	if !strings.Contains(logs, "fs.inotify.max_user_watches") || !strings.Contains(logs, "sudo sysctl") {
		t.Fatalf("warning does not say how to fix it:\n%s", logs)
	}
	// Unwatched files are still read fresh.
	for _, rel := range []string{"c/3.txt", "d/4.txt"} {
		write(t, f.path(rel), "new "+rel)
		if got := f.read(rel); got != "new "+rel {
			t.Fatalf("stale read of unwatched %s: %q", rel, got)
		}
	}
}

// Lost events (queue overflow) are recovered by a rescan: cached files
// under the folder are re-validated and missing watches re-added.
func TestOverflowRescan(t *testing.T) {
	f := start(t, map[string]string{"d/a.txt": "a"})
	f.read("d/a.txt")
	f.w.forget(f.path("d"), false) // as if its events had been lost
	write(t, f.path("d/a.txt"), "A!")
	f.w.pmu.Lock()
	f.w.overflow = true
	f.w.pmu.Unlock()
	f.w.wake()
	f.waitFor("d/a.txt", workspace.Changed)
	if got := f.w.Stats().WatchedDirs; got != 2 {
		t.Fatalf("rescan did not restore watches: %d", got)
	}
	write(t, f.path("d/b.txt"), "b")
	f.waitFor("d/b.txt", workspace.Created)
}

func TestCloseLeavesNothing(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for i := range 5 {
		write(t, filepath.Join(root, "d", strings.Repeat("x", i+1), "f"), "f")
	}
	v := workspace.New(workspace.Options{Folders: []string{root}})
	w, err := New(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err == nil {
		t.Fatal("second Start accepted")
	}
	write(t, filepath.Join(root, "d", "new"), "pending event")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Close() // twice is fine
	cancel()
	if got := w.Stats().WatchedDirs; got != 0 {
		t.Fatalf("watches left: %d", got)
	}
	testwait.NoLeaks(t)

	// Cancelling the context stops it too.
	w2, _ := New(v, nil)
	ctx2, cancel2 := context.WithCancel(context.Background())
	if err := w2.Start(ctx2); err != nil {
		t.Fatal(err)
	}
	cancel2()
	w2.Close()
	testwait.NoLeaks(t)

	// Close without Start.
	w3, _ := New(v, nil)
	w3.Close()
	if _, err := New(nil, nil); err == nil {
		t.Fatal("nil view accepted")
	}
}

func TestAddRemoveFolder(t *testing.T) {
	f := start(t, nil)
	other, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, filepath.Join(other, "sub", "x.txt"), "x")
	f.view.SetFolders([]string{f.root, other})
	if err := f.w.AddFolder(other); err != nil {
		t.Fatal(err)
	}
	if got := f.w.Stats().WatchedDirs; got != 3 {
		t.Fatalf("watched %d, want 3", got)
	}
	write(t, filepath.Join(other, "sub", "y.txt"), "y")
	f.waitForAbs(filepath.Join(other, "sub", "y.txt"), workspace.Created)
	f.w.RemoveFolder(other)
	if got := f.w.Stats().WatchedDirs; got != 1 {
		t.Fatalf("after RemoveFolder watched %d, want 1", got)
	}
}

// The file changes on disk and is read at once, before any event can have
// arrived: the view's stat validation alone keeps it fresh.
func TestReadNeverStaleBeforeEvent(t *testing.T) {
	f := start(t, map[string]string{"a.txt": "v00"})
	for i := range 30 {
		want := fmt.Sprintf("v%02d", i)
		write(t, f.path("a.txt"), want) // same size every time
		if got := f.read("a.txt"); got != want {
			t.Fatalf("stale read %q, want %q", got, want)
		}
	}
}

// Out of inotify instances (EMFILE): one warning naming
// max_user_instances, Start still succeeds, the view validates always.
func TestInstanceLimitFallback(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	v := workspace.New(workspace.Options{Folders: []string{root}})
	v.SetValidateAlways(false)
	logs := &testwait.Buffer{}
	w, _ := New(v, slog.New(slog.NewTextHandler(logs, nil)))
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// The kernel hands out the lowest free descriptor number and refuses
	// numbers at or over the soft limit: limit = lowest free → EMFILE.
	probe, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	lowest := probe.Fd()
	probe.Close()
	lim := syscall.Rlimit{Cur: uint64(lowest), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	err = w.Start(context.Background())
	if rerr := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("Start failed instead of degrading: %v", err)
	}
	defer w.Close()
	if st := w.Stats(); !st.LimitHit || st.WatchedDirs != 0 || !v.ValidateAlways() {
		t.Fatalf("stats %+v, validate-always %v", st, v.ValidateAlways())
	}
	if out := logs.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "fs.inotify.max_user_instances") {
		t.Fatalf("warning: %s", out)
	}
}

// A burst (an unpacked archive, a branch switch) is delivered in full:
// every new file is reported Created at least once, whether found by
// walking its new directory or by its own event.
func TestBurstOfFiles(t *testing.T) {
	f := start(t, map[string]string{"existing/x": "x"})
	const n = 1500
	for i := range n {
		write(t, f.path(fmt.Sprintf("burst/d%02d/f%04d.txt", i%30, i)), "content")
		write(t, f.path(fmt.Sprintf("existing/g%04d", i)), "g")
	}
	want := map[string]bool{}
	for i := range n {
		want[f.path(fmt.Sprintf("burst/d%02d/f%04d.txt", i%30, i))] = true
		want[f.path(fmt.Sprintf("existing/g%04d", i))] = true
	}
	timeout := time.After(eventWait)
	for len(want) > 0 {
		select {
		case ev := <-f.evs:
			if ev.Kind == workspace.Created {
				delete(want, ev.Path)
			}
		case <-timeout:
			t.Fatalf("%d files never reported", len(want))
		}
	}
	if got := f.w.Stats().WatchedDirs; got != 1+1+1+30 {
		t.Fatalf("watched %d dirs, want 33", got)
	}
}

// Vim with 'backup': RENAME file → file~, CREATE file, WRITE, REMOVE file~.
func TestVimBackupSave(t *testing.T) {
	f := start(t, map[string]string{"a.c": "int x;\n"})
	f.read("a.c")
	if err := os.Rename(f.path("a.c"), f.path("a.c~")); err != nil {
		t.Fatal(err)
	}
	write(t, f.path("a.c"), "int y;\n")
	os.Remove(f.path("a.c~"))
	timeout := time.After(eventWait)
	for done := false; !done; {
		select {
		case ev := <-f.evs:
			done = ev.Path == f.path("a.c") && ev.Kind != workspace.Removed
		case <-timeout:
			t.Fatal("save never reported")
		}
	}
	if got := f.read("a.c"); got != "int y;\n" {
		t.Fatalf("after vim save: %q", got)
	}
}
