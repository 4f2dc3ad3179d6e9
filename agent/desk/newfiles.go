package desk

import (
	"slices"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/tools"
)

// A session's follow-up and a new file an earlier run of it proposed
// (docs/sessions-and-plans.md, "A follow-up and a pending new file"): the
// follow-up's tools see the pending text (PendingNew), so they read it
// before they write over it, and its own version then supersedes the
// earlier proposal (Desk.SupersedeNew). Proposals of other sessions are left
// alone: those clash as usual. Both faces keep the rule (ACP did not,
// and its held changes met a follow-up's second proposal for the file).

// PendingNew is the new file at path that an earlier run of sess (not
// runID) proposed and that is still pending in props (the proposals in
// review for path); the latest such proposal when there are several. It
// is what tools.Env.PendingNewFile answers (agent.Setup.PendingNew).
func PendingNew(props []proposal.Proposal, sess *agent.Session, runID string) (tools.PendingNew, bool) {
	var out tools.PendingNew
	found := false
	for _, p := range props {
		if p.Created && p.RunID != runID && sess.HasRun(p.RunID) && p.HasPending() {
			out, found = tools.PendingNew{RunID: p.RunID, Text: p.Proposed}, true
		}
	}
	return out, found
}

// earlierNew lists the runs of sess before runID whose proposals to
// create the file are in props (the proposals in review for its path):
// runID's own proposal to create it supersedes them.
func earlierNew(props []proposal.Proposal, sess *agent.Session, runID string) []string {
	if sess == nil {
		return nil
	}
	runs := sess.Info().Runs
	at := slices.Index(runs, runID)
	if at <= 0 {
		return nil
	}
	var out []string
	for _, p := range props {
		if p.Created && p.RunID != runID && slices.Contains(runs[:at], p.RunID) {
			out = append(out, p.RunID)
		}
	}
	return out
}

// SupersedeNew replaces the proposals to create path that earlier runs
// of sess left in d (earlierNew) with runID's; it returns the runs
// superseded.
func (d *Desk) SupersedeNew(sess *agent.Session, path, runID string) []string {
	var done []string
	for _, old := range earlierNew(d.store.List(path), sess, runID) {
		if d.store.ReplaceCreated(path, old, runID) > 0 {
			done = append(done, old)
		}
	}
	return done
}
