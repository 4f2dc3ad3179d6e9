package agent

import (
	"log/slog"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/tools"
)

// ReviewRestore is the ReviewMerge every face gives its review: a saved
// proposal (restored at start, adopted from another agentls's save, or
// loaded with its session) is checked against the workspace's write rules
// before it joins review, since a session file is input agentls did not
// make this run; one that passes is staged, and its run is forgotten by
// review at once (a restored run is not in progress: its proposals only
// await decisions).
type ReviewRestore struct {
	// View is the workspace the proposals must be writable in.
	View *workspace.View
	// Stage puts a proposal into review; Unstage takes runID's proposal
	// for path out (decided by another agentls); Forget tells review that
	// runID is over.
	Stage   func(runID string, f tools.StagedFile)
	Unstage func(runID, path string)
	Forget  func(runID string)
	Log     *slog.Logger
}

// Drop takes out a proposal another agentls decided.
func (m ReviewRestore) Drop(p SavedProposal) { m.Unstage(p.RunID, p.Path) }

// Restore stages p unless it breaks a write rule (SavedProposal.Restorable),
// which is logged; it reports whether p joined review.
func (m ReviewRestore) Restore(p SavedProposal) bool {
	if err := p.Restorable(m.View); err != nil {
		if m.Log != nil {
			m.Log.Warn("restored proposal refused: it breaks a write rule", "run", p.RunID, "path", p.Path, "err", err)
		}
		return false
	}
	m.Stage(p.RunID, tools.StagedFile{Path: p.Path, Base: p.Base, Text: p.Proposed, Created: p.Created})
	m.Forget(p.RunID)
	return true
}

// RestoreSaved puts the proposals of a session read from the store into
// review through m and reports how many joined. A new file's proposal
// that replaced an earlier one of its session was saved as its original
// change, which the restore made pending again beside the earlier one;
// supersede (desk.Desk.SupersedeNew, nil: none) replaces it again.
func RestoreSaved(r Restored, m ReviewMerge, supersede func(sess *Session, path, runID string)) int {
	n := 0
	for _, p := range r.Proposals {
		if m != nil && m.Restore(p) {
			n++
		}
	}
	if supersede != nil {
		for _, p := range r.Proposals {
			if p.Created {
				supersede(r.Session, p.Path, p.RunID)
			}
		}
	}
	return n
}

// OpenWorkspaceStore opens the session store of folder in the state
// directory that setting names (StateDir); nil when sessions are not
// saved, with the reason logged: a face without a usable state directory
// keeps its sessions in memory and still serves.
func OpenWorkspaceStore(setting string, env func(string) string, folder string, log *slog.Logger) *SessionStore {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir, err := StateDir(setting, env)
	if err != nil {
		log.Warn("sessions are not saved", "err", err)
	}
	if dir == "" {
		return nil
	}
	st, err := OpenSessionStore(dir, folder, log)
	if err != nil {
		log.Warn("sessions are not saved: the state directory is not usable", "err", err)
		return nil
	}
	return st
}
