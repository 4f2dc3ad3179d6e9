package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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

// Revert is agentls.revert.
func (rs *Runs) Revert(ctx context.Context, raw json.RawMessage) (any, error) {
	var a RevertArgs
	if err := decodeArg(CommandRevert, raw, &a); err != nil {
		return nil, err
	}
	if a.RunID == "" {
		return nil, core.InvalidParams("%s: arguments[0].runId is required", CommandRevert)
	}
	if rs.reg.get(a.RunID) != nil {
		return nil, core.RequestFailed("%s: run %s is still running; cancel it or wait for it to end", CommandRevert, a.RunID)
	}
	st := rs.reverts()
	if st == nil {
		return nil, core.RequestFailed("%s: there is no state directory, so no run can be reverted", CommandRevert)
	}
	snap, err := st.Open(a.RunID)
	switch {
	case errors.Is(err, revert.ErrNothing):
		return nil, core.InvalidParams("%s: run %s has no accepted or applied changes to revert", CommandRevert, a.RunID)
	case errors.Is(err, revert.ErrAlreadyReverted):
		return &RevertResult{Conflicts: []RevertConflict{}, Note: "run " + a.RunID + " was already reverted; nothing was done"}, nil
	case err != nil:
		return nil, core.RequestFailed("%s: %v", CommandRevert, err)
	}
	if !rs.core.Session().Features.ApplyEdit {
		return &RevertResult{Conflicts: []RevertConflict{}, FailureReason: "the editor does not support workspace/applyEdit"}, nil
	}
	plan := revert.PlanRun(snap, rs.currentText)
	feats := rs.core.Session().Features
	canDelete := feats.DocumentChanges && slices.Contains(feats.ResourceOperations, protocol.ResourceOperationKindDelete)
	var edits []docs.FileEdit
	var deletes []string
	var results []revert.Result
	for _, c := range plan.Changes {
		if c.Delete && !canDelete {
			plan.Leave(c.Path, "the run created this file; the editor cannot delete files (resource operations), so delete it yourself")
			continue
		}
		if c.Delete {
			deletes = append(deletes, c.Path)
		} else {
			edits = append(edits, docs.FileEdit{Path: c.Path, Version: c.From.Version, Edits: text.Diff(c.From.Text, c.Text, rs.core.Session().Encoding)})
		}
		results = append(results, c.Result)
	}
	// The editor hears of every file (or part) left alone; the session's
	// next run reads the same in the summary.
	res := &RevertResult{Conflicts: []RevertConflict{}}
	for _, r := range results { // partly reverted
		if r.Conflict != "" {
			res.Conflicts = append(res.Conflicts, RevertConflict{URI: string(rs.docs.URIOf(r.Path)), Reason: r.Conflict})
		}
	}
	for _, l := range plan.Left {
		res.Conflicts = append(res.Conflicts, RevertConflict{URI: string(rs.docs.URIOf(l.Path)), Reason: l.Conflict})
	}
	if len(results) == 0 {
		res.Note = "nothing to revert"
		return res, nil
	}
	we := rs.docs.WorkspaceEdit(edits)
	for _, p := range deletes {
		we.DocumentChanges = append(we.DocumentChanges, &protocol.DeleteFile{
			Kind: string(protocol.ResourceOperationKindDelete), URI: rs.docs.URIOf(p),
			Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: core.Ptr(true)},
		})
	}
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
	res.Reverted = len(results)
	rs.hist.Forget()
	sess := rs.sessionOfRun(a.RunID)
	if _, err := agent.Reverted(st, a.RunID, results, plan.Left, rs.cfg.options().TranscriptDir, sess); err != nil {
		rs.log.Warn("revert not remembered", "run", a.RunID, "err", err)
	}
	if sess != nil {
		rs.saveSession(sess)
	}
	return res, nil
}

// currentText is path's text as the editor has it: the open buffer (with
// its version), else the file on disk; Exists false when neither.
func (rs *Runs) currentText(path string) (revert.Current, error) {
	if snap, ok := rs.view.Overlay(path); ok {
		return revert.Current{Text: snap.Text, Version: snap.Version, Exists: true}, nil
	}
	content, _, err := rs.docs.DiskText(path)
	switch {
	case err == nil:
		return revert.Current{Text: content, Exists: true}, nil
	case errors.Is(err, fs.ErrNotExist):
		return revert.Current{}, nil
	}
	return revert.Current{}, err
}

// OpenReport is agentls.openReport: it renders the run's (or session's)
// report beside its transcript and asks the editor to open it.
func (rs *Runs) OpenReport(ctx context.Context, raw json.RawMessage) (any, error) {
	var a ReportArgs
	if err := decodeArg(CommandOpenReport, raw, &a); err != nil {
		return nil, err
	}
	tdir := rs.cfg.options().TranscriptDir
	if tdir == NoTranscripts {
		return nil, core.RequestFailed("%s: run transcripts are turned off, so there is nothing to report", CommandOpenReport)
	}
	req := report.Request{Dir: tdir, RunID: a.RunID, SessionID: a.SessionID}
	if folders := rs.view.Folders(); len(folders) > 0 {
		req.Folder = folders[0]
	}
	if req.Dir == "" {
		d, err := agent.DefaultStateDir(rs.cfg.options().Env)
		if err != nil {
			return nil, core.RequestFailed("%s: %v", CommandOpenReport, err)
		}
		req.Dir = filepath.Join(d, "runs")
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
