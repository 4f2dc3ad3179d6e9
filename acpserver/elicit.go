package acpserver

import (
	"context"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/tools/mcp"
)

// MCP elicitation over ACP. ACP has no request for a form, so an MCP
// server's elicitation/create is asked with session/request_permission
// when mcp.AskWithoutForm makes a question of it: on a tool call of its
// own showing the question, one option per choice (allow_once for an
// answer, reject_once for "Decline"; the option id is the choice's
// title). An option that was not offered declines (fail closed); a
// cancelled request, a cancelled prompt or the run's wall clock
// (maxWallClockSeconds) cancels. A URL-mode request shows the address:
// "Open" tells the server the user goes there (ACP cannot ask the editor
// to open it). Any other form is declined at once, the tool call saying
// why.

// elicitTurn is the prompt an MCP server's question is bounded by: a
// session's MCP servers outlive its prompts, and the request reaches
// agentls on the server's connection, not the tool call's context.
type elicitTurn struct {
	mu  sync.Mutex
	ctx context.Context // the prompt's, with the run's wall clock; nil between prompts
}

// begin makes ctx the turn questions are asked in, until end.
func (t *elicitTurn) begin(ctx context.Context) (end func()) {
	t.mu.Lock()
	t.ctx = ctx
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		if t.ctx == ctx {
			t.ctx = nil
		}
		t.mu.Unlock()
	}
}

func (t *elicitTurn) current() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ctx
}

// elicit answers an MCP server's elicitation/create (mcp.Options.Elicit).
func (ss *session) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitResult, error) {
	decline := mcp.ElicitResult{Action: mcp.ElicitDecline}
	turn := ss.asking.current()
	if turn == nil { // no prompt: nobody to ask
		ss.srv.log.Info("MCP elicitation declined: no prompt in progress", "session", ss.id, "server", e.Server)
		return decline, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(turn, func() { cancel(context.Cause(turn)) })()

	q := mcp.AskWithoutForm(e)
	id := ss.nextToolID("elicit")
	title := fmt.Sprintf("MCP server %q asks", e.Server)
	content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(q.Text))}
	if q.Declined != "" {
		ss.srv.log.Info("MCP elicitation declined: an ACP client shows no forms", "session", ss.id, "server", e.Server, "reason", q.Declined)
		content = append(content, acp.ToolContent(acp.TextBlock("agentls declined: "+q.Declined+" (ACP has no forms).")))
		ss.update(ctx, acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindOther),
			acp.WithStartStatus(acp.ToolCallStatusFailed), acp.WithStartContent(content)))
		return decline, nil
	}
	ss.update(ctx, acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindOther),
		acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartContent(content)))
	opts := make([]acp.PermissionOption, len(q.Choices))
	for i, c := range q.Choices {
		kind := acp.PermissionOptionKindRejectOnce
		if c.Accept {
			kind = acp.PermissionOptionKindAllowOnce
		}
		opts[i] = acp.PermissionOption{OptionId: acp.PermissionOptionId(c.Title), Name: c.Title, Kind: kind}
	}
	tc := acp.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: acp.Ptr(acp.ToolKindOther), Status: acp.Ptr(acp.ToolCallStatusPending), Content: content}
	finish := func(status acp.ToolCallStatus, note string) { // the question stays shown, with what became of it
		ss.update(ctx, acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
			acp.WithUpdateContent(append(content[:1:1], acp.ToolContent(acp.TextBlock(note))))))
	}
	a, err := ss.ask(ctx, id, &tc, opts, nil)
	if err != nil {
		finish(acp.ToolCallStatusFailed, "Not answered: "+err.Error()+".")
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	res := q.Answer(a.raw)
	switch {
	case res.Action == mcp.ElicitAccept:
		finish(acp.ToolCallStatusCompleted, "Answered: "+a.raw)
	case a.ID == "":
		finish(acp.ToolCallStatusFailed, "Declined: "+unofferedReason(a.raw)+".")
	default:
		finish(acp.ToolCallStatusCompleted, "Declined.")
	}
	return res, nil
}
