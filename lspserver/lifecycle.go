package lspserver

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/lspserver/runs"
)

// initialize is the initialize request: each part takes its share of the
// client's parameters, then the lifecycle moves on. It is an ordered
// request, so no later message is read before it returns.
func (s *Server) initialize(_ context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	sess := s.core.Negotiate(p)
	s.docs.SetFolders(docs.InitialFolders(p, s.log))
	// Whether to offer completions is decided now, from the configuration
	// as it stands (no trust question is put before initialize's answer).
	s.inline.Configure(s.runs.PeekConfig())
	s.core.MarkInitialized()
	s.log.Info("initialized", "client", sess.ClientName, "encoding", sess.Encoding.String(),
		"folders", s.view.Folders(), "processId", sess.ProcessID)
	return &protocol.InitializeResult{Capabilities: s.capabilities(sess), ServerInfo: s.core.ServerInfo()}, nil
}

// capabilities is what agentls offers; a part's new provider goes here.
func (s *Server) capabilities(sess *Session) protocol.ServerCapabilities {
	caps := protocol.ServerCapabilities{
		PositionEncoding: protocol.PositionEncodingKind(sess.Encoding.String()),
		// Documents (docs).
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: core.Ptr(true),
			Change:    core.Ptr(protocol.TextDocumentSyncKindIncremental),
			Save:      &protocol.SaveOptions{IncludeText: core.Ptr(false)},
		},
		Workspace: &protocol.WorkspaceOptions{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported:           core.Ptr(true),
				ChangeNotifications: protocol.Boolean(true),
			},
		},
		// Agent runs (runs) and the command table (methods.go).
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: core.CommandNames(s.commandTable())},
		CodeActionProvider:     &protocol.CodeActionOptions{CodeActionKinds: runs.CodeActionKinds(), ResolveProvider: core.Ptr(sess.Features.LazyCodeActions)},
		// Review of proposals (review): lenses, and a preview without a
		// plugin (hover, diagnostics).
		CodeLensProvider: &protocol.CodeLensOptions{ResolveProvider: core.Ptr(false)},
		HoverProvider:    protocol.Boolean(true),
	}
	// Inline completions (inline), when a completion model is configured.
	s.inline.Capabilities(&caps, sess.Features)
	return caps
}

// initialized is the initialized notification: the first one restores
// the saved sessions and registers for watched files; every one makes
// sure the run services (configuration, MCP servers) are started.
func (s *Server) initialized(context.Context, *protocol.InitializedParams) error {
	s.initOnce.Do(func() {
		s.runs.RestoreSessions() // saved sessions and their proposals
		if s.Session().Features.WatchedFilesDynamic {
			s.core.Go("register didChangeWatchedFiles", s.docs.RegisterWatchedFiles)
		}
	})
	s.runs.StartServices()
	return nil
}

// didClose is textDocument/didClose: the documents part closes the
// buffer, then the completion state of the document goes.
func (s *Server) didClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.inline.Closed(p.TextDocument.URI)
	return s.docs.DidClose(ctx, p)
}

// foldersChanged is didChangeWorkspaceFolders: the documents part takes
// the new folders, then the MCP servers' roots follow them.
func (s *Server) foldersChanged(ctx context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	err := s.docs.DidChangeWorkspaceFolders(ctx, p)
	s.runs.FoldersChanged()
	return err
}
