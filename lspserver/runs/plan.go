package runs

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Plan mode (agentls.run with mode "plan"): the run gets read-only tools
// plus todo_write and ends with a plan as its answer. The plan waits for
// the user's approval: agentls.approvePlan (or the code action "Agent:
// Approve plan", for plugin-less clients) continues the plan's session
// with a preview-mode run that carries the plan out. Plans awaiting
// approval live in memory only; after a restart the session (and the
// plan in its history) is still there to continue.

// CommandApprovePlan approves a plan and starts the run that carries it
// out; its result is agentls.run's.
const CommandApprovePlan = "agentls.approvePlan"

// ModePlan is agentls.run's mode for a planning run.
const ModePlan = agent.ModePlan

// ApprovePlanArgs is arguments[0] of agentls.approvePlan: the plan run's
// id, or none for the latest plan awaiting approval.
type ApprovePlanArgs struct {
	RunID string `json:"runId,omitempty"`
}

// promptCarryOut starts the run that carries out an approved plan. The
// plan is quoted in full: the session's history may have been compacted.
const promptCarryOut = "The user approved your plan. Carry it out now, step by step, keeping your todo list up to date. The plan:\n\n"

// maxPlansWaiting bounds the plans kept for approval (oldest dropped).
const maxPlansWaiting = 20

type waitingPlan struct {
	runID, sessionID, plan string
}

// planBook holds the finished plans that await approval, oldest first.
type planBook struct {
	mu    sync.Mutex
	plans []waitingPlan
}

func (b *planBook) add(p waitingPlan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.plans = append(b.plans, p)
	if len(b.plans) > maxPlansWaiting {
		b.plans = b.plans[len(b.plans)-maxPlansWaiting:]
	}
}

// take removes and returns the plan of runID ("" = the latest).
func (b *planBook) take(runID string) (waitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.plans) - 1; i >= 0; i-- {
		if runID == "" || b.plans[i].runID == runID {
			p := b.plans[i]
			b.plans = append(b.plans[:i], b.plans[i+1:]...)
			return p, true
		}
	}
	return waitingPlan{}, false
}

// latest returns the newest plan awaiting approval.
func (b *planBook) latest() (waitingPlan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.plans) == 0 {
		return waitingPlan{}, false
	}
	return b.plans[len(b.plans)-1], true
}

// planFinished records a finished plan run for approval and returns the
// note for the end-of-run message.
func (rs *Runs) planFinished(r *run, out agent.Outcome) string {
	if r.mode != ModePlan || out.Status != agent.StatusFinished || strings.TrimSpace(out.Answer) == "" {
		return ""
	}
	rs.plans.add(waitingPlan{runID: r.id, sessionID: r.session.ID(), plan: strings.TrimSpace(out.Answer)})
	return "plan ready for review: approve it with the code action “Agent: Approve plan” (" + CommandApprovePlan + ")"
}

// approvePlanCommand implements agentls.approvePlan.
func (rs *Runs) approvePlanCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var a ApprovePlanArgs
	if err := decodeArg(CommandApprovePlan, raw, &a); err != nil {
		return nil, err
	}
	p, ok := rs.plans.take(a.RunID)
	if !ok {
		if a.RunID != "" {
			return nil, core.InvalidParams("%s: run %s has no plan awaiting approval (it is not a finished plan-mode run, or it was approved already)", CommandApprovePlan, a.RunID)
		}
		return nil, core.InvalidParams("%s: no plan awaits approval; start one with %s and mode %q", CommandApprovePlan, CommandRun, ModePlan)
	}
	args, _ := json.Marshal(RunArgs{Prompt: promptCarryOut + p.plan, SessionID: p.sessionID, Mode: config.ModePreview}) // strings only
	res, err := rs.runCommand(ctx, args)
	if err != nil {
		rs.plans.add(p) // still waiting: the user can try again
		return nil, err
	}
	rs.log.Info("plan approved", "planRun", p.runID, "session", p.sessionID)
	return res, nil
}

// approvePlanAction is the code action approving the latest plan, offered
// anywhere while one waits.
func (rs *Runs) approvePlanAction() *protocol.CodeAction {
	p, ok := rs.plans.latest()
	if !ok {
		return nil
	}
	title := "Agent: Approve plan “" + text.Clip(text.FirstLine(p.plan), 60) + "”"
	arg, _ := json.Marshal(ApprovePlanArgs{RunID: p.runID})
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandApprovePlan, Arguments: []protocol.LSPAny{arg}},
	}
}

// planAction is the code action starting a plan-mode run on the range.
func planAction(u string, r protocol.Range) *protocol.CodeAction {
	const title = "Agent: Plan changes to this code…"
	arg, _ := json.Marshal(RunArgs{Prompt: promptPlan, URI: u, Range: &r, Mode: ModePlan}) // strings and numbers only
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandRun, Arguments: []protocol.LSPAny{arg}},
	}
}

const promptPlan = "Plan how to improve the selected code (correctness, clarity, tests): which files change, what changes and why, in order. Do not edit anything yet."
