package workspace

import (
	"path/filepath"
	"testing"
)

// TestDisplayName holds the one rule every face and the tools name files
// by: relative to the folder holding them (the second folder too), the
// folder itself as ".", and anything else, a sibling whose name only
// starts like a folder included, as given.
func TestDisplayName(t *testing.T) {
	second := tempRoot(t)
	v, root := newTestView(t, Options{Folders: []string{second}})
	cases := []struct {
		path, want string
		in         bool
	}{
		{filepath.Join(root, "src", "a.go"), "src/a.go", true},
		{root, ".", true},
		{filepath.Join(second, "b.txt"), "b.txt", true},
		{root + "-sibling/c.go", root + "-sibling/c.go", false},
		{"/etc/passwd", "/etc/passwd", false},
	}
	for _, c := range cases {
		if got := v.DisplayName(c.path); got != c.want {
			t.Errorf("DisplayName(%q) = %q, want %q", c.path, got, c.want)
		}
		if _, in := v.Rel(c.path); in != c.in {
			t.Errorf("Rel(%q) in a folder = %v, want %v", c.path, in, c.in)
		}
	}
}
