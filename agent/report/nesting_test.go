package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
)

// TestReportOfASubAgentsScript: a real run (scripted model over real SSE,
// real interpreter process) whose sub-agent runs a script; its report
// shows the sub-agent under the task call, the script among the
// sub-agent's steps, and the program's calls under the script, with what
// the program printed.
func TestReportOfASubAgentsScript(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(req.System(), "You are a sub-agent") {
			if !req.HasToolResult("s1") {
				args, _ := json.Marshal(map[string]string{"code": "print('FILES', len(glob('*.txt')))\nlen(grep('x'))"})
				return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "script", Args: string(args)})
			}
			return llmtest.Text("SUB DONE")
		}
		if !req.HasToolResult("t1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: `{"description":"count","prompt":"count the text files"}`})
		}
		return llmtest.Text("PARENT DONE")
	})
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model", APIKey: "sk-report-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run, err := agent.NewSession("").Prepare(context.Background(), agent.Setup{Config: config.Defaults(), View: workspace.New(workspace.Options{Folders: []string{ws}}),
		TranscriptDir: t.TempDir(), Model: c}, agent.RunRequest{Prompt: "count"})
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Execute(context.Background()); out.Status != agent.StatusFinished || out.Answer != "PARENT DONE" {
		t.Fatalf("outcome %+v", out)
	}
	runs, err := Load(run.TranscriptPath())
	if err != nil {
		t.Fatal(err)
	}
	var task *ToolStep
	for _, st := range runs[0].Steps {
		if st.Tool != nil {
			if st.Tool.Name != "task" || task != nil {
				t.Fatalf("parent tool step %q (the sub-agent's calls must not be the parent's)", st.Tool.Name)
			}
			task = st.Tool
		}
	}
	if task == nil || task.Sub == nil || task.Sub.Answer != "SUB DONE" {
		t.Fatalf("task step %+v", task)
	}
	var script *ToolStep
	for _, st := range task.Sub.Steps {
		if st.Tool != nil {
			if script != nil {
				t.Fatalf("sub-agent tool step %q besides the script", st.Tool.Name)
			}
			script = st.Tool
		}
	}
	if script == nil || script.Name != "script" || len(script.Inner) != 2 || script.Result != "FILES 2\n2" {
		t.Fatalf("sub-agent's script step %+v", script)
	}
	if g := script.Inner[0]; g.Name != "glob" || g.ID != "s1.1" || !g.Done || g.IsError {
		t.Fatalf("first inner call %+v", g)
	}
	if g := script.Inner[1]; g.Name != "grep" || g.ID != "s1.2" || !g.Done {
		t.Fatalf("second inner call %+v", g)
	}
	page := render(t, run.TranscriptPath())
	sub, scr, inner := strings.Index(page, "sub-agent "+task.Sub.ID), strings.Index(page, `<span class="kind">script</span>`), strings.Index(page, "calls made by the program")
	if sub < 0 || !(sub < scr && scr < inner) {
		t.Fatalf("page nesting: sub-agent %d script %d inner %d", sub, scr, inner)
	}
}
