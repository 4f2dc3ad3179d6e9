package lspserver

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lspserver/core"
)

// Text synchronisation: the editor's buffers become overlays in the
// workspace view, so everything agentls reads of an open file is what the
// user sees. These are notifications: they run on the read loop in wire
// order, so a request read after a didChange sees it applied.

func (s *Server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	td := p.TextDocument
	// Decoded strings may share memory with the whole JSON frame (text
	// included): the key outlives the notification in the view's and the
	// review's maps, so it gets its own copy, or every open document would
	// be held twice.
	key := strings.Clone(core.DocKey(td.URI))
	s.view.Open(key, td.Version, td.Text)
	s.reviewOpened(key, td.Version, td.Text)
	s.previewDocChanged(key)
	return nil
}

// didChange applies one notification's changes, all or none. A malformed
// change (textsync_decode.go) refuses the whole notification with a log line
// (dispatch logs a notification's error) and the document stays as it was.
func (s *Server) didChange(_ context.Context, p *didChangeParams) error {
	changes, err := parseContentChanges(p.ContentChanges)
	if err != nil {
		return fmt.Errorf("didChange %s version %d refused, document left unchanged: %w", p.TextDocument.URI, p.TextDocument.Version, err)
	}
	key := core.DocKey(p.TextDocument.URI)
	// changeDocument = view.Change + the proposal rebase hook (review_rebase.go).
	if err := s.changeDocument(key, p.TextDocument.Version, changes, s.Session().Encoding); err != nil {
		// The view kept the previous text; LSP has no way to ask the editor
		// for the whole buffer, so the next didOpen (or a whole-document
		// change) resynchronises it.
		return fmt.Errorf("didChange %s: %w", p.TextDocument.URI, err)
	}
	s.previewDocChanged(key) // diagnostics follow the typing (diagnostics.go)
	return nil
}

func (s *Server) didSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	// The buffer stays the overlay; the disk copy changed, so the read cache
	// must not serve the old content once the buffer is closed.
	if path, ok := core.FilePath(p.TextDocument.URI); ok {
		s.view.Invalidate(path)
	}
	return nil
}

func (s *Server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.reclaim.released(s, s.view.Close(core.DocKey(p.TextDocument.URI)))
	s.reviewClosed(core.DocKey(p.TextDocument.URI))
	s.previewDocChanged(core.DocKey(p.TextDocument.URI))
	return nil
}
