package acpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// A run's events as session/update notifications:
//
//	EventText        agent_message_chunk (sub-agents' text is left out)
//	EventToolCall    tool_call: title in words, kind, locations, rawInput
//	EventStaged      tool_call_update with the diff, then review (review.go),
//	                 or, with checks configured, held for the end of the
//	                 turn (turnreview.go)
//	EventToolResult  tool_call_update: completed or failed, the outcome
//	EventTodo        plan
//	EventProblems    lines added to the edit's tool_call_update: what the
//	                 language server found in its change
//	EventCheckStarted a tool_call of kind execute ("Check NAME"), in progress
//	EventCheck       its tool_call_update: completed or failed, with the
//	                 core's line (agent.CheckLine: verdict, elapsed time)
//	                 and the check's output
//	EventCheckRunning its content while it runs ("check test running (20.0s)")
//	EventLangServer  a tool_call "Start language server NAME", in progress
//	                 ("starting language server gopls…"), then completed
//	                 ("… ready (3.1s)") or failed
//
// Tool call ids are "RUN:CALL" (the model's call ids repeat across runs).

// turnEvents maps one run's events; OnEvent calls it one event at a time.
type turnEvents struct {
	ss    *session
	ctx   context.Context // the prompt's: permission requests end with it
	calls map[acp.ToolCallId]*callState
	// lastEdit and lastCommand are the latest mutating tool calls: a staged
	// change belongs to the edit running now, an approval to the command
	// (mutating tools run one at a time).
	lastEdit, lastCommand acp.ToolCallId
	answered              bool // the run streamed some text
	// checkCall is the tool call of the check running now
	// (EventCheckStarted to its EventCheck), "" when none.
	checkCall acp.ToolCallId
	// servers are the tool calls of language servers starting now.
	servers map[string]acp.ToolCallId
	// hold says staged changes wait for the end of the turn (checks are
	// configured); held lists them in the order first staged.
	hold bool
	held []heldChange
}

// callState is what a tool call showed so far.
type callState struct {
	tool    string
	diffs   []acp.ToolCallContent
	notes   []string
	refused bool // a change of it was rejected or could not be written
	// problems are what the language server found in the call's changes
	// (one line per file that got problems).
	problems []string
}

func newTurnEvents(ss *session, ctx context.Context) *turnEvents {
	return &turnEvents{ss: ss, ctx: ctx, calls: map[acp.ToolCallId]*callState{}}
}

func toolCallID(runID, callID string) acp.ToolCallId { return acp.ToolCallId(runID + ":" + callID) }

// handle is the run's OnEvent.
func (te *turnEvents) handle(ev agent.Event) {
	ss := te.ss
	switch ev.Kind {
	case agent.EventText:
		if ev.ParentRunID == "" && ev.Text != "" {
			te.answered = true
			ss.update(te.ctx, acp.UpdateAgentMessageText(ev.Text))
		}
	case agent.EventToolCall:
		id := toolCallID(ev.RunID, ev.CallID)
		te.calls[id] = &callState{tool: ev.Tool}
		switch ev.Tool {
		case "edit_file", "write_file", "multi_edit", "rename":
			te.lastEdit = id
		case "run_command":
			te.lastCommand = id
		}
		title := ss.toolTitle(ev.Tool, ev.Args)
		if ev.ParentRunID != "" {
			title = "Sub-agent: " + title
		}
		opts := []acp.ToolCallStartOpt{acp.WithStartKind(toolKind(ev.Tool)), acp.WithStartStatus(acp.ToolCallStatusInProgress)}
		if locs := ss.toolLocations(ev.Args); len(locs) > 0 {
			opts = append(opts, acp.WithStartLocations(locs))
		}
		opts = append(opts, acp.WithStartRawInput(json.RawMessage(ev.Args)))
		ss.update(te.ctx, acp.StartToolCall(id, title, opts...))
	case agent.EventStaged:
		te.staged(ev)
	case agent.EventToolResult:
		id := toolCallID(ev.RunID, ev.CallID)
		st := te.calls[id]
		if st == nil {
			st = &callState{tool: ev.Tool}
		}
		status := acp.ToolCallStatusCompleted
		if ev.IsError || st.refused {
			status = acp.ToolCallStatusFailed
		}
		content := append([]acp.ToolCallContent(nil), st.diffs...)
		msg := ev.Summary
		if ev.IsError && strings.TrimSpace(ev.Text) != "" {
			msg = text.Clip(ev.Text, 4000)
		}
		if len(st.notes) > 0 {
			msg = strings.Join(st.notes, "\n")
		}
		if len(st.problems) > 0 {
			msg = strings.TrimSpace(msg + "\n" + strings.Join(st.problems, "\n"))
		}
		if msg != "" {
			content = append(content, acp.ToolContent(acp.TextBlock(msg)))
		}
		ss.update(te.ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent(content)))
		delete(te.calls, id)
	case agent.EventProblems:
		// The edit running now made the change the language server judged.
		if st := te.calls[te.lastEdit]; st != nil && ev.Problems.Introduced > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "⚠ %s introduces %d problem(s)", ss.display(ev.Path), ev.Problems.Introduced)
			for i, p := range ev.Problems.Items {
				if i == 10 {
					break
				}
				fmt.Fprintf(&b, "\n%s:%d: %s", ss.display(ev.Path), p.Range.Start.Line+1, p.Message)
			}
			st.problems = append(st.problems, b.String())
		}
	case agent.EventCheckStarted:
		te.checkStarted(ev.Check.Name)
	case agent.EventCheck:
		te.check(ev.Check)
	case agent.EventCheckRunning:
		if te.checkCall != "" {
			ss.update(te.ctx, acp.UpdateToolCall(te.checkCall, acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(ev.Summary))})))
		}
	case agent.EventLangServer:
		te.langServer(ev)
	case agent.EventTodo:
		if ev.ParentRunID != "" {
			return
		}
		entries := make([]acp.PlanEntry, 0, len(ev.Todos))
		for _, t := range ev.Todos {
			entries = append(entries, acp.PlanEntry{Content: t.Content, Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatus(t.Status)})
		}
		ss.update(te.ctx, acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{Entries: entries}})
	}
}

// checkStarted shows a check that starts as a tool call of its own, in
// progress (clients list it with the run's commands), and returns its id.
func (te *turnEvents) checkStarted(name string) acp.ToolCallId {
	id := te.ss.nextToolID("check")
	te.checkCall = id
	te.ss.update(te.ctx, acp.StartToolCall(id, "Check "+name, acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
	return id
}

// check shows one check's result on its tool call, its output as the
// content.
func (te *turnEvents) check(c *tools.CheckResult) {
	if c == nil {
		return
	}
	ss := te.ss
	id := te.checkCall
	if id == "" {
		id = te.checkStarted(c.Name)
	}
	te.checkCall = ""
	status := acp.ToolCallStatusCompleted
	if !c.Passed {
		status = acp.ToolCallStatusFailed
	}
	msg := agent.CheckLine(*c) + "\n" + c.Output
	if c.NotRun {
		// ACP has no status for "did not run"; the text says it, first,
		// as the output begins "could not run: <the shell's line>".
		msg = fmt.Sprintf("check %s %s", c.Name, c.Output)
	}
	ss.update(te.ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(msg))})))
}

// langServer shows a language server the run waits for as a tool call of
// its own: in progress while it starts, completed when ready, failed when
// it could not start; its text is the core's line.
func (te *turnEvents) langServer(ev agent.Event) {
	if te.servers == nil {
		te.servers = map[string]acp.ToolCallId{}
	}
	id, ok := te.servers[ev.Server]
	content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(ev.Summary))}
	if ev.Starting || !ok {
		id = te.ss.nextToolID("lang")
		te.servers[ev.Server] = id
		te.ss.update(te.ctx, acp.StartToolCall(id, "Start language server "+ev.Server, acp.WithStartKind(acp.ToolKindOther),
			acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartContent(content)))
		if ev.Starting {
			return
		}
	}
	delete(te.servers, ev.Server)
	status := acp.ToolCallStatusCompleted
	if ev.Err != nil {
		status = acp.ToolCallStatusFailed
	}
	te.ss.update(te.ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status), acp.WithUpdateContent(content)))
}

// staged shows a staged change on its tool call, then reviews it.
func (te *turnEvents) staged(ev agent.Event) {
	ss, s := te.ss, te.ss.srv
	s.stage(ss, ev.RunID, ev.Staged)
	defer ss.save()
	if !ev.Staged.Pending() {
		return
	}
	if ev.Staged.Created || tools.Blank(ev.Staged.Base) {
		// A follow-up's own version of a new file an earlier run of the
		// session left pending (held by its checks) replaces it.
		for _, old := range s.review.SupersedeNew(ss.core, ev.Path, ev.RunID) {
			s.log.Info("new file proposal replaced by a later run of its session", "session", ss.id, "path", ev.Path, "run", old, "by", ev.RunID)
		}
	}
	id := te.lastEdit
	st := te.calls[id]
	if st == nil {
		id = ss.nextToolID("change")
		st = &callState{tool: "edit"}
		te.calls[id] = st
		ss.update(te.ctx, acp.StartToolCall(id, "Edit "+ss.display(ev.Path), acp.WithStartKind(acp.ToolKindEdit),
			acp.WithStartStatus(acp.ToolCallStatusInProgress)))
	}
	d := diffContent(ev.Path, ev.Staged.Base, ev.Staged.Text, ev.Staged.Created)
	st.diffs = append(st.diffs, d)
	line := 1
	if p, ok := s.review.Proposal(ev.RunID, ev.Path); ok {
		line = firstLine(p)
	}
	ss.update(te.ctx, acp.UpdateToolCall(id, acp.WithUpdateContent(st.diffs),
		acp.WithUpdateLocations([]acp.ToolCallLocation{{Path: ev.Path, Line: acp.Ptr(line)}})))
	if te.hold {
		te.held = desk.Hold(te.held, heldChange{RunID: ev.RunID, Path: ev.Path})
		note := ss.display(ev.Path) + ": not written yet; asked about at the end of the turn, once the checks pass."
		if !slices.Contains(st.notes, note) {
			st.notes = append(st.notes, note)
		}
		return
	}
	res := ss.reviewChange(te.ctx, id, ev.RunID, ev.Path, "")
	if res.note != "" {
		st.notes = append(st.notes, ss.display(ev.Path)+": "+res.note)
	}
	if res.written == 0 && !res.pending {
		st.refused = true
	}
}

// Approve implements tools.Approver for run_command: the command is asked
// about with session/request_permission on its tool call, under the
// core's rule (agent.Approvals): "always" allows that command again in
// the session, never every later command of the run.
func (te *turnEvents) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	id := te.lastCommand
	if id == "" {
		id = te.ss.nextToolID("approval")
	}
	title := "Run " + req.Summary
	tc := acp.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: acp.Ptr(acp.ToolKindExecute), Status: acp.Ptr(acp.ToolCallStatusPending)}
	return te.ss.approvals.Approve(ctx, req, func(ctx context.Context) (agent.Choice, error) {
		a, err := te.ss.ask(ctx, id, &tc, []acp.PermissionOption{
			{OptionId: optAllow, Name: "Run once", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: optAllowAlways, Name: "Always allow this command in this session", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: optReject, Name: "Don't run", Kind: acp.PermissionOptionKindRejectOnce},
		}, nil)
		return a.Choice, err
	})
}

// toolKind is the ACP kind of a tool, for the client's icon.
func toolKind(tool string) acp.ToolKind {
	switch tool {
	case "read_file", "skill":
		return acp.ToolKindRead
	case "list_dir", "glob", "grep", "tool_search":
		return acp.ToolKindSearch
	case "edit_file", "write_file", "multi_edit":
		return acp.ToolKindEdit
	case "run_command":
		return acp.ToolKindExecute
	case "todo_write", "task":
		return acp.ToolKindThink
	}
	return acp.ToolKindOther
}

// toolArgs are the arguments a tool call's location is made from (its
// title comes from agent.StepPhrase).
type toolArgs struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
}

// toolTitle is the tool call in words ("Reading main.go"), as the LSP
// front-end's progress says it (agent.StepPhrase).
func (ss *session) toolTitle(tool string, raw json.RawMessage) string {
	p := agent.StepPhrase(tool, raw, 80)
	return strings.ToUpper(p[:1]) + p[1:]
}

// toolLocations is the file a tool call works on, absolute, with its line.
func (ss *session) toolLocations(raw json.RawMessage) []acp.ToolCallLocation {
	var a toolArgs
	if json.Unmarshal(raw, &a) != nil || strings.TrimSpace(a.Path) == "" {
		return nil
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(ss.cwd, p)
	}
	loc := acp.ToolCallLocation{Path: filepath.Clean(p)}
	if a.Offset != nil && *a.Offset > 0 {
		loc.Line = acp.Ptr(*a.Offset)
	}
	return []acp.ToolCallLocation{loc}
}

// display is path as the session's messages name it (View.DisplayName).
func (ss *session) display(path string) string { return ss.view.DisplayName(path) }
