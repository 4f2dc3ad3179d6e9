package nvim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// TestRunProblemsInNeovim: gopls judges the run's proposal; Neovim shows
// "introduces 1 problem" on the proposal's hunk and in the run log, with
// gopls's message, and notifies it at the end of the run.
func TestRunProblemsInNeovim(t *testing.T) {
	t.Parallel()
	gopls := langtest.Path(t, "gopls")
	main := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(1)\n}\n"
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !req.HasToolResult("r"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r", Name: "read_file", Args: `{"path":"main.go"}`})
		case !req.HasToolResult("e"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e", Name: "edit_file", Args: `{"path":"main.go","old_string":"fmt.Println(1)","new_string":"fmt.Println(undefinedThing)"}`})
		}
		return llmtest.Text("Used undefinedThing.")
	})
	env := modelEnv(srv)
	env["AGENTLS_TEST_GOPLS"] = gopls
	r := runScript(t, "run_problems.lua", options{env: env, files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": main}})
	if got := r.str(t, "status"); got != "finished" {
		t.Fatalf("status %q", got)
	}
	var n int
	r.fact(t, "problems", &n)
	if n != 1 {
		t.Fatalf("run problems = %d", n)
	}
	var marks []struct{ Hint string }
	r.fact(t, "marks", &marks)
	found := false
	for _, m := range marks {
		found = found || strings.Contains(m.Hint, "⚠ introduces 1 problem (line 6: undefined: undefinedThing)")
	}
	if !found {
		t.Fatalf("no problems note on the proposal: %+v", marks)
	}
	var hunks []struct{ Problems int }
	r.fact(t, "hunks", &hunks)
	if len(hunks) != 1 || hunks[0].Problems != 1 {
		t.Fatalf("hunks %+v", hunks)
	}
	var log []string
	r.fact(t, "log", &log)
	joined := strings.Join(log, "\n")
	for _, want := range []string{"  ⚠ main.go introduces 1 problem\n    main.go:6: undefined: undefinedThing", "finished · introduces 1 problem"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("run log lacks %q:\n%s", want, joined)
		}
	}
	said := false
	for _, msg := range r.Notifications {
		said = said || strings.Contains(msg.Msg, "introduces 1 problem")
	}
	if !said {
		t.Fatalf("no message says the run introduces a problem: %+v", r.Notifications)
	}
	if got := r.str(t, "disk"); got != main {
		t.Fatalf("main.go written: %q", got)
	}
}
