package testtree

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GorootCopies is the large tree of the scale benchmarks (issue 30): n
// copies of GOROOT/src (n=5: about 57k files) under a temporary directory
// of tb, which removes it afterwards, copied with reflinks where the
// filesystem can, with a hello.txt ("hello\n") at its root. It returns the
// root and the number of regular files below it.
func GorootCopies(tb testing.TB, n int) (string, int) {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if out, err := exec.Command("cp", "-r", "--reflink=auto", src, filepath.Join(root, fmt.Sprintf("src%d", i))).CombinedOutput(); err != nil {
			tb.Fatalf("copy GOROOT/src: %v: %s", err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	files := 0
	_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files++
		}
		return nil
	})
	return root, files
}
