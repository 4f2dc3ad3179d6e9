package agent

import (
	"context"
	"sync"

	"github.com/agentls/agentls/tools"
)

// Approvals are a connection's "allow for this session" answers to a
// tool's request for consent (run_command), kept across its runs. What is
// remembered is the action, not the tool: the same tool with the same
// summary (the command line) is allowed again without asking, a
// different command asks again. So an "always" never becomes the tool's
// run-wide tools.AllowAlways, which would let any later command through.
type Approvals struct {
	mu      sync.Mutex
	allowed map[string]bool // tool + "\x00" + summary
}

func approvalKey(req tools.ApprovalRequest) string { return req.Tool + "\x00" + req.Summary }

// Approve decides req: a remembered action is allowed without asking;
// otherwise ask puts the question to the user, and only a clear yes
// allows (an error denies). A yes for always is remembered. When the
// question ends because ctx did (the run was cancelled), the error is
// ctx's, so the tool call ends with the run.
func (a *Approvals) Approve(ctx context.Context, req tools.ApprovalRequest, ask func(context.Context) (Choice, error)) (tools.Decision, error) {
	key := approvalKey(req)
	a.mu.Lock()
	known := a.allowed[key]
	a.mu.Unlock()
	if known {
		return tools.AllowOnce, nil
	}
	c, err := ask(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Deny, ctx.Err()
		}
		return tools.Deny, nil
	}
	if !c.Allow {
		return tools.Deny, nil
	}
	if c.Always {
		a.mu.Lock()
		if a.allowed == nil {
			a.allowed = map[string]bool{}
		}
		a.allowed[key] = true
		a.mu.Unlock()
	}
	return tools.AllowOnce, nil
}
