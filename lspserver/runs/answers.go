package runs

import (
	"context"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
)

// A run's final answer reaches the editor in the finished runEvent and, in
// one line, in window/showMessage: plain clients (eglot, Neovim without the
// plugin) show only that line, and a plan the user is asked to approve is
// many lines. So a plan, or any answer longer than one line, is also
// written whole as a Markdown file under the state directory
// (agent.AnswerFile), the end-of-run message names it, the finished
// runEvent carries its URI (answerUri), and a plan is shown with window/showDocument (without taking focus) to
// clients that support it and do not show answers themselves
// (experimental.agentls.answerViews, which our plugins declare).

// showDocumentTimeout bounds the wait for the editor to show a plan.
const showDocumentTimeout = 5 * time.Second

// approveWords say how to carry a plan out in any editor: the code action
// every client lists, and the VS Code command (with its button above the
// plan's document); never a command id with JSON to type.
const approveWords = "To carry this plan out, approve it: the code action " +
	"“Agent: Approve plan” in any file, or in VS Code the Approve Plan button above this plan or " +
	"“agentls: Approve Plan” in the command palette. Its changes arrive as proposals to review."

// writeAnswer writes the run's whole answer when it is worth a document
// (agent.AnswerFile) and returns its path ("" when none).
func (rs *Runs) writeAnswer(r *run, out agent.Outcome) string {
	a := agent.AnswerFile{RunID: r.ID, Plan: r.mode == ModePlan, Approve: approveWords}
	if r.Session != nil {
		a.Title = r.Session.Info().Title
	}
	path, err := a.Write(rs.stateDir(), out)
	if err != nil {
		rs.log.Warn("the run's answer was not written", "run", r.ID, "err", err)
	}
	return path
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
		rs.log.Debug("the plan was not shown", "run", r.ID, "path", path, "err", err)
	}
}
