//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testpty"
	"github.com/agentls/agentls/internal/testwait"
)

// TestServeOnTerminalPrintsHintAndKeepsServing: `agentls` started by hand
// on a terminal says what it is on stderr, once, and still speaks LSP.
func TestServeOnTerminalPrintsHintAndKeepsServing(t *testing.T) {
	master, slave := testpty.Open(t)
	var stdout, stderr testwait.Buffer
	done := make(chan int, 1)
	go func() { done <- run(nil, slave, &stdout, &stderr) }()

	body := `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	frames := fmt.Sprintf("Content-Length: %d\r\n\r\n%sContent-Length: %d\r\n\r\n%s", len(body), body, len(exit), exit)
	if _, err := master.WriteString(frames); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		// shutdown before initialize is refused (-32002), so exit ends with 1:
		// what matters is that the frames were served as LSP.
		if code != 0 && code != 1 {
			t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not serve LSP on the terminal; stderr:\n%s", stderr.String())
	}
	errText := stderr.String()
	if strings.Count(errText, "this is a language server") != 1 || !strings.Contains(errText, "agentls run") {
		t.Fatalf("stderr lacks the one-time hint:\n%s", errText)
	}
	if !strings.Contains(stdout.String(), `"id":1`) {
		t.Fatalf("no LSP response on stdout: %q", stdout.String())
	}
}

// TestServeWithoutTerminalPrintsNoHint: editors start agentls on pipes;
// they must not get the hint.
func TestServeWithoutTerminalPrintsNoHint(t *testing.T) {
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	var stdout, stderr bytes.Buffer
	run(nil, strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(exit), exit)), &stdout, &stderr)
	if strings.Contains(stderr.String(), "language server") {
		t.Fatalf("hint printed without a terminal:\n%s", stderr.String())
	}
}

// TestRunOnTerminalShowsAnswerOnce: with stdout and stderr on the same
// terminal, the streamed answer is not printed a second time; the diff and
// the "nothing was written" line are.
func TestRunOnTerminalShowsAnswerOnce(t *testing.T) {
	noModelEnv(t)
	master, slave := testpty.Open(t)
	var screen testwait.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			_, _ = screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	code := runMain([]string{"--dir", copyExample(t), "--replay", exampleCassette, examplePrompt}, strings.NewReader(""), slave, slave)
	_ = slave.Close() // the reader then gets EIO once it has drained the output
	select {
	case <-copied:
	case <-time.After(30 * time.Second):
		t.Fatal("the terminal output was not drained")
	}
	out := screen.String()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := strings.Count(out, "Fixed: greet() referred to the undefined name"); n != 1 {
		t.Fatalf("the answer appears %d times on the terminal:\n%s", n, out)
	}
	for _, want := range []string{"+++ b/greet.py", "nothing was written"} {
		if !strings.Contains(out, want) {
			t.Fatalf("terminal output lacks %q:\n%s", want, out)
		}
	}
}

// /dev/null is a character device but not a terminal.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
}
