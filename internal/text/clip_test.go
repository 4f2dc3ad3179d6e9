package text

import (
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
