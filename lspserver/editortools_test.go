package lspserver_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestEditorToolRegisteredAndAnswered: the client registers a tool with
// agentls/registerTools, the model calls editor__NAME, the server asks
// the client with agentls/invokeClientTool and the answer reaches the
// model; a tool the client never answers fails that call within
// client.requestTimeoutSeconds, and the run finishes.
func TestEditorToolRegisteredAndAnswered(t *testing.T) {
	rs := newRunSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			if !req.HasTool("editor__get_diagnostics") || !req.HasTool("editor__slow") {
				return llmtest.Text("tools missing: " + strings.Join(req.ToolNames(), ","))
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "d1", Name: "editor__get_diagnostics", Args: `{"paths":["main.go"]}`})
		case 1:
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "editor__slow", Args: `{}`})
		}
		d, _ := req.ToolResult("d1")
		s, _ := req.ToolResult("s1")
		return llmtest.Text("diag: " + d + "\nslow: " + s)
	}, runOpts{settings: map[string]any{"client": map[string]any{"requestTimeoutSeconds": 1}}})

	var mu sync.Mutex
	var invoked []lspserver.InvokeClientToolParams
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rs.c.Handle(lspserver.MethodInvokeClientTool, func(m lsptest.Message) (any, *lsptest.Error) {
		var p lspserver.InvokeClientToolParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &lsptest.Error{Code: -32602, Message: err.Error()}
		}
		mu.Lock()
		invoked = append(invoked, p)
		mu.Unlock()
		if p.Name == "slow" {
			<-release // never answers within the test
			return nil, &lsptest.Error{Code: -32800, Message: "gone"}
		}
		return lspserver.InvokeClientToolResult{Content: "main.go:3:5: error: undefined: x [gopls]"}, nil
	})
	var res json.RawMessage
	err := rs.c.Call(lsptest.Context(t), lspserver.MethodRegisterTools, map[string]any{"tools": []map[string]any{
		{"name": "get_diagnostics", "description": "Diagnostics the editor has.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"paths": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}, "annotations": map[string]any{"readOnlyHint": true}},
		{"name": "slow", "description": "Never answers."},
	}}, &res)
	if err != nil || string(res) != "{}" {
		t.Fatalf("registerTools: %s %v", res, err)
	}

	id := rs.start(t, lspserver.RunArgs{Prompt: "what is broken?"})
	start := time.Now()
	evs := rs.events(t, id)
	last := evs[len(evs)-1]
	if last.Kind != "finished" || last.Text == nil {
		t.Fatalf("run ended %+v", last)
	}
	want := "diag: main.go:3:5: error: undefined: x [gopls]\nslow: editor__slow: "
	if !strings.HasPrefix(*last.Text, want) || !strings.Contains(*last.Text, "did not answer") {
		t.Fatalf("answer %q", *last.Text)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("the silent editor held the run for %v", time.Since(start))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(invoked) != 2 || invoked[0].RunID != id || invoked[0].Name != "get_diagnostics" || string(invoked[0].Arguments) != `{"paths":["main.go"]}` {
		t.Fatalf("invocations %+v", invoked)
	}
	var sawCall bool
	for _, e := range evs {
		if e.Kind == "toolCall" && e.Tool == "editor__get_diagnostics" && e.CallID == "d1" {
			sawCall = true
		}
	}
	if !sawCall {
		t.Fatal("no toolCall event for editor__get_diagnostics")
	}
}

// TestRegisterToolsRejectsBadSets: a bad registration is InvalidParams
// naming the problem, and the earlier set stays; an empty one removes all.
func TestRegisterToolsRejectsBadSets(t *testing.T) {
	var seen [][]string
	rs := newRunSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		var eds []string
		for _, n := range req.ToolNames() {
			if strings.HasPrefix(n, "editor__") {
				eds = append(eds, n)
			}
		}
		seen = append(seen, eds)
		return llmtest.Text("ok")
	}, runOpts{})
	ctx := lsptest.Context(t)
	call := func(tools string) error {
		var res json.RawMessage
		return rs.c.Call(ctx, lspserver.MethodRegisterTools, json.RawMessage(`{"tools":`+tools+`}`), &res)
	}
	if err := call(`[{"name":"open_buffers","description":"x"}]`); err != nil {
		t.Fatal(err)
	}
	err := call(`[{"name":"bad name"}]`)
	var rpcErr *lsptest.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, `name "bad name" must be`) {
		t.Fatalf("bad set: %v", err)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "x"})
	rs.events(t, id)
	if err := call(`[]`); err != nil {
		t.Fatal(err)
	}
	id = rs.start(t, lspserver.RunArgs{Prompt: "y"})
	rs.events(t, id)
	if len(seen) != 2 || strings.Join(seen[0], ",") != "editor__open_buffers" || len(seen[1]) != 0 {
		t.Fatalf("editor tools offered: %v", seen)
	}
}

// TestScriptInnerCallsOnTheWire: a script's inner calls reach the editor
// as toolCall/toolResult run events with parentCallId, and only the
// program's output reaches the model.
func TestScriptInnerCallsOnTheWire(t *testing.T) {
	rs := newRunSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "script", Args: `{"code":"len(glob('*.txt'))"}`})
		}
		r, _ := req.ToolResult("s1")
		return llmtest.Text("count=" + r)
	}, runOpts{})
	for _, n := range []string{"a.txt", "b.txt"} {
		writeFile(t, filepath.Join(rs.root, n), "x\n")
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "count"})
	evs := rs.events(t, id)
	if last := evs[len(evs)-1]; last.Kind != "finished" || *last.Text != "count=2" {
		t.Fatalf("run ended %+v", last)
	}
	var inner []string
	for _, e := range evs {
		if e.ParentCallID != "" {
			inner = append(inner, e.Kind+" "+e.Tool+" "+e.CallID+" "+e.ParentCallID)
		}
	}
	if strings.Join(inner, "|") != "toolCall glob s1.1 s1|toolResult glob s1.1 s1" {
		t.Fatalf("inner events %q", inner)
	}
}

// TestSubAgentScriptOnTheWire: a sub-agent's script runs and its inner
// calls reach the editor as the sub-agent's run events (its runId, the
// parent's in parentRunId) with the script call in parentCallId; the
// program's output reaches the parent through the sub-agent's answer.
func TestSubAgentScriptOnTheWire(t *testing.T) {
	rs := newRunSession(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(req.System(), "You are a sub-agent") {
			if !req.HasToolResult("s1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "script", Args: `{"code":"len(glob('*.txt'))"}`})
			}
			r, _ := req.ToolResult("s1")
			return llmtest.Text("files=" + r)
		}
		if !req.HasToolResult("t1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: `{"description":"count","prompt":"count the text files"}`})
		}
		r, _ := req.ToolResult("t1")
		return llmtest.Text("sub said " + r)
	}, runOpts{})
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, filepath.Join(rs.root, n), "x\n")
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: "count"})
	evs := rs.events(t, id)
	if last := evs[len(evs)-1]; last.Kind != "finished" || *last.Text != "sub said files=3" {
		t.Fatalf("run ended %+v", last)
	}
	var subID string
	for _, e := range runEventsWithParent(rs.c.Received(), id) {
		if e.Kind == "started" {
			subID = e.RunID
		}
	}
	if subID == "" {
		t.Fatal("no sub-agent events")
	}
	var inner []string
	for _, e := range runEvents(rs.c.Received(), subID) {
		if e.ParentRunID != id {
			t.Fatalf("sub-agent event without the parent: %+v", e)
		}
		if e.ParentCallID != "" {
			inner = append(inner, e.Kind+" "+e.Tool+" "+e.CallID+" "+e.ParentCallID)
		}
	}
	if strings.Join(inner, "|") != "toolCall glob s1.1 s1|toolResult glob s1.1 s1" {
		t.Fatalf("inner events of the sub-agent %q", inner)
	}
}

// runEventsWithParent extracts the events of sub-agents of parentID.
func runEventsWithParent(msgs []lsptest.Message, parentID string) []lspserver.RunEvent {
	var out []lspserver.RunEvent
	for _, m := range msgs {
		var e lspserver.RunEvent
		if m.Method == lspserver.MethodRunEvent && json.Unmarshal(m.Params, &e) == nil && e.ParentRunID == parentID {
			out = append(out, e)
		}
	}
	return out
}
