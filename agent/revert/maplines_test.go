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
