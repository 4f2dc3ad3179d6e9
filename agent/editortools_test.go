package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/editortools"
)

// TestEditorToolCalledByTheModel: an editor's registered tool is offered
// as editor__NAME, the model's call reaches the editor (here the Invoker
// the front-end would supply) with the run's id, and an editor that never
// answers fails that call, not the run.
func TestEditorToolCalledByTheModel(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var asked []string
	set := editortools.NewSet(func(ctx context.Context, runID, name string, args json.RawMessage) (string, bool, error) {
		asked = append(asked, runID+" "+name+" "+string(args))
		if name == "open_editors" {
			<-ctx.Done() // never answers
			return "", false, ctx.Err()
		}
		return "main.go:3:5: error: undefined: x (gopls)", false, nil
	}, func() time.Duration { return 300 * time.Millisecond })
	if err := set.Replace([]editortools.Def{
		{Name: "get_diagnostics", Description: "Diagnostics from the editor.", InputSchema: json.RawMessage(`{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}}}`)},
		{Name: "open_editors", Description: "Open editors."},
	}); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "e1", Name: "editor__get_diagnostics", Args: `{"paths":["main.go"]}`},
				llmtest.Call{ID: "e2", Name: "editor__open_editors", Args: `{}`},
			)
		}
		d, _ := req.ToolResult("e1")
		o, _ := req.ToolResult("e2")
		return llmtest.Text("diag=" + d + " | open=" + o)
	})
	opts := agentOpts(t, newClient(t, srv), &eventLog{}, t.TempDir())
	opts.Env.RunID = "run-42"
	set.Sync(opts.Registry)
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	if !srv.Requests()[0].HasTool("editor__get_diagnostics") {
		t.Fatalf("tools offered: %v", srv.Requests()[0].ToolNames())
	}
	if !strings.HasPrefix(out.Answer, "diag=main.go:3:5: error: undefined: x (gopls) | open=") || !strings.Contains(out.Answer, "editor__open_editors: the editor did not answer within 300ms") {
		t.Fatalf("answer %q", out.Answer)
	}
	if len(asked) != 2 || asked[0] != `run-42 get_diagnostics {"paths":["main.go"]}` {
		t.Fatalf("asked %q", asked)
	}
}
