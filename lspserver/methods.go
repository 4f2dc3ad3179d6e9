package lspserver

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/review"
	"github.com/agentls/agentls/lspserver/runs"
)

// methodTable is the one place every method agentls answers is listed, with
// its typed params and the part that serves it. A method not listed gets
// MethodNotFound (-32601) if it is a request and is ignored if it is a
// notification. To add one, write a handler
// `func (x *Part) X(ctx context.Context, p *P) (R, error)` in the file for
// its area in the part's package and list it here with core.Request(...)
// or core.Notification(...).
//
// Requests run released from the read loop (concurrently with later
// messages) unless marked ordered; notifications run in wire order.
func (s *Server) methodTable() map[string]core.Route {
	return map[string]core.Route{
		// Lifecycle (core/lifecycle.go; initialize and initialized wire
		// the parts: lifecycle.go).
		protocol.MethodInitialize:  core.Request(s.initialize, core.Ordered),
		protocol.MethodInitialized: core.Notification(s.initialized, core.OptionalParams),
		protocol.MethodShutdown:    core.Request(s.core.Shutdown, core.Ordered, core.OptionalParams),
		protocol.MethodExit:        core.Notification(s.core.Exit, core.OptionalParams),
		protocol.MethodSetTrace:    core.Notification(s.core.SetTrace),

		// Text synchronisation (docs/textsync.go; review follows through
		// docs.Follower).
		protocol.MethodTextDocumentDidOpen:   core.Notification(s.docs.DidOpen),
		protocol.MethodTextDocumentDidChange: core.Notification(s.docs.DidChange),
		protocol.MethodTextDocumentDidSave:   core.Notification(s.docs.DidSave),
		protocol.MethodTextDocumentDidClose:  core.Notification(s.didClose), // docs, then the completion state

		// Workspace (docs/workspace.go, core/settings.go).
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: core.Notification(s.foldersChanged), // docs, then the MCP roots (runs)
		protocol.MethodWorkspaceDidChangeConfiguration:    core.Notification(s.core.DidChangeConfiguration),
		protocol.MethodWorkspaceDidChangeWatchedFiles:     core.Notification(s.docs.DidChangeWatchedFiles),

		// Agent runs (the command table below, runs/codeaction.go,
		// runs/progress.go).
		protocol.MethodWorkspaceExecuteCommand:      core.Request(core.ExecuteCommand(s.commandTable())),
		protocol.MethodTextDocumentCodeAction:       core.Request(s.runs.CodeAction, core.RawRun(s.runs.CodeActionRaw)), // runs/actioncache.go
		protocol.MethodCodeActionResolve:            core.Request(s.runs.CodeActionResolve),                             // runs/resolve.go
		protocol.MethodWindowWorkDoneProgressCancel: core.Notification(s.runs.WorkDoneProgressCancel),

		// Review of proposals (review/codelens.go, review/hover.go;
		// review/diagnostics.go publishes the rest).
		protocol.MethodTextDocumentCodeLens: core.Request(s.review.CodeLens),
		protocol.MethodTextDocumentHover:    core.Request(s.review.Hover),

		// Inline completions (inline/handlers.go): ghost text, and one
		// completion item for clients without it.
		protocol.MethodTextDocumentInlineCompletion: core.Request(s.inline.InlineCompletion),
		protocol.MethodTextDocumentCompletion:       core.Request(s.inline.Completion),

		// agentls/* custom requests (docs/protocol.md).
		MethodDocument:  core.Request(s.docs.Document),
		MethodProposals: core.Request(s.review.Proposals, core.OptionalParams),
		MethodSessions:  core.Request(s.runs.ListSessions, core.OptionalParams),
		MethodPlans:     core.Request(s.runs.ListPlans, core.OptionalParams),
		// The editor's own tools (runs/editortools.go).
		MethodRegisterTools: core.Request(s.runs.RegisterTools),
		MethodModels:        core.Request(s.runs.Models, core.OptionalParams),
	}
}

// commandTable is the one place every agentls.* command of
// workspace/executeCommand is listed (executeCommandProvider.commands, in
// this order). Review's accept and reject answer with decisions, which go
// to the runs' sessions here: review never calls runs.
func (s *Server) commandTable() []core.Command {
	return []core.Command{
		{Name: runs.CommandRun, Run: s.runs.RunCommand},
		{Name: runs.CommandCancel, Run: s.runs.CancelCommand},
		{Name: review.CommandAccept, Run: func(ctx context.Context, arg json.RawMessage) (any, error) {
			res, decisions, err := s.review.Accept(ctx, arg)
			s.runs.Decide(decisions)
			return res, err
		}},
		{Name: review.CommandReject, Run: func(ctx context.Context, arg json.RawMessage) (any, error) {
			res, decisions, err := s.review.Reject(ctx, arg)
			s.runs.Decide(decisions)
			return res, err
		}},
		{Name: review.CommandRemember, Run: s.review.Remember},
		{Name: runs.CommandDeleteSession, Run: s.runs.DeleteSession},
		{Name: runs.CommandClearSessions, Run: s.runs.ClearSessions},
		{Name: runs.CommandApprovePlan, Run: s.runs.ApprovePlan},
		{Name: runs.CommandRevert, Run: s.runs.Revert},
		{Name: runs.CommandOpenReport, Run: s.runs.OpenReport},
	}
}
