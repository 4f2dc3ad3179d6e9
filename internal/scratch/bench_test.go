package scratch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/workspace"
)

// Figures for docs/performance.md ("Proposal view"): how long a scratch
// copy takes to make, check (Repair with nothing to repair) and remove,
// on Go's own source tree and on a generated 2,000-file Python project
// with a virtualenv. Run with
//
//	go test -run '^$' -bench 'Scratch' -benchtime 5x ./internal/scratch

func gorootSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testpeers.Missing(b, "go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		testpeers.Missing(b, "no GOROOT/src: %v", err)
	}
	return src
}

// pythonProject writes 2,000 modules (40 packages of 50), their tests, a
// .gitignore and a 500-file .venv that the copy shares instead of copying.
func pythonProject(b *testing.B) string {
	root := filepath.Join(b.TempDir(), "pyproj")
	write(b, filepath.Join(root, ".gitignore"), ".venv/\n__pycache__/\n*.pyc\n", 0o644)
	write(b, filepath.Join(root, "pyproject.toml"), "[project]\nname = \"bench\"\n", 0o644)
	body := strings.Repeat("def f(x):\n    return x + 1\n\n", 40)
	for p := range 40 {
		pkg := filepath.Join(root, "src", fmt.Sprintf("pkg%02d", p))
		write(b, filepath.Join(pkg, "__init__.py"), "", 0o644)
		for m := range 49 {
			write(b, filepath.Join(pkg, fmt.Sprintf("mod%02d.py", m)), body, 0o644)
		}
		write(b, filepath.Join(pkg, "__pycache__", "mod00.cpython-311.pyc"), "\x00cached", 0o644)
	}
	for t := range 40 {
		write(b, filepath.Join(root, "tests", fmt.Sprintf("test_%02d.py", t)), "def test_ok():\n    assert True\n", 0o644)
	}
	for v := range 500 {
		write(b, filepath.Join(root, ".venv", "lib", fmt.Sprintf("site%03d.py", v)), body, 0o644)
	}
	return root
}

func benchNew(b *testing.B, folder string) {
	v := workspace.New(workspace.Options{Folders: []string{folder}})
	base := b.TempDir()
	ctx := context.Background()
	var st Stats
	var repair, remove time.Duration
	for b.Loop() {
		c, err := New(ctx, Options{View: v, Folder: folder, BaseDir: base, Workers: benchWorkers})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st = c.Stats()
		t0 := time.Now()
		if n, err := c.Repair(ctx); err != nil || n != 0 {
			b.Fatalf("repair %d %v", n, err)
		}
		t1 := time.Now()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		repair += t1.Sub(t0)
		remove += time.Since(t1)
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(st.Bytes)/(1<<20), "MiB")
	b.ReportMetric(float64(repair.Milliseconds())/float64(b.N), "repair-ms")
	b.ReportMetric(float64(remove.Milliseconds())/float64(b.N), "remove-ms")
	b.Logf("%s: %d files, %d MiB, %d links, %d shared, mode %s", folder, st.Files, st.Bytes>>20, st.Links, st.Shared, st.CopyMode)
}

func BenchmarkScratchNewGoroot(b *testing.B) { benchNew(b, gorootSrc(b)) }

func BenchmarkScratchNewPython2000(b *testing.B) { benchNew(b, pythonProject(b)) }

var benchWorkers = func() int {
	n := 0
	fmt.Sscan(os.Getenv("SCRATCH_BENCH_WORKERS"), &n)
	return n
}()
