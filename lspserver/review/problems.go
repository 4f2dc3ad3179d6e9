package review

import (
	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
)

// Problems the language servers found in proposals (tools/lang, through
// the runs' "problems" events), kept by the desk's problem book:
// agentls/proposals lists them with each proposal, and the preview
// diagnostics of plugin-less clients (eglot) say "introduces N problems"
// on the hunks, so every client shows what a proposal would break before
// the user accepts it.

// Problems records what the language server found in runID's proposal for
// fp.Path, replacing what it found before.
func (v *Review) Problems(runID string, fp tools.FileProblems) {
	r := v.state()
	r.desk.RecordProblems(runID, fp)
	v.core.ActionsChanged() // the code actions' preview diagnostics carry them
	// Plugins fetch agentls/proposals again (their proposal shows the
	// count); plugin-less clients get the hunks' diagnostics again.
	r.announce.Add(fp.Path)
	v.diags.queue(fp.Path)
}

// anyProblems reports whether a language server found problems that one
// of runs' proposals for path brings.
func (v *Review) anyProblems(runs map[string]bool, path string) bool {
	return v.state().desk.AnyProblems(runs, path)
}

// proposalProblems is a proposal's problems for agentls/proposals: the
// ones it brings (outstanding), ranges in its proposed text in the
// session's encoding; nil when no language server judged it.
func (v *Review) proposalProblems(runID, path string, enc text.Encoding) []core.Problem {
	fp, ok := v.state().desk.ProblemsOf(runID, path)
	if !ok {
		return nil
	}
	return core.Problems(fp.Outstanding, fp.Text, enc)
}

// hunkProblemNotes places a proposal's outstanding problems on its hunks
// for the preview diagnostics (desk.Desk.HunkProblemNotes).
func (v *Review) hunkProblemNotes(pr proposal.Proposal) map[string]string {
	return v.state().desk.HunkProblemNotes(pr)
}
