package acpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// editScript reads a.txt, edits it, then answers.
func editScript(answer string) llmtest.Script {
	return func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case !r.HasToolResult("c1"):
			return acptest.Call("c1", "read_file", `{"path":"a.txt"}`).WithText("Let me look. ")
		case !r.HasToolResult("c2"):
			return acptest.Call("c2", "edit_file", `{"path":"a.txt","old_string":"hello","new_string":"hello, world"}`)
		}
		return llmtest.Text(answer)
	}
}

// A prompt streams text and tool calls; the staged change is shown as a
// diff, asked about, and written (to disk: this client offers no fs) only
// after the permission.
func TestPromptStreamsAndWritesOnlyAfterPermission(t *testing.T) {
	h := acptest.Start(t, editScript("I greeted the world."), acptest.Options{})
	path := h.Write("a.txt", "hello\nsecond line\n")
	var onDiskWhenAsked string
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		onDiskWhenAsked = h.Read("a.txt")
		return acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindAllowOnce))
	}
	id := h.NewSession()
	if got := h.MustPrompt(id, "greet the world in a.txt"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", got)
	}
	if onDiskWhenAsked != "hello\nsecond line\n" {
		t.Fatalf("the file changed before the permission: %q", onDiskWhenAsked)
	}
	if got := h.Read("a.txt"); got != "hello, world\nsecond line\n" {
		t.Fatalf("after allow, a.txt = %q", got)
	}
	us, perms := h.Client.Snapshot()
	if txt := acptest.AgentText(us); !strings.Contains(txt, "Let me look.") || !strings.Contains(txt, "I greeted the world.") {
		t.Fatalf("agent text %q", txt)
	}
	calls := acptest.ToolCalls(us)
	if len(calls) != 2 || calls[0].Kind != acp.ToolKindRead || calls[1].Kind != acp.ToolKindEdit {
		t.Fatalf("tool calls: %+v", calls)
	}
	if len(calls[0].Locations) != 1 || calls[0].Locations[0].Path != path || calls[0].Title != "Reading a.txt" {
		t.Fatalf("read call: %+v", calls[0])
	}
	// The edit's diff was shown on its tool call and in the permission.
	var diff *acp.ToolCallContentDiff
	for _, u := range acptest.ToolUpdates(us, calls[1].ToolCallId) {
		for _, c := range u.Content {
			if c.Diff != nil {
				diff = c.Diff
			}
		}
	}
	if diff == nil || diff.Path != path || diff.OldText == nil || *diff.OldText != "hello\nsecond line\n" || diff.NewText != "hello, world\nsecond line\n" {
		t.Fatalf("edit diff: %+v", diff)
	}
	if len(perms) != 1 || perms[0].ToolCall.ToolCallId != calls[1].ToolCallId || len(perms[0].ToolCall.Content) != 1 || perms[0].ToolCall.Content[0].Diff == nil {
		t.Fatalf("permission: %+v", perms)
	}
	meta, _ := json.Marshal(perms[0].Meta)
	if !strings.Contains(string(meta), `"hunks":[{`) || !strings.Contains(string(meta), `"newText":"hello, world\n"`) || !strings.Contains(string(meta), `"startLine":1`) {
		t.Fatalf("permission _meta: %s", meta)
	}
	last := acptest.ToolUpdates(us, calls[1].ToolCallId)
	if st := last[len(last)-1].Status; st == nil || *st != acp.ToolCallStatusCompleted {
		t.Fatalf("edit call ended %v", st)
	}
	// The model was told its edit landed: the next read needs no CONFLICT.
	reqs := h.Chats()
	if res, _ := reqs[len(reqs)-1].ToolResult("c2"); !strings.Contains(res, "a.txt") {
		t.Fatalf("edit result %q", res)
	}
}

// A rejection leaves the file alone, fails the tool call, and its reason
// reaches the model on the next prompt, as agentls.reject's does.
func TestPermissionRejectedWithReason(t *testing.T) {
	turn := 0
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.LastUser(), "try again") {
			return llmtest.Text("understood")
		}
		turn++
		return editScript("done")(r)
	}, acptest.Options{})
	h.Write("a.txt", "hello\n")
	h.Client.OnPermission = func(p acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		r := acptest.Allow(acptest.OptionID(p, acp.PermissionOptionKindRejectOnce))
		r.Meta = map[string]any{"agentls": map[string]any{"reason": "keep it short"}}
		return r
	}
	id := h.NewSession()
	h.MustPrompt(id, "greet")
	if got := h.Read("a.txt"); got != "hello\n" {
		t.Fatalf("rejected change was written: %q", got)
	}
	us, _ := h.Client.Snapshot()
	calls := acptest.ToolCalls(us)
	ups := acptest.ToolUpdates(us, calls[1].ToolCallId)
	end := ups[len(ups)-1]
	if end.Status == nil || *end.Status != acp.ToolCallStatusFailed || !strings.Contains(acptest.ContentText(end.Content), "Rejected: keep it short") {
		t.Fatalf("rejected edit call: %+v", end)
	}
	h.MustPrompt(id, "try again")
	reqs := h.Chats()
	last := reqs[len(reqs)-1]
	if !last.Contains(`saying: \"keep it short\"`) && !last.Contains(`saying: "keep it short"`) {
		t.Fatalf("the model was not told the reason: %s", last.LastUser())
	}
}
