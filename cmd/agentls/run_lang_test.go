package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// TestRunPrintsProblems: agentls run shows the problems an edit
// introduces (gopls on PATH), and says at the end when some are left.
func TestRunPrintsProblems(t *testing.T) {
	gopls := langtest.Path(t, "gopls")
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n", 0o644)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\tprintln(1)\n}\n", 0o644)
	edit := func(id, old, new string) llmtest.Call {
		b, _ := json.Marshal(map[string]string{"path": "main.go", "old_string": old, "new_string": new})
		return llmtest.Call{ID: id, Name: "edit_file", Args: string(b)}
	}
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(edit("e1", "println(1)", "println(missingName)"))
		}
		return llmtest.Text("done, but broken")
	})
	cliEnv(t, srv)
	code, stdout, stderr := runCLI(t, "run", "--dir", dir, "break it")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"⚠ main.go introduces 1 problem(s)\n    main.go:4: undefined: missingName\n",
		"agentls run: the proposal introduces 1 problem(s) the language server still reports\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "+\tprintln(missingName)") {
		t.Fatalf("stdout:\n%s", stdout)
	}
}
