package review

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/desk"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
)

// Accept and reject (agentls.accept / agentls.reject, docs/protocol.md). The
// server never writes a file itself: an accept is a workspace/applyEdit
// whose outcome is checked before the store lets the hunks go
// (verify.go: synchronously when the editor shows the edit at once,
// after the command's answer when it shows it late).

// Failure reasons returned in AcceptResult.FailureReason.
const (
	reasonNotApplied = desk.ReasonNotShown
	reasonNoApply    = "the editor does not support workspace/applyEdit, so agentls cannot apply changes"
)

// acceptCommand implements agentls.accept. It runs as a released request,
// so it may call the client. The decisions it returns (one per run and
// file whose hunks were applied) are for the runs' sessions; an accept
// whose edit the editor shows only after this answer returns none and
// passes them to the OnDecided callback once it shows (verify.go).
func (v *Review) acceptCommand(ctx context.Context, a Args) (AcceptResult, []agent.Decision, error) {
	r := v.state()
	filter, err := v.reviewFilter(a)
	if err != nil {
		return AcceptResult{}, nil, err
	}
	if !v.core.Session().Features.ApplyEdit {
		return AcceptResult{FailureReason: reasonNoApply}, nil, nil
	}
	out, err := r.desk.Accept(v.src, filter, v.core.Session().Encoding, "", func(l desk.ToWrite) error { return v.land(ctx, l) })
	res := AcceptResult{Conflicts: v.conflicts(out.Plan.Conflicts)}
	switch {
	case errors.Is(err, desk.ErrChanging):
		res.FailureReason = desk.ReasonChanging
	case errors.Is(err, proposal.ErrNotFound):
		return AcceptResult{}, nil, core.InvalidParams("agentls.accept: %v", err)
	case err != nil:
		return AcceptResult{}, nil, core.RequestFailed("agentls.accept: %v", err)
	case out.Plan.Empty():
		res.FailureReason = nothingAccepted(out.Plan)
	case out.Failed != "":
		res.FailureReason = out.Failed
	default:
		res.Applied, res.AppliedHunks, res.Verifying = true, desk.PlanHunks(out.Plan), out.Later
	}
	return res, out.Decisions, nil
}

// land is the accept's writer (desk.Desk.Accept): it sends the plan with
// workspace/applyEdit and checks that the edit shows (verify.go). The
// watch starts before sending: the didChange may come before the answer.
func (v *Review) land(ctx context.Context, l desk.ToWrite) error {
	w := v.state().desk.WatchLanding(v.view, l.Plan, v.landingBounds())
	if reason := v.sendPlan(ctx, l.Plan); reason != "" {
		w.Stop()
		return errors.New(reason)
	}
	switch w.Check(ctx) {
	case desk.LandingCancelled:
		w.Stop()
		return fmt.Errorf("accept cancelled before the edit could be checked: %w", ctx.Err())
	case desk.LandingMissing:
		w.Stop()
		return errors.New(reasonNotApplied)
	case desk.LandingLate:
		// The editor may send the didChange only now that it has our
		// answer, and from a timer: Confirm gives it the whole bound.
		v.core.Go("confirm accept", func(sctx context.Context) { v.confirmLater(sctx, w, l.Plan, l.Runs) })
		return desk.ErrLandsLater
	}
	w.Stop()
	return nil
}

// sendPlan sends plan with workspace/applyEdit and returns "" when the
// editor answered that it applied it, else the reason for the user.
// Whether the edit really landed is checked after (desk.Landing.Check).
func (v *Review) sendPlan(ctx context.Context, plan proposal.AcceptPlan) string {
	files := make([]docs.FileEdit, len(plan.Files))
	for i, fe := range plan.Files {
		files[i] = docs.FileEdit{Path: fe.Path, Version: fe.Version, Created: fe.Created, Edits: fe.TextEdits}
	}
	label := "Agent: accept change"
	ar, err := v.core.Client().ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: v.docs.WorkspaceEdit(files)})
	switch {
	case err != nil:
		return fmt.Sprintf("the editor did not apply the edit: %v", err)
	case !ar.Applied:
		if ar.FailureReason != nil && *ar.FailureReason != "" {
			return *ar.FailureReason
		}
		return "the editor refused the edit"
	}
	return ""
}

// nothingAccepted is the failure of an accept whose plan holds no edit.
func nothingAccepted(plan proposal.AcceptPlan) string {
	if n := len(plan.Conflicts); n > 0 {
		return fmt.Sprintf("nothing was applied: %d selected change(s) cannot be applied (see conflicts)", n)
	}
	return "nothing to accept: no pending change matches"
}

// conflicts converts the store's conflicts for the result.
func (v *Review) conflicts(cs []proposal.Conflict) []HunkConflict {
	var out []HunkConflict
	for _, c := range cs {
		out = append(out, HunkConflict{URI: string(v.docs.URIOf(c.Path)), HunkID: c.HunkID, Reason: c.Reason})
	}
	return out
}

// rejectCommand implements agentls.reject. The decisions it returns (one
// per run and file whose hunks were dropped, with the user's reason) are
// for the runs' sessions; a reject without a reason from a client that
// cannot type one returns none and passes them to OnReason's functions
// (reason.go).
func (v *Review) rejectCommand(_ context.Context, a Args) (RejectResult, []agent.Decision, error) {
	r := v.state()
	filter, err := v.reviewFilter(a)
	if err != nil {
		return RejectResult{}, nil, err
	}
	n, decisions := r.desk.Reject(v.src, a.Reason, filter)
	if a.Reason == "" && len(decisions) > 0 && v.asksReason() {
		v.rejectAsking(decisions)
		return RejectResult{Rejected: n, AskingReason: true}, nil, nil
	}
	return RejectResult{Rejected: n}, decisions, nil
}

// reviewFilter turns accept/reject arguments into a store filter; a hunk id
// the store does not hold is InvalidParams.
func (v *Review) reviewFilter(a Args) (proposal.Filter, error) {
	f := proposal.Filter{RunID: a.RunID, HunkID: a.HunkID}
	if a.URI != "" {
		u, err := uri.Parse(a.URI)
		if err != nil {
			return f, core.InvalidParams("invalid uri %q: %v", a.URI, err)
		}
		f.Path = v.docs.PathOf(u)
	}
	if a.HunkID != "" {
		if _, ok := v.state().store.Hunk(a.HunkID); !ok {
			return f, core.InvalidParams("no pending change with hunkId %q (it was accepted, rejected, or never existed)", a.HunkID)
		}
	}
	return f, nil
}
