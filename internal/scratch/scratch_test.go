package scratch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
)

func TestMain(m *testing.M) {
	if os.Getenv("SCRATCH_TEST_CRASH") != "" {
		crashWithCopy() // the child of TestCleanStaleAfterCrash
		return
	}
	testwait.VerifyTestMain(m)
}

// snapshot is every entry under root: path → mode, content or link target.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = info.Mode().Perm().String() + " " + string(b)
		default:
			out[rel] = "special " + d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t testing.TB, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// project makes a workspace folder with the shapes a copy must handle.
func project(t testing.TB) (string, *workspace.View) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(root, "proj")
	write(t, filepath.Join(root, ".gitignore"), "node_modules/\nbuild/\n*.log\n.venv\n", 0o644)
	write(t, filepath.Join(root, "main.go"), "package main\n\nfunc main() {}\n", 0o644)
	write(t, filepath.Join(root, "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	write(t, filepath.Join(root, "pkg/a/a.go"), "package a // 中文 😀\r\n", 0o600)
	write(t, filepath.Join(root, "pkg/empty"), "", 0o644)
	write(t, filepath.Join(root, "node_modules/dep/index.js"), "module.exports = 1\n", 0o644)
	write(t, filepath.Join(root, "web/node_modules/x.js"), "x\n", 0o644)
	write(t, filepath.Join(root, "build/out.bin"), "\x00\x01", 0o644)
	write(t, filepath.Join(root, "debug.log"), "log\n", 0o644)
	write(t, filepath.Join(root, ".venv/bin/python"), "py\n", 0o755)
	write(t, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n", 0o644)
	write(t, filepath.Join(root, "big.dat"), strings.Repeat("0123456789", 100_000), 0o644)
	os.Symlink("pkg/a", filepath.Join(root, "alias"))                         // relative, inside
	os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, "abs.go")) // absolute, inside
	os.Symlink("/etc/hostname", filepath.Join(root, "outside"))               // outside
	os.Symlink("../../elsewhere", filepath.Join(root, "pkg/up"))              // relative, leaves the folder
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, workspace.New(workspace.Options{Folders: []string{root}})
}

func newCopy(t testing.TB, root string, v *workspace.View, base string) *Copy {
	t.Helper()
	c, err := New(context.Background(), Options{View: v, Folder: root, BaseDir: base, Label: "t"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestNewCopiesWhatCommandsNeed(t *testing.T) {
	root, v := project(t)
	before := snapshot(t, root)
	base := t.TempDir()
	c := newCopy(t, root, v, base)
	if filepath.Base(c.Root()) != "proj" || !strings.HasPrefix(c.Root(), base+"/") {
		t.Fatalf("root %s", c.Root())
	}
	got := snapshot(t, c.Root())
	want := map[string]string{
		".":                "dir",
		".gitignore":       "-rw-r--r-- node_modules/\nbuild/\n*.log\n.venv\n",
		"main.go":          "-rw-r--r-- package main\n\nfunc main() {}\n",
		"run.sh":           "-rwxr-xr-x #!/bin/sh\necho hi\n",
		"pkg":              "dir",
		"pkg/a":            "dir",
		"pkg/a/a.go":       "-rw------- package a // 中文 😀\r\n",
		"pkg/empty":        "-rw-r--r-- ",
		"big.dat":          "-rw-r--r-- " + strings.Repeat("0123456789", 100_000),
		"node_modules":     "link " + filepath.Join(root, "node_modules"),
		"web":              "dir",
		"web/node_modules": "link " + filepath.Join(root, "web/node_modules"),
		".venv":            "link " + filepath.Join(root, ".venv"),
		"alias":            "link pkg/a",
		"abs.go":           "link " + filepath.Join(c.Root(), "main.go"),
		"outside":          "link /etc/hostname",
		"pkg/up":           "link " + filepath.Join(filepath.Dir(root), "elsewhere"),
	}
	if len(got) != len(want) {
		t.Errorf("copy has %d entries, want %d", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %.80q, want %.80q", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s: %.80q", k, got[k])
		}
	}
	var files, size int64
	for _, w := range want {
		if strings.HasPrefix(w, "-") {
			files++
			size += int64(len(w) - len("-rw-r--r-- "))
		}
	}
	if st := c.Stats(); int64(st.Files) != files || st.Links != 4 || st.Shared != 3 || st.Bytes != size || st.CopyMode == "" {
		t.Errorf("stats %+v, want %d files, %d bytes", st, files, size)
	}
	if !mapsEqual(before, snapshot(t, root)) {
		t.Fatal("the workspace changed")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	WaitRemovals() // Close moves the copy aside and deletes it in the background
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	if !mapsEqual(before, snapshot(t, root)) {
		t.Fatal("closing the copy changed the workspace (a shared folder followed?)")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestWriteTextRestoreAndRepair(t *testing.T) {
	root, v := project(t)
	before := snapshot(t, root)
	c := newCopy(t, root, v, t.TempDir())
	ctx := context.Background()
	mainGo := filepath.Join(root, "main.go")
	if err := c.WriteText(mainGo, "package main // staged\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteText(filepath.Join(root, "newdir/sub/new.go"), "package sub\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteText(filepath.Join(root, "run.sh"), "#!/bin/sh\necho staged\n"); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, c.Root())
	if got["main.go"] != "-rw-r--r-- package main // staged\n" || got["newdir/sub/new.go"] != "-rw-r--r-- package sub\n" || got["run.sh"] != "-rwxr-xr-x #!/bin/sh\necho staged\n" {
		t.Fatalf("placed: %q %q %q", got["main.go"], got["newdir/sub/new.go"], got["run.sh"])
	}
	// Writing through a shared folder would write the user's node_modules.
	if err := c.WriteText(filepath.Join(root, "node_modules/dep/index.js"), "hacked"); err == nil || !strings.Contains(err.Error(), "shares with the workspace") {
		t.Fatalf("write into a shared folder: %v", err)
	}
	if err := c.WriteText("/etc/passwd", "x"); err == nil {
		t.Fatal("a path outside the folder was accepted")
	}

	// A command wrecks the copy: deletes, rewrites, swaps a directory for
	// a symlink to the workspace's own, adds a file.
	r := c.Root()
	os.RemoveAll(filepath.Join(r, "pkg"))
	os.WriteFile(filepath.Join(r, "main.go"), []byte("garbage"), 0o644)
	os.Remove(filepath.Join(r, "node_modules"))
	os.RemoveAll(filepath.Join(r, "newdir"))
	os.Symlink(filepath.Join(root, "pkg"), filepath.Join(r, "pkg"))
	os.WriteFile(filepath.Join(r, "extra.txt"), []byte("made by a command"), 0o644)
	n, err := c.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("repaired %d", n)
	}
	got = snapshot(t, r)
	if got["main.go"] != "-rw-r--r-- package main // staged\n" || got["pkg/a/a.go"] != "-rw------- package a // 中文 😀\r\n" ||
		got["node_modules"] != "link "+filepath.Join(root, "node_modules") || got["newdir/sub/new.go"] != "-rw-r--r-- package sub\n" ||
		got["pkg"] != "dir" || got["pkg/empty"] != "-rw-r--r-- " || got["extra.txt"] == "" {
		t.Fatalf("after repair: %q", got)
	}
	if n, _ := c.Repair(ctx); n != 0 {
		t.Fatalf("second repair redid %d", n)
	}

	// Restore puts the disk's version back; a file the workspace lacks goes.
	if err := c.Restore(ctx, mainGo); err != nil {
		t.Fatal(err)
	}
	if err := c.Restore(ctx, filepath.Join(root, "newdir/sub/new.go")); err != nil {
		t.Fatal(err)
	}
	got = snapshot(t, r)
	if got["main.go"] != "-rw-r--r-- package main\n\nfunc main() {}\n" || got["newdir/sub/new.go"] != "" {
		t.Fatalf("after restore: %q %q", got["main.go"], got["newdir/sub/new.go"])
	}
	// The disk changed: a new directory appears in the copy on Restore.
	write(t, filepath.Join(root, "gen/x/y.go"), "package x\n", 0o644)
	if err := c.Restore(ctx, filepath.Join(root, "gen")); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, r); got["gen/x/y.go"] != "-rw-r--r-- package x\n" {
		t.Fatalf("new dir: %q", got["gen/x/y.go"])
	}
	os.RemoveAll(filepath.Join(root, "gen"))
	before2 := snapshot(t, root)
	if !mapsEqual(before, before2) {
		t.Fatal("the workspace changed")
	}
}

func TestNewFailsCleanly(t *testing.T) {
	root, v := project(t)
	ctx := context.Background()

	base := t.TempDir()
	_, err := New(ctx, Options{View: v, Folder: root, BaseDir: base, MaxFiles: 3})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 3 files") {
		t.Fatalf("too many files: %v", err)
	}
	_, err = New(ctx, Options{View: v, Folder: root, BaseDir: base, MaxBytes: 1000})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("too many bytes: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(cctx, Options{View: v, Folder: root, BaseDir: base}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	WaitRemovals()
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("a failed copy left %v", entries)
	}

	// The base directory cannot be made: a file stands in the way.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	if _, err := New(ctx, Options{View: v, Folder: root, BaseDir: filepath.Join(blocker, "views")}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("blocked base: %v", err)
	}
	if os.Getuid() != 0 { // root writes anywhere
		ro := t.TempDir()
		os.Chmod(ro, 0o500)
		defer os.Chmod(ro, 0o700)
		if _, err := New(ctx, Options{View: v, Folder: root, BaseDir: filepath.Join(ro, "views")}); err == nil || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read-only base: %v", err)
		}
	}
}

func TestCleanStaleKeepsLiveCopies(t *testing.T) {
	root, v := project(t)
	base := t.TempDir()
	live := newCopy(t, root, v, base)
	// A copy without its lock file, and one whose lock nobody holds.
	os.MkdirAll(filepath.Join(base, "orphan-1-aa/proj"), 0o700)
	os.MkdirAll(filepath.Join(base, "dead-2-bb/proj/x"), 0o700)
	os.WriteFile(filepath.Join(base, "dead-2-bb.lock"), []byte("2\n"), 0o600)
	n, err := CleanStale(base)
	if err != nil || n != 2 {
		t.Fatalf("removed %d, %v", n, err)
	}
	var names []string
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) != 2 || filepath.Join(base, names[0]) != filepath.Dir(live.Root()) || names[1] != names[0]+".lock" {
		t.Fatalf("left %v", names)
	}
	if _, err := os.Stat(filepath.Join(live.Root(), "main.go")); err != nil {
		t.Fatal("the live copy was damaged")
	}
}

// A process that dies without closing its copy leaves it behind; the next
// process's first copy (or CleanStale) removes it.
func TestCleanStaleAfterCrash(t *testing.T) {
	root, _ := project(t)
	base := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SCRATCH_TEST_CRASH="+root, "SCRATCH_TEST_BASE="+base)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil || !strings.Contains(out.String(), "copied") {
		t.Fatalf("child: %v %s", err, out.String())
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 2 {
		t.Fatalf("the crashed child left %d entries, want its copy and lock", len(entries))
	}
	n, err := CleanStale(base)
	if err != nil || n != 1 {
		t.Fatalf("CleanStale removed %d, %v", n, err)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

func crashWithCopy() {
	root, base := os.Getenv("SCRATCH_TEST_CRASH"), os.Getenv("SCRATCH_TEST_BASE")
	v := workspace.New(workspace.Options{Folders: []string{root}})
	c, err := New(context.Background(), Options{View: v, Folder: root, BaseDir: base})
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(3)
	}
	os.Stdout.WriteString("copied " + c.Root() + "\n")
	syscall.Kill(os.Getpid(), syscall.SIGKILL) // no Close, no deferred cleanup
}

// A file rewritten in the copy always gets a later modification time, in
// whole seconds: caches keyed by (mtime seconds, size), such as Python's
// .pyc files, must never take the new text for the old.
func TestRewritesMoveMtimeForward(t *testing.T) {
	root, v := project(t)
	c := newCopy(t, root, v, t.TempDir())
	ctx := context.Background()
	dst := filepath.Join(c.Root(), "main.go")
	mtime := func() int64 {
		fi, err := os.Stat(dst)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime().Unix()
	}
	last := mtime()
	for i, step := range []func() error{
		func() error { return c.WriteText(filepath.Join(root, "main.go"), "package main // 1\n") },
		func() error { return c.WriteText(filepath.Join(root, "main.go"), "package main // 2\n") },
		func() error { return c.Restore(ctx, filepath.Join(root, "main.go")) },
		func() error { os.WriteFile(dst, []byte("x"), 0o644); _, err := c.Repair(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if now := mtime(); now <= last {
			t.Fatalf("step %d: mtime %d not after %d", i, now, last)
		} else {
			last = now
		}
		if n, _ := c.Repair(ctx); n != 0 {
			t.Fatalf("step %d: the new mtime was not recorded (repair redid %d)", i, n)
		}
	}
}

// Deletions may start while another goroutine waits for the earlier ones
// (parallel tests, a server ending runs while new ones end): WaitRemovals
// returns only when none is under way, and the race detector stays quiet.
func TestWaitRemovalsWhileRemovalsStart(t *testing.T) {
	base := t.TempDir()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				d, err := NewDir(base, fmt.Sprintf("w%d", i))
				if err != nil {
					t.Error(err)
					return
				}
				if err := os.WriteFile(filepath.Join(d.Path(), "f"), []byte("x"), 0o600); err != nil {
					t.Error(err)
				}
				if err := d.Close(); err != nil {
					t.Error(err)
				}
				WaitRemovals()
			}
		}()
	}
	wg.Wait()
	WaitRemovals()
	left, _ := filepath.Glob(filepath.Join(base, ".removing-*"))
	if len(left) != 0 {
		t.Fatalf("deletions left after WaitRemovals: %v", left)
	}
}

// A temporary lock file a dead process left is removed; a young one is a
// reserve in progress (created, not yet locked) and is left alone.
func TestCleanStaleTemporaryLocks(t *testing.T) {
	base := t.TempDir()
	old, young := filepath.Join(base, ".tmp-lock-old"), filepath.Join(base, ".tmp-lock-young")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-2 * tmpLockGrace)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	if _, err := CleanStale(base); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the dead process's temporary lock is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a reserve in progress lost its temporary lock: %v", err)
	}
}
