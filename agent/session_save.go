package agent

import (
	"log/slog"
	"sync"

	"github.com/agentls/agentls/agent/proposal"
)

// Saving a session with the proposals still in review is one rule for every
// face (LSP, ACP, the CLI): what a save keeps of each proposal, and how it
// merges with what another agentls on the same workspace saved meanwhile.

// SavedProposals is what a save keeps of sess's proposals among pending (the
// proposal store's list): a new file as created from nothing (the editor
// may show its empty buffer as one line ending), a change by what still
// applies against the text it applies to, and a proposal whose every hunk
// conflicted as the original change (a restore rebases it into the same
// conflicts).
func SavedProposals(pending []proposal.Proposal, sess *Session) []SavedProposal {
	var out []SavedProposal
	for _, p := range pending {
		if !sess.HasRun(p.RunID) {
			continue
		}
		switch res := p.Result(); {
		case p.Created && p.HasPending():
			out = append(out, SavedProposal{RunID: p.RunID, Path: p.Path, Base: "", Proposed: res, Created: true})
		case res != p.Text:
			out = append(out, SavedProposal{RunID: p.RunID, Path: p.Path, Base: p.Text, Proposed: res, Created: p.Created})
		case len(p.Hunks) > 0:
			out = append(out, SavedProposal{RunID: p.RunID, Path: p.Path, Base: p.Base, Proposed: p.Proposed, Created: p.Created})
		}
	}
	return out
}

// ProposalStates is what a follow-up run of sess is told about the
// session's proposals still in review.
func ProposalStates(pending []proposal.Proposal, sess *Session) []ProposalState {
	var out []ProposalState
	for _, p := range pending {
		if !sess.HasRun(p.RunID) {
			continue
		}
		st := ProposalState{RunID: p.RunID, Path: p.Path, Created: p.Created}
		st.Pending, st.Conflicted, st.Reasons = p.Tally()
		out = append(out, st)
	}
	return out
}

// ReviewMerge is what a face's review does when a save finds the session's
// file changed by another agentls: Drop a proposal decided there, Restore
// (stage) one made there, reporting false when it is refused.
type ReviewMerge interface {
	Drop(p SavedProposal)
	Restore(p SavedProposal) bool
}

// SessionSaver saves one server's sessions to a SessionStore with
// merge-on-write: each save merges with what another server on the same
// workspace saved since this one last read or wrote the file. A proposal
// this server saw on disk that is gone now was decided there, so it is
// dropped here too (it must not be applied twice); one on disk this server
// never saw was made there, so it joins review here.
type SessionSaver struct {
	Store *SessionStore
	Log   *slog.Logger

	saveMu sync.Mutex // one save at a time: each merges with the file as the last one left it
	mu     sync.Mutex
	onDisk map[string]map[string]bool // per session: the proposals last read from or written to its file
}

// Loaded records the proposals this server read from session id's file.
func (sv *SessionSaver) Loaded(id string, props []SavedProposal) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.onDisk == nil {
		sv.onDisk = map[string]map[string]bool{}
	}
	sv.onDisk[id] = savedKeys(props)
}

// Forget drops what the saver knows of session id (deleted).
func (sv *SessionSaver) Forget(id string) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	delete(sv.onDisk, id)
}

// Save writes sess with its proposals among pending, merged with the file
// as another server may have left it; r applies the merge to the face's
// review. A nil saver or store saves nothing.
func (sv *SessionSaver) Save(sess *Session, pending []proposal.Proposal, redact *Redactor, r ReviewMerge) error {
	if sv == nil || sv.Store == nil || sess == nil {
		return nil
	}
	sv.saveMu.Lock()
	defer sv.saveMu.Unlock()
	props := sv.merge(sess.ID(), SavedProposals(pending, sess), r)
	if redact == nil {
		redact = NewRedactor()
	}
	if err := sv.Store.Save(sess, props, redact); err != nil {
		return err
	}
	sv.Loaded(sess.ID(), props)
	return nil
}

func (sv *SessionSaver) merge(id string, props []SavedProposal, r ReviewMerge) []SavedProposal {
	disk, err := sv.Store.LoadOne(id)
	if err != nil {
		return props // no file yet (or unreadable: it is replaced)
	}
	log := sv.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sv.mu.Lock()
	prev := sv.onDisk[id]
	sv.mu.Unlock()
	now, ours := savedKeys(disk.Proposals), savedKeys(props)
	kept := props[:0:0]
	for _, p := range props {
		if prev[savedKey(p)] && !now[savedKey(p)] {
			log.Info("proposal decided in another agentls on this workspace; dropped here", "session", id, "run", p.RunID, "path", p.Path)
			r.Drop(p)
			continue
		}
		kept = append(kept, p)
	}
	for _, p := range disk.Proposals {
		if k := savedKey(p); !ours[k] && !prev[k] && r.Restore(p) {
			log.Info("proposal made in another agentls on this workspace; shown here too", "session", id, "run", p.RunID, "path", p.Path)
			kept = append(kept, p)
		}
	}
	return kept
}

func savedKey(p SavedProposal) string { return p.RunID + "\x00" + p.Path }

func savedKeys(ps []SavedProposal) map[string]bool {
	out := make(map[string]bool, len(ps))
	for _, p := range ps {
		out[savedKey(p)] = true
	}
	return out
}
