package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"  two\n\tlines  ", 20, "two lines"},
		{"abcdef", 3, "abc…"},
		{"a😀b", 2, "a…"}, // the emoji would be split at byte 2
		{"日本語", 4, "日…"},
		{"", 5, ""},
	} {
		got := Clip(c.in, c.max)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestHeadline(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"## Plan\n\n1. Add a Div function to calc.go\n2. Test it", "1. Add a Div function to calc.go"},
		{"# Add Div\n\nSteps follow.", "Add Div"},
		{"**Plan:**\n- add Div", "- add Div"},
		{"Fixed the bug.\nMore.", "Fixed the bug."},
		{"Plan:\n1. Say goodbye.", "1. Say goodbye."},
		{"Plan: say goodbye.", "Plan: say goodbye."},
		{"## Plan", "Plan"},
		{"---\n\n## Summary:\n> Renamed Foo to Bar", "Renamed Foo to Bar"},
		{"", ""},
	} {
		if got := Headline(c.in); got != c.want {
			t.Errorf("Headline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFirstOf(t *testing.T) {
	items := []string{"a.go", "b.go", "c.go", "d.go", "e.go"}
	name := func(i int) string { return items[i] }
	for _, c := range []struct {
		n, max int
		want   string
	}{
		{0, 3, ""},
		{2, 3, "a.go, b.go"},
		{3, 3, "a.go, b.go, c.go"},
		{5, 3, "a.go, b.go, c.go, and 2 more"},
	} {
		if got := strings.Join(FirstOf(c.n, c.max, name), ", "); got != c.want {
			t.Errorf("FirstOf(%d, %d) = %q, want %q", c.n, c.max, got, c.want)
		}
	}
}

// TestClipOneLine: titles already on one line (Clip's fast path) and
// titles that need their white space collapsed come out as
// strings.Fields would have them.
func TestClipOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"undefined: compute", "undefined: compute"},
		{" lead", "lead"},
		{"trail ", "trail"},
		{"two  spaces", "two spaces"},
		{"tab\there", "tab here"},
		{"line\r\nbreak", "line break"},
		{"non\u00a0breaking", "non breaking"}, // U+00A0 is white space to strings.Fields
		{"a\u3000b", "a b"},
		{"日本 語", "日本 語"},
		{strings.Repeat("x", 90), strings.Repeat("x", 80) + "…"},
	} {
		if got := Clip(c.in, 80); got != c.want {
			t.Errorf("Clip(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLines(t *testing.T) {
	for _, c := range []struct {
		s        string
		first, n int
		want     string
	}{
		{"a\nb\nc\n", 0, 2, "a\nb\n"},
		{"a\nb\nc\n", 1, 5, "b\nc\n"},
		{"a\nb\nc", 2, 1, "c"},        // the last line without its break
		{"a\nb\nc", 3, 1, ""},         // past the end
		{"a\r\nb\r\n", 1, 1, "b\r\n"}, // CRLF kept
		{"", 0, 3, ""},
		{"a\nb\n", 0, 0, ""},
	} {
		if got := Lines(c.s, c.first, c.n); got != c.want {
			t.Errorf("Lines(%q, %d, %d) = %q, want %q", c.s, c.first, c.n, got, c.want)
		}
	}
}
