package nvim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
)

// TestAnswersReadWhole: a plan opens whole in a window of its own when the
// run ends (cursor left in the code), :AgentAnswer shows a long answer
// whole, :AgentLog takes the cursor into the log.
func TestAnswersReadWhole(t *testing.T) {
	t.Parallel()
	plan := "Plan:\n1. Read greet.go.\n2. Return \"HELLO\" instead of \"hello\".\n3. Nothing else changes."
	answer := "The greeting is built in greet.go.\n\nIt returns a constant string; nothing else calls it.\nLast line of the answer."
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(req.LastUser(), "explain") {
			return llmtest.Text(answer)
		}
		return llmtest.Text(plan)
	})
	r := runScript(t, "run_answer.lua", options{env: modelEnv(srv), files: map[string]string{"greet.go": greetGo}})
	if got := r.str(t, "plan_status"); got != "finished" {
		t.Fatalf("plan run %s", got)
	}
	if got := r.str(t, "plan_text"); !strings.Contains(got, plan) || !strings.Contains(got, ":AgentApprove") {
		t.Errorf("plan window:\n%s\nwant the whole plan and how to approve it", got)
	}
	if !r.boolean(t, "cursor_stayed") {
		t.Error("the plan window took the cursor")
	}
	if r.boolean(t, "plan_modifiable") {
		t.Error("the plan buffer is modifiable")
	}
	if !r.boolean(t, "answer_focused") {
		t.Error(":AgentAnswer did not move the cursor to the answer")
	}
	if got := r.str(t, "answer_text"); !strings.Contains(got, answer) {
		t.Errorf(":AgentAnswer shows:\n%s\nwant the whole answer", got)
	}
	if !r.boolean(t, "log_focused") {
		t.Error(":AgentLog left the cursor in the code window")
	}
	var hinted bool
	for _, n := range r.Notifications {
		hinted = hinted || strings.Contains(n.Msg, ":AgentAnswer")
	}
	if !hinted {
		t.Errorf("no message says how to read the answer whole: %+v", r.Notifications)
	}
}
