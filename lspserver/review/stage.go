package review

import (
	"github.com/agentls/agentls/tools"
)

// Staging: data flows one way, from runs to review to sessions. A preview
// run reports each staged change as an agent.EventStaged event; the runs
// part passes the entry to Stage, and the desk (agent/desk) owns the
// proposal from then on. Accepting or rejecting hunks produces
// agent.Decisions that the wiring (lspserver) hands to the run's session
// (runs.Runs.Decide); review never calls into a run.

// Stage puts a preview run's staged (or restaged, or discarded) entry
// for f.Path into review (desk.Desk.Stage), rebased onto the document
// as the editor has it.
func (v *Review) Stage(runID string, f tools.StagedFile) { v.state().desk.Stage(v.src, runID, f) }

// Drop removes runID's proposal for path, if there is one.
func (v *Review) Drop(runID, path string) { v.state().desk.Drop(runID, path) }

// ForgetRun is called when a run ends and its proposals have been handed
// over (or the run is dropped); its pending hunks stay listed for review.
func (v *Review) ForgetRun(runID string) { v.state().desk.ForgetRun(runID) }

// SourceNextEdit is the source of next-edit suggestions on the wire
// (agentls/proposals "source").
const SourceNextEdit = "next-edit"

// Suggest puts a next-edit suggestion for path (proposed: what the
// model's edits make of base) into review in place of the document's
// earlier one (desk.Desk.Suggest); only open documents get suggestions.
func (v *Review) Suggest(path, base, proposed string) {
	v.state().desk.Suggest(v.src, SourceNextEdit, path, base, proposed)
}
