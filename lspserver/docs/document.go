package docs

import (
	"context"
	"errors"
	"io/fs"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
)

// MethodDocument is the agentls/document request (docs/protocol.md "Custom
// requests"): the server's view of a document, for plugin authors checking
// their text synchronisation.
const MethodDocument = "agentls/document"

// DocumentParams are the params of agentls/document.
type DocumentParams struct {
	URI uri.URI `json:"uri"`
}

// DocumentResult is the result of agentls/document: the open buffer's
// version and text, or a null version and the file's text on disk.
type DocumentResult struct {
	Version *int32 `json:"version"`
	Text    string `json:"text"`
}

// Document answers agentls/document.
func (d *Docs) Document(_ context.Context, p *DocumentParams) (*DocumentResult, error) {
	if p.URI == "" {
		return nil, core.InvalidParams("invalid params: %s needs a \"uri\"", MethodDocument)
	}
	if snap, ok := d.view.Overlay(core.DocKey(p.URI)); ok {
		return &DocumentResult{Version: snap.Version, Text: snap.Text}, nil
	}
	path, ok := core.FilePath(p.URI)
	if !ok {
		return nil, core.InvalidParams("%s is not open, and only file: URIs can be read from disk", p.URI)
	}
	snap, err := d.view.Read(path)
	switch {
	case err == nil:
		return &DocumentResult{Version: snap.Version, Text: snap.Text}, nil
	case errors.Is(err, workspace.ErrOutside):
		return nil, core.InvalidParams("%s is not open and is outside the workspace folders, so agentls will not read it: %v", p.URI, err)
	case errors.Is(err, fs.ErrNotExist):
		return nil, core.RequestFailed("%s is not open and does not exist on disk", p.URI)
	default:
		return nil, core.RequestFailed("read %s: %v", p.URI, err)
	}
}
