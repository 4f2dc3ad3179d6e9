package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/complete"
	"github.com/agentls/agentls/agent/report"
	"github.com/agentls/agentls/agent/revert"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
)

// Run history the user controls (docs/protocol.md "Run history and
// usage", "Run report"): agentls.revert takes a run back after its
// changes landed, agentls/models lists the models a run may pick, and
// agentls.openReport renders a run's transcript as a page.

// The history commands and methods.
const (
	CommandRevert     = "agentls.revert"
	CommandOpenReport = "agentls.openReport"
	MethodModels      = "agentls/models"
)

// RevertArgs is arguments[0] of agentls.revert.
type RevertArgs struct {
	RunID string `json:"runId"`
}

// RevertResult is the result of agentls.revert: the files changed back,
// and what was left alone with why (lines the user changed since, files
// gone or changed). Note says what happened when nothing was done.
type RevertResult struct {
	Reverted      int              `json:"reverted"`
	Conflicts     []RevertConflict `json:"conflicts"`
	Note          string           `json:"note,omitempty"`
	FailureReason string           `json:"failureReason,omitempty"`
}

// RevertConflict is a file (part) a revert left alone.
type RevertConflict struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// ReportArgs is arguments[0] of agentls.openReport.
type ReportArgs struct {
	RunID     string `json:"runId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// ReportResult is the result of agentls.openReport.
type ReportResult struct {
	URI string `json:"uri"`
}

// ModelsResult is the result of agentls/models.
type ModelsResult struct {
	Models  []ModelInfo `json:"models"`
	Current string      `json:"current"`
	// Error says why the endpoint's list is missing (the configured model
	// and model.choices are still offered).
	Error string `json:"error,omitempty"`
	// Completion is what inline completions and next edits used since
	// the server started, counted apart from agent runs (users pay for
	// both); absent when completions are off.
	Completion *CompletionUsage `json:"completion,omitempty"`
}

// CompletionUsage is the completion model and its usage.
type CompletionUsage struct {
	Model string `json:"model"`
	complete.Usage
}

// ModelInfo is one model a run may pick.
type ModelInfo struct {
	ID string `json:"id"`
}

// reverts is the snapshot store under the state directory; nil when
// sessions are not saved (no state directory): nothing to revert from.
func (rs *Runs) reverts() *revert.Store {
	return revert.InStateDir(rs.stateDir())
}

// stateDir is where sessions, reverts, answers and plans are kept, ""
// for nowhere (agent.StateDir).
func (rs *Runs) stateDir() string {
	opts := rs.cfg.options()
	dir, _ := agent.StateDir(opts.StateDir, opts.Env)
	return dir
}

// recordLanded keeps what a change of runID replaced once it landed in
// the editor (accept, or apply mode), so the run can be reverted.
func (rs *Runs) recordLanded(runID, sessionID, path, before, after string, created bool) {
	kept, err := rs.reverts().Keep(runID, sessionID, revert.File{Path: path, Before: before, After: after, Created: created})
	if err != nil {
		rs.log.Warn("this change cannot be reverted later", "run", runID, "path", path, "err", err)
	}
	if kept {
		rs.hist.Landed(runID)
	}
}

// Revert is agentls.revert: the core works the revert out against the
// editor's buffers (revert.Run); this sends it as one workspace edit.
func (rs *Runs) Revert(ctx context.Context, raw json.RawMessage) (any, error) {
	var a RevertArgs
	if err := decodeArg(CommandRevert, raw, &a); err != nil {
		return nil, err
	}
	if a.RunID == "" {
		return nil, core.InvalidParams("%s: arguments[0].runId is required", CommandRevert)
	}
	if rs.reg.Get(a.RunID) != nil {
		return nil, core.RequestFailed("%s: run %s is still running; cancel it or wait for it to end", CommandRevert, a.RunID)
	}
	feats := rs.core.Session().Features
	canDelete := feats.DocumentChanges && slices.Contains(feats.ResourceOperations, protocol.ResourceOperationKindDelete)
	st := rs.reverts()
	rv, err := revert.Run(st, a.RunID, revert.InView(rs.view), canDelete)
	switch {
	case errors.Is(err, revert.ErrNothing):
		return nil, core.InvalidParams("%s: %v", CommandRevert, err)
	case err != nil:
		return nil, core.RequestFailed("%s: %v", CommandRevert, err)
	}
	// The editor hears of every file (or part) left alone; the session's
	// next run reads the same in the summary.
	res := &RevertResult{Conflicts: []RevertConflict{}, Note: rv.Note}
	for _, c := range rv.Conflicts() {
		res.Conflicts = append(res.Conflicts, RevertConflict{URI: string(rs.docs.URIOf(c.Path)), Reason: c.Conflict})
	}
	if len(rv.Changes) == 0 {
		return res, nil
	}
	if !feats.ApplyEdit {
		res.FailureReason = "the editor does not support workspace/applyEdit"
		return res, nil
	}
	var edits []docs.FileEdit
	var deletes []protocol.DocumentChange
	for _, c := range rv.Changes {
		if c.Delete {
			deletes = append(deletes, &protocol.DeleteFile{
				Kind: string(protocol.ResourceOperationKindDelete), URI: rs.docs.URIOf(c.Path),
				Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: core.Ptr(true)},
			})
		} else {
			edits = append(edits, docs.FileEdit{Path: c.Path, Version: c.From.Version, Edits: text.Diff(c.From.Text, c.Text, rs.core.Session().Encoding)})
		}
	}
	we := rs.docs.WorkspaceEdit(edits)
	we.DocumentChanges = append(we.DocumentChanges, deletes...)
	label := "Revert agent run " + a.RunID
	ar, err := rs.core.Client().ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
	if err != nil || !ar.Applied {
		res.FailureReason = "the editor refused the revert"
		if err != nil {
			res.FailureReason = fmt.Sprintf("workspace/applyEdit failed: %v", err)
		} else if ar.FailureReason != nil && *ar.FailureReason != "" {
			res.FailureReason += ": " + *ar.FailureReason
		}
		return res, nil
	}
	res.Reverted = len(rv.Changes)
	rs.hist.Forget()
	sess := rs.sessionOfRun(a.RunID)
	if _, err := agent.Reverted(st, a.RunID, rv.Done(), rv.Left, rs.cfg.options().TranscriptDir, sess); err != nil {
		rs.log.Warn("revert not remembered", "run", a.RunID, "err", err)
	}
	if sess != nil {
		rs.saveSession(sess)
	}
	return res, nil
}

// OpenReport is agentls.openReport: it renders the run's (or session's)
// report beside its transcript and asks the editor to open it.
func (rs *Runs) OpenReport(ctx context.Context, raw json.RawMessage) (any, error) {
	var a ReportArgs
	if err := decodeArg(CommandOpenReport, raw, &a); err != nil {
		return nil, err
	}
	req := report.Request{Dir: rs.cfg.options().TranscriptDir, RunID: a.RunID, SessionID: a.SessionID}
	if folders := rs.view.Folders(); len(folders) > 0 {
		req.Folder = folders[0]
	}
	path, err := report.Generate(req)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, core.InvalidParams("%s: %v", CommandOpenReport, err)
		}
		return nil, core.RequestFailed("%s: %v", CommandOpenReport, err)
	}
	u := string(uri.File(path))
	rs.core.Go("open report", func(context.Context) { rs.showDocument(rs.ctx, u) })
	return &ReportResult{URI: u}, nil
}

// OnCompletionUsage sets where agentls/models reads the completion
// usage from (the inline part's engine); call it before Serve.
func (rs *Runs) OnCompletionUsage(fn func() (model string, u complete.Usage, on bool)) {
	rs.completionUsage = fn
}

// Models is agentls/models: the models a run may pick (agent.ModelChoices:
// model.name, model.choices, then what the endpoint lists, asked anew
// each time). An endpoint that fails or answers garbage leaves the
// configured model and the choices, and Error says why.
func (rs *Runs) Models(ctx context.Context, _ *struct{}) (*ModelsResult, error) {
	cfg, _, _ := rs.loadConfig()
	listed, err := (&agent.EndpointModels{}).List(ctx, cfg)
	out := &ModelsResult{Models: []ModelInfo{}, Current: cfg.Model.Name}
	for _, id := range agent.ModelChoices(append([]string{cfg.Model.Name}, cfg.Model.Choices...), listed, 0) {
		out.Models = append(out.Models, ModelInfo{ID: id})
	}
	if err != nil {
		out.Error = err.Error()
	}
	if fn := rs.completionUsage; fn != nil {
		if model, u, on := fn(); on {
			out.Completion = &CompletionUsage{Model: model, Usage: u}
		}
	}
	return out, nil
}
