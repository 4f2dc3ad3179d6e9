package acpserver_test

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// The client's MCP servers (session/new mcpServers) are connected for
// the session's runs: the model is offered their tools and can call them.
func TestClientMCPServers(t *testing.T) {
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	h := start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasTool("mcp__helper__echo") {
			return llmtest.Text("no helper")
		}
		if !r.HasToolResult("m1") {
			return call("m1", "mcp__helper__echo", `{"text":"from acp"}`)
		}
		return llmtest.Text("echoed")
	}, harnessOpts{})
	res, err := h.conn.NewSession(h.ctx(), acp.NewSessionRequest{Cwd: h.dir, McpServers: []acp.McpServer{
		{Http: &acp.McpServerHttpInline{Name: "helper", Type: "http", Url: url, Headers: []acp.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.mustPrompt(res.SessionId, "use the helper")
	reqs := h.chats()
	if out, _ := reqs[len(reqs)-1].ToolResult("m1"); !strings.Contains(out, "helper: from acp") {
		t.Fatalf("MCP result %q (tools %v)", out, reqs[0].ToolNames())
	}
	us, _ := h.client.snapshot()
	calls := toolCalls(us)
	if len(calls) != 1 || calls[0].Title != "Calling echo (helper)" || calls[0].Kind != acp.ToolKindOther {
		t.Fatalf("MCP tool call: %+v", calls)
	}
	// session/close stops the session's MCP servers; the id is then unknown.
	if _, err := h.conn.CloseSession(h.ctx(), acp.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(res.SessionId, "again"); reqErr(t, err).Code != -32602 {
		t.Fatalf("prompt after close: %v", err)
	}
	// Resume brings it back (no replay).
	before := len(us)
	if _, err := h.conn.ResumeSession(h.ctx(), acp.ResumeSessionRequest{SessionId: res.SessionId, Cwd: h.dir}); err != nil {
		t.Fatal(err)
	}
	h.mustPrompt(res.SessionId, "again")
	us, _ = h.client.snapshot()
	for _, k := range kinds(us[before:]) {
		if k == "user_message_chunk" {
			t.Fatal("resume replayed the conversation")
		}
	}
}
