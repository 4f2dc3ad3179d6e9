package review

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// reviewActionKind is the kind of the accept/reject code actions: accepting
// a proposed change rewrites code, and clients that filter by kind
// (context.only) list refactor.rewrite among the kinds agentls offers.
var reviewActionKind = protocol.CodeActionKindRefactorRewrite

// reviewActions returns "Agent: Accept change" / "Agent: Reject change"
// code actions for the hunks on the lines r touches, at any column (an
// insertion sits on the line it inserts before: Store.HunksAt), in the
// document at path, for clients without code lenses or our plugins.
// Conflicted hunks get only the reject action (they cannot apply). The
// first Accept is the preferred action (isPreferred). When several hunks
// are on those lines the titles name each hunk's first line (and run, when
// there are several), so the user can tell them apart. A suggestion's
// titles say what it is instead of "change" ("Agent: Accept next edit"),
// which already tells it from the runs' hunks.
func (v *Review) reviewActions(path string, r text.Range, lazy bool) []protocol.CommandOrCodeAction {
	hunks := v.state().store.HunksAtLSP(v.docs.StorePath(path), r, v.core.Session().Encoding)
	var out []protocol.CommandOrCodeAction
	preferred := false
	runs := map[string]bool{}
	for _, h := range hunks {
		runs[h.RunID] = true
	}
	notes := map[string]map[string]string{} // run → hunk → problem note
	if len(hunks) > 0 && !v.diags.off.Load() {
		for _, pr := range v.state().store.ListLSP(v.docs.StorePath(path), v.core.Session().Encoding) {
			notes[pr.RunID] = v.hunkProblemNotes(pr)
		}
	}
	for _, h := range hunks {
		suffix := ""
		switch {
		case len(runs) > 1 && h.Source == "":
			suffix = fmt.Sprintf(" at line %d (%s)", h.Range.Start.Line+1, proposal.Origin(h))
		case len(hunks) > 1:
			suffix = fmt.Sprintf(" at line %d", h.Range.Start.Line+1)
		}
		// The hunk's preview diagnostic links the actions to it, for
		// clients that list the fixes of the diagnostic at point.
		var diags []protocol.Diagnostic
		if !v.diags.off.Load() {
			diags = []protocol.Diagnostic{hunkDiagnostic(h, notes[h.RunID][h.ID])}
		}
		if h.Status == proposal.StatusPending {
			a := reviewAction(lazy, "Agent: Accept "+proposal.Noun(h)+suffix, CommandAccept, h.ID)
			a.Diagnostics = diags
			if !preferred {
				a.IsPreferred, preferred = core.Ptr(true), true
			}
			out = append(out, a)
		}
		a := reviewAction(lazy, "Agent: Reject "+proposal.Noun(h)+suffix, CommandReject, h.ID)
		a.Diagnostics = diags
		out = append(out, a)
	}
	return out
}

// reviewAction is one accept or reject action; lazy: without its command.
func reviewAction(lazy bool, title, command, hunkID string) *protocol.CodeAction {
	if lazy {
		return &protocol.CodeAction{Title: title, Kind: core.Ptr(reviewActionKind)}
	}
	return &protocol.CodeAction{
		Title:   title,
		Kind:    core.Ptr(reviewActionKind),
		Command: reviewCommand(title, command, hunkID),
	}
}
