package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentls/agentls/internal/workspace"
)

// BenchmarkStart20kDirs measures Start (walk + one inotify watch per
// directory) on a tree of 20,000 leaf directories (20,221 in all) holding
// one small file each, and the heap the running watcher and view keep
// (heap-B/op: live heap after Start minus before, after GC).
func BenchmarkStart20kDirs(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	dirs := 1
	for i := range 20 {
		for j := range 10 {
			for k := range 100 {
				d := filepath.Join(root, fmt.Sprintf("p%02d", i), fmt.Sprintf("q%d", j), fmt.Sprintf("r%03d", k))
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "f.go"), []byte("package r\n"), 0o644); err != nil {
					b.Fatal(err)
				}
				dirs++
			}
			dirs++
		}
		dirs++
	}
	v := workspace.New(workspace.Options{Folders: []string{root}})
	var heap uint64
	b.ReportAllocs()
	for b.Loop() {
		w, err := New(v, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		if err := w.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		if st := w.Stats(); st.WatchedDirs != dirs || st.LimitHit {
			b.Fatalf("watched %d of %d dirs (limit hit: %v)", st.WatchedDirs, dirs, st.LimitHit)
		}
		w.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(heap), "heap-B")
	b.ReportMetric(float64(dirs), "dirs")
}
