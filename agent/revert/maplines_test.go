package revert

import (
	"slices"
	"testing"
)

// TestMapLines follows a run's changed lines into the file as it is now:
// lines above shift them, a line a later edit replaced is gone, and an
// unchanged file keeps them where they were.
func TestMapLines(t *testing.T) {
	after := "a\nRUN1\nb\nRUN2\nc\n"
	spans := [][2]int{{1, 1}, {3, 3}}
	for _, c := range []struct {
		name, cur string
		want      [][2]int
	}{
		{"unchanged", after, [][2]int{{1, 1}, {3, 3}}},
		{"two lines added above", "x\ny\na\nRUN1\nb\nRUN2\nc\n", [][2]int{{3, 3}, {5, 5}}},
		{"a line added between", "a\nRUN1\nb\nnew\nRUN2\nc\n", [][2]int{{1, 1}, {4, 4}}},
		{"the first replaced later", "a\nLATER\nb\nRUN2\nc\n", [][2]int{{3, 3}}},
		{"a line deleted above", "RUN1\nb\nRUN2\nc\n", [][2]int{{0, 0}, {2, 2}}},
	} {
		got := MapLines(after, c.cur, spans)
		var lines []int
		for _, s := range got {
			for l := s[0]; l <= s[1]; l++ {
				lines = append(lines, l)
			}
		}
		var want []int
		for _, s := range c.want {
			for l := s[0]; l <= s[1]; l++ {
				want = append(want, l)
			}
		}
		if !slices.Equal(lines, want) {
			t.Errorf("%s: MapLines = %v, want lines %v", c.name, got, c.want)
		}
	}
}

// TestIndexNow: the index gives each landed run's lines where they stand in
// the text now, and reads no text for a file no run changed.
func TestIndexNow(t *testing.T) {
	st := NewStore(t.TempDir())
	if _, err := st.Keep("0a1b", "s", File{Path: "/w/a", Before: "a\nb\n", After: "a\nRUN\nb\n"}); err != nil {
		t.Fatal(err)
	}
	x := &Index{Store: func() *Store { return st }, Runs: func() []string { return []string{"0a1b"} }, Go: func(f func()) { go f() }}
	x.Landed("0a1b")
	if got := x.Now("/w/other", func() (string, bool) { t.Error("read a file no run changed"); return "", false }); got != nil {
		t.Fatalf("Now of an untouched file = %v", got)
	}
	for _, c := range []struct {
		cur  string
		want [][2]int
	}{
		{"a\nRUN\nb\n", [][2]int{{1, 1}}},
		{"x\na\nRUN\nb\n", [][2]int{{2, 2}}},
		{"x\na\nRUN\nb\n", [][2]int{{2, 2}}}, // the same text again: remembered
		{"a\nLATER\nb\n", nil},
	} {
		got := x.Now("/w/a", func() (string, bool) { return c.cur, true })
		if len(got) != 1 || got[0].RunID != "0a1b" || !slices.EqualFunc(got[0].Now, c.want, func(a, b [2]int) bool { return a == b }) {
			t.Fatalf("Now(%q) = %+v, want the run's line at %v", c.cur, got, c.want)
		}
	}
}
