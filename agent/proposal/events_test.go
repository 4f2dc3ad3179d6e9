package proposal

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/text"
)

func TestOnChange(t *testing.T) {
	s := New()
	var got []string
	cancel := s.OnChange(func(path string) {
		got = append(got, path)
		// Subscribers run without the lock: calling back in is fine.
		_ = s.List(path)
	})
	expect := func(step string, want ...string) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: notified %q, want %q", step, got, want)
		}
		got = nil
	}
	s.Put("r1", "f", goBase, ver(1), goProposed, false)
	expect("put", "f")
	s.DocumentChanged("f", ver(2), "// top\n"+goBase)
	expect("typing outside the hunks only shifts ranges")
	s.DocumentChanged("f", ver(3), strings.Replace("// top\n"+goBase, "return 1", "return 7", 1))
	expect("typing inside a hunk conflicts it", "f")
	s.DocumentChanged("other", ver(1), "x")
	expect("a path without proposals")
	plan, _ := s.Accept(Filter{}, text.UTF16)
	expect("accept alone changes nothing visible yet")
	s.DocumentChanged("f", ver(4), onlyFile(t, plan).Expected)
	expect("the plan lands", "f")
	s.Applied(plan)
	expect("the answer", "f")
	s.Put("r1", "g", "a\n", nil, "b\n", false)
	s.Put("r2", "h", "a\n", nil, "b\n", false)
	got = nil
	if n := s.Reject(Filter{}); n != 3 {
		t.Fatalf("rejected %d", n)
	}
	expect("reject", "f", "g", "h")
	cancel()
	s.Put("r1", "f", "a\n", nil, "b\n", false)
	expect("after cancel")
}

// TestConcurrentUse runs every entry point from several goroutines; run
// with -race. Each worker owns a path, so its own expectations hold
// whatever the others do.
func TestConcurrentUse(t *testing.T) {
	s := New()
	var notified sync.Map
	defer s.OnChange(func(p string) { notified.Store(p, true) })()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := fmt.Sprintf("f%d", w)
			for i := range 50 {
				run := fmt.Sprintf("r%d-%d", w, i)
				s.Put(run, path, fourBase, ver(1), fourProposed, false)
				s.DocumentChanged(path, ver(2), fourBase)
				_ = s.List("")
				_ = s.HunksAt(path, 0, 10)
				_ = s.Select(Filter{RunID: run})
				plan, err := s.Accept(Filter{RunID: run}, text.UTF16)
				if err != nil {
					t.Error(err)
					return
				}
				if plan.Empty() {
					t.Errorf("%s: empty plan, conflicts %+v", run, plan.Conflicts)
					return
				}
				s.DocumentChanged(path, ver(3), onlyFile(t, plan).Expected)
				s.Applied(plan)
				s.DocumentChanged(path, ver(4), fourBase) // the user reverts
				if n := len(s.List(path)); n != 0 {
					t.Errorf("%s: %d proposals left", path, n)
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := range 4 {
		if _, ok := notified.Load(fmt.Sprintf("f%d", w)); !ok {
			t.Fatalf("no notification for f%d", w)
		}
	}
}

func TestHunksAt(t *testing.T) {
	s := New()
	// Hunks: l0 [0,3), l3 [9,12), l6-l7 [18,24), insertion at EOF [30,30).
	s.Put("r1", "f", fourBase, ver(1), fourProposed, false)
	ids := func(hs []Hunk) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.OldText)
		}
		return out
	}
	tests := []struct {
		start, end int
		want       []string
	}{
		{0, 0, []string{"l0\n"}},                          // cursor at a hunk's start
		{2, 2, []string{"l0\n"}},                          // cursor at end of its line
		{3, 3, nil},                                       // cursor on the next line
		{10, 10, []string{"l3\n"}},                        // cursor inside
		{0, 30, []string{"l0\n", "l3\n", "l6\nl7\n", ""}}, // everything
		{12, 18, nil},                                     // the lines between
		{11, 19, []string{"l3\n", "l6\nl7\n"}},            // overlapping two
		{30, 30, []string{""}},                            // the insertion point
		{28, 28, []string{""}},                            // the last line, where the insertion appends
		{24, 26, nil},                                     // the line before it
		{4, 5, nil},                                       // mid-line, the line after a hunk
		{1, 3, []string{"l0\n"}},                          // ends at column 0 of the next line
		{1, 4, []string{"l0\n"}},                          // ends inside the next line
		{7, 10, []string{"l3\n"}},                         // from the line before into the hunk
	}
	for _, tc := range tests {
		if got := ids(s.HunksAt("f", tc.start, tc.end)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("HunksAt(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
	if hs := s.HunksAt("nope", 0, 10); hs != nil {
		t.Fatalf("unknown path: %+v", hs)
	}
	// The unterminated last line of a hunk at EOF is selected by a cursor
	// at its end.
	s.Put("r1", "g", "a\nb", nil, "a\nc", false)
	if hs := s.HunksAt("g", 3, 3); len(hs) != 1 {
		t.Fatalf("cursor at EOF: %+v", hs)
	}
	// An insertion (empty range at a line start) is found from any column
	// of the line it inserts before, by a cursor or by a range on it (eglot
	// asks over the range of the diagnostic at point).
	s.Put("r2", "h", "a\n\tx = 1 + 2\nc\n", nil, "a\n\t// new\n\tx = 1 + 2\nc\n", false)
	for _, r := range []text.Range{
		{Start: pos(1, 0), End: pos(1, 0)}, {Start: pos(1, 5), End: pos(1, 5)},
		{Start: pos(1, 4), End: pos(1, 40)}, {Start: pos(0, 1), End: pos(1, 3)},
	} {
		if hs := s.HunksAtLSP("h", r, text.UTF16); len(hs) != 1 || hs[0].NewText != "\t// new\n" || hs[0].Range != (text.Range{Start: pos(1, 0), End: pos(1, 0)}) {
			t.Errorf("insertion from %+v: %+v", r, hs)
		}
	}
	for _, r := range []text.Range{{Start: pos(0, 1), End: pos(0, 1)}, {Start: pos(2, 0), End: pos(2, 1)}, {Start: pos(0, 0), End: pos(1, 0)}} {
		if hs := s.HunksAtLSP("h", r, text.UTF16); len(hs) != 0 {
			t.Errorf("insertion found from %+v: %+v", r, hs)
		}
	}
	lsp := s.HunksAtLSP("f", text.Range{Start: pos(3, 1), End: pos(3, 1)}, text.UTF16)
	if len(lsp) != 1 || lsp[0].Range != (text.Range{Start: pos(3, 0), End: pos(4, 0)}) {
		t.Fatalf("HunksAtLSP: %+v", lsp)
	}
}
