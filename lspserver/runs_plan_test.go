package lspserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
)

// TestPlanAndSubAgentEvents drives todo_write and a task sub-agent through
// the real protocol: the plan arrives as a runEvent of kind todo and as the
// $/progress text, and the sub-agent's events carry parentRunId with their
// own runId and seq, while the parent's own sequence stays gapless.
func TestPlanAndSubAgentEvents(t *testing.T) {
	t.Parallel()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(req.System(), "You are a sub-agent") {
			if req.HasTool("edit_file") || req.HasTool("task") || req.HasTool("todo_write") {
				return llmtest.Text("WRONG TOOLS " + strings.Join(req.ToolNames(), ","))
			}
			if !req.HasToolResult("g1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "g1", Name: "grep", Args: callArgs(map[string]any{"pattern": "hello"})})
			}
			return llmtest.Text("hello is in notes.txt line 1")
		}
		switch {
		case !req.HasToolResult("p1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "p1", Name: "todo_write", Args: callArgs(map[string]any{"todos": []map[string]string{
				{"content": "find the greeting", "status": "in_progress"},
				{"content": "report it", "status": "pending"},
			}})})
		case !req.HasToolResult("t1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: callArgs(map[string]any{"description": "find greeting", "prompt": "Where is hello?"})})
		default:
			res, _ := req.ToolResult("t1")
			return llmtest.Text("Sub-agent said: " + res)
		}
	}
	rs := newRunSession(t, script, runOpts{})
	rs.write(t, "notes.txt", "hello\n")
	id := rs.start(t, lspserver.RunArgs{Prompt: "Find the greeting"})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	todo := firstOf(t, evs, "todo")
	if len(todo.Todos) != 2 || todo.Todos[0].Content != "find the greeting" || todo.Todos[0].Status != "in_progress" {
		t.Fatalf("todo event = %+v", todo)
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Text == nil || *fin.Text != "Sub-agent said: hello is in notes.txt line 1" {
		t.Fatalf("finished = %+v", fin)
	}

	// The sub-agent's events: their own run id and seq, parentRunId set.
	var sub []lspserver.RunEvent
	for _, m := range rs.c.Received() {
		if m.Method != lspserver.MethodRunEvent {
			continue
		}
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) == nil && e.ParentRunID == id {
			sub = append(sub, e)
		}
	}
	if len(sub) == 0 {
		t.Fatal("no sub-agent events")
	}
	checkSeq(t, sub)
	if got := kinds(sub); !slices.Equal(got, []string{"started", "toolCall", "toolResult", "text", "finished"}) {
		t.Fatalf("sub-agent events %v", got)
	}
	if sub[0].RunID == id || sub[0].Summary != "find greeting" {
		t.Fatalf("sub started = %+v", sub[0])
	}

	// $/progress shows the current plan item.
	reports := ""
	for _, v := range progressValues(t, rs.c, "agentls-run-"+id) {
		if m, ok := v["message"].(string); ok {
			reports += m + "\n"
		}
	}
	if !strings.Contains(reports, "1/2 · find the greeting") {
		t.Fatalf("progress lacks the plan item:\n%s", reports)
	}
}
