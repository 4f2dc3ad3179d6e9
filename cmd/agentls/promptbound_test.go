package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The built binary: `agentls run -` takes the prompt from standard input;
// a prompt over agent.MaxPromptBytes (on standard input, or in words) is
// refused with exit status 2 and a clear message before any model call.
func TestRunPromptFromStdinAndBound(t *testing.T) {
	bin := lsptest.BuildBinary(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "hello\n", 0o644)
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("the answer")))
	state := cliEnv(t, srv)
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"run", "--dir", ws}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}

	for name, tc := range map[string]struct {
		stdin string
		args  []string
	}{
		"stdin over the limit": {strings.Repeat("x", agent.MaxPromptBytes+1), []string{"-"}},
		"stdin of 4 MB":        {strings.Repeat("x", 4<<20), []string{"-"}},
		"words over the limit": {"", []string{strings.Repeat("w", 100_000), strings.Repeat("v", 100_000)}},
	} {
		code, stdout, stderr := run(tc.stdin, tc.args...)
		if code != 2 || !strings.Contains(stderr, "agentls run: the prompt is too large") || !strings.Contains(stderr, "192000") || stdout != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	if code, _, stderr := run("  \n", "-"); code != 2 || !strings.Contains(stderr, "missing PROMPT") {
		t.Fatalf("empty stdin: exit %d, stderr %q", code, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model got %d requests for refused prompts", n)
	}

	task := "Summarise a.txt.\nIt has \"quotes\" and $HOME in it.\n"
	code, stdout, stderr := run(task, "-")
	if code != 0 || !strings.Contains(stdout, "the answer") {
		t.Fatalf("stdin prompt: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].LastUser(), strings.TrimSpace(task)) {
		t.Fatalf("the model did not get the prompt from stdin: %d requests", len(reqs))
	}
}
