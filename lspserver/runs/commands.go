package runs

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/tools"
)

// The agentls.* commands of workspace/executeCommand (docs/protocol.md).
const (
	CommandRun    = "agentls.run"
	CommandCancel = "agentls.cancel"
)

// RunArgs is arguments[0] of agentls.run.
type RunArgs struct {
	Prompt string          `json:"prompt"`
	URI    string          `json:"uri,omitempty"`
	Range  *protocol.Range `json:"range,omitempty"`
	Mode   string          `json:"mode,omitempty"`
	// SessionID continues that session; "" starts a new one.
	SessionID string `json:"sessionId,omitempty"`
	// Model picks the model for this run and the session's later runs
	// (agentls/models lists choices); "" keeps the session's or model.name.
	Model string `json:"model,omitempty"`
}

// RunResult is the result of agentls.run.
type RunResult struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
}

// CancelArgs is arguments[0] of agentls.cancel.
type CancelArgs struct {
	RunID string `json:"runId"`
}

// CancelResult is the result of agentls.cancel: false when the run is
// unknown, already finished or already cancelled.
type CancelResult struct {
	Cancelled bool `json:"cancelled"`
}

// The command handlers below have core.Command's signature; the root
// lists them in its command table.

// RunCommand is agentls.run (runCommand).
func (rs *Runs) RunCommand(ctx context.Context, arg json.RawMessage) (any, error) {
	return rs.runCommand(ctx, arg)
}

// CancelCommand is agentls.cancel.
func (rs *Runs) CancelCommand(_ context.Context, arg json.RawMessage) (any, error) {
	return rs.cancelCommand(arg)
}

// DeleteSession is agentls.deleteSession.
func (rs *Runs) DeleteSession(_ context.Context, arg json.RawMessage) (any, error) {
	var a SessionArgs
	if err := decodeArg(CommandDeleteSession, arg, &a); err != nil {
		return nil, err
	}
	return rs.deleteSessionCommand(a)
}

// ClearSessions is agentls.clearSessions.
func (rs *Runs) ClearSessions(context.Context, json.RawMessage) (any, error) {
	return rs.clearSessionsCommand()
}

// ApprovePlan is agentls.approvePlan.
func (rs *Runs) ApprovePlan(ctx context.Context, arg json.RawMessage) (any, error) {
	return rs.approvePlanCommand(ctx, arg)
}

// decodeArg decodes a command's arguments[0] into v (core.DecodeArg);
// absent or null leaves v as it is.
func decodeArg(command string, raw json.RawMessage, v any) error {
	return core.DecodeArg(command, argShape(command), raw, v)
}

func argShape(command string) string {
	switch command {
	case CommandRun:
		return `{"prompt": "…", "uri"?: "file:///…", "range"?: {…}, "mode"?: "preview"|"apply"|"plan", "sessionId"?: "…"}`
	case CommandApprovePlan:
		return `{"runId"?: "…"}`
	case CommandCancel:
		return `{"runId": "…"}`
	case CommandDeleteSession:
		return `{"sessionId": "…"}`
	}
	return `{}`
}

// cancelCommand implements agentls.cancel.
func (rs *Runs) cancelCommand(raw json.RawMessage) (*CancelResult, error) {
	var a CancelArgs
	if err := decodeArg(CommandCancel, raw, &a); err != nil {
		return nil, err
	}
	if a.RunID == "" {
		return nil, core.InvalidParams("%s: arguments[0].runId is required", CommandCancel)
	}
	ok := rs.reg.Cancel(a.RunID)
	if ok {
		rs.log.Info("run cancelled by agentls.cancel", "run", a.RunID)
	}
	return &CancelResult{Cancelled: ok}, nil
}

// runCommand implements agentls.run: it validates the arguments and the
// model configuration, starts the run in the background and replies with
// its id at once. A missing model configuration is RequestFailed (-32803)
// with config.ModelError's guidance, also shown with window/showMessage.
func (rs *Runs) runCommand(_ context.Context, raw json.RawMessage) (any, error) {
	var a RunArgs
	if core.IsNull(raw) {
		return nil, core.InvalidParams("%s needs arguments[0] like %s", CommandRun, argShape(CommandRun))
	}
	if err := decodeArg(CommandRun, raw, &a); err != nil {
		return nil, err
	}
	var err error
	a.Prompt, a.Model, err = agent.CheckAsk(a.Prompt, a.Model)
	switch {
	case errors.Is(err, agent.ErrNoPrompt):
		return nil, core.InvalidParams("%s: arguments[0].prompt is required (the task for the agent)", CommandRun)
	case errors.Is(err, agent.ErrBadModelName):
		return nil, core.InvalidParams("%s: arguments[0].model: %v", CommandRun, err)
	case err != nil:
		return nil, core.InvalidParams("%s: arguments[0].prompt: %v", CommandRun, err)
	}
	if a.Mode != "" && a.Mode != config.ModePreview && a.Mode != config.ModeApply && a.Mode != ModePlan {
		return nil, core.InvalidParams("%s: mode %q is not valid; use %q, %q or %q", CommandRun, a.Mode, config.ModePreview, config.ModeApply, ModePlan)
	}
	editor, err := rs.editorContext(a)
	if err != nil {
		return nil, err
	}

	cfg, warnings, cerr := rs.loadConfig()
	rs.reportConfig(rs.ctx, warnings, cerr)
	mode := cfg.Mode
	if a.Mode != "" {
		mode = a.Mode
	}
	sess, err := rs.session(a.SessionID)
	if err != nil {
		return nil, err
	}
	// Judged before the mode's fallback is shown: a run that cannot start
	// says only why.
	if _, err := sess.RunConfig(cfg, a.Model); err != nil {
		return nil, rs.cannotStart(err)
	}
	if mode == config.ModeApply && !rs.core.Session().Features.ApplyEdit {
		rs.showWarning("agentls: this editor does not support workspace/applyEdit, so the run uses preview mode")
		mode = config.ModePreview
	}
	act, ctx, err := rs.reg.Begin(rs.ctx, sess)
	if err != nil {
		return nil, core.RequestFailed("%s: %v", CommandRun, err)
	}
	r := &run{ActiveRun: act, mode: mode}
	approver := &editorApprover{s: rs, runID: r.ID}
	prepared, err := r.Session.Prepare(ctx, agent.Setup{
		Config:        cfg,
		View:          rs.view,
		Approver:      approver,
		Logger:        rs.log.With("run", r.ID),
		TranscriptDir: rs.cfg.options().TranscriptDir,
		ViewDir:       rs.cfg.options().ViewDir,
		ScriptSlots:   rs.scripts,
		SyncTools:     rs.syncTools,
		Lang:          rs.langManager(cfg),
		PendingNew:    func(path string) (tools.PendingNew, bool) { return rs.pendingNew(sess, r.ID, path) },
		Getenv:        rs.cfg.options().Env,
	}, agent.RunRequest{RunID: r.ID, Prompt: a.Prompt, Editor: editor, Proposals: agent.ProposalStates(rs.review.Pending(), sess), Mode: mode, Model: a.Model,
		OnEvent: func(ev agent.Event) { rs.onEvent(ctx, r, ev) }})
	if err != nil {
		act.Done()
		if errors.Is(err, agent.ErrPromptTooLarge) {
			return nil, core.InvalidParams("%s: arguments[0].prompt: %v", CommandRun, err)
		}
		return nil, rs.cannotStart(err)
	}
	rs.sessions().Started(sess, a.Prompt, cfg.APIKey())
	rs.reg.Add(act)
	if editor != nil {
		var line uint32
		if editor.Range != nil {
			line = editor.Range.Start.Line
		}
		rs.review.RunOrigin(r.ID, rs.docs.StorePath(editor.Path), line)
	}
	rs.log.Info("run started", "run", r.ID, "session", sess.ID(), "mode", mode, "uri", a.URI)
	rs.core.Go("agent run "+r.ID, func(context.Context) {
		defer act.Done()
		rs.execute(ctx, r, job{cfg: cfg, prepared: prepared, approver: approver})
	})
	return &RunResult{RunID: r.ID, SessionID: sess.ID()}, nil
}

// editorContext turns agentls.run's uri and range into the agent's editor
// context; the selection is cut from the document as the server has it
// (open buffer, else disk) in the session's position encoding.
func (rs *Runs) editorContext(a RunArgs) (*agent.EditorContext, error) {
	if a.URI == "" {
		if a.Range != nil {
			return nil, core.InvalidParams("%s: a range needs a uri", CommandRun)
		}
		return nil, nil
	}
	u, err := uri.Parse(a.URI)
	if err != nil {
		return nil, core.InvalidParams("%s: uri %q is not a valid URI: %v", CommandRun, a.URI, err)
	}
	key := core.DocKey(u)
	snap, open := rs.view.Overlay(key)
	if !u.IsFile() && !open {
		return nil, core.InvalidParams("%s: uri %q is neither a file: URI nor an open document", CommandRun, a.URI)
	}
	if _, ok := core.FilePath(u); u.IsFile() && !ok {
		return nil, core.InvalidParams("%s: uri %q names no file", CommandRun, a.URI)
	}
	ec := &agent.EditorContext{Path: key}
	if a.Range == nil {
		return ec, nil
	}
	r := core.ToTextRange(*a.Range)
	if after(r.Start, r.End) {
		return nil, core.InvalidParams("%s: range start (%d:%d) is after its end (%d:%d)", CommandRun,
			r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	ec.Range = &r
	if !open {
		snap, err = rs.view.Read(key)
		if err != nil {
			// The model can still read the file itself, or learn why not.
			rs.log.Debug("no selection text for run", "uri", a.URI, "err", err)
			return ec, nil
		}
	}
	ix := text.NewIndex(snap.Text)
	start, end := ix.RangeOffsets(r, rs.core.Session().Encoding)
	ec.Selection = snap.Text[start:end]
	return ec, nil
}

func after(a, b text.Position) bool {
	return a.Line > b.Line || (a.Line == b.Line && a.Character > b.Character)
}

// cannotStart shows why a run could not start (a missing model
// configuration names what to set) and is agentls.run's RequestFailed
// (-32803) with the same words.
func (rs *Runs) cannotStart(err error) error {
	msg := "agentls cannot start an agent run: " + err.Error()
	rs.showError(msg)
	return core.RequestFailed("%s", msg)
}

func (rs *Runs) showError(msg string)   { rs.core.Show(protocol.MessageTypeError, msg) }
func (rs *Runs) showWarning(msg string) { rs.core.Show(protocol.MessageTypeWarning, msg) }
