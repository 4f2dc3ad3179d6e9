package review

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/memo"
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
	path = v.docs.StorePath(path)
	enc := v.core.Session().Encoding
	store := v.state().store
	hunks := store.HunksAtLSP(path, r, enc)
	if len(hunks) == 0 {
		return nil
	}
	var out []protocol.CommandOrCodeAction
	preferred := false
	runs := map[string]bool{}
	for _, h := range hunks {
		runs[h.RunID] = true
	}
	diagsOn := !v.diags.off.Load()
	var notes map[string]map[string]string // run → hunk → problem note
	if diagsOn && v.anyProblems(runs, path) {
		// Placing problems on hunks needs the whole proposals; most
		// requests have none to place and skip the snapshot.
		notes = map[string]map[string]string{}
		for _, pr := range store.ListLSP(path, enc) {
			notes[pr.RunID] = v.hunkProblemNotes(pr)
		}
	}
	for i := range hunks {
		h := &hunks[i] // a Hunk is large: copies of it grew every request's stack
		suffix := ""
		switch {
		case len(runs) > 1 && h.Source == "":
			suffix = fmt.Sprintf(" at line %d (%s)", h.Range.Start.Line+1, proposal.Origin(*h))
		case len(hunks) > 1:
			suffix = fmt.Sprintf(" at line %d", h.Range.Start.Line+1)
		}
		// The hunk's preview diagnostic links the actions to it, for
		// clients that list the fixes of the diagnostic at point. A lazy
		// list leaves it to codeAction/resolve (which answers the whole
		// action): these actions are refactors, not quick fixes, so no
		// client files them under the diagnostic before they are opened,
		// and the two copies were over a third of the answer's bytes,
		// which is what the round trip now costs (docs/performance.md).
		var diags []protocol.Diagnostic
		if diagsOn && !lazy {
			diags = []protocol.Diagnostic{v.hunkDiags.of(h, notes[h.RunID][h.ID])}
		}
		if h.Status == proposal.StatusPending {
			a := reviewAction(lazy, "Agent: Accept "+proposal.Noun(*h)+suffix, CommandAccept, h.ID)
			a.Diagnostics = diags
			if !preferred {
				a.IsPreferred, preferred = core.Ptr(true), true
			}
			out = append(out, a)
		}
		a := reviewAction(lazy, "Agent: Reject "+proposal.Noun(*h)+suffix, CommandReject, h.ID)
		a.Diagnostics = diags
		out = append(out, a)
	}
	return out
}

// ActionsGen is what the review actions depend on besides the document
// and the request, for the code action cache (lspserver/runs/actioncache.go):
// the proposal store's generation, and whether preview diagnostics are
// off (the actions carry none then). Language-server problems placed on
// hunks move core.Server.ActionsGen (Problems).
func (v *Review) ActionsGen() (store uint64, previewOff bool) {
	return v.state().store.Gen(), v.diags.off.Load()
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

// hunkDiagMemo remembers hunk diagnostics for the code actions: editors
// ask for them on every cursor move, and building each (the change's
// message, its data) was most of review's share of a request. A hunk's
// text never changes under its id; its status, reason and range are in
// the key. The zero value is ready.
type hunkDiagMemo struct {
	m memo.Map[hunkDiagKey, struct{}, protocol.Diagnostic]
}

type hunkDiagKey struct {
	id, run, reason, note string
	status                proposal.Status
	rng                   text.Range
}

// maxHunkDiags bounds the memo; it is emptied when full (hunks decided
// long ago are not asked about again).
const maxHunkDiags = 1024

// of is hunkDiagnostic(h, note), remembered.
func (m *hunkDiagMemo) of(h *proposal.Hunk, note string) protocol.Diagnostic {
	k := hunkDiagKey{id: h.ID, run: h.RunID, reason: h.Reason, note: note, status: h.Status, rng: h.Range}
	if d, ok := m.m.Get(k, struct{}{}); ok {
		return d
	}
	d := hunkDiagnostic(*h, note)
	m.m.Put(k, struct{}{}, d)
	return d
}
