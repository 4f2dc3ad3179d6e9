package lspserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestEglotPreview drives a real Emacs 30 with its built-in eglot and no
// plugin (testdata/emacs/preview.el): after an agent run in preview mode
// (scripted model), flymake's diagnostics must hold the proposed change,
// exactly, before anything is accepted (eglot shows no code lenses, so
// this is what its users see); hover must hold the diff; accepting through
// eglot's code actions must change the buffer and clear the diagnostic.
// The run has a check, which eglot users see in the end message.
func TestEglotPreview(t *testing.T) {
	emacs := emacs30(t)
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/emacs/preview.el")
	if err != nil {
		t.Fatal(err)
	}
	const base = "Greeting:\n  say hi\nEnd.\n"
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{
				"path": "notes.txt", "old_string": "  say hi\n", "new_string": "  say goodbye\n  politely\n"})})
		}
		return llmtest.Text("Done.")
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "result.txt")
	home := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(home, "state")) // agentls ends before home goes
	cmd := exec.CommandContext(lsptest.Context(t), emacs, "--batch", "-Q", "-l", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"AGENTLS_BIN="+bin, "AGENTLS_FILE="+file, "AGENTLS_RESULT="+result,
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
		t.Fatalf("review through eglot failed:\n%s\nemacs output:\n%s", report, out)
	}
	for _, want := range []string{
		"eglot: managed by agentls",
		"run: finished",
		"; checks passed (notes); 1 changed file pending review",
		"flymake: line 2 eglot-note: agentls [proposal]: Agent proposes replacing 1 line with 2:\n-   say hi\n+   say goodbye\n+   politely",
		"hover: diff",
		"Agent: Accept change",
		"after accept: 0 diagnostics",
		"buffer: Greeting:\n  say goodbye\n  politely\nEnd.\n",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("the eglot session did not show %q", want)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != base {
		t.Errorf("the file on disk changed: %q", data)
	}
}

// TestEglotReview drives a real Emacs 30 eglot (testdata/emacs/review.el)
// through the three things a plain client could not do before: reach an
// inserted line's Accept from a code action request at any column (and
// have it as eglot's default, not "Explain this code"), read a plan whole
// before approving it, and see a proposed new file in its empty buffer
// before accepting it byte for byte.
func TestEglotReview(t *testing.T) {
	emacs := emacs30(t)
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/emacs/review.el")
	if err != nil {
		t.Fatal(err)
	}
	const base = "Greeting:\n  say hi\nEnd.\n"
	const plan = "Plan:\n1. Keep the greeting.\n2. Add a farewell after it.\n3. Nothing else changes."
	const second = "first note\nsecond note\n"
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch p := req.LastUser(); {
		case strings.Contains(p, "Plan the ending."):
			return llmtest.Text(plan)
		case strings.Contains(p, "Write the second notes file."):
			if !req.HasToolResult("w1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "w1", Name: "write_file", Args: callArgs(map[string]any{"path": "notes2.txt", "content": second})})
			}
			return llmtest.Text("Wrote notes2.txt.")
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{
				"path": "notes.txt", "old_string": "  say hi\n", "new_string": "  TITLE\n  say hi\n"})})
		}
		return llmtest.Text("Done.")
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	report := runEmacs(t, emacs, script, dir, file, bin, model.URL())
	for _, want := range []string{
		"run 1: finished",
		"point: line 2 column 4",
		"actions at point: Agent: Accept change (preferred) | Agent: Reject change | ",
		"actions over a range: Agent: Accept change (preferred) | Agent: Reject change | ",
		"after the default action: Greeting:\n  TITLE\n  say hi\nEnd.\n",
		"plan run: finished",
		"plan buffer: # Plan of agent run ",
		plan,
		"agentls.approvePlan",
		"plan in a window: yes",
		"plan message names the file: yes",
		"Agent: Approve plan “1. Keep the greeting.”",
		"new-file run: finished",
		"exists before: no",
		"project diagnostics: notes2.txt: agentls [proposal]: Agent proposes inserting 2 lines:\n+ first note\n+ second note",
		"flymake in notes.txt, line 1: agentls [proposal]: New file notes2.txt (open it to accept or reject): Agent proposes inserting 2 lines:\n+ first note\n+ second note",
		"after accepting, flymake in the run's buffer: 0 new-file notes",
		"new file hover: **agentls: proposed change**",
		"+first note\n+second note",
		"new file actions: Agent: Accept change (preferred) | Agent: Reject change",
		"new file buffer: \"first note\nsecond note\n\"",
		"new file on disk: \"first note\nsecond note\n\"",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the eglot session did not show %q", want)
		}
	}
}

// emacs30 returns the emacs binary, when it is Emacs 30 or later.
func emacs30(t *testing.T) string {
	t.Helper()
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		testpeers.Missing(t, "emacs not on PATH (.ci/run installs Emacs 30 from bookworm-backports)")
	}
	if v, _ := exec.Command(emacs, "--batch", "-Q", "--eval", "(princ emacs-major-version)").Output(); emacsMajor(v) < 30 {
		testpeers.Missing(t, "emacs %q is older than 30 (.ci/run installs Emacs 30 from bookworm-backports)", v)
	}
	return emacs
}

// runEmacs runs script in a batch Emacs in dir, with a fresh HOME and XDG
// directories, and returns its report (failing the test unless it says OK).
func runEmacs(t *testing.T, emacs, script, dir, file, bin, modelURL string) string {
	t.Helper()
	result := filepath.Join(t.TempDir(), "result.txt")
	home := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(home, "state")) // agentls ends before home goes
	cmd := exec.CommandContext(lsptest.Context(t), emacs, "--batch", "-Q", "-l", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"AGENTLS_BIN="+bin, "AGENTLS_FILE="+file, "AGENTLS_RESULT="+result,
		"AGENTLS_MODEL_URL="+modelURL, "OPENAI_API_KEY=test-key",
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
		t.Fatalf("the eglot session failed:\n%s\nemacs output:\n%s", report, out)
	}
	return string(report)
}

func emacsMajor(v []byte) int {
	n, _ := strconv.Atoi(regexp.MustCompile(`^\d+`).FindString(strings.TrimSpace(string(v))))
	return n
}
