package desk

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/safetext"
	"github.com/agentls/agentls/tools"
)

// The problem book: what language servers found in proposals (tools/lang,
// through the runs' "problems" events), so every face can show what a
// proposal would break before the user accepts it.

// problemBook holds the latest problems by run and path.
type problemBook struct {
	mu sync.Mutex
	by map[problemKey]tools.FileProblems
}

type problemKey struct{ runID, path string }

// maxProblemFiles bounds the book; past it, entries whose proposal is
// gone (long decided) go first.
const maxProblemFiles = 4096

// RecordProblems records what the language server found in runID's
// proposal for fp.Path, replacing what it found before.
func (d *Desk) RecordProblems(runID string, fp tools.FileProblems) {
	b := &d.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.by == nil {
		b.by = map[problemKey]tools.FileProblems{}
	}
	if len(b.by) >= maxProblemFiles {
		live := map[problemKey]bool{}
		for _, p := range d.store.List("") {
			live[problemKey{p.RunID, p.Path}] = true
		}
		for k := range b.by {
			if !live[k] {
				delete(b.by, k)
			}
		}
	}
	b.by[problemKey{runID, fp.Path}] = fp
}

// ProblemsOf returns the problems of runID's proposal for path, if any
// were reported.
func (d *Desk) ProblemsOf(runID, path string) (tools.FileProblems, bool) {
	b := &d.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	fp, ok := b.by[problemKey{runID, path}]
	return fp, ok
}

// AnyProblems reports whether a language server found problems that one
// of runs' proposals for path brings.
func (d *Desk) AnyProblems(runs map[string]bool, path string) bool {
	b := &d.problems
	b.mu.Lock()
	defer b.mu.Unlock()
	for run := range runs {
		if len(b.by[problemKey{run, path}].Outstanding) > 0 {
			return true
		}
	}
	return false
}

// HunkProblemNotes places a proposal's outstanding problems on its hunks:
// each problem goes to the hunk whose proposed lines hold it, the rest to
// the first hunk. A note reads "Introduces N problem(s): line L:
// message; …" (at most three listed).
func (d *Desk) HunkProblemNotes(pr proposal.Proposal) map[string]string {
	fp, ok := d.ProblemsOf(pr.RunID, pr.Path)
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
