package lspserver

import (
	"github.com/agentls/agentls/lspserver/proposal"
	"github.com/agentls/agentls/tools"
)

// Staging: a preview run's changeset entries become proposals, and what the
// user decides on those proposals flows back into the run's changeset.
//
// # Changeset ↔ store mapping
//
// The store's proposal for (run, path) is built from the changeset entry:
// Put(base = entry.Base, proposed = entry.Text), then rebased onto the
// document as the editor has it. When the user accepts or rejects hunks of
// a run that is still active (its changeset registered with
// registerRunChanges), the entry is rewritten so the agent's later reads
// and edits see the file as it now stands:
//
//   - accepted hunks: MarkApplied(path, T), T being the document text after
//     the edit landed; the run treats T as its own (no CONFLICT against
//     itself);
//   - hunks of the run still in the store: SetProposed(path, R) with R =
//     Proposal.Result(), the current text with the run's pending hunks
//     applied. Conflicted hunks cannot apply to the current text and are
//     left out: the agent sees the user's text there, and a later edit by
//     the agent re-proposes only what its staged text still holds;
//   - nothing of the run left after an accept: SetProposed(path, T) (the
//     entry no longer proposes anything); after a reject: Discard(path),
//     which also makes the run read the file again before editing it.
//
// While review rewrites an entry, stagePreview calls for that (run, path)
// are ignored (the changeset notifies its subscribers synchronously, and
// the store already holds the result).

// registerRunChanges tells review that runID is an active preview run whose
// staged edits live in cs, so that accepting or rejecting its hunks updates
// cs (see the mapping above) and stagePreview always stages cs's latest
// entry. The runs half calls it when a preview run starts; forgetRun (or the
// returned function) unregisters it. Runs never registered still get
// proposals; only the feedback into their changeset is skipped.
func (s *Server) registerRunChanges(runID string, cs *tools.Changeset) (unregister func()) {
	r := s.rv()
	r.mu.Lock()
	r.runs[runID] = cs
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.runs[runID] == cs {
			delete(r.runs, runID)
		}
		r.mu.Unlock()
	}
}

// stagePreview is called by the runs half when a preview-mode run stages
// (or restages) a change to path. f is the changeset's current entry; when
// the run is registered its latest entry is read again, so calls that
// arrive late or out of order never stage an older text.
func (s *Server) stagePreview(runID string, f tools.StagedFile) {
	r := s.rv()
	r.mu.Lock()
	cs, syncing := r.runs[runID], r.syncing[runPath{runID, f.Path}] > 0
	r.mu.Unlock()
	if syncing {
		return
	}
	if cs != nil {
		cur, ok := cs.Get(f.Path)
		if !ok {
			cur = tools.StagedFile{Path: f.Path} // discarded: nothing proposed
		}
		f = cur
	}
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
	r := s.rv()
	r.store.ForgetRun(runID)
	r.mu.Lock()
	delete(r.runs, runID)
	r.mu.Unlock()
}

// syncRunChanges rewrites the changeset entry of runID for path after the
// user accepted (applied is the document text the accepted edit produced)
// or rejected hunks of it (applied == ""), per the mapping above. It must
// be called without holding docMu: the changeset notifies synchronously.
//
// A tool edit of the same run landing between the entry read here and the
// rewrite can be overwritten (Changeset has no compare-and-set); the
// agent's next read then shows the file without it and the run redoes it.
func (s *Server) syncRunChanges(runID, path string, accepted bool, applied string) {
	r := s.rv()
	key := runPath{runID, path}
	r.mu.Lock()
	cs := r.runs[runID]
	if cs == nil {
		r.mu.Unlock()
		return
	}
	r.syncing[key]++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.syncing[key]--; r.syncing[key] <= 0 {
			delete(r.syncing, key)
		}
		r.mu.Unlock()
	}()

	f, ok := cs.Get(path)
	if !ok {
		return
	}
	var remaining *string
	var current string
	for _, p := range r.store.List(path) {
		if p.RunID == runID {
			res := p.Result()
			remaining, current = &res, p.Text
		}
	}
	if accepted {
		if remaining != nil {
			applied = current
		}
		cs.MarkApplied(path, applied)
	}
	switch {
	case remaining != nil:
		if *remaining != f.Text {
			cs.SetProposed(path, *remaining)
		}
	case accepted:
		cs.SetProposed(path, applied)
	default:
		cs.Discard(path)
	}
}
