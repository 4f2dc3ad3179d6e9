package acpserver_test

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// A prompt over agent.MaxPromptBytes, alone or with its attachments, is
// refused with -32602 before any model call; a smaller model.contextWindow
// still bounds it lower; a prompt at the limit runs.
func TestPromptBound(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("done")), acptest.Options{})
	id := h.NewSession()
	refused := func(what string, blocks []acp.ContentBlock, fragment string) {
		t.Helper()
		_, err := h.Conn.Prompt(h.Ctx(), acp.PromptRequest{SessionId: id, Prompt: blocks})
		if e := acptest.ReqErr(t, err); e.Code != -32602 || !strings.Contains(e.Message, fragment) {
			t.Fatalf("%s: got %d %q, want -32602 with %q", what, e.Code, e.Message, fragment)
		}
	}
	refused("text over the limit", []acp.ContentBlock{acp.TextBlock(strings.Repeat("x", agent.MaxPromptBytes+1))}, "too large")
	refused("a megabyte", []acp.ContentBlock{acp.TextBlock(strings.Repeat("x", 1<<20))}, "192000")
	refused("text and attachment over the limit", []acp.ContentBlock{
		acp.TextBlock(strings.Repeat("x", agent.MaxPromptBytes/2)),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
			Uri: "file://" + h.Dir + "/big.txt", Text: strings.Repeat("y", agent.MaxPromptBytes/2+10)}}),
	}, "too large")
	if n := len(h.Chats()); n != 0 {
		t.Fatalf("the model got %d requests for refused prompts", n)
	}
	if r := h.MustPrompt(id, strings.Repeat("z", agent.MaxPromptBytes)); r != acp.StopReasonEndTurn {
		t.Fatalf("a prompt at the limit: %s", r)
	}
	if n := len(h.Chats()); n != 1 {
		t.Fatalf("a prompt at the limit made %d model requests", n)
	}
}

// A small context window keeps its own, stricter bound.
func TestPromptBoundSmallWindow(t *testing.T) {
	h := acptest.Start(t, llmtest.Always(llmtest.Text("done")), acptest.Options{})
	h.UserConfig(`{"model": {"contextWindow": 16384}}`)
	_, err := h.Prompt(h.NewSession(), strings.Repeat("x", 30_000))
	if e := acptest.ReqErr(t, err); e.Code != -32602 || !strings.Contains(e.Message, "contextWindow") {
		t.Fatalf("got %d %q, want -32602 naming model.contextWindow", e.Code, e.Message)
	}
	if n := len(h.Chats()); n != 0 {
		t.Fatalf("the model got %d requests", n)
	}
}
