package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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

// lspSession is an initialize … exit exchange, Content-Length framed.
func lspSession() string {
	var b strings.Builder
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	} {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

// The server's stderr carries warnings and errors only by default: editors
// show a server's stderr as errors (Neovim's lsp.log marks every line
// [ERROR]), so routine info lines there read as failures (issue 19).
// --log-level info brings them back; a --log-file gets info by default.
func TestServeLogLevelDefaults(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	serve := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"serve"}, args...), strings.NewReader(lspSession()), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, stdout, stderr := serve()
	if code != 0 || !strings.Contains(stdout, `"serverInfo"`) {
		t.Fatalf("serve: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stderr != "" {
		t.Fatalf("default stderr is not empty:\n%s", stderr)
	}
	if _, _, stderr := serve("--log-level", "info"); !strings.Contains(stderr, "level=INFO") || !strings.Contains(stderr, "agentls starting") {
		t.Fatalf("--log-level info: stderr\n%s", stderr)
	}
	logFile := filepath.Join(t.TempDir(), "agentls.log")
	if _, _, stderr := serve("--log-file", logFile); stderr != "" {
		t.Fatalf("--log-file: stderr %q", stderr)
	}
	if data, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(data), "level=INFO") {
		t.Fatalf("--log-file has no info lines (%v):\n%s", err, data)
	}
}
