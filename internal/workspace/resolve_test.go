package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveConfinement(t *testing.T) {
	outside := tempRoot(t)
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Mkdir(filepath.Join(outside, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, root := newTestView(t, Options{})
	writeFile(t, filepath.Join(root, "src", "a.go"), "package a")
	mk := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	mk(outside, "outdir")                                  // dir symlink out
	mk(filepath.Join(outside, "secret.txt"), "outfile")    // file symlink out
	mk(filepath.Join(outside, "nothing-here"), "dangling") // dangling, out
	mk("../"+filepath.Base(outside), "relout")             // relative link out (sibling temp dirs)
	mk("src", "srclink")                                   // in-workspace dir link
	mk("src/a.go", "alink")                                // in-workspace file link
	mk("src/new.go", "newlink")                            // dangling, in

	refused := []string{
		"../x",
		"src/../../x",
		outside + "/secret.txt",
		"/etc/passwd",
		"~",
		"~/.ssh/id_rsa",
		"outdir/secret.txt",
		"outdir/dir/not-yet.txt", // not existing, under an escaping dir link
		"outdir/new/deeper/f.txt",
		"outfile",
		"dangling",
		"dangling/child",
	}
	if filepath.Dir(outside) == filepath.Dir(root) {
		refused = append(refused, "relout/secret.txt")
	}
	for _, p := range refused {
		got, err := v.Resolve(p)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%q) = %q, %v; want ErrOutside", p, got, err)
			continue
		}
		if !strings.Contains(err.Error(), "paths must be inside the workspace folder "+root) {
			t.Errorf("Resolve(%q) error does not say what to do: %v", p, err)
		}
	}
	allowed := map[string]string{
		"":                        root,
		".":                       root,
		"src/a.go":                root + "/src/a.go",
		"./src/../src/a.go":       root + "/src/a.go",
		root + "/src/a.go":        root + "/src/a.go",
		"srclink/a.go":            root + "/src/a.go",
		"alink":                   root + "/src/a.go",
		"srclink/new/f.go":        root + "/src/new/f.go",
		"newlink":                 root + "/src/new.go",
		"~notatilde/x":            root + "/~notatilde/x",
		root + "/src/../src/b.go": root + "/src/b.go",
	}
	for in, want := range allowed {
		got, err := v.Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// Messages that help: a symlink escape says so.
	if _, err := v.Resolve("outdir/secret.txt"); !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlink escape message: %v", err)
	}
	// Reading through an escaping link is refused too.
	if _, err := v.Read("outfile"); !errors.Is(err, ErrOutside) {
		t.Errorf("Read(outfile) = %v", err)
	}
}

func TestResolveNoFoldersAndLoops(t *testing.T) {
	v := New(Options{})
	if _, err := v.Resolve("a.go"); !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "no workspace folder") {
		t.Fatalf("no folders: %v", err)
	}
	v, root := newTestView(t, Options{})
	os.Symlink("loop2", filepath.Join(root, "loop1"))
	os.Symlink("loop1", filepath.Join(root, "loop2"))
	if _, err := v.Resolve("loop1/x"); err == nil {
		t.Fatal("symlink loop resolved")
	}
}

func TestResolveSeveralFoldersAndSymlinkedFolder(t *testing.T) {
	a, b := tempRoot(t), tempRoot(t)
	link := filepath.Join(tempRoot(t), "ws-link")
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	v := New(Options{Folders: []string{a, link, a}})
	if got := v.Folders(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("folders not normalised: %v", got)
	}
	if got, err := v.Resolve("x"); err != nil || got != a+"/x" {
		t.Fatalf("relative goes to first folder: %q %v", got, err)
	}
	// The editor may name files through the symlinked folder path.
	if got, err := v.Resolve(link + "/y"); err != nil || got != b+"/y" {
		t.Fatalf("via folder link: %q %v", got, err)
	}
	_, err := v.Resolve("/elsewhere")
	if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "one of the workspace folders") {
		t.Fatalf("multi-folder message: %v", err)
	}
	v.SetFolders([]string{b})
	if _, err := v.Resolve(a + "/x"); !errors.Is(err, ErrOutside) {
		t.Fatalf("old folder still allowed: %v", err)
	}
}
