package runs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/statedir"
)

// A run's final answer reaches the editor in the finished runEvent and, in
// one line, in window/showMessage: plain clients (eglot, Neovim without the
// plugin) show only that line, and a plan the user is asked to approve is
// many lines. So a plan, or any answer longer than one line, is also
// written whole as a Markdown file under the state directory
// (answers/<run>.md, the newest maxAnswerFiles kept), the end-of-run
// message names it, the finished runEvent carries its URI (answerUri), and
// a plan is shown with window/showDocument (without taking focus) to
// clients that support it and do not show answers themselves
// (experimental.agentls.answerViews, which our plugins declare).

// maxAnswerFiles bounds the answers kept on disk.
const maxAnswerFiles = 50

// showDocumentTimeout bounds the wait for the editor to show a plan.
const showDocumentTimeout = 5 * time.Second

// answerDir is where answers are written, "" when nothing is written
// (sessions kept in memory only, or no state directory).
func (rs *Runs) answerDir() string {
	if dir := rs.stateDir(); dir != "" {
		return filepath.Join(dir, "answers")
	}
	return ""
}

// writeAnswer writes the run's whole answer when it is worth a document
// (a plan, or more than one line) and returns its path ("" when none).
func (rs *Runs) writeAnswer(r *run, out agent.Outcome) string {
	answer := strings.TrimSpace(out.Answer)
	plan := r.mode == ModePlan
	if out.Status != agent.StatusFinished || answer == "" || !plan && !strings.Contains(answer, "\n") {
		return ""
	}
	dir := rs.answerDir()
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, r.id+".md")
	if err := statedir.WriteFile(path, []byte(answerDocument(r, answer, plan))); err != nil {
		rs.log.Warn("the run's answer was not written", "run", r.id, "path", path, "err", err)
		return ""
	}
	statedir.Prune(dir, ".md", maxAnswerFiles)
	return path
}

// answerDocument is the Markdown of an answer: a title naming the run and
// its session, the answer, and for a plan how to carry it out.
func answerDocument(r *run, answer string, plan bool) string {
	var b strings.Builder
	what := "Answer"
	if plan {
		what = "Plan"
	}
	fmt.Fprintf(&b, "# %s of agent run %s\n\n", what, r.id)
	if r.session != nil {
		if t := r.session.Info().Title; t != "" {
			fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(t, "\n", " "))
		}
	}
	b.WriteString(answer)
	b.WriteString("\n")
	if plan {
		// Words a user can act on in any editor: the code action every
		// client lists, and the VS Code command (with its button above
		// this document); never a command id with JSON to type.
		b.WriteString("\n---\n\nNothing has changed yet. To carry this plan out, approve it: the code action " +
			"“Agent: Approve plan” in any file, or in VS Code the Approve Plan button above this plan or " +
			"“agentls: Approve Plan” in the command palette. Its changes arrive as proposals to review.\n")
	}
	return b.String()
}

// showAnswer shows a written plan in the editor (window/showDocument,
// focus left where it is), for clients that can and do not show answers
// themselves.
func (rs *Runs) showAnswer(r *run, path string) {
	sess := rs.core.Session()
	if path == "" || r.mode != ModePlan || sess == nil || !sess.Features.ShowDocument || sess.Features.AnswerViews {
		return
	}
	sd, ok := rs.core.Client().(interface {
		ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error)
	})
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(rs.ctx, showDocumentTimeout)
	defer cancel()
	res, err := sd.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: new(bool)})
	if err != nil || res == nil || !res.Success {
		rs.log.Debug("the plan was not shown", "run", r.id, "path", path, "err", err)
	}
}
