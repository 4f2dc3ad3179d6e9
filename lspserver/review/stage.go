package review

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/tools"
)

// Staging: data flows one way, from runs to review to sessions.
//
//   - A preview run reports each staged change as an agent.EventStaged
//     event; the runs part passes the entry to Stage, which puts it
//     in the store as Put(base = entry.Base, proposed = entry.Text) and
//     rebases it onto the document as the editor has it. The run emits the
//     events in order from its own goroutine, reading the changeset when
//     it emits, so review never sees an older text after a newer one.
//   - Review owns the proposals from then on. Accepting or rejecting hunks
//     produces agent.Decisions (decisionsFor): the texts the run's
//     changeset should now hold. The wiring (lspserver) hands them to the
//     run's session as inputs (runs.Runs.Decide); a run still working
//     applies them at its next step, and the session tells the model on
//     its next run. Review never calls into a run, so no echo of its own
//     change comes back and no re-entrancy guard is needed.

// Stage puts a preview run's staged (or restaged, or discarded)
// entry for f.Path into the store. A discarded entry (only Path set,
// Pending false) drops what the store holds for the run and path.
func (v *Review) Stage(runID string, f tools.StagedFile) {
	r := v.state()
	if !f.Pending() {
		v.Drop(runID, f.Path)
		return
	}
	r.docMu.Lock()
	snap, open := v.view.Overlay(f.Path)
	var baseVersion *int32
	if open && snap.Text == f.Base {
		baseVersion = snap.Version
	}
	r.store.Put(runID, f.Path, f.Base, baseVersion, f.Text, f.Created)
	if open {
		// The store must see the document as it is now: the user may have
		// typed while the run worked.
		r.store.DocumentChanged(f.Path, snap.Version, snap.Text)
		r.docMu.Unlock()
		return
	}
	r.docMu.Unlock()
	v.resyncClosed(f.Path)
}

// Drop removes runID's proposal for path, if there is one (a Put
// whose proposed text equals its base removes it). Select, not List: a
// snapshot would join the document's text for nothing.
func (v *Review) Drop(runID, path string) {
	r := v.state()
	if len(r.store.Select(proposal.Filter{RunID: runID, Path: path})) > 0 {
		r.store.Put(runID, path, "", nil, "", false)
	}
}

// ForgetRun is called when a run ends and its proposals have been handed
// over (or the run is dropped); its pending hunks stay listed for review.
func (v *Review) ForgetRun(runID string) {
	v.state().store.ForgetRun(runID)
}

// decisionFor is the decision on runID's change to path after the user
// accepted (applied is the document text the accepted edit produced) or
// rejected hunks of it, with the texts the store now holds (see
// agent.Decision).
func (v *Review) decisionFor(runID, path string, accepted bool, applied, reason string, hunks int) agent.Decision {
	d := agent.Decision{RunID: runID, Path: path, Accepted: accepted, Applied: applied, Reason: reason, Hunks: hunks}
	for _, p := range v.state().store.List(path) {
		if p.RunID == runID {
			res := p.Result()
			d.Remaining = &res
			if accepted {
				d.Applied = p.Text
			}
		}
	}
	return d
}

// SourceNextEdit is the source of next-edit suggestions on the wire
// (agentls/proposals "source").
const SourceNextEdit = "next-edit"

// Suggest puts a next-edit suggestion for path (proposed: what the
// model's edits make of base) into the store in place of the document's
// earlier one, rebased onto the document as the editor has it now; a
// suggestion that changes nothing drops the earlier one. Only open
// documents get suggestions.
func (v *Review) Suggest(path, base, proposed string) {
	r := v.state()
	r.docMu.Lock()
	defer r.docMu.Unlock()
	snap, open := v.view.Overlay(path)
	if !open || base == proposed {
		r.store.DropSuggestion(SourceNextEdit, path)
		return
	}
	var baseVersion *int32
	if snap.Text == base {
		baseVersion = snap.Version
	}
	if r.store.Suggest(SourceNextEdit, path, base, baseVersion, proposed) != "" {
		r.store.DocumentChanged(path, snap.Version, snap.Text)
	}
}
