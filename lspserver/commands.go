package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// The agentls.* commands of workspace/executeCommand (docs/protocol.md).
const (
	CommandRun    = "agentls.run"
	CommandCancel = "agentls.cancel"
)

// commandNames is executeCommandProvider.commands.
func commandNames() []string {
	return []string{CommandRun, CommandCancel, CommandAccept, CommandReject, CommandDeleteSession, CommandClearSessions, CommandApprovePlan}
}

// RunArgs is arguments[0] of agentls.run.
type RunArgs struct {
	Prompt string          `json:"prompt"`
	URI    string          `json:"uri,omitempty"`
	Range  *protocol.Range `json:"range,omitempty"`
	Mode   string          `json:"mode,omitempty"`
	// SessionID continues that session; "" starts a new one.
	SessionID string `json:"sessionId,omitempty"`
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

// executeCommand is workspace/executeCommand: one table of commands, each
// with typed arguments (arguments[0]). A command that fails because the
// client cancelled the request ($/cancelRequest) answers RequestCancelled
// (-32800), as LSP asks.
func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	res, err := s.command(ctx, p)
	if err != nil && ctx.Err() != nil {
		return nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, p.Command+": request cancelled")
	}
	return res, err
}

func (s *Server) command(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	var arg json.RawMessage
	if len(p.Arguments) > 0 {
		arg = json.RawMessage(p.Arguments[0])
	}
	switch p.Command {
	case CommandRun:
		return s.runCommand(ctx, arg)
	case CommandCancel:
		return s.cancelCommand(arg)
	case CommandAccept:
		res, decisions, err := s.review.Accept(ctx, arg)
		s.decide(decisions)
		return res, err
	case CommandReject:
		res, decisions, err := s.review.Reject(ctx, arg)
		s.decide(decisions)
		return res, err
	case CommandDeleteSession:
		var a SessionArgs
		if err := decodeArg(p.Command, arg, &a); err != nil {
			return nil, err
		}
		return s.deleteSessionCommand(a)
	case CommandClearSessions:
		return s.clearSessionsCommand()
	case CommandApprovePlan:
		return s.approvePlanCommand(ctx, arg)
	}
	return nil, invalidParams("unknown command %q; agentls offers %s", p.Command, strings.Join(commandNames(), ", "))
}

// decodeArg decodes a command's arguments[0] into v; absent or null
// leaves v as it is.
func decodeArg(command string, raw json.RawMessage, v any) error {
	if core.IsNull(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return invalidParams("%s: arguments[0] must be an object like %s: %v", command, argShape(command), err)
	}
	return nil
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
	return `{"runId"?: "…", "uri"?: "file:///…", "hunkId"?: "…", "reason"?: "…"}`
}

// cancelCommand implements agentls.cancel.
func (s *Server) cancelCommand(raw json.RawMessage) (*CancelResult, error) {
	var a CancelArgs
	if err := decodeArg(CommandCancel, raw, &a); err != nil {
		return nil, err
	}
	if a.RunID == "" {
		return nil, invalidParams("%s: arguments[0].runId is required", CommandCancel)
	}
	r := s.runs.reg.get(a.RunID)
	if r == nil {
		return &CancelResult{Cancelled: false}, nil
	}
	ok := r.stop()
	if ok {
		s.log.Info("run cancelled by agentls.cancel", "run", r.id)
	}
	return &CancelResult{Cancelled: ok}, nil
}

// runCommand implements agentls.run: it validates the arguments and the
// model configuration, starts the run in the background and replies with
// its id at once. A missing model configuration is RequestFailed (-32803)
// with config.ModelError's guidance, also shown with window/showMessage.
func (s *Server) runCommand(_ context.Context, raw json.RawMessage) (any, error) {
	var a RunArgs
	if core.IsNull(raw) {
		return nil, invalidParams("%s needs arguments[0] like %s", CommandRun, argShape(CommandRun))
	}
	if err := decodeArg(CommandRun, raw, &a); err != nil {
		return nil, err
	}
	a.Prompt = strings.TrimSpace(a.Prompt)
	if a.Prompt == "" {
		return nil, invalidParams("%s: arguments[0].prompt is required (the task for the agent)", CommandRun)
	}
	if a.Mode != "" && a.Mode != config.ModePreview && a.Mode != config.ModeApply && a.Mode != ModePlan {
		return nil, invalidParams("%s: mode %q is not valid; use %q, %q or %q", CommandRun, a.Mode, config.ModePreview, config.ModeApply, ModePlan)
	}
	editor, err := s.editorContext(a)
	if err != nil {
		return nil, err
	}

	cfg, warnings, cerr := s.loadConfig()
	s.reportConfig(s.ctx, warnings, cerr)
	if err := cfg.ModelError(); err != nil {
		msg := "agentls cannot start an agent run: " + err.Error()
		s.showError(msg)
		return nil, requestFailed("%s", msg)
	}
	mode := cfg.Mode
	if a.Mode != "" {
		mode = a.Mode
	}
	if mode == config.ModeApply && !s.Session().Features.ApplyEdit {
		s.showWarning("agentls: this editor does not support workspace/applyEdit, so the run uses preview mode")
		mode = config.ModePreview
	}
	sess, err := s.session(a.SessionID)
	if err != nil {
		return nil, err
	}
	r := &run{id: agent.NewRunID(), mode: mode, session: sess}
	if busy := sess.Reserve(r.id); busy != "" {
		return nil, requestFailed("%s: session %s has run %s in progress; wait for it or cancel it", CommandRun, sess.ID(), busy)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancel = cancel
	approver := &editorApprover{s: s, runID: r.id}
	prepared, err := r.session.Prepare(agent.Setup{
		Config:        cfg,
		View:          s.view,
		Approver:      approver,
		Logger:        s.log.With("run", r.id),
		TranscriptDir: s.runs.cfg.options().TranscriptDir,
		SyncTools:     s.syncMCPTools,
	}, agent.RunRequest{RunID: r.id, Prompt: a.Prompt, Editor: editor, Proposals: s.proposalStates(sess), Mode: mode,
		OnEvent: func(ev agent.Event) { s.onEvent(ctx, r, ev) }})
	if err != nil {
		cancel()
		sess.Release(r.id)
		s.showError("agentls cannot start an agent run: " + err.Error())
		return nil, requestFailed("%v", err)
	}
	s.sessions().setLatest(sess, a.Prompt, cfg.APIKey())
	s.runs.reg.add(r)
	s.log.Info("run started", "run", r.id, "session", sess.ID(), "mode", mode, "uri", a.URI)
	s.goBackground("agent run "+r.id, func(context.Context) {
		defer cancel()
		s.execute(ctx, r, job{cfg: cfg, prepared: prepared, approver: approver})
	})
	return &RunResult{RunID: r.id, SessionID: sess.ID()}, nil
}

// editorContext turns agentls.run's uri and range into the agent's editor
// context; the selection is cut from the document as the server has it
// (open buffer, else disk) in the session's position encoding.
func (s *Server) editorContext(a RunArgs) (*agent.EditorContext, error) {
	if a.URI == "" {
		if a.Range != nil {
			return nil, invalidParams("%s: a range needs a uri", CommandRun)
		}
		return nil, nil
	}
	u, err := uri.Parse(a.URI)
	if err != nil {
		return nil, invalidParams("%s: uri %q is not a valid URI: %v", CommandRun, a.URI, err)
	}
	key := core.DocKey(u)
	snap, open := s.view.Overlay(key)
	if !u.IsFile() && !open {
		return nil, invalidParams("%s: uri %q is neither a file: URI nor an open document", CommandRun, a.URI)
	}
	if _, ok := core.FilePath(u); u.IsFile() && !ok {
		return nil, invalidParams("%s: uri %q names no file", CommandRun, a.URI)
	}
	ec := &agent.EditorContext{Path: key}
	if a.Range == nil {
		return ec, nil
	}
	r := core.ToTextRange(*a.Range)
	if after(r.Start, r.End) {
		return nil, invalidParams("%s: range start (%d:%d) is after its end (%d:%d)", CommandRun,
			r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	ec.Range = &r
	if !open {
		snap, err = s.view.Read(key)
		if err != nil {
			// The model can still read the file itself, or learn why not.
			s.log.Debug("no selection text for run", "uri", a.URI, "err", err)
			return ec, nil
		}
	}
	ix := text.NewIndex(snap.Text)
	start, end := ix.RangeOffsets(r, s.Session().Encoding)
	ec.Selection = snap.Text[start:end]
	return ec, nil
}

func after(a, b text.Position) bool {
	return a.Line > b.Line || (a.Line == b.Line && a.Character > b.Character)
}

func (s *Server) showError(msg string)   { s.show(protocol.MessageTypeError, msg) }
func (s *Server) showWarning(msg string) { s.show(protocol.MessageTypeWarning, msg) }

func (s *Server) show(typ protocol.MessageType, msg string) {
	if err := s.core.Client().ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("showMessage not sent", "err", err)
	}
}
