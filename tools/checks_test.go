package tools

import (
	"strings"
	"testing"
)

// Which results are a command that never started: the shell's status and
// its own complaint, from dash, bash or a nested script; a suite's own 127
// or a "not found" in a test failure is not.
func TestCouldNotStart(t *testing.T) {
	for _, tc := range []struct {
		exit   int
		output string
		want   string
	}{
		{127, "sh: 1: go: not found\n", "sh: 1: go: not found"},
		{127, "sh: line 1: go: command not found\n", "sh: line 1: go: command not found"},
		{127, "building\nsh: 1: make: not found\n", "sh: 1: make: not found"},
		{126, "sh: 1: ./t.sh: Permission denied\n", "sh: 1: ./t.sh: Permission denied"},
		{127, "./run.sh: 3: pytest: not found\n", "./run.sh: 3: pytest: not found"},
		{127, "FAIL: TestX\n", ""},
		{1, "sh: 1: go: not found\n", ""},
		{2, "open x.txt: No such file or directory\n", ""},
	} {
		if got := couldNotStart(tc.exit, tc.output); got != tc.want {
			t.Errorf("couldNotStart(%d, %q) = %q, want %q", tc.exit, tc.output, got, tc.want)
		}
	}
}

// The report's first line is the shell's line, one line whatever bytes
// the command's name held, then the hint naming PATH.
func TestNotRunReport(t *testing.T) {
	got := notRunReport(127, "sh: 1: go\x00\x07x: not found", "sh: 1: go\x00\x07x: not found\n", "/usr/bin:/bin")
	first, rest, _ := strings.Cut(got, "\n")
	if first != `could not run: sh: 1: go\x00\x07x: not found` || !strings.Contains(rest, "(PATH=/usr/bin:/bin)") || strings.Contains(rest, "output:") {
		t.Fatalf("report %q", got)
	}
	got = notRunReport(126, "sh: 1: ./t.sh: Permission denied", "before\nsh: 1: ./t.sh: Permission denied\n", "/bin")
	if !strings.HasPrefix(got, "could not run: sh: 1: ./t.sh: Permission denied\nNot executable: make it so (chmod +x)") || !strings.HasSuffix(got, "output:\nbefore\nsh: 1: ./t.sh: Permission denied\n") {
		t.Fatalf("report %q", got)
	}
}
