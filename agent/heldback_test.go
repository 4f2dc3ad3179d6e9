package agent

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

type keyParams struct {
	Key string `json:"key" jsonschema:"the key"`
}

// heldBackRun prepares a session run over a fresh workspace whose
// registry also holds a held-back tool (lookup) and an MCP tool deferred
// behind tool_search (mcp__kv__get: a deferred-tool share of 0 defers
// every MCP tool), runs script to the end and returns the requests.
func heldBackRun(t *testing.T, mode string, extra []tools.Tool, script llmtest.Script) []llmtest.RecordedRequest {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg := config.Defaults()
	cfg.MCP.DeferredToolShare = 0
	srv := llmtest.New(t, script)
	run, err := NewSession("").Prepare(context.Background(), Setup{Config: cfg, View: workspace.New(workspace.Options{Folders: []string{t.TempDir()}}),
		TranscriptDir: NoTranscript, Model: newClient(t, srv)}, RunRequest{Prompt: "x", Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	run.Registry().Add(tools.HeldBack(tools.New("lookup", "Look a key up in the project's table.", true, func(_ context.Context, _ *tools.Env, p keyParams) (tools.Result, error) {
		return tools.Result{Text: "lookup " + p.Key + " = 1"}, nil
	})))
	run.Registry().Add(tools.New("mcp__kv__get", "Get a key from the kv server.", true, func(_ context.Context, _ *tools.Env, p keyParams) (tools.Result, error) {
		return tools.Result{Text: "kv " + p.Key + " = 2"}, nil
	}))
	for _, x := range extra {
		run.Registry().Add(x)
	}
	if out := run.Execute(context.Background()); out.Status != StatusFinished {
		t.Fatalf("outcome %v %q %v", out.Status, out.Answer, out.Err)
	}
	return srv.Requests()
}

// TestHeldBackToolCalledByNameRunsAtOnce: a model that calls a held-back
// tool (not a language tool: those are always offered) by its exact name
// with valid arguments gets the tool's result on that same turn, not a
// turn spent on "it was not loaded"; the tool is offered from the next
// request on. Invalid arguments fail like any tool's, and the schema is in
// view from then on.
func TestHeldBackToolCalledByNameRunsAtOnce(t *testing.T) {
	reqs := heldBackRun(t, "", nil, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(
				llmtest.Call{ID: "l", Name: "lookup", Args: `{"key":"a"}`},
				llmtest.Call{ID: "m", Name: "mcp__kv__get", Args: `{"key":"b"}`},
				llmtest.Call{ID: "bad", Name: "lookup", Args: `{"name":"a"}`})
		}
		return llmtest.Text("done")
	})
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (the calls ran on the first turn)", len(reqs))
	}
	first, second := reqs[0], reqs[1]
	if first.HasTool("lookup") || first.HasTool("mcp__kv__get") || !first.HasTool("tool_search") {
		t.Fatalf("first request offers %v", first.ToolNames())
	}
	if res, _ := second.ToolResult("l"); res != "lookup a = 1" {
		t.Fatalf("lookup result %q", res)
	}
	if res, _ := second.ToolResult("m"); res != "kv b = 2" {
		t.Fatalf("mcp__kv__get result %q", res)
	}
	if res, _ := second.ToolResult("bad"); !strings.Contains(res, "invalid arguments for lookup") {
		t.Fatalf("lookup with a wrong argument: %q", res)
	}
	if !second.HasTool("lookup") || !second.HasTool("mcp__kv__get") {
		t.Fatalf("second request offers %v", second.ToolNames())
	}
}

// TestHeldBackToolByNameInPlanMode: a planning run never runs a held-back
// tool it could not be offered (one that changes something), called by
// name or not; a read-only one runs as in any run.
func TestHeldBackToolByNameInPlanMode(t *testing.T) {
	var wrote atomic.Bool
	stamp := tools.HeldBack(tools.New("stamp", "Stamp a key into the project's table.", false, func(_ context.Context, _ *tools.Env, p keyParams) (tools.Result, error) {
		wrote.Store(true)
		return tools.Result{Text: "stamped"}, nil
	}))
	reqs := heldBackRun(t, ModePlan, []tools.Tool{stamp}, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(
				llmtest.Call{ID: "s", Name: "stamp", Args: `{"key":"a"}`},
				llmtest.Call{ID: "l", Name: "lookup", Args: `{"key":"a"}`})
		}
		return llmtest.Text("the plan")
	})
	if wrote.Load() {
		t.Fatal("a planning run ran a held-back tool that writes")
	}
	second := reqs[1]
	if res, _ := second.ToolResult("s"); !strings.Contains(res, `there is no tool named "stamp"`) {
		t.Fatalf("stamp result %q", res)
	}
	if res, _ := second.ToolResult("l"); res != "lookup a = 1" {
		t.Fatalf("lookup result %q", res)
	}
	if names := second.ToolNames(); slices.Contains(names, "stamp") || !slices.Contains(names, "lookup") {
		t.Fatalf("second request offers %v", names)
	}
}
