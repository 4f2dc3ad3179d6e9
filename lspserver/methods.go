package lspserver

import "go.lsp.dev/protocol"

// methodTable is the one place every method agentls answers is listed, with
// its typed params. A method not listed gets MethodNotFound (-32601) if it
// is a request and is ignored if it is a notification. To add one, write a
// handler `func (s *Server) x(ctx context.Context, p *P) (R, error)` in the
// file for its area and list it here with request(...) or notification(...).
//
// Requests run released from the read loop (concurrently with later
// messages) unless marked ordered; notifications run in wire order.
func (s *Server) methodTable() map[string]route {
	return map[string]route{
		// Lifecycle (lifecycle.go).
		protocol.MethodInitialize:  request(s.initialize, ordered),
		protocol.MethodInitialized: notification(s.initializedRuns, optionalParams), // s.initialized, then run services (config.go)
		protocol.MethodShutdown:    request(s.shutdown, ordered, optionalParams),
		protocol.MethodExit:        notification(s.exit, optionalParams),
		protocol.MethodSetTrace:    notification(s.setTrace),

		// Text synchronisation (textsync.go).
		protocol.MethodTextDocumentDidOpen:   notification(s.didOpen),
		protocol.MethodTextDocumentDidChange: notification(s.didChange),
		protocol.MethodTextDocumentDidSave:   notification(s.didSave),
		protocol.MethodTextDocumentDidClose:  notification(s.didClose),

		// Workspace (workspace.go, settings.go).
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: notification(s.foldersChanged), // s.didChangeWorkspaceFolders, then MCP roots (mcp.go)
		protocol.MethodWorkspaceDidChangeConfiguration:    notification(s.didChangeConfiguration),
		protocol.MethodWorkspaceDidChangeWatchedFiles:     notification(s.didChangeWatchedFiles),

		// Agent runs (commands.go, codeaction.go, progress.go).
		protocol.MethodWorkspaceExecuteCommand:      request(s.executeCommand),
		protocol.MethodTextDocumentCodeAction:       request(s.codeAction),
		protocol.MethodWindowWorkDoneProgressCancel: notification(s.workDoneProgressCancel),

		// Review of proposals (codelens.go, proposals.go).
		protocol.MethodTextDocumentCodeLens: request(s.codeLens),
		protocol.MethodTextDocumentHover:    request(s.hover), // hover.go; diagnostics.go publishes the rest

		// agentls/* custom requests (docs/protocol.md).
		MethodDocument:  request(s.document),
		MethodProposals: request(s.proposals, optionalParams),
		MethodSessions:  request(s.sessionsRequest, optionalParams),
	}
}
