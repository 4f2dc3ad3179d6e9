package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestEglotTaskComment drives a real Emacs 30 with its built-in eglot and
// no plugin (testdata/emacs/tasks.el): a "// … agent!" comment shows in
// flymake, eglot's code actions on its line offer "Agent: <words>",
// picking it runs the agent on the words (a scripted model that checks
// them), and accepting the proposal, which removes the comment, clears
// the task. This is how an eglot user gives the agent a task of their own.
func TestEglotTaskComment(t *testing.T) {
	emacs := emacs30(t)
	bin := lsptest.BuildBinary(t)
	script, err := filepath.Abs("testdata/emacs/tasks.el")
	if err != nil {
		t.Fatal(err)
	}
	const base = "package calc\n\nfunc Twice(a int) int {\n\treturn a // double the result agent!\n}\n"
	model := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if p := req.LastUser(); !strings.Contains(p, "double the result") || !strings.Contains(p, "remove that comment") {
			return llmtest.Text("The task did not reach me: " + p)
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "calc.go"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{
				"path": "calc.go", "old_string": "\treturn a // double the result agent!\n", "new_string": "\treturn 2 * a\n"})})
		}
		return llmtest.Text("Done.")
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "calc.go")
	if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	report := runEmacs(t, emacs, script, dir, file, bin, model.URL())
	for _, want := range []string{
		"flymake: line 4 eglot-note: agentls [agent-task]: Task for the agent: double the result",
		"covers: // double the result agent!",
		"actions: Agent: double the result | ",
		"run: finished",
		"after accept: 0 diagnostics",
		"buffer: package calc\n\nfunc Twice(a int) int {\n\treturn 2 * a\n}\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the eglot session did not show %q", want)
		}
	}
}
