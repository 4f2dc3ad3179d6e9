package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/statedir"
)

// A face that shows a run's end in one line (the LSP face's
// window/showMessage, which plain clients show alone) also needs the
// whole answer somewhere: a plan the user is asked to approve, or any
// answer longer than one line, is written as a Markdown document under
// the state directory (answers/<run>.md, the newest MaxAnswerFiles kept),
// which the face names or opens.

// MaxAnswerFiles bounds the answers kept on disk.
const MaxAnswerFiles = 50

// AnswerFile is the document of one run's answer.
type AnswerFile struct {
	RunID string
	// Title is the run's session title ("" none); it heads the document.
	Title string
	// Plan: the run planned (ModePlan); the document then says that
	// nothing changed yet and, in Approve, how to carry the plan out.
	Plan    bool
	Approve string
}

// Write writes the document of out's answer under stateDir when it is
// worth one (a finished run's plan, or an answer of more than one line)
// and returns its path; "" when it is not, or stateDir is "" (no state
// kept). The error says why a document worth writing was not written.
func (a AnswerFile) Write(stateDir string, out Outcome) (string, error) {
	answer := strings.TrimSpace(out.Answer)
	if stateDir == "" || out.Status != StatusFinished || answer == "" || !a.Plan && !strings.Contains(answer, "\n") {
		return "", nil
	}
	dir := filepath.Join(stateDir, "answers")
	path := filepath.Join(dir, a.RunID+".md")
	if err := statedir.WriteFile(path, []byte(a.document(answer))); err != nil {
		return "", fmt.Errorf("answer of run %s: %w", a.RunID, err)
	}
	statedir.Prune(dir, ".md", MaxAnswerFiles)
	return path, nil
}

// document is the Markdown of an answer: a title naming the run and its
// session, the answer, and for a plan how to carry it out.
func (a AnswerFile) document(answer string) string {
	var b strings.Builder
	what := "Answer"
	if a.Plan {
		what = "Plan"
	}
	fmt.Fprintf(&b, "# %s of agent run %s\n\n", what, a.RunID)
	if a.Title != "" {
		fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(a.Title, "\n", " "))
	}
	b.WriteString(answer)
	b.WriteString("\n")
	if a.Plan {
		b.WriteString("\n---\n\nNothing has changed yet. " + a.Approve + "\n")
	}
	return b.String()
}
