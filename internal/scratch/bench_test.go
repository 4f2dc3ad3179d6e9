package scratch

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/workspace"
)

// Figures for docs/performance.md ("Proposal view"): how long a scratch
// copy takes to make, check (Repair with nothing to repair) and remove,
// on Go's own source tree and on a generated 2,000-file Python project
// with a virtualenv. Run with
//
//	go test -run '^$' -bench 'Scratch' -benchtime 5x ./internal/scratch
//
// The ...Cold benchmarks evict the tree's file contents from the page
// cache before each copy (evict).

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

// evict drops folder's file contents from the page cache
// (POSIX_FADV_DONTNEED on each file: only these clean pages, nobody
// else's), so the next copy reads from disk: the cold figure. Directory
// entries and inodes stay cached.
func evict(b *testing.B, folder string) {
	err := filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		b.Fatal(err)
	}
}

func benchNew(b *testing.B, folder string) { benchNewCache(b, folder, false) }

func benchNewCache(b *testing.B, folder string, cold bool) {
	v := workspace.New(workspace.Options{Folders: []string{folder}})
	base := b.TempDir()
	ctx := context.Background()
	var st Stats
	var repair, remove, cpu time.Duration
	for b.Loop() {
		if cold {
			b.StopTimer()
			evict(b, folder)
			b.StartTimer()
		}
		before := cpuTime()
		c, err := New(ctx, Options{View: v, Folder: folder, BaseDir: base, Workers: benchWorkers})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - before
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
	// CPU time (user + system) of the process while copying: on a machine
	// shared with other work it says more than the wall time does.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
	b.Logf("%s: %d files, %d MiB, %d links, %d shared, mode %s", folder, st.Files, st.Bytes>>20, st.Links, st.Shared, st.CopyMode)
}

func BenchmarkScratchNewGoroot(b *testing.B) { benchNew(b, gorootSrc(b)) }

func BenchmarkScratchNewPython2000(b *testing.B) { benchNew(b, pythonProject(b)) }

func BenchmarkScratchNewGorootCold(b *testing.B) { benchNewCache(b, gorootSrc(b), true) }

func BenchmarkScratchNewPython2000Cold(b *testing.B) { benchNewCache(b, pythonProject(b), true) }

// The reference on the same machine in the same minute: `cp -r` of the
// same tree (which copies .venv too, and knows nothing of ignore files).
func benchCp(b *testing.B, folder string) {
	cp, err := exec.LookPath("cp")
	if err != nil {
		b.Skip("no cp")
	}
	base := b.TempDir()
	i := 0
	for b.Loop() {
		dst := filepath.Join(base, fmt.Sprint(i))
		i++
		if out, err := exec.Command(cp, "-r", folder, dst).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v %s", err, out)
		}
		b.StopTimer()
		os.RemoveAll(dst)
		b.StartTimer()
	}
}

func BenchmarkScratchCpGoroot(b *testing.B) { benchCp(b, gorootSrc(b)) }

func BenchmarkScratchCpPython2000(b *testing.B) { benchCp(b, pythonProject(b)) }

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchWorkers = func() int {
	n := 0
	fmt.Sscan(os.Getenv("SCRATCH_BENCH_WORKERS"), &n)
	return n
}()
