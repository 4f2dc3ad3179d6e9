package lspserver

import (
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// methodTable is the one place every method agentls answers is listed, with
// its typed params. A method not listed gets MethodNotFound (-32601) if it
// is a request and is ignored if it is a notification. To add one, write a
// handler `func (s *Server) x(ctx context.Context, p *P) (R, error)` in the
// file for its area and list it here with core.Request(...) or core.Notification(...).
//
// Requests run released from the read loop (concurrently with later
// messages) unless marked ordered; notifications run in wire order.
func (s *Server) methodTable() map[string]core.Route {
	return map[string]core.Route{
		// Lifecycle (lifecycle.go).
		protocol.MethodInitialize:  core.Request(s.initialize, core.Ordered),
		protocol.MethodInitialized: core.Notification(s.initializedRuns, core.OptionalParams), // s.initialized, then run services (config.go)
		protocol.MethodShutdown:    core.Request(s.core.Shutdown, core.Ordered, core.OptionalParams),
		protocol.MethodExit:        core.Notification(s.core.Exit, core.OptionalParams),
		protocol.MethodSetTrace:    core.Notification(s.core.SetTrace),

		// Text synchronisation (textsync.go).
		protocol.MethodTextDocumentDidOpen:   core.Notification(s.docs.DidOpen),
		protocol.MethodTextDocumentDidChange: core.Notification(s.docs.DidChange),
		protocol.MethodTextDocumentDidSave:   core.Notification(s.docs.DidSave),
		protocol.MethodTextDocumentDidClose:  core.Notification(s.docs.DidClose),

		// Workspace (workspace.go, settings.go).
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: core.Notification(s.foldersChanged), // s.didChangeWorkspaceFolders, then MCP roots (mcp.go)
		protocol.MethodWorkspaceDidChangeConfiguration:    core.Notification(s.core.DidChangeConfiguration),
		protocol.MethodWorkspaceDidChangeWatchedFiles:     core.Notification(s.docs.DidChangeWatchedFiles),

		// Agent runs (commands.go, codeaction.go, progress.go).
		protocol.MethodWorkspaceExecuteCommand:      core.Request(s.executeCommand),
		protocol.MethodTextDocumentCodeAction:       core.Request(s.codeAction),
		protocol.MethodWindowWorkDoneProgressCancel: core.Notification(s.workDoneProgressCancel),

		// Review of proposals (codelens.go, proposals.go).
		protocol.MethodTextDocumentCodeLens: core.Request(s.review.CodeLens),
		protocol.MethodTextDocumentHover:    core.Request(s.review.Hover), // hover.go; diagnostics.go publishes the rest

		// agentls/* custom requests (docs/protocol.md).
		MethodDocument:  core.Request(s.docs.Document),
		MethodProposals: core.Request(s.review.Proposals, core.OptionalParams),
		MethodSessions:  core.Request(s.sessionsRequest, core.OptionalParams),
	}
}
