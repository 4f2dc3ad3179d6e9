package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/overlay"
	scratchcopy "github.com/agentls/agentls/internal/scratch"
	"github.com/agentls/agentls/internal/testtree"
	"github.com/agentls/agentls/internal/workspace"
)

// BenchmarkScale is the scale benchmark of issue 30, kept out of the
// default paths (tests, make bench, CI): it runs only with
// AGENTLS_BENCH_SCALE=N (make bench-scale), builds a tree of N copies of GOROOT/src (N=5: about 57k
// files) in a temporary directory, and logs, for a run that stages a
// one-line change and runs one check: the check's path (view ready +
// check + removal on the path) in an overlay view and in a copy, and the
// grep tool against ripgrep on the same tree. Figures go to
// docs/performance.md; nothing here asserts a time.
func BenchmarkScale(b *testing.B) {
	for b.Loop() {
		scaleBench(b)
	}
}

func scaleBench(t *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("AGENTLS_BENCH_SCALE"))
	if n <= 0 {
		t.Skip("set AGENTLS_BENCH_SCALE=N (copies of GOROOT/src) to run the scale benchmark")
	}
	root, files := testtree.GorootCopies(t, n)
	t.Logf("tree: %d × GOROOT/src, %d files", n, files)

	for _, kind := range []string{ViewOverlay, ViewCopy} {
		if kind == ViewCopy {
			t.Setenv(overlay.EnvMode, "copy")
		}
		for i := range 2 {
			env := NewEnv("scale", workspace.New(workspace.Options{Folders: []string{root}}), nil, Policy{})
			env.Proposal.BaseDir = t.TempDir()
			hello := filepath.Join(root, "hello.txt")
			mustOK(t, call(t, env, "read_file", map[string]any{"path": hello}))
			mustOK(t, call(t, env, "edit_file", map[string]any{"path": hello, "old_string": "hello", "new_string": "hi there"}))
			start := time.Now()
			res, err := env.RunCheck(context.Background(), Check{Name: "hi", Command: "grep -q hi hello.txt"})
			if err != nil || !res.Passed || res.View != kind {
				t.Fatalf("%s check: %v %+v", kind, err, res)
			}
			ready := time.Since(start)
			if err := env.Proposal.Close(); err != nil {
				t.Fatal(err)
			}
			onPath := time.Since(start)
			scratchcopy.WaitRemovals()
			t.Logf("check path, %s view, try %d: %v on the run's path (view + check %v, removal on the path %v; background removal done after %v)",
				kind, i+1, onPath.Round(time.Millisecond), ready.Round(time.Millisecond), (onPath - ready).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		}
	}

	if _, err := exec.LookPath("rg"); err != nil {
		t.Logf("rg not installed: grep comparison skipped")
		return
	}
	t.Setenv(overlay.EnvMode, "")
	env := NewEnv("scale", workspace.New(workspace.Options{Folders: []string{root}}), nil, Policy{AllowSecrets: true})
	for _, c := range gorootCases[:2] {
		best, bestRg := time.Duration(1<<62), time.Duration(1<<62)
		var got, want int
		for range 3 {
			t0 := time.Now()
			want, _ = rgCount(t, root, c)
			bestRg = min(bestRg, time.Since(t0))
			t0 = time.Now()
			got = grepCount(t, env, c)
			best = min(best, time.Since(t0))
		}
		t.Logf("grep %q: grep tool %v (%d lines), rg %v (%d lines): %.2f× rg", c.pattern, best.Round(time.Millisecond), got, bestRg.Round(time.Millisecond), want, float64(best)/float64(bestRg))
	}
}
