package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
// lspClient is the input of a short LSP session (initialize, initialized,
// shutdown, exit) sent as an editor sends it: each message after a request
// only once the request's reply is on out. Sent all at once, the input ends
// (or exit arrives) before jsonrpc2 has written the replies, and it drops
// what it has not written once its input has ended: the test flaked so.
type lspClient struct {
	out  *syncBuffer
	msgs []clientMsg
	next []byte
}

// clientMsg is a message and the reply that must be on out before it is sent.
type clientMsg struct{ body, after string }

func newLSPClient(out *syncBuffer) *lspClient {
	return &lspClient{out: out, msgs: []clientMsg{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`, ""},
		{`{"jsonrpc":"2.0","method":"initialized","params":{}}`, `"id":1,`},
		{`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, ""},
		{`{"jsonrpc":"2.0","method":"exit"}`, `"id":2,`},
	}}
}

func (c *lspClient) Read(p []byte) (int, error) {
	for len(c.next) == 0 {
		if len(c.msgs) == 0 {
			return 0, io.EOF
		}
		m := c.msgs[0]
		c.msgs = c.msgs[1:]
		// At most a minute: the reply is then missing, and the test says so.
		for deadline := time.Now().Add(time.Minute); m.after != "" && !strings.Contains(c.out.String(), m.after) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		c.next = fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(m.body), m.body)
	}
	n := copy(p, c.next)
	c.next = c.next[n:]
	return n, nil
}

// syncBuffer is a bytes.Buffer written by the server while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The server's stderr carries warnings and errors only by default: editors
// show a server's stderr as errors (Neovim's lsp.log marks every line
// [ERROR]), so routine info lines there read as failures (issue 19).
// --log-level info brings them back; a --log-file gets info by default.
func TestServeLogLevelDefaults(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	serve := func(args ...string) (int, string, string) {
		var out, errb syncBuffer
		code := run(append([]string{"serve"}, args...), newLSPClient(&out), &out, &errb)
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
