package nvim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// TestEditorTools: the plugin registers its tools when the server starts;
// the model calls editor__get_diagnostics and editor__open_buffers, and
// Neovim answers from vim.diagnostic.get and its buffer list.
func TestEditorTools(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			if !req.HasTool("editor__get_diagnostics") || !req.HasTool("editor__open_buffers") {
				return llmtest.Text("missing tools: " + strings.Join(req.ToolNames(), ","))
			}
			return llmtest.ToolCalls(
				llmtest.Call{ID: "d", Name: "editor__get_diagnostics", Args: `{"paths":["main.go"]}`},
				llmtest.Call{ID: "a", Name: "editor__get_diagnostics", Args: `{}`},
				llmtest.Call{ID: "b", Name: "editor__open_buffers", Args: `{}`},
			)
		}
		if req.Turns() == 1 {
			return llmtest.ToolCalls(llmtest.Call{ID: "s", Name: "script", Args: `{"code":"len(glob('*.go'))"}`})
		}
		d, _ := req.ToolResult("d")
		a, _ := req.ToolResult("a")
		b, _ := req.ToolResult("b")
		return llmtest.Text("D:\n" + d + "\nA:\n" + a + "\nB:\n" + b)
	})
	r := runScript(t, "editor_tools.lua", options{env: modelEnv(srv)})
	if s := r.str(t, "status"); s != "finished" {
		t.Fatalf("run %s", s)
	}
	want := "D:\n" +
		"main.go:1:1: warning: comment on two lines [lint]\n" +
		"main.go:5:2: error: declared and not used: x [compiler]\n" +
		"A:\n" +
		"util.go:1:1: hint: elsewhere\n" +
		"main.go:1:1: warning: comment on two lines [lint]\n" +
		"main.go:5:2: error: declared and not used: x [compiler]\n" +
		"B:\n" +
		"main.go [modified]\n" +
		"util.go"
	if got := r.str(t, "result"); got != want {
		t.Fatalf("answer:\n%s\nwant:\n%s", got, want)
	}
	// The script's own call shows indented under it in the run log.
	log := r.str(t, "log")
	if !strings.Contains(log, "  → script ") || !strings.Contains(log, "\n      · glob {\"pattern\":\"*.go\"}") {
		t.Fatalf("run log:\n%s", log)
	}
}
