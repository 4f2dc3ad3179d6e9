package acpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acpserver/acptest"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// Checks over ACP: each result is a tool call of kind execute, failed
// with the output, then completed once the model fixed it.
func TestChecksOverACP(t *testing.T) {
	h := acptest.Start(t, func(r *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case r.Turns() == 0:
			return acptest.Call("w1", "write_file", `{"path":"state.txt","content":"broken\n"}`)
		case r.Contains(`check "state" failed`) && !r.HasToolResult("w2"):
			return acptest.Call("w2", "edit_file", `{"path":"state.txt","old_string":"broken","new_string":"fixed"}`)
		}
		return llmtest.Text("wrote state")
	}, acptest.Options{})
	userConfig(t, h.Env, `{"checks": [{"name": "state", "command": "grep -q fixed state.txt || { echo not fixed yet; exit 1; }"}]}`)
	if r := h.MustPrompt(h.NewSession(), "write state"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var checks []*acp.SessionUpdateToolCall
	for _, c := range acptest.ToolCalls(us) {
		if strings.HasPrefix(c.Title, "Check ") {
			checks = append(checks, c)
		}
	}
	if len(checks) != 2 || checks[0].Title != "Check state" || checks[0].Kind != acp.ToolKindExecute {
		t.Fatalf("check tool calls %+v", checks)
	}
	var results []string
	for _, c := range checks {
		ups := acptest.ToolUpdates(us, c.ToolCallId)
		if len(ups) != 1 || ups[0].Status == nil || len(ups[0].Content) != 1 || ups[0].Content[0].Content == nil || ups[0].Content[0].Content.Content.Text == nil {
			t.Fatalf("updates of %s: %+v", c.ToolCallId, ups)
		}
		results = append(results, string(*ups[0].Status)+": "+ups[0].Content[0].Content.Content.Text.Text)
	}
	if !strings.HasPrefix(results[0], "failed: check state failed (exit code 1)") || !strings.Contains(results[0], "not fixed yet") ||
		!strings.HasPrefix(results[1], "completed: check state passed") {
		t.Fatalf("results %q", results)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.Env["HOME"], "views")); len(entries) != 0 {
		t.Fatalf("proposal views left: %v", entries)
	}
}

// A check's tool call starts when the check starts, in progress, and is
// completed on the same call: a suite that runs for minutes shows as
// running, not as nothing. The check passes only if the client saw it
// start while it ran.
func TestCheckShownWhileRunning(t *testing.T) {
	h := acptest.Start(t, llmtest.Sequence(
		acptest.Call("w1", "write_file", `{"path":"state.txt","content":"x\n"}`),
		llmtest.Text("wrote state"),
	), acptest.Options{})
	marker := filepath.Join(t.TempDir(), "seen")
	userConfig(t, h.Env, `{"checks": [{"name": "slow", "command": "for i in $(seq 200); do [ -f '`+marker+`' ] && exit 0; sleep 0.05; done; echo never shown; exit 1"}]}`)
	id := h.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() {
		r, _ := h.Prompt(id, "write state")
		done <- r
	}()
	h.Client.Await(t, "the check's tool call", func(c acptest.Recorded) bool {
		for _, u := range c.Updates {
			if tc := u.Update.ToolCall; tc != nil && tc.Title == "Check slow" {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var checks []*acp.SessionUpdateToolCall
	for _, c := range acptest.ToolCalls(us) {
		if strings.HasPrefix(c.Title, "Check ") {
			checks = append(checks, c)
		}
	}
	if len(checks) != 1 || checks[0].Status != acp.ToolCallStatusInProgress {
		t.Fatalf("check tool calls %+v", checks)
	}
	ups := acptest.ToolUpdates(us, checks[0].ToolCallId)
	if len(ups) != 1 || ups[0].Status == nil || *ups[0].Status != acp.ToolCallStatusCompleted {
		t.Fatalf("updates of the check: %+v", ups)
	}
}

// A check whose command is not installed: its tool call says "could not
// run" with the shell's line, and the model is not sent back (two model
// calls, as without checks).
func TestCheckThatCannotRunOverACP(t *testing.T) {
	h := acptest.Start(t, llmtest.Sequence(
		acptest.Call("w1", "write_file", `{"path":"state.txt","content":"x\n"}`),
		llmtest.Text("wrote state"),
	), acptest.Options{})
	userConfig(t, h.Env, `{"checks": [{"name": "test", "command": "definitely-not-installed-xyz --run"}]}`)
	if r := h.MustPrompt(h.NewSession(), "write state"); r != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	us, _ := h.Client.Snapshot()
	var texts []string
	for _, c := range acptest.ToolCalls(us) {
		if c.Title != "Check test" {
			continue
		}
		for _, u := range acptest.ToolUpdates(us, c.ToolCallId) {
			for _, b := range u.Content {
				if b.Content != nil && b.Content.Content.Text != nil {
					texts = append(texts, b.Content.Content.Text.Text)
				}
			}
		}
	}
	if len(texts) != 1 || !strings.HasPrefix(texts[0], "check test could not run: sh: 1: definitely-not-installed-xyz: not found\n") || !strings.Contains(texts[0], "PATH=") {
		t.Fatalf("check tool call texts %q", texts)
	}
	// Requests without messages are the endpoint probes, not turns.
	turns := 0
	for _, r := range h.Model.Requests() {
		if r.Contains(`check "test"`) || r.Contains("could not run") {
			t.Fatalf("the check went back to the model: %q", r.LastUser())
		}
		if len(r.Messages) > 0 {
			turns++
		}
	}
	if turns != 2 {
		t.Fatalf("%d model turns, want 2 as without checks", turns)
	}
}
