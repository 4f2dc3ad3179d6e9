package acpserver_test

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools/mcp/mcptest"
)

// TestMCPElicitationOverACP: an MCP tool's elicitation/create reaches the
// ACP client as session/request_permission, one option per answer plus
// Decline, on a tool call showing the question; the option chosen is what
// the MCP tool receives. An option never offered declines, a cancelled
// request cancels, and a form that needs fields is declined without
// asking, the tool call saying why.
func TestMCPElicitationOverACP(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddClientRequestTools(srv)
	url := mcptest.StartHTTP(t, srv)
	const asks = `MCP server "helper" asks`
	run := func(t *testing.T, cfg, args string, answer func(acp.RequestPermissionRequest) acp.RequestPermissionResponse) (result string, perms []acp.RequestPermissionRequest, question string) {
		h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
			if !r.HasToolResult("a1") {
				return acptest.Call("a1", "mcp__helper__ask", args)
			}
			res, _ := r.ToolResult("a1")
			return llmtest.Text(res)
		}, acptest.Options{})
		if cfg != "" {
			h.UserConfig(cfg)
		}
		h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			if p.ToolCall.Title == nil || *p.ToolCall.Title != asks {
				return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
			}
			return answer(p)
		}
		res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{
			{Http: &acp.McpServerHttpInline{Name: "helper", Type: "http", Url: url, Headers: []acp.HttpHeader{}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		h.MustPrompt(res.SessionId, "ask")
		// The question's tool call ends when its answer is in, which may
		// be after a stopped run's prompt returned.
		h.Client.Await(t, "the end of the question", func(r acptest.Recorded) bool {
			for _, c := range acptest.ToolCalls(r.Updates) {
				if c.Title == asks && c.Status == acp.ToolCallStatusFailed {
					return true
				}
				for _, u := range acptest.ToolUpdates(r.Updates, c.ToolCallId) {
					if c.Title == asks && u.Status != nil && *u.Status != acp.ToolCallStatusPending {
						return true
					}
				}
			}
			return false
		})
		reqs := h.Chats()
		result, _ = reqs[len(reqs)-1].ToolResult("a1")
		us, all := h.Client.Snapshot()
		for _, p := range all {
			if p.ToolCall.Title != nil && *p.ToolCall.Title == asks {
				perms = append(perms, p)
			}
		}
		for _, c := range acptest.ToolCalls(us) {
			if c.Title == asks {
				question = acptest.ContentText(c.Content)
				for _, u := range acptest.ToolUpdates(us, c.ToolCallId) {
					question += " | " + acptest.ContentText(u.Content)
				}
			}
		}
		return result, perms, question
	}
	options := func(p acp.RequestPermissionRequest) string {
		var out []string
		for _, o := range p.Options {
			out = append(out, string(o.OptionId)+"="+o.Name+":"+string(o.Kind))
		}
		return strings.Join(out, ",")
	}

	t.Run("answer", func(t *testing.T) {
		t.Parallel()
		result, perms, question := run(t, "", `{"message":"Color?","form":"color"}`, func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			return acptest.Allow("green")
		})
		if !strings.Contains(result, `accept {"color":"green"}`) {
			t.Errorf("the MCP tool got %q", result)
		}
		if len(perms) != 1 || options(perms[0]) != "red=red:allow_once,green=green:allow_once,Decline=Decline:reject_once" {
			t.Fatalf("permission requests %+v", perms)
		}
		if got := acptest.ContentText(perms[0].ToolCall.Content); got != `MCP server "helper" asks: Color?` {
			t.Errorf("question in the request %q", got)
		}
		if !strings.HasSuffix(question, "Answered: green") {
			t.Errorf("tool call %q", question)
		}
	})
	t.Run("unoffered option", func(t *testing.T) {
		t.Parallel()
		result, perms, question := run(t, "", `{"message":"Color?","form":"color"}`, func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			return acptest.Allow("blue")
		})
		if !strings.Contains(result, "decline null") || len(perms) != 1 {
			t.Errorf("the MCP tool got %q after %d requests", result, len(perms))
		}
		if !strings.Contains(question, `Declined: the editor answered with option "blue", which agentls did not offer`) {
			t.Errorf("tool call %q", question)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		result, perms, _ := run(t, "", `{"message":"Color?","form":"color"}`, func(acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
		})
		if !strings.Contains(result, "cancel null") || len(perms) != 1 {
			t.Errorf("the MCP tool got %q after %d requests", result, len(perms))
		}
	})
	t.Run("form with fields", func(t *testing.T) {
		t.Parallel()
		result, perms, question := run(t, "", `{"message":"Who?"}`, func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
			return acptest.Allow(p.Options[0].OptionId)
		})
		if !strings.Contains(result, "decline null") || len(perms) != 0 {
			t.Errorf("the MCP tool got %q after %d requests", result, len(perms))
		}
		if !strings.Contains(question, `MCP server "helper" asks: Who?`) || !strings.Contains(question, "agentls declined: the form has 2 fields") {
			t.Errorf("tool call %q", question)
		}
	})
}

// TestMCPElicitationUnanswered: a question nobody answers ends with the
// run's maxWallClockSeconds, like the other permission requests: the
// prompt ends and the question's tool call says why.
func TestMCPElicitationUnanswered(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(mcptest.Options{})
	mcptest.AddClientRequestTools(srv)
	url := mcptest.StartHTTP(t, srv)
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if !r.HasToolResult("a1") {
			return acptest.Call("a1", "mcp__helper__ask", `{"message":"Color?","form":"color"}`)
		}
		return llmtest.Text("done")
	}, acptest.Options{})
	h.UserConfig(`{"maxWallClockSeconds": 1}`)
	never := make(chan struct{})
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if p.ToolCall.Title == nil || !strings.HasPrefix(*p.ToolCall.Title, "MCP server") {
			return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
		}
		<-never
		return acptest.Allow("red")
	}
	t.Cleanup(func() { close(never) }) // before the harness closes
	res, err := h.Conn.NewSession(h.Ctx(), acp.NewSessionRequest{Cwd: h.Dir, McpServers: []acp.McpServer{
		{Http: &acp.McpServerHttpInline{Name: "helper", Type: "http", Url: url, Headers: []acp.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.MustPrompt(res.SessionId, "ask"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", r)
	}
	h.Client.Await(t, "the question's tool call saying why it ended", func(r acptest.Recorded) bool {
		return strings.Contains(acptest.UpdateTexts(r.Updates), "Not answered: no answer within the run's time limit (maxWallClockSeconds).")
	})
}
