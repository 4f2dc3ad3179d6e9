package workspace

import (
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/testpeers"
)

// BenchmarkReadCacheHit measures a Read served from the cache: Resolve
// (symlink evaluation), one stat to validate, and the map lookup.
func BenchmarkReadCacheHit(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	v := New(Options{Folders: []string{root}})
	p := filepath.Join(root, "pkg", "sub", "file.go")
	writeFileB(b, p, strings.Repeat("package sub\n", 1000))
	if _, err := v.Read(p); err != nil {
		b.Fatal(err)
	}
	// Measure the steady state of a file not modified in the last second
	// (recent ones are re-hashed on every hit; see racyWindow).
	v.cache.mu.Lock()
	v.cache.m[p].racy = false
	v.cache.mu.Unlock()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Read(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadOverlay measures a Read of an open buffer.
func BenchmarkReadOverlay(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	v := New(Options{Folders: []string{root}})
	p := filepath.Join(root, "pkg", "file.go")
	v.Open(p, 1, strings.Repeat("package sub\n", 1000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Read(p); err != nil {
			b.Fatal(err)
		}
	}
}

func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testpeers.Missing(b, "go env GOROOT: %v", err)
	}
	src, _ := filepath.EvalSymlinks(filepath.Join(strings.TrimSpace(string(out)), "src"))
	return src
}

// BenchmarkWalkGOROOT walks $(go env GOROOT)/src (about 10k files), the
// corpus the grep tool is compared with ripgrep on (`rg --files`).
func BenchmarkWalkGOROOT(b *testing.B) {
	src := goroot(b)
	v := New(Options{Folders: []string{src}})
	b.ReportAllocs()
	var files int
	for b.Loop() {
		files = 0
		err := v.Walk(context.Background(), src, func(p string, d fs.DirEntry) error {
			if !d.IsDir() {
				files++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(files), "files")
}

// BenchmarkWalkFilesReadGOROOT walks and reads every file through the view
// with GOMAXPROCS workers (what grep does before matching), cache cold
// each time (a fresh View per iteration; the OS page cache stays warm).
func BenchmarkWalkFilesReadGOROOT(b *testing.B) {
	src := goroot(b)
	b.ReportAllocs()
	var n atomic.Int64
	for b.Loop() {
		v := New(Options{Folders: []string{src}})
		n.Store(0)
		err := v.WalkFiles(context.Background(), src, runtime.GOMAXPROCS(0), func(p string, d fs.DirEntry) error {
			if s, err := v.Read(p); err == nil {
				n.Add(int64(len(s.Text)))
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n.Load())/1e6, "MB")
}

func writeFileB(b *testing.B, path, content string) {
	b.Helper()
	if err := mkfile(path, content); err != nil {
		b.Fatal(err)
	}
}
