package statedir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Prune keeps the newest files of the suffix and leaves everything else.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i, name := range []string{"a.json", "b.json", "c.json", "d.json", "keep.md"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "old.json"), 0o700); err != nil { // not a regular file
		t.Fatal(err)
	}
	Prune(dir, ".json", 2)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"c.json", "d.json", "keep.md", "old.json"}; !slices.Equal(names, want) {
		t.Fatalf("after Prune: %v, want %v", names, want)
	}
	Prune(filepath.Join(dir, "missing"), ".json", 0) // no directory: nothing happens
}
