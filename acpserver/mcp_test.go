package acpserver_test

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// The client's MCP servers (session/new mcpServers) are connected for
// the session's runs: the model is offered their tools and can call them.
func TestClientMCPServers(t *testing.T) {
	url := mcptest.StartHTTP(t, mcptest.NewServer(mcptest.Options{}))
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasTool("mcp__helper__echo") {
			return llmtest.Text("no helper")
		}
		if !r.HasToolResult("m1") {
			return acptest.Call("m1", "mcp__helper__echo", `{"text":"from acp"}`)
		}
		return llmtest.Text("echoed")
	}, acptest.Options{})
	res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{
		{Http: &acp.McpServerHttpInline{Name: "helper", Type: "http", Url: url, Headers: []acp.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(res.SessionId, "use the helper")
	reqs := h.Chats()
	if out, _ := reqs[len(reqs)-1].ToolResult("m1"); !strings.Contains(out, "helper: from acp") {
		t.Fatalf("MCP result %q (tools %v)", out, reqs[0].ToolNames())
	}
	us, _ := h.Client.Snapshot()
	calls := acptest.ToolCalls(us)
	if len(calls) != 1 || calls[0].Title != "Calling echo (helper)" || calls[0].Kind != acp.ToolKindOther {
		t.Fatalf("MCP tool call: %+v", calls)
	}
	// session/close stops the session's MCP servers; the id is then unknown.
	if _, err := h.Conn.CloseSession(h.Ctx(), acp.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(res.SessionId, "again"); acptest.ReqErr(t, err).Code != -32602 {
		t.Fatalf("prompt after close: %v", err)
	}
	// Resume brings it back (no replay).
	before := len(us)
	if _, err := h.Conn.ResumeSession(h.Ctx(), acp.ResumeSessionRequest{SessionId: res.SessionId, Cwd: h.Dir}); err != nil {
		t.Fatal(err)
	}
	h.MustPrompt(res.SessionId, "again")
	us, _ = h.Client.Snapshot()
	for _, k := range acptest.Kinds(us[before:]) {
		if k == "user_message_chunk" {
			t.Fatal("resume replayed the conversation")
		}
	}
}
