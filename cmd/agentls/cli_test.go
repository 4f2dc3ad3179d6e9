package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
)

func runMainCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestHelpGoesToStdout: --help and -h are answers, not errors.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"serve", "--help"}, {"run", "--help"}, {"run", "-h"}, {"mcp", "--help"}} {
		code, stdout, stderr := runMainCLI(args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: agentls") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := runMainCLI("run", "--help")
	for _, want := range []string{"--apply ", "--dir DIRECTORY", "--record FILE", "--replay FILE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --help lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "-") && !strings.HasPrefix(strings.TrimSpace(line), "--") {
			t.Errorf("flag shown with one dash: %q", line)
		}
	}
}

// TestUsageErrorsGoToStderr: bad flags and commands exit 2 with a message
// on stderr and nothing on stdout.
func TestUsageErrorsGoToStderr(t *testing.T) {
	for _, args := range [][]string{{"--bogus"}, {"frobnicate"}, {"run", "--bogus", "x"}, {"run"}, {"mcp", "--bogus"}, {"serve", "extra"}} {
		code, stdout, stderr := runMainCLI(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, _, stderr := runMainCLI("run", "--bogus", "x")
	if !strings.Contains(stderr, "--bogus") || !strings.Contains(stderr, "agentls run --help") {
		t.Errorf("stderr: %q", stderr)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		code, stdout, stderr := runMainCLI(args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "agentls ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestWrapKeepsEverything: tool errors are wrapped, never clipped.
func TestWrapKeepsEverything(t *testing.T) {
	msg := strings.Repeat("word ", 60) + "END\nsecond line"
	got := wrap(msg, 40, "    ")
	if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(msg), " ") {
		t.Fatalf("wrap lost text:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > 44 {
			t.Fatalf("line longer than width: %q", line)
		}
	}
}

// TestProgressShowsToolErrorsWhole: a failing tool's whole error reaches the
// progress log, wrapped, where the one-line summary would cut it.
func TestProgressShowsToolErrorsWhole(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	long := "Error: old_string was not found in greet.py. " + strings.Repeat("The closest text is on line 3 and differs in whitespace. ", 5) + "Re-read the file and retry."
	p.event(agent.Event{Kind: agent.EventToolResult, Tool: "edit_file", IsError: true, Summary: text.Clip(long, 60), Text: long})
	got := b.String()
	if strings.Join(strings.Fields(got), " ") != "✗ "+strings.Join(strings.Fields(long), " ") {
		t.Fatalf("progress line lost part of the error:\n%s", got)
	}
	if strings.Count(got, "\n") < 3 {
		t.Fatalf("long error not wrapped:\n%s", got)
	}
}
