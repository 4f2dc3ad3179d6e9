package workspace

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// tempRoot returns a fresh directory with its symlinks resolved, so paths
// compare equal to what Resolve returns.
func tempRoot(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newTestView returns a View over a fresh folder.
func newTestView(t *testing.T, opts Options) (*View, string) {
	t.Helper()
	root := tempRoot(t)
	opts.Folders = append([]string{root}, opts.Folders...)
	return New(opts), root
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, v *View, path string) Snapshot {
	t.Helper()
	s, err := v.Read(path)
	if err != nil {
		t.Fatalf("Read(%q): %v", path, err)
	}
	return s
}

// recorder collects events delivered to a subscriber.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func record(t *testing.T, v *View) *recorder {
	r := &recorder{}
	cancel := v.Subscribe(func(ev Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	})
	t.Cleanup(cancel)
	return r
}

// take returns and clears the events seen so far.
func (r *recorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func mkfile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
