package desk

import (
	"errors"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
)

// The accept sequence every face runs: bring the store up to date, plan
// on the current text, land the plan the face's way, then either settle
// it into decisions or leave its hunks in review with the reason it
// failed. Only the writing differs between faces (an LSP editor's
// workspace/applyEdit, an ACP client's fs/write_text_file or the disk),
// so a face hands Accept its writer and words the Accepted it gets back.

// ErrLandsLater is what a writer returns when its edit went out but shows
// in the document only later (an editor that sends its didChange after
// the command's answer). The writer then owns the accept: it calls
// Settle with the ToWrite's runs once the edit shows, or Store().Failed.
var ErrLandsLater = errors.New("the accepted edit shows in the document later")

// ToWrite is an accept on its way to the documents.
type ToWrite struct {
	Plan proposal.AcceptPlan
	// Runs are the runs whose hunks Plan applies (PlanRuns), read before
	// the edit lands and the store drops its hunks; Settle needs them.
	Runs map[string]map[string]int
}

// Accepted is what became of an accept.
type Accepted struct {
	ToWrite
	// Failed is why the writer failed, "" when it did not. The hunks stay
	// in review with it as their last error: a failed write never drops
	// a change the user accepted.
	Failed string
	// Later: the writer settles the accept itself (ErrLandsLater).
	Later bool
	// Decisions are for the runs' sessions (agent.Session.Decide), one per
	// run and file, carrying the accept's reason; nil unless the edit
	// landed now.
	Decisions []agent.Decision
}

// Landed reports whether the writer landed a plan that applied something
// (now, or later for ErrLandsLater).
func (a Accepted) Landed() bool { return !a.Plan.Empty() && a.Failed == "" }

// Accept accepts the hunks f selects: the store is resynced with the
// documents as src has them (the files of the selected hunks), the
// accept planned on them (Plan: ErrChanging returns the conflicts, an
// empty plan returns with no write), and write lands the plan. A write
// error leaves the hunks in review with the error as their last error;
// success settles them into decisions carrying reason (what the user
// said about the rest of the change, told to the model with the accept).
func (d *Desk) Accept(src Source, f proposal.Filter, enc text.Encoding, reason string, write func(ToWrite) error) (Accepted, error) {
	for _, path := range d.selectedPaths(f) {
		d.Resync(src, path)
	}
	plan, err := d.Plan(src, f, enc)
	if err != nil || plan.Empty() {
		return Accepted{ToWrite: ToWrite{Plan: plan}}, err
	}
	out := Accepted{ToWrite: ToWrite{Plan: plan, Runs: d.PlanRuns(plan)}}
	switch err := write(out.ToWrite); {
	case errors.Is(err, ErrLandsLater):
		out.Later = true
	case err != nil:
		out.Failed = err.Error()
		d.store.Failed(plan, out.Failed)
	default:
		out.Decisions = d.Settle(plan, out.Runs)
		for i := range out.Decisions {
			out.Decisions[i].Reason = reason
		}
	}
	return out, nil
}

// selectedPaths are the files of the hunks f selects, each once.
func (d *Desk) selectedPaths(f proposal.Filter) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range d.store.Select(f) {
		if !seen[h.Path] {
			seen[h.Path] = true
			out = append(out, h.Path)
		}
	}
	return out
}
