package runs

import (
	"context"
	"fmt"

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

// editorApprover is a run's tools.Approver.
type editorApprover struct {
	s        *Runs
	runID    string
	progress *runProgress
}

// Approve implements tools.Approver with window/showMessageRequest
// (agent.Approvals keeps the session's answers). It runs on the tool's
// goroutine (never the read loop), so it may wait for the user;
// cancelling the run withdraws the question ($/cancelRequest).
func (a *editorApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	d, err := a.s.approvals.Approve(ctx, req, func(ctx context.Context) (agent.Choice, error) {
		a.progress.report(ctx, "waiting for your approval: "+text.Clip(req.Summary, 80))
		c, err := a.s.core.Ask(ctx, protocol.MessageTypeWarning,
			fmt.Sprintf("Agent run %s wants to use %s:\n%s", a.runID, req.Tool, req.Summary), approvalChoices)
		if err != nil && ctx.Err() == nil {
			a.s.log.Warn("approval request failed; denying", "run", a.runID, "tool", req.Tool, "err", err)
		}
		return c, err
	})
	if err == nil {
		a.s.log.Info("approval", "run", a.runID, "tool", req.Tool, "allowed", d != tools.Deny)
	}
	return d, err
}
