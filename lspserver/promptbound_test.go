package lspserver_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// A prompt over agent.MaxPromptBytes is refused with -32602 before any
// model call (it used to be sent whole, megabytes and all); one at the limit
// runs.
func TestRunPromptBound(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("done")), runOpts{})
	ctx := lsptest.Context(t)
	for _, size := range []int{agent.MaxPromptBytes + 1, 4 << 20} {
		err := rs.c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandRun, lspserver.RunArgs{Prompt: strings.Repeat("x", size)}), nil)
		e, ok := err.(*lsptest.Error)
		if !ok || e.Code != lsptest.CodeInvalidParams || !strings.Contains(e.Message, "192000") || !strings.Contains(e.Message, "too large") {
			t.Fatalf("%d bytes: got %v, want -32602 naming the limit", size, err)
		}
	}
	if n := len(rs.model.Requests()); n != 0 {
		t.Fatalf("the model got %d requests for refused prompts", n)
	}
	id := rs.start(t, lspserver.RunArgs{Prompt: strings.Repeat("y", agent.MaxPromptBytes)})
	rs.event(t, id, "finished")
	if reqs := rs.model.Requests(); len(reqs) != 1 || len(reqs[0].LastUser()) < agent.MaxPromptBytes {
		t.Fatalf("the prompt at the limit did not reach the model whole: %d requests", len(reqs))
	}
}
