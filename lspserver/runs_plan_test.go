package lspserver_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// TestPlanAndSubAgentEvents drives todo_write and a task sub-agent through
// the real protocol: the plan arrives as a runEvent of kind todo and as the
// $/progress text, and the sub-agent's events carry parentRunId with their
// own runId and seq, while the parent's own sequence stays gapless.
func TestPlanAndSubAgentEvents(t *testing.T) {
	t.Parallel()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(req.System(), "You are a sub-agent") {
			if req.HasTool("edit_file") || req.HasTool("task") || req.HasTool("todo_write") {
				return llmtest.Text("WRONG TOOLS " + strings.Join(req.ToolNames(), ","))
			}
			if !req.HasToolResult("g1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "g1", Name: "grep", Args: callArgs(map[string]any{"pattern": "hello"})})
			}
			return llmtest.Text("hello is in notes.txt line 1")
		}
		switch {
		case !req.HasToolResult("p1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "p1", Name: "todo_write", Args: callArgs(map[string]any{"todos": []map[string]string{
				{"content": "find the greeting", "status": "in_progress"},
				{"content": "report it", "status": "pending"},
			}})})
		case !req.HasToolResult("t1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "t1", Name: "task", Args: callArgs(map[string]any{"description": "find greeting", "prompt": "Where is hello?"})})
		default:
			res, _ := req.ToolResult("t1")
			return llmtest.Text("Sub-agent said: " + res)
		}
	}
	rs := newRunSession(t, script, runOpts{})
	rs.write(t, "notes.txt", "hello\n")
	id := rs.start(t, lspserver.RunArgs{Prompt: "Find the greeting"})
	evs := rs.events(t, id)
	checkSeq(t, evs)
	todo := firstOf(t, evs, "todo")
	if len(todo.Todos) != 2 || todo.Todos[0].Content != "find the greeting" || todo.Todos[0].Status != "in_progress" {
		t.Fatalf("todo event = %+v", todo)
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Text == nil || *fin.Text != "Sub-agent said: hello is in notes.txt line 1" {
		t.Fatalf("finished = %+v", fin)
	}

	// The sub-agent's events: their own run id and seq, parentRunId set.
	var sub []lspserver.RunEvent
	for _, m := range rs.c.Received() {
		if m.Method != lspserver.MethodRunEvent {
			continue
		}
		var e lspserver.RunEvent
		if json.Unmarshal(m.Params, &e) == nil && e.ParentRunID == id {
			sub = append(sub, e)
		}
	}
	if len(sub) == 0 {
		t.Fatal("no sub-agent events")
	}
	checkSeq(t, sub)
	if got := kinds(sub); !slices.Equal(got, []string{"started", "usage", "toolCall", "toolResult", "text", "usage", "finished"}) {
		t.Fatalf("sub-agent events %v", got)
	}
	if sub[0].RunID == id || sub[0].Summary != "find greeting" {
		t.Fatalf("sub started = %+v", sub[0])
	}

	// $/progress shows the current plan item.
	reports := ""
	for _, v := range progressValues(t, rs.c, "agentls-run-"+id) {
		if m, ok := v["message"].(string); ok {
			reports += m + "\n"
		}
	}
	if !strings.Contains(reports, "1/2 · find the greeting") {
		t.Fatalf("progress lacks the plan item:\n%s", reports)
	}
}

// TestPlanModeThenApprove: a plan-mode run is offered read-only tools and
// todo_write only; its answer waits for approval (end message, code
// action); agentls.approvePlan continues the same session in preview mode,
// with the plan and the earlier conversation in the model's request, and
// the edits it makes become proposals.
func TestPlanModeThenApprove(t *testing.T) {
	t.Parallel()
	const plan = "1. In notes.txt, change hello to goodbye."
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "The user approved your plan") {
			if req.HasTool("edit_file") || req.HasTool("write_file") || req.HasTool("multi_edit") || !req.HasTool("todo_write") {
				return llmtest.Text("WRONG TOOLS " + strings.Join(req.ToolNames(), ","))
			}
			if !req.HasToolResult("r1") {
				return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})})
			}
			return llmtest.Text(plan)
		}
		if !req.Contains("WRONG TOOLS") && !req.HasToolResult("r2") {
			return llmtest.ToolCalls(llmtest.Call{ID: "r2", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})})
		}
		if !req.HasToolResult("e1") {
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "notes.txt", "old_string": "hello", "new_string": "goodbye"})})
		}
		return llmtest.Text("Done as planned.")
	}
	rs := newRunSession(t, script, runOpts{})
	rs.write(t, "notes.txt", "hello\n")
	var res lspserver.RunResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "Say goodbye instead", Mode: "plan"}), &res); err != nil {
		t.Fatal(err)
	}
	evs := rs.events(t, res.RunID)
	if evs[0].Mode != "plan" {
		t.Fatalf("started = %+v", evs[0])
	}
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Text == nil || *fin.Text != plan {
		t.Fatalf("plan run ended with %+v", fin)
	}
	rs.showMessage(t, "plan ready for review")

	// Editors list the plans awaiting approval (a palette, a run list).
	var waiting lspserver.PlansResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodPlans, struct{}{}, &waiting); err != nil {
		t.Fatal(err)
	}
	if len(waiting.Plans) != 1 || waiting.Plans[0].RunID != res.RunID || waiting.Plans[0].SessionID != res.SessionID || !strings.HasPrefix(waiting.Plans[0].Title, "1. In notes.txt") {
		t.Fatalf("agentls/plans = %+v, want the plan of run %s", waiting, res.RunID)
	}

	// Plugin-less clients approve through a code action.
	as := codeActionsOf(t, rs.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: rs.fileURI("notes.txt")},
		Range:        rng(0, 0, 0, 0),
	})
	var approve *protocol.CodeAction
	for i := range as {
		if strings.HasPrefix(as[i].Title, "Agent: Approve plan") {
			approve = &as[i]
		}
	}
	if approve == nil || approve.Command.Command != lspserver.CommandApprovePlan || !strings.Contains(approve.Title, "1. In notes.txt") {
		t.Fatalf("no approve action in %q", titles(as))
	}
	var next lspserver.RunResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		&protocol.ExecuteCommandParams{Command: approve.Command.Command, Arguments: approve.Command.Arguments}, &next); err != nil {
		t.Fatal(err)
	}
	if next.SessionID != res.SessionID || next.RunID == res.RunID {
		t.Fatalf("approval started %+v; the plan was %+v", next, res)
	}
	evs = rs.events(t, next.RunID)
	if evs[0].Mode != "preview" || evs[len(evs)-1].Kind != "finished" {
		t.Fatalf("carry-out run events %v (started %+v)", kinds(evs), evs[0])
	}
	var props lspserver.ProposalsResult
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || props.Proposals[0].ProposedText != "goodbye\n" {
		t.Fatalf("proposals after the approved run: %+v", props.Proposals)
	}
	// The carry-out request holds the plan and the planning conversation.
	var carry *llmtest.ChatRequest
	for _, r := range rs.model.Requests() {
		if strings.Contains(r.LastUser(), "The user approved your plan") {
			carry = &r.ChatRequest
			break
		}
	}
	if carry == nil || !carry.Contains(plan) || !carry.Contains("Say goodbye instead") {
		t.Fatalf("the carry-out request lacks the plan or the earlier conversation")
	}
	// Approved: no longer listed.
	if err := rs.c.Call(lsptest.Context(t), lspserver.MethodPlans, struct{}{}, &waiting); err != nil || len(waiting.Plans) != 0 {
		t.Fatalf("agentls/plans after approval = %+v, %v", waiting, err)
	}
	// Approved once: a second approval finds nothing.
	err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandApprovePlan, lspserver.ApprovePlanArgs{RunID: res.RunID}), &next)
	if err == nil || !strings.Contains(err.Error(), "has no plan awaiting approval") {
		t.Fatalf("second approval: %v", err)
	}
}

// TestSkillLoadedOnDemand: a workspace skill is listed by name and
// description in the system prompt, its body is not; the model loads it
// with the skill tool and the body comes back as the tool result.
func TestSkillLoadedOnDemand(t *testing.T) {
	t.Parallel()
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("s1") {
			if !strings.Contains(req.System(), "- release: How to cut a release.") || strings.Contains(req.System(), "RELEASE-STEPS") || !req.HasTool("skill") {
				return llmtest.Text("SKILL NOT LISTED LAZILY")
			}
			return llmtest.ToolCalls(llmtest.Call{ID: "s1", Name: "skill", Args: callArgs(map[string]any{"name": "release"})})
		}
		res, _ := req.ToolResult("s1")
		return llmtest.Text("loaded: " + res)
	}
	rs := newRunSession(t, script, runOpts{})
	rs.write(t, ".agentls/skills/release/SKILL.md", "---\nname: release\ndescription: How to cut a release.\n---\nRELEASE-STEPS: tag, push, announce.\n")
	evs := rs.events(t, rs.start(t, lspserver.RunArgs{Prompt: "Cut a release"}))
	fin := evs[len(evs)-1]
	if fin.Kind != "finished" || fin.Text == nil || !strings.Contains(*fin.Text, "RELEASE-STEPS: tag, push, announce.") {
		t.Fatalf("finished = %+v", fin)
	}
}

// TestPlanApprovedAfterRestart: a plan awaiting approval survives an
// editor restart (its answer document still says how to approve it): the
// next server offers "Agent: Approve plan" for it and agentls.approvePlan
// carries it out in its session, once. A plan of another workspace is not
// offered there.
func TestPlanApprovedAfterRestart(t *testing.T) {
	t.Parallel()
	state, root, other := t.TempDir(), t.TempDir(), t.TempDir()
	const plan = "## Plan\n\n1. Change hello to goodbye." // the title skips the heading
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		if !strings.Contains(req.LastUser(), "The user approved your plan") {
			return llmtest.Text(plan)
		}
		switch {
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "notes.txt"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "notes.txt", "old_string": "hello", "new_string": "goodbye"})})
		}
		return llmtest.Text("Done as planned.")
	}
	writeFile(t, filepath.Join(root, "notes.txt"), "hello\n")
	writeFile(t, filepath.Join(other, "notes.txt"), "hello\n")
	first := stateSession(t, script, state, root)
	planned := runIn(t, first, lspserver.RunArgs{Prompt: "Say goodbye", Mode: "plan"})
	if fin := first.events(t, planned.RunID); fin[len(fin)-1].Kind != "finished" {
		t.Fatalf("plan run: %v", kinds(fin))
	}
	// Another workspace's server does not offer it.
	elsewhere := stateSession(t, script, state, other)
	for _, a := range codeActionsOf(t, elsewhere.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: elsewhere.fileURI("notes.txt")}, Range: rng(0, 0, 0, 0)}) {
		if strings.HasPrefix(a.Title, "Agent: Approve plan") {
			t.Fatalf("another workspace offers %q", a.Title)
		}
	}

	// The editor restarts: a new server on the same state.
	second := stateSession(t, script, state, root)
	var approve *protocol.CodeAction
	as := codeActionsOf(t, second.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: second.fileURI("notes.txt")}, Range: rng(0, 0, 0, 0)})
	for i := range as {
		if strings.HasPrefix(as[i].Title, "Agent: Approve plan") {
			approve = &as[i]
		}
	}
	if approve == nil || approve.Title != "Agent: Approve plan “1. Change hello to goodbye.”" {
		t.Fatalf("after a restart no approve action in %q", titles(as))
	}
	var next lspserver.RunResult
	if err := second.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		&protocol.ExecuteCommandParams{Command: approve.Command.Command, Arguments: approve.Command.Arguments}, &next); err != nil {
		t.Fatalf("approving after a restart: %v", err)
	}
	if next.SessionID != planned.SessionID {
		t.Fatalf("carried out in session %s, the plan's is %s", next.SessionID, planned.SessionID)
	}
	if evs := second.events(t, next.RunID); evs[len(evs)-1].Kind != "finished" {
		t.Fatalf("carry-out run: %v", kinds(evs))
	}
	var props lspserver.ProposalsResult
	if err := second.c.Call(lsptest.Context(t), lspserver.MethodProposals, &lspserver.ProposalsParams{}, &props); err != nil {
		t.Fatal(err)
	}
	if len(props.Proposals) != 1 || props.Proposals[0].ProposedText != "goodbye\n" {
		t.Fatalf("proposals after approving: %+v", props.Proposals)
	}
	// Approved once: neither this server nor a later one approves it again.
	third := stateSession(t, script, state, root)
	for _, s := range []*runSession{second, third} {
		err := s.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
			command(lspserver.CommandApprovePlan, lspserver.ApprovePlanArgs{RunID: planned.RunID}), &next)
		if err == nil || !strings.Contains(err.Error(), "has no plan awaiting approval") {
			t.Fatalf("second approval: %v", err)
		}
	}
}

// TestPlanOfDeletedSession: deleting a session (agentls.deleteSession)
// drops its plan awaiting approval: no "Approve plan" action that can only
// fail, and approving it says there is no plan, now and after a restart.
func TestPlanOfDeletedSession(t *testing.T) {
	t.Parallel()
	state, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "notes.txt"), "hello\n")
	script := func(req *llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("Plan:\n1. Say goodbye.") }
	s := stateSession(t, script, state, root)
	planned := runIn(t, s, lspserver.RunArgs{Prompt: "Say goodbye", Mode: "plan"})
	s.events(t, planned.RunID)
	var del map[string]bool
	if err := s.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, command(lspserver.CommandDeleteSession, map[string]string{"sessionId": planned.SessionID}), &del); err != nil || !del["deleted"] {
		t.Fatalf("deleteSession: %v %v", del, err)
	}
	for _, srv := range []*runSession{s, stateSession(t, script, state, root)} {
		for _, a := range codeActionsOf(t, srv.c, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: srv.fileURI("notes.txt")}, Range: rng(0, 0, 0, 0)}) {
			if strings.HasPrefix(a.Title, "Agent: Approve plan") {
				t.Fatalf("the deleted session's plan is offered: %q", a.Title)
			}
		}
		var next lspserver.RunResult
		err := srv.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
			command(lspserver.CommandApprovePlan, lspserver.ApprovePlanArgs{RunID: planned.RunID}), &next)
		if err == nil || !strings.Contains(err.Error(), "has no plan awaiting approval") {
			t.Fatalf("approving the deleted session's plan: %v", err)
		}
	}
}
