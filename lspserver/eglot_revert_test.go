package lspserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestEglotRevert is issue 23's "done when" in eglot (real Emacs 30, no
// plugin; testdata/emacs/revert.el): a run changes two files, the user
// accepts each change with the code action "Agent: Accept change" (which
// must count as accepted although eglot reports the edit only after the
// command's answer: the answer says verifying, and the accept is recorded
// when eglot's didChange shows the edit), then reverts the run with "Agent: Revert run …"
// on a line it changed. Both buffers are back as they were, through one
// workspace/applyEdit, and undo in each brings the accepted text back.
// Before that, "Agent: Open report of run …" asks eglot to open the
// report (window/showDocument external, which eglot hands to browse-url).
func TestEglotRevert(t *testing.T) {
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		testpeers.Missing(t, "emacs not on PATH (.ci/run installs Emacs 30 from bookworm-backports)")
	}
	if v, _ := exec.Command(emacs, "--batch", "-Q", "--eval", "(princ emacs-major-version)").Output(); emacsMajor(v) < 30 {
		testpeers.Missing(t, "emacs %q is older than 30 (.ci/run installs Emacs 30 from bookworm-backports)", v)
	}
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/emacs/revert.el")
	if err != nil {
		t.Fatal(err)
	}
	const baseA, baseB = "Greeting:\n  say hello\nEnd.\n", "Farewell:\n  say bye\n"
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "a.txt"})},
				llmtest.Call{ID: "r2", Name: "read_file", Args: callArgs(map[string]any{"path": "b.txt"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "a.txt", "old_string": "say hello", "new_string": "say HELLO"})},
				llmtest.Call{ID: "e2", Name: "edit_file", Args: callArgs(map[string]any{"path": "b.txt", "old_string": "say bye", "new_string": "say BYE\n  loudly"})})
		}
		return llmtest.Text("Shouted.")
	})
	dir := t.TempDir()
	fileA, fileB := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for p, content := range map[string]string{fileA: baseA, fileB: baseB} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	result := filepath.Join(t.TempDir(), "result.txt")
	home := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(home, "state")) // agentls ends before home goes
	cmd := exec.CommandContext(lsptest.Context(t), emacs, "--batch", "-Q", "-l", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"AGENTLS_BIN="+bin, "AGENTLS_FILE_A="+fileA, "AGENTLS_FILE_B="+fileB, "AGENTLS_RESULT="+result,
		"AGENTLS_MODEL_URL="+model.URL(), "OPENAI_API_KEY=test-key",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	out, err := cmd.CombinedOutput()
	report, rerr := os.ReadFile(result)
	if rerr != nil {
		t.Fatalf("no result from emacs (%v): %v\noutput:\n%s", err, rerr, out)
	}
	t.Logf("emacs report:\n%s", report)
	if lines := strings.Split(string(report), "\n"); lines[0] != "OK" {
		t.Fatalf("revert through eglot failed:\n%s\nemacs output:\n%s", report, out)
	}
	for _, want := range []string{
		"managed: t t",
		"run: finished",
		// eglot reports the edit after the answer: each accept is
		// answered as being verified, and recorded once it shows (the
		// revert below needs it recorded).
		"accept a.txt: applied t, verifying t",
		"accept b.txt: applied t, verifying t",
		"accepted b: Farewell:\n  say BYE\n  loudly\n",
		"Agent: Revert run ",
		"reverted a: t",
		"reverted b: t",
		"undo a: t",
		"undo b: t",
		"browsed: file://",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("the eglot session did not show %q", want)
		}
	}
	// The report eglot was asked to open is the run's, and it tells of the accept.
	for _, line := range strings.Split(string(report), "\n") {
		if u, ok := strings.CutPrefix(line, "browsed: file://"); ok {
			page, err := os.ReadFile(u)
			if err != nil {
				t.Fatalf("the report eglot opened: %v", err)
			}
			if !strings.Contains(string(page), "Shout in both files.") || !strings.Contains(string(page), "accepted") {
				t.Error("the report does not show the run and its accept")
			}
		}
	}
	// Editor mode: the server never writes the files itself.
	for p, content := range map[string]string{fileA: baseA, fileB: baseB} {
		if data, _ := os.ReadFile(p); string(data) != content {
			t.Errorf("%s changed on disk: %q", filepath.Base(p), data)
		}
	}
}
