package lspserver

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/proposal"
	"github.com/agentls/agentls/tools"
)

// Staging: data flows one way, from runs to review to sessions.
//
//   - A preview run reports each staged change as an agent.EventStaged
//     event; the runs part passes the entry to stagePreview, which puts it
//     in the store as Put(base = entry.Base, proposed = entry.Text) and
//     rebases it onto the document as the editor has it. The run emits the
//     events in order from its own goroutine, reading the changeset when
//     it emits, so review never sees an older text after a newer one.
//   - Review owns the proposals from then on. Accepting or rejecting hunks
//     produces agent.Decisions (decisionsFor): the texts the run's
//     changeset should now hold. The command layer hands them to the
//     run's session as inputs (runs.go, decide); a run still working
//     applies them at its next step, and the session tells the model on
//     its next run. Review never calls into a run, so no echo of its own
//     change comes back and no re-entrancy guard is needed.

// stagePreview puts a preview run's staged (or restaged, or discarded)
// entry for f.Path into the store. A discarded entry (only Path set,
// Pending false) drops what the store holds for the run and path.
func (s *Server) stagePreview(runID string, f tools.StagedFile) {
	r := s.rv()
	if !f.Pending() {
		s.dropProposal(runID, f.Path)
		return
	}
	r.docMu.Lock()
	snap, open := s.view.Overlay(f.Path)
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
	s.resyncClosed(f.Path)
}

// dropProposal removes runID's proposal for path, if there is one (a Put
// whose proposed text equals its base removes it). Select, not List: a
// snapshot would join the document's text for nothing.
func (s *Server) dropProposal(runID, path string) {
	r := s.rv()
	if len(r.store.Select(proposal.Filter{RunID: runID, Path: path})) > 0 {
		r.store.Put(runID, path, "", nil, "", false)
	}
}

// forgetRun is called when a run ends and its proposals have been handed
// over (or the run is dropped); its pending hunks stay listed for review.
func (s *Server) forgetRun(runID string) {
	s.rv().store.ForgetRun(runID)
}

// decisionFor is the decision on runID's change to path after the user
// accepted (applied is the document text the accepted edit produced) or
// rejected hunks of it, with the texts the store now holds (see
// agent.Decision).
func (s *Server) decisionFor(runID, path string, accepted bool, applied, reason string, hunks int) agent.Decision {
	d := agent.Decision{RunID: runID, Path: path, Accepted: accepted, Applied: applied, Reason: reason, Hunks: hunks}
	for _, p := range s.rv().store.List(path) {
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
