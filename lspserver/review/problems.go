package review

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
)

// Problems the language servers found in proposals (tools/lang, through
// the runs' "problems" events): agentls/proposals lists them with each
// proposal, and the preview diagnostics of plugin-less clients (eglot)
// say "introduces N problems" on the hunks, so every client shows what a
// proposal would break before the user accepts it.

// problemBook holds the latest problems by run and path.
type problemBook struct {
	mu sync.Mutex
	by map[problemKey]tools.FileProblems
}

type problemKey struct{ runID, path string }

// maxProblemFiles bounds the book; the oldest runs' entries go first
// (their proposals are long decided, or they would be looked up).
const maxProblemFiles = 4096

// Problems records what the language server found in runID's proposal for
// fp.Path, replacing what it found before.
func (v *Review) Problems(runID string, fp tools.FileProblems) {
	b := &v.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by == nil {
		b.by = map[problemKey]tools.FileProblems{}
	}
	if len(b.by) >= maxProblemFiles {
		v.pruneProblemsLocked()
	}
	b.by[problemKey{runID, fp.Path}] = fp
	v.core.ActionsChanged() // the code actions' preview diagnostics carry them
	// Plugins fetch agentls/proposals again (their proposal shows the
	// count); plugin-less clients get the hunks' diagnostics again.
	v.state().queueAnnounce(fp.Path)
	v.diags.queue(fp.Path)
}

// pruneProblemsLocked drops entries whose proposal is gone.
func (v *Review) pruneProblemsLocked() {
	live := map[problemKey]bool{}
	for _, p := range v.state().store.List("") {
		live[problemKey{p.RunID, p.Path}] = true
	}
	for k := range v.problems.by {
		if !live[k] {
			delete(v.problems.by, k)
		}
	}
}

// problemsOf returns the problems of runID's proposal for path, if any
// were reported.
func (v *Review) problemsOf(runID, path string) (tools.FileProblems, bool) {
	b := &v.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	fp, ok := b.by[problemKey{runID, path}]
	return fp, ok
}

// anyProblems reports whether a language server found problems that one
// of runs' proposals for path brings.
func (v *Review) anyProblems(runs map[string]bool, path string) bool {
	b := &v.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	for run := range runs {
		if len(b.by[problemKey{run, path}].Outstanding) > 0 {
			return true
		}
	}
	return false
}

// proposalProblems is a proposal's problems for agentls/proposals: the
// ones it brings (outstanding), ranges in its proposed text in the
// session's encoding; nil when no language server judged it.
func (v *Review) proposalProblems(runID, path string, enc text.Encoding) []core.Problem {
	fp, ok := v.problemsOf(runID, path)
	if !ok {
		return nil
	}
	return core.Problems(fp.Outstanding, fp.Text, enc)
}

// hunkProblemNotes places a proposal's outstanding problems on its hunks
// for the preview diagnostics: each problem goes to the hunk whose
// proposed lines hold it, the rest to the first hunk. The note reads
// "Introduces N problem(s): line L: message; …".
func (v *Review) hunkProblemNotes(pr proposal.Proposal) map[string]string {
	fp, ok := v.problemsOf(pr.RunID, pr.Path)
	if !ok || len(fp.Outstanding) == 0 || len(pr.Hunks) == 0 {
		return nil
	}
	byHunk := map[string][]tools.Problem{}
	for _, p := range fp.Outstanding {
		line := int(p.Range.Start.Line)
		owner := pr.Hunks[0].ID
		shift := 0 // lines added above the hunk by the hunks before it
		for _, h := range pr.Hunks {
			start := int(h.Range.Start.Line) + shift
			n := strings.Count(h.NewText, "\n")
			if line >= start && line <= start+max(n, 0) {
				owner = h.ID
				break
			}
			shift += n - strings.Count(h.OldText, "\n")
		}
		byHunk[owner] = append(byHunk[owner], p)
	}
	notes := map[string]string{}
	for id, ps := range byHunk {
		var b strings.Builder
		fmt.Fprintf(&b, "Introduces %d problem(s):", len(ps))
		for i, p := range ps {
			if i == 3 {
				fmt.Fprintf(&b, " … and %d more", len(ps)-3)
				break
			}
			fmt.Fprintf(&b, " line %d: %s;", p.Range.Start.Line+1, safetext.Bound(p.Message, proposal.MaxMessageLineBytes))
		}
		notes[id] = strings.TrimSuffix(b.String(), ";")
	}
	return notes
}
