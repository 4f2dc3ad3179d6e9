package docs

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

// DidOpen is textDocument/didOpen.
func (d *Docs) DidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	td := p.TextDocument
	// Decoded strings may share memory with the whole JSON frame (text
	// included): the key outlives the notification in the view's and the
	// review's maps, so it gets its own copy, or every open document would
	// be held twice.
	key := strings.Clone(core.DocKey(td.URI))
	d.view.Open(key, td.Version, td.Text)
	path := d.view.BufferPath(key)
	if d.follower != nil {
		d.follower.DocumentOpened(path, td.Version, td.Text)
	}
	return nil
}

// DidChange applies one notification's changes, all or none. A malformed
// change (textsync_decode.go) refuses the whole notification with a log line
// (dispatch logs a notification's error) and the document stays as it was.
func (d *Docs) DidChange(_ context.Context, p *DidChangeParams) error {
	changes, err := ParseContentChanges(p.ContentChanges)
	if err != nil {
		return fmt.Errorf("didChange %s version %d refused, document left unchanged: %w", p.TextDocument.URI, p.TextDocument.Version, err)
	}
	key := core.DocKey(p.TextDocument.URI)
	enc := d.core.Session().Encoding
	if d.follower != nil {
		// view.Change + the proposal rebase hook (review/rebase.go).
		err = d.follower.ChangeDocument(key, p.TextDocument.Version, changes, enc)
	} else {
		err = d.view.Change(key, p.TextDocument.Version, changes, enc)
	}
	if err != nil {
		// The view kept the previous text; LSP has no way to ask the editor
		// for the whole buffer, so the next didOpen (or a whole-document
		// change) resynchronises it.
		return fmt.Errorf("didChange %s: %w", p.TextDocument.URI, err)
	}
	return nil
}

// DidSave is textDocument/didSave.
func (d *Docs) DidSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	// The buffer stays the overlay; the disk copy changed, so the read cache
	// must not serve the old content once the buffer is closed.
	if path, ok := core.FilePath(p.TextDocument.URI); ok {
		d.view.Invalidate(path)
	}
	return nil
}

// DidClose is textDocument/didClose: the buffer and every map entry keyed
// by it go.
func (d *Docs) DidClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	key := core.DocKey(p.TextDocument.URI)
	path := d.view.BufferPath(key)
	d.reclaim.Released(d.view.Close(key))
	if d.follower != nil {
		d.follower.DocumentClosed(path)
	}
	return nil
}
