package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// WriteFile writes through real directories of the workspace only: a
// directory that is a symlink (to outside, or swapped in after the path
// was checked) is refused and nothing is written outside; .git in any
// case is refused; modes are kept; missing directories are created.
func TestWriteFileConfined(t *testing.T) {
	v, root := newTestView(t, Options{})
	outside := tempRoot(t)
	writeFile(t, filepath.Join(root, "sub", "a.txt"), "old\n")
	if err := os.Chmod(filepath.Join(root, "sub", "a.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Replacing keeps the mode; creating makes directories and mode 0644.
	if err := v.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("new\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "sub", "a.txt")); err != nil || fi.Mode().Perm() != 0o751 {
		t.Fatalf("mode after replace: %v, %v", fi.Mode(), err)
	}
	if err := v.WriteFile(filepath.Join(root, "x", "y", "new.txt"), []byte("n"), WriteOptions{Create: true}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "x", "y", "new.txt")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("created: %v, %v", fi, err)
	}
	if err := v.WriteFile(filepath.Join(root, "missing.txt"), []byte("n"), WriteOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("replace of a missing file: %v", err)
	}

	for name, tc := range map[string]struct {
		path string
		want error
	}{
		"through a symlinked directory": {filepath.Join(root, "out", "x.txt"), ErrOutside},
		".git":                          {filepath.Join(root, ".git", "hooks", "pre-commit"), ErrGitDir},
		".GIT":                          {filepath.Join(root, ".GIT", "config"), ErrGitDir},
		".git. (trailing dot)":          {filepath.Join(root, ".git.", "config"), ErrGitDir},
		"relative .git":                 {".git/config", ErrGitDir},
		"outside":                       {filepath.Join(outside, "x.txt"), ErrOutside},
		"a FIFO":                        {filepath.Join(root, "fifo"), ErrNotRegular},
	} {
		if err := v.WriteFile(tc.path, []byte("pwned"), WriteOptions{Create: true}); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	// A symlink into .git under another name is still .git.
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".git", "hooks"), filepath.Join(root, "hooks")); err != nil {
		t.Fatal(err)
	}
	if err := v.WriteFile(filepath.Join(root, "hooks", "pre-commit"), []byte("pwned"), WriteOptions{Create: true}); !errors.Is(err, ErrGitDir) {
		t.Errorf("symlink into .git: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("something was written outside: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, ".git", "hooks")); len(ents) != 0 {
		t.Fatalf("something was written inside .git: %v", ents)
	}

	// The check and the write are one: a directory swapped for a symlink
	// to outside after WritablePath passed is not written through.
	if _, err := v.WritablePath(filepath.Join(root, "sub", "b.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.real")); err != nil {
		t.Fatal(err)
	}
	dfd, err := openNoFollow(-100, root, "", false) // AT_FDCWD
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dfd)
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := openNoFollow(dfd, "sub", filepath.Join(root, "sub"), true); !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("walk through a swapped-in symlink: %v", err)
	}
}

// WritablePath applies the same rules without writing.
func TestWritablePath(t *testing.T) {
	v, root := newTestView(t, Options{})
	for _, ok := range []string{"a.txt", "dir/.gitignore", "x/.github/workflows/ci.yml", ".gitattributes"} {
		if _, err := v.WritablePath(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{".git", ".git/config", "sub/.Git/HEAD", ".git /x", "../x", filepath.Join(root, "..", "x"), "~/x"} {
		if _, err := v.WritablePath(bad); err == nil {
			t.Errorf("%s allowed", bad)
		}
	}
}
