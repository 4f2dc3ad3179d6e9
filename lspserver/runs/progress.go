package runs

import (
	"context"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// Work-done progress of agent runs, for every client that supports
// window.workDoneProgress (plugin-less ones included). agentls.run replies
// at once, so a workDoneToken in its params dies with the reply and is not
// used; the run creates its own token, "agentls-run-<id>", with
// window/workDoneProgress/create from the run goroutine, then sends begin
// (title "Agent", cancellable), reports (queued, tool activity, approvals,
// applied edits) and end (the final message). Cancelling the progress in
// the editor (window/workDoneProgress/cancel) cancels the run.

// progressTitle is the title of a run's progress.
const progressTitle = "Agent"

// runProgress reports one run's progress; its zero value (no token) reports
// nothing, so callers need not check whether the client supports progress.
type runProgress struct {
	s     *Runs
	token string // "" when the client does not support progress or refused the token

	mu    sync.Mutex
	ended bool
}

// progressToken is the token of run id.
func progressToken(runID string) string { return "agentls-run-" + runID }

// startProgress creates the run's token and sends begin. It makes a
// server→client request, so it must run on the run's goroutine.
func (rs *Runs) startProgress(ctx context.Context, r *run, message string) *runProgress {
	p := &runProgress{s: rs}
	if !rs.core.Session().Features.WorkDoneProgress {
		return p
	}
	token := progressToken(r.ID)
	err := rs.core.Client().WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)})
	if err != nil {
		rs.log.Info("editor refused a progress token; the run goes on without progress", "run", r.ID, "err", err)
		return p
	}
	p.token = token
	rs.reg.Alias(r.ActiveRun, token)
	// Detached: once the token exists, begin and end both go out even if
	// the run is cancelled in between.
	p.send(context.WithoutCancel(ctx), &protocol.WorkDoneProgressBegin{Kind: "begin", Title: progressTitle, Cancellable: core.Ptr(true), Message: core.Ptr(message)})
	return p
}

// report sends a report with message (not after end).
func (p *runProgress) report(ctx context.Context, message string) {
	if p == nil || p.token == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.send(ctx, &protocol.WorkDoneProgressReport{Kind: "report", Message: core.Ptr(message)})
}

// end sends end with the final message, even when ctx is cancelled (a
// cancelled run's progress must still end in the editor).
func (p *runProgress) end(ctx context.Context, message string) {
	if p == nil || p.token == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	p.send(context.WithoutCancel(ctx), &protocol.WorkDoneProgressEnd{Kind: "end", Message: core.Ptr(message)})
}

func (p *runProgress) send(ctx context.Context, value any) {
	raw, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Error("marshal progress", "err", err)
		return
	}
	if err := p.s.core.Client().Progress(ctx, &protocol.ProgressParams{Token: protocol.String(p.token), Value: raw}); err != nil {
		p.s.log.Debug("progress not sent", "token", p.token, "err", err)
	}
}

// WorkDoneProgressCancel is window/workDoneProgress/cancel: the user
// cancelled a run from its progress. Unknown tokens are ignored.
func (rs *Runs) WorkDoneProgressCancel(_ context.Context, p *protocol.WorkDoneProgressCancelParams) error {
	tok, ok := p.Token.(protocol.String)
	if !ok {
		rs.log.Debug("progress cancel for a token agentls did not create", "token", p.Token)
		return nil
	}
	if r := rs.reg.ByAlias(string(tok)); r != nil && r.Stop() {
		rs.log.Info("run cancelled from its progress", "run", r.ID)
	}
	return nil
}
