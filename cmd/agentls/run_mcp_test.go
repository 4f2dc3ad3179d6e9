package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestRunCallsMCPTool runs `agentls run` end to end with an MCP server from
// the workspace config: the model sees mcp__helper__echo, calls it, and the
// server's answer reaches the model and the final answer. A second,
// broken server is reported and the run goes on without it.
func TestRunCallsMCPTool(t *testing.T) {
	dir := t.TempDir()
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"helper": map[string]any{"type": "http", "url": url},
		"broken": map[string]any{"command": filepath.Join(dir, "no-such-mcp-server")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".agentls", "config.json"), string(cfg), 0o644)

	var offered []string
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Seq == 0 {
			offered = req.ToolNames()
		}
		out, ok := req.ToolResult("call_1")
		if !ok {
			return llmtest.ToolCalls(llmtest.Call{ID: "call_1", Name: "mcp__helper__echo", Args: `{"text":"hi from the model"}`})
		}
		return llmtest.Text("The tool said: " + out)
	}, llmtest.WithAPIKey(testKey))
	cliEnv(t, srv)

	code, stdout, stderr := runCLI(t, "--dir", dir, "--trust-workspace", "call", "the", "echo", "tool")
	if code != 0 {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(strings.Join(offered, ","), "mcp__helper__echo") {
		t.Fatalf("first request offered %v, want mcp__helper__echo among them", offered)
	}
	if !strings.Contains(stdout, "The tool said: helper: hi from the model") {
		t.Fatalf("the MCP result did not reach the answer:\n%s", stdout)
	}
	if !strings.Contains(stderr, `MCP server "broken" unavailable`) {
		t.Fatalf("stderr does not report the broken server:\n%s", stderr)
	}
	if !strings.Contains(stderr, "→ mcp__helper__echo") {
		t.Fatalf("stderr does not show the tool call:\n%s", stderr)
	}
}
