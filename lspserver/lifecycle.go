package lspserver

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/docs"
)

// ServerName is serverInfo.name (docs/protocol.md).
const ServerName = "agentls"

// initialize is the initialize request: each part takes its share of
// the client's parameters, then the lifecycle moves on.
func (s *Server) initialize(_ context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	sess := s.core.Negotiate(p)
	s.docs.SetFolders(docs.InitialFolders(p, s.log))
	s.core.MarkInitialized()
	s.log.Info("initialized", "client", sess.ClientName, "encoding", sess.Encoding.String(),
		"folders", s.view.Folders(), "processId", sess.ProcessID)
	return &protocol.InitializeResult{Capabilities: s.capabilities(sess), ServerInfo: s.core.ServerInfo()}, nil
}

// capabilities is what agentls offers; features add their providers here.
func (s *Server) capabilities(sess *Session) protocol.ServerCapabilities {
	return protocol.ServerCapabilities{
		PositionEncoding: protocol.PositionEncodingKind(sess.Encoding.String()),
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: ptr(true),
			Change:    ptr(protocol.TextDocumentSyncKindIncremental),
			Save:      &protocol.SaveOptions{IncludeText: ptr(false)},
		},
		Workspace: &protocol.WorkspaceOptions{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported:           ptr(true),
				ChangeNotifications: protocol.Boolean(true),
			},
		},
		// Agent runs (commands.go, codeaction.go).
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: commandNames()},
		CodeActionProvider:     &protocol.CodeActionOptions{CodeActionKinds: codeActionKinds(), ResolveProvider: ptr(false)},
		// Review of proposals (codelens.go).
		CodeLensProvider: &protocol.CodeLensOptions{ResolveProvider: ptr(false)},
		// Preview without a plugin (hover.go, diagnostics.go).
		HoverProvider: protocol.Boolean(true),
	}
}

func (s *Server) initialized(context.Context, *protocol.InitializedParams) error {
	s.initOnce.Do(func() {
		s.sessions() // restore saved sessions and their proposals
		if s.Session().Features.WatchedFilesDynamic {
			s.goBackground("register didChangeWatchedFiles", s.docs.RegisterWatchedFiles)
		}
	})
	return nil
}
