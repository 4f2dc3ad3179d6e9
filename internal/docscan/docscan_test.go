package docscan

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// todoSource finds the lines holding TODO and records what it was told.
type todoSource struct {
	mu      sync.Mutex
	scanned []string // texts scanned
	dropped []string // paths told closed
}

func (t *todoSource) fn(path, content string, open bool) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !open {
		t.dropped = append(t.dropped, path)
		return nil
	}
	t.scanned = append(t.scanned, content)
	var out []string
	for _, l := range strings.Split(content, "\n") {
		if strings.Contains(l, "TODO") {
			out = append(out, l)
		}
	}
	return out
}

func reader(text string) func() (string, bool) { return func() (string, bool) { return text, true } }
func open() bool                               { return true }

// A document is scanned once after it opens, not again until it changes;
// typing makes it due only after the pause (ready names it), and the
// latest findings stand until then.
func TestOpenedThenTyped(t *testing.T) {
	var src todoSource
	var s Scans[string]
	s.Add(src.fn)
	ready := make(chan string, 4)
	s.Start(time.Millisecond, func(p string) { ready <- p })
	defer s.Stop()

	if s.Scan("a.go", reader("x // TODO one"), open) {
		t.Fatal("scanned a document that never opened")
	}
	s.Opened("a.go")
	if !s.Scan("a.go", reader("x // TODO one"), open) {
		t.Fatal("an opened document was not scanned")
	}
	if got := s.Found("a.go"); !slices.Equal(got, []string{"x // TODO one"}) {
		t.Fatalf("Found = %q", got)
	}
	if s.Scan("a.go", reader("other"), open) {
		t.Fatal("scanned again without a change")
	}
	s.Typed("a.go")
	if waiting, _ := s.Len(); waiting != 1 {
		t.Fatalf("%d waiting after a keystroke, want 1", waiting)
	}
	if p := <-ready; p != "a.go" {
		t.Fatalf("ready(%q)", p)
	}
	if got := s.Found("a.go"); !slices.Equal(got, []string{"x // TODO one"}) {
		t.Fatalf("the latest findings did not stand until the scan: %q", got)
	}
	if s.Scan("a.go", reader("clean"), open) {
		t.Fatal("a clean text found something")
	}
	if got := s.Found("a.go"); got != nil {
		t.Fatalf("findings of the old text kept: %q", got)
	}
	if !slices.Equal(src.scanned, []string{"x // TODO one", "clean"}) {
		t.Fatalf("texts scanned %q", src.scanned)
	}
}

// A close forgets the document and tells the sources; a scan that was
// running when the document closed keeps nothing of it.
func TestClosed(t *testing.T) {
	var src todoSource
	var s Scans[string]
	s.Add(src.fn)
	s.Start(time.Hour, func(string) {})
	defer s.Stop()

	s.Opened("a.go")
	s.Scan("a.go", reader("TODO"), open)
	s.Typed("a.go")
	tell := s.Closed("a.go")
	if waiting, found := s.Len(); waiting != 0 || found != 0 || s.Found("a.go") != nil {
		t.Fatalf("after close: %d waiting, %d found", waiting, found)
	}
	tell()
	if !slices.Equal(src.dropped, []string{"a.go"}) {
		t.Fatalf("sources told of closes %q", src.dropped)
	}

	s.Opened("b.go")
	closedMeanwhile := func() bool { return false }
	if s.Scan("b.go", reader("TODO b"), closedMeanwhile) {
		t.Fatal("a scan of a document closed meanwhile reported findings")
	}
	if s.Found("b.go") != nil || !slices.Equal(src.dropped, []string{"a.go", "b.go"}) {
		t.Fatalf("a document closed during its scan kept %q; sources told %q", s.Found("b.go"), src.dropped)
	}
}

// Without sources nothing is scheduled and a close tells nobody.
func TestInactive(t *testing.T) {
	var s Scans[string]
	s.Start(time.Millisecond, func(p string) { t.Errorf("ready(%q) without sources", p) })
	defer s.Stop()
	s.Opened("a.go")
	s.Typed("a.go")
	if s.Active() || s.Scan("a.go", reader("TODO"), open) || s.Closed("a.go") != nil {
		t.Fatal("scans without a source did something")
	}
	if waiting, found := s.Len(); waiting+found != 0 {
		t.Fatalf("%d waiting, %d found", waiting, found)
	}
}
