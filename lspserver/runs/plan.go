package runs

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Plan mode (agentls.run with mode "plan"): the run gets read-only tools
// plus todo_write and ends with a plan as its answer. The plan waits for
// the user's approval (agent.Plans, which also keeps it across restarts):
// agentls.approvePlan (or the code action "Agent: Approve plan", for
// plugin-less clients) continues the plan's session with a preview-mode
// run that carries the plan out.

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

// planDir is where plans awaiting approval are written (agent.Plans),
// "" when nothing is written (sessions kept in memory only, or no state
// directory).
func (rs *Runs) planDir() string {
	if dir := rs.stateDir(); dir != "" {
		return filepath.Join(dir, "plans")
	}
	return ""
}

// restorePlans puts the saved plans of this workspace's sessions back,
// once (after the sessions are restored).
func (rs *Runs) restorePlans() { rs.plans.Restore(rs.sessions().Has) }

// planFinished records a finished plan run for approval and returns the
// note for the end-of-run message.
func (rs *Runs) planFinished(r *run, out agent.Outcome) string {
	if !rs.plans.RunFinished(r.ID, r.Session.ID(), r.mode, out) {
		return ""
	}
	return "plan ready for review: approve it with the code action “Agent: Approve plan” (" + CommandApprovePlan + ")"
}

// approvePlanCommand implements agentls.approvePlan.
func (rs *Runs) approvePlanCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var a ApprovePlanArgs
	if err := decodeArg(CommandApprovePlan, raw, &a); err != nil {
		return nil, err
	}
	var res any
	_, err := rs.plans.Approve(a.RunID, func(p agent.WaitingPlan) (err error) {
		args, _ := json.Marshal(RunArgs{Prompt: p.CarryOut(), SessionID: p.SessionID, Mode: config.ModePreview}) // strings only
		res, err = rs.runCommand(ctx, args)
		return err
	})
	switch {
	case errors.Is(err, agent.ErrNoPlan) && a.RunID != "":
		return nil, core.InvalidParams("%s: run %s has no plan awaiting approval (it is not a finished plan-mode run, or it was approved already)", CommandApprovePlan, a.RunID)
	case errors.Is(err, agent.ErrNoPlan):
		return nil, core.InvalidParams("%s: no plan awaits approval; start one with %s and mode %q", CommandApprovePlan, CommandRun, ModePlan)
	}
	return res, err
}

// approvePlanAction is the code action approving the latest plan, offered
// anywhere while one waits.
func (rs *Runs) approvePlanAction(lazy bool) *protocol.CodeAction {
	p, ok := rs.plans.Latest()
	if !ok {
		return nil
	}
	title := "Agent: Approve plan “" + text.Clip(text.Headline(p.Plan), 60) + "”"
	if lazy {
		return &protocol.CodeAction{Title: title, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite)}
	}
	arg, _ := json.Marshal(ApprovePlanArgs{RunID: p.RunID})
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandApprovePlan, Arguments: []protocol.LSPAny{arg}},
	}
}

// planAction is the code action starting a plan-mode run on the range.
func planAction(lazy bool, u string, r protocol.Range) *protocol.CodeAction {
	const title = "Agent: Plan changes to this code…"
	if lazy {
		return &protocol.CodeAction{Title: title, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite)}
	}
	arg, _ := json.Marshal(RunArgs{Prompt: promptPlan, URI: u, Range: &r, Mode: ModePlan}) // strings and numbers only
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: title, Command: CommandRun, Arguments: []protocol.LSPAny{arg}},
	}
}

const promptPlan = "Plan how to improve the selected code (correctness, clarity, tests): which files change, what changes and why, in order. Do not edit anything yet."

// MethodPlans lists the plans awaiting approval: editors offer approval
// from a palette or a run list, not only from a transient notification.
const MethodPlans = "agentls/plans"

// PlanInfo is one plan awaiting approval in PlansResult.
type PlanInfo struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
	// Title is the plan's headline, clipped for a picker.
	Title string `json:"title"`
}

// PlansResult is agentls/plans' result, newest first.
type PlansResult struct {
	Plans []PlanInfo `json:"plans"`
}

// ListPlans answers agentls/plans.
func (rs *Runs) ListPlans(context.Context, *struct{}) (*PlansResult, error) {
	out := &PlansResult{Plans: []PlanInfo{}}
	for _, p := range rs.plans.List() {
		out.Plans = append(out.Plans, PlanInfo{RunID: p.RunID, SessionID: p.SessionID, Title: text.Clip(text.Headline(p.Plan), 80)})
	}
	return out, nil
}
