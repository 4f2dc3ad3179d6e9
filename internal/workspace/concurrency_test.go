package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

// Readers, an editor typing, disk writers, the watcher invalidating and a
// walker all at once; run with -race. Every snapshot must be internally
// consistent (hash matches text, text is one of the versions written).
func TestConcurrentReadChangeInvalidate(t *testing.T) {
	v, root := newTestView(t, Options{CacheBytes: 4 << 10})
	open := filepath.Join(root, "open.go")
	v.Open(open, 0, "")
	for i := range 20 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("f%d.txt", i)), strings.Repeat("a", 100))
	}
	events := 0
	var evMu sync.Mutex
	defer v.Subscribe(func(Event) { evMu.Lock(); events++; evMu.Unlock() })()

	const rounds = 200
	var wg sync.WaitGroup
	wg.Go(func() { // editor
		for i := 1; i <= rounds; i++ {
			err := v.Change(open, int32(i), []text.Change{{Range: &text.Range{}, Text: "x"}}, text.UTF16)
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() { // disk writer + watcher
		for i := range rounds {
			p := filepath.Join(root, fmt.Sprintf("f%d.txt", i%20))
			// Atomic save, so a reader sees the old or the new file, never a
			// truncated one.
			tmp := p + ".tmp"
			os.WriteFile(tmp, []byte(strings.Repeat(string(rune('a'+i%26)), 100)), 0o644)
			os.Rename(tmp, p)
			v.Invalidate(p)
		}
	})
	for range 3 { // tools
		wg.Go(func() {
			for i := range rounds {
				s, err := v.Read(fmt.Sprintf("f%d.txt", i%20))
				if err == nil && (s.Hash != hashString(s.Text) || len(s.Text) != 100 || strings.Count(s.Text, s.Text[:1]) != 100) {
					t.Errorf("torn snapshot %q", s.Text)
				}
				o, err := v.Read(open)
				if err != nil || o.Hash != hashString(o.Text) || strings.Trim(o.Text, "x") != "" || !o.Open {
					t.Errorf("overlay snapshot %+v %v", o, err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			v.Walk(context.Background(), ".", func(string, fs.DirEntry) error { return nil })
		}
	})
	wg.Wait()
	s, _ := v.Overlay(open)
	if len(s.Text) != rounds || *s.Version != rounds {
		t.Fatalf("lost changes: %d chars, version %d", len(s.Text), *s.Version)
	}
	evMu.Lock()
	if events == 0 {
		t.Error("no events delivered during the run")
	}
	evMu.Unlock()
	if _, b := v.CacheStats(); b > 4<<10 {
		t.Fatalf("bound exceeded: %d", b)
	}
}
