package desk

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
)

// Accepting and rejecting. Review never calls into a run: accepting or
// rejecting hunks produces agent.Decisions (the texts the run's
// changeset should now hold), which the face hands to the run's session
// (agent.Session.Decide); a run still working applies them at its next
// step, and the session tells the model on its next run.

// acceptAttempts bounds how often an accept is recomputed because the
// document changed between computing the edit and checking it.
const acceptAttempts = 3

// ReasonChanging is the failure of an accept whose document kept changing
// while its edit was prepared.
const ReasonChanging = "the document kept changing while the edit was prepared; accept again"

// ErrChanging: the document kept changing while the accept was planned;
// the plan returned with it carries the conflicts, nothing else.
var ErrChanging = errors.New(ReasonChanging)

// Plan computes the accept of the hunks f selects on the documents as
// src has them now. A plan computed on an older text is never returned:
// when a file no longer is what the plan was computed on (text, version,
// open state, or the file is gone while the plan does not create it),
// the store is brought up to date and the plan computed again, at most
// acceptAttempts times (then ErrChanging). The caller lands the plan and
// then calls Settle, or Store().Failed.
func (d *Desk) Plan(src Source, f proposal.Filter, enc text.Encoding) (proposal.AcceptPlan, error) {
	for attempt := 1; ; attempt++ {
		plan, err := d.store.Accept(f, enc)
		if err != nil || plan.Empty() {
			return plan, err
		}
		stale := d.staleFiles(src, plan)
		if len(stale) == 0 {
			return plan, nil
		}
		d.store.Failed(plan, ReasonChanging)
		if attempt == acceptAttempts {
			return proposal.AcceptPlan{Conflicts: plan.Conflicts}, ErrChanging
		}
		for _, path := range stale {
			d.Resync(src, path)
		}
	}
}

// staleFiles returns the plan's files whose document no longer is the
// text (or version, or open state) the plan was computed on.
func (d *Desk) staleFiles(src Source, plan proposal.AcceptPlan) []string {
	var out []string
	for _, fe := range plan.Files {
		if buf, open := src.Buffer(fe.Path); open {
			if fe.Version == nil || buf.Version == nil || *fe.Version != *buf.Version || buf.Text != fe.Before {
				out = append(out, fe.Path)
			}
			continue
		}
		doc, err := src.Read(fe.Path)
		if err != nil || fe.Version != nil || doc.Open || doc.Text != fe.Before || (doc.Missing && !fe.Created) {
			out = append(out, fe.Path)
		}
	}
	return out
}

// PlanRuns returns, per file of plan, the runs whose hunks it applies
// and how many of each. Call it before the plan lands (landing drops
// the hunks).
func (d *Desk) PlanRuns(plan proposal.AcceptPlan) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, fe := range plan.Files {
		for _, id := range fe.HunkIDs {
			if h, ok := d.store.Hunk(id); ok {
				if out[fe.Path] == nil {
					out[fe.Path] = map[string]int{}
				}
				out[fe.Path][h.RunID]++
			}
		}
	}
	return out
}

// Settle records an accept whose edit landed: the store lets its hunks
// go, and the decisions (one per run and file, runs from PlanRuns) are
// returned for the runs' sessions, which tell the next run, record the
// fate in the run's transcript and keep the revert snapshot.
func (d *Desk) Settle(plan proposal.AcceptPlan, runs map[string]map[string]int) []agent.Decision {
	d.store.Applied(plan)
	var decisions []agent.Decision
	for _, fe := range plan.Files {
		for _, run := range slices.Sorted(maps.Keys(runs[fe.Path])) {
			dec := d.Decision(run, fe.Path, true, fe.Expected, "", runs[fe.Path][run])
			dec.LandedBefore, dec.LandedAfter, dec.Created = fe.Before, fe.Expected, fe.Created
			decisions = append(decisions, dec)
		}
	}
	return decisions
}

// Decision is the decision on runID's change to path after the user
// accepted (applied is the document text the accepted edit produced) or
// rejected hunks of it, with the texts the store now holds (see
// agent.Decision).
func (d *Desk) Decision(runID, path string, accepted bool, applied, reason string, hunks int) agent.Decision {
	dec := agent.Decision{RunID: runID, Path: path, Accepted: accepted, Applied: applied, Reason: reason, Hunks: hunks}
	if p, ok := d.Proposal(runID, path); ok {
		res := p.Result()
		dec.Remaining = &res
		if accepted {
			dec.Applied = p.Text
		}
	}
	return dec
}

// Reject rejects the hunks the filters select and returns how many, with
// one decision per run and file (in the order met), carrying reason and
// the document as src has it now (what the session remembers the file
// as, to tell the next run what changed since).
func (d *Desk) Reject(src Source, reason string, filters ...proposal.Filter) (int, []agent.Decision) {
	type key struct{ run, path string }
	var touched []key
	count := map[key]int{}
	seen := map[string]bool{}
	for _, f := range filters {
		for _, h := range d.store.Select(f) {
			if seen[h.ID] {
				continue
			}
			seen[h.ID] = true
			k := key{h.RunID, h.Path}
			if count[k] == 0 {
				touched = append(touched, k)
			}
			count[k]++
		}
	}
	n := 0
	for _, f := range filters {
		n += d.store.Reject(f)
	}
	decisions := make([]agent.Decision, 0, len(touched))
	for _, k := range touched {
		dec := d.Decision(k.run, k.path, false, "", reason, count[k])
		if doc, err := src.Read(k.path); err == nil {
			dec.Document = doc.Text
		}
		decisions = append(decisions, dec)
	}
	return n, decisions
}

// PlanHunks are the ids of the hunks plan applies, file by file.
func PlanHunks(plan proposal.AcceptPlan) []string {
	var out []string
	for _, fe := range plan.Files {
		out = append(out, fe.HunkIDs...)
	}
	return out
}

// PlanFileNames names plan's files for a message.
func PlanFileNames(plan proposal.AcceptPlan) string {
	names := make([]string, len(plan.Files))
	for i, fe := range plan.Files {
		names[i] = filepath.Base(fe.Path)
	}
	return strings.Join(names, ", ")
}

// ConflictText lists why selected hunks could not be applied.
func ConflictText(cs []proposal.Conflict) string {
	if len(cs) == 0 {
		return "no pending change matches"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.HunkID+": "+c.Reason)
	}
	return strings.Join(parts, "; ")
}

// JoinReason joins two rejection reasons, once each.
func JoinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || b == a:
		return a
	}
	return a + "; " + b
}
