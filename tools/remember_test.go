package tools

import (
	"strings"
	"testing"
)

func TestNormalizeNote(t *testing.T) {
	for in, want := range map[string]string{
		"  - Use %w\n\nfor errors.\r\n": "Use %w for errors.",
		"* # not a heading":             "# not a heading",
	} {
		if got, err := NormalizeNote(in); err != nil || got != want {
			t.Errorf("NormalizeNote(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", " \n- ", strings.Repeat("x", MaxNoteBytes+1)} {
		if _, err := NormalizeNote(bad); err == nil {
			t.Errorf("NormalizeNote(%q...) accepted", bad[:min(len(bad), 10)])
		}
	}
}

func TestAppendNote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "- A.\n"},
		{"# R", "# R\n- A.\n"},
		{"# R\r\n- B.\r\n", "# R\r\n- B.\r\n- A.\r\n"},
	} {
		if got, added := AppendNote(c.in, "A."); !added || got != c.want {
			t.Errorf("AppendNote(%q) = %q, %v; want %q", c.in, got, added, c.want)
		}
	}
	if _, added := AppendNote("x\n  * a.\n", "A."); added {
		t.Error("a duplicate bullet was added")
	}
}
