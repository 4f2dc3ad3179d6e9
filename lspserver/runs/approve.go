package runs

import (
	"context"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Approvals (design §6): a tool that needs the user's consent (run_command,
// off unless tools.runCommand is "ask") asks through
// window/showMessageRequest, which every LSP client has. Deny is the
// default: a dismissed prompt, an error or an answer that is not one of the
// actions denies.
//
// "Allow for this session" allows the same action (same tool, same
// command line) again without asking for the rest of this editor session
// (the LSP connection), in every run; it is deliberately not a blanket
// approval of the tool: a different command asks again.

// Approval actions offered to the user.
const (
	actionAllowOnce    = "Allow once"
	actionAllowSession = "Allow for this session"
	actionDeny         = "Deny"
)

// approvalChoices are the approval's actions as agent.Decide reads them.
var approvalChoices = []agent.Choice{
	{ID: actionAllowOnce, Allow: true},
	{ID: actionAllowSession, Allow: true, Always: true},
	{ID: actionDeny},
}

// sessionApprovals remembers "Allow for this session" answers.
type sessionApprovals struct {
	mu      sync.Mutex
	allowed map[string]bool // tool + "\x00" + summary
}

func (a *sessionApprovals) has(req tools.ApprovalRequest) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.allowed[req.Tool+"\x00"+req.Summary]
}

func (a *sessionApprovals) add(req tools.ApprovalRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.allowed == nil {
		a.allowed = map[string]bool{}
	}
	a.allowed[req.Tool+"\x00"+req.Summary] = true
}

// editorApprover is a run's tools.Approver.
type editorApprover struct {
	s        *Runs
	runID    string
	progress *runProgress
}

// Approve implements tools.Approver with window/showMessageRequest. It
// runs on the tool's goroutine (never the read loop), so it may wait for
// the user; cancelling the run withdraws the question ($/cancelRequest).
func (a *editorApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	if a.s.approvals.has(req) {
		return tools.AllowOnce, nil
	}
	a.progress.report(ctx, "waiting for your approval: "+text.Clip(req.Summary, 80))
	c, err := a.s.core.Ask(ctx, protocol.MessageTypeWarning,
		fmt.Sprintf("Agent run %s wants to use %s:\n%s", a.runID, req.Tool, req.Summary), approvalChoices)
	if err != nil && ctx.Err() != nil {
		return tools.Deny, ctx.Err()
	} else if err != nil {
		a.s.log.Warn("approval request failed; denying", "run", a.runID, "tool", req.Tool, "err", err)
	}
	decision := tools.Deny
	switch {
	case c.Allow && c.Always:
		a.s.approvals.add(req)
		decision = tools.AllowOnce // the session memory above, not the tool-wide one
	case c.Allow:
		decision = tools.AllowOnce
	}
	a.s.log.Info("approval", "run", a.runID, "tool", req.Tool, "allowed", decision != tools.Deny)
	return decision, nil
}
