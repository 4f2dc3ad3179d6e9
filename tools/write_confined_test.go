package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

// WriteConfined is the one write path of front-ends that write files
// themselves: it refuses symlink escapes and .git, keeps the optimistic
// lock, and writes atomically.
func TestWriteConfined(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(dir, "a.txt")
	must(os.WriteFile(a, []byte("old\n"), 0o640))
	must(WriteConfined(view, a, "old\n", false, "new\n"))
	if b, _ := os.ReadFile(a); string(b) != "new\n" {
		t.Fatalf("a.txt = %q", b)
	}
	if st, _ := os.Stat(a); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v not kept", st.Mode())
	}
	if err := WriteConfined(view, a, "old\n", false, "newer\n"); err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("stale base: %v", err)
	}
	must(os.Symlink(outside, filepath.Join(dir, "link")))
	if err := WriteConfined(view, filepath.Join(dir, "link", "x.txt"), "", true, "x"); err == nil {
		t.Fatal("wrote through a symlink out of the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Fatal("file created outside the workspace")
	}
	must(os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	if err := WriteConfined(view, filepath.Join(dir, ".git", "config"), "", true, "[core]"); err == nil || !strings.Contains(err.Error(), ".git") {
		t.Fatalf(".git: %v", err)
	}
	must(WriteConfined(view, filepath.Join(dir, "sub", "new.txt"), "", true, "created\n"))
	if err := WriteConfined(view, filepath.Join(dir, "sub", "new.txt"), "", true, "other\n"); err == nil {
		t.Fatal("overwrote a file created meanwhile")
	}
}

// RemoveConfined deletes only inside the workspace, never in .git, and
// only the content it was told to expect.
func TestRemoveConfined(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	view := workspace.New(workspace.Options{Folders: []string{dir}})
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, []byte("mine\n"), 0o644)
	if err := RemoveConfined(view, a, "theirs\n"); err == nil {
		t.Fatal("removed a file whose content changed")
	}
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	g := filepath.Join(dir, ".git", "config")
	os.WriteFile(g, []byte("x"), 0o644)
	if err := RemoveConfined(view, g, "x"); err == nil {
		t.Fatal("removed a file in .git")
	}
	o := filepath.Join(outside, "o.txt")
	os.WriteFile(o, []byte("o"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	if err := RemoveConfined(view, filepath.Join(dir, "link", "o.txt"), "o"); err == nil {
		t.Fatal("removed a file outside through a symlink")
	}
	if err := RemoveConfined(view, a, "mine\n"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{g, o} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is gone: %v", p, err)
		}
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatal("a.txt not removed")
	}
}
