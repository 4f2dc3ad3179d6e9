package overlay

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testtree"
)

// A command in a view sees the upper layer over the directory, not what
// it hides, at the directory's own path, and what it writes or deletes
// stays in the upper layer.
func TestViewRunsACommandOverTheDirectory(t *testing.T) {
	if err := Supported(); err != nil {
		t.Fatalf("overlay views are not supported here: %v", err)
	}
	lower := t.TempDir()
	for name, text := range map[string]string{"a.txt": "disk a\n", "sub/b.txt": "disk b\n", "gone.txt": "deleted\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(lower, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lower, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := testtree.Take(t, lower)
	base := t.TempDir()
	l := Layers{Lower: lower, Upper: filepath.Join(base, "upper"), Work: filepath.Join(base, "work")}
	for _, d := range []string{l.Upper, l.Work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// overlayfs leaves work/work with mode 0 (owned by an unprivileged
	// user, who cannot then list it): writable again for TempDir's removal.
	t.Cleanup(func() { os.Chmod(filepath.Join(l.Work, "work"), 0o700) })
	if err := l.WriteFile("a.txt", "staged a\n"); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteFile("new/dir/c.txt", "created c\n"); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove("gone.txt"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "pwd; cat ../a.txt ../sub/b.txt dir/c.txt; test -e ../gone.txt && echo gone.txt present; id -u; rm -rf ../sub; echo written > ../a.txt; echo x > ../made.txt")
	cmd.Dir = filepath.Join(lower, "new")
	if err := l.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := filepath.Join(lower, "new") + "\nstaged a\ndisk b\ncreated c\n"
	if !strings.HasPrefix(string(out), want) || strings.Contains(string(out), "gone.txt present") {
		t.Fatalf("output %q, want it to start %q and not show gone.txt", out, want)
	}
	if id := strings.Split(string(out), "\n")[4]; id != strconv.Itoa(os.Getuid()) {
		t.Errorf("the command ran as uid %s, want the user's own %d", id, os.Getuid())
	}
	testtree.Same(t, before, lower)
	if b, err := os.ReadFile(filepath.Join(l.Upper, "a.txt")); err != nil || string(b) != "written\n" {
		t.Errorf("the command's write is not in the upper layer: %q %v", b, err)
	}
}
