package docs

import (
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// WorkspaceEdit builds the WorkspaceEdit for files according to the
// client's capabilities. Shared by accept (review) and apply mode (runs).
//
//   - workspaceEdit.documentChanges: one TextDocumentEdit per file carrying
//     the document version the edits were computed against ("version":
//     null for files that are not open), so the editor refuses the edit if
//     the document moved on. A new file is preceded by a CreateFile
//     operation when resourceOperations include "create", with
//     overwrite=false and ignoreIfExists=true: an existing file is never
//     truncated (accept checks right before sending that it still does
//     not exist, so the insertion lands on an empty document).
//   - otherwise: the `changes` map (uri → edits), which carries no
//     version; accept verifies the result itself (review/accept.go).
//   - a new file without "create" support: its edits go to the file's URI
//     anyway (in documentChanges with version null, or in `changes`).
//     Neovim (0.7.2 included: it declares resourceOperations but not
//     documentChanges) opens a buffer for a missing file and applies the
//     edits to it; VS Code creates it. A client that cannot open a missing
//     file refuses the edit, and accept returns its failureReason with the
//     proposal kept, so the user can create the file and accept again.
func (d *Docs) WorkspaceEdit(files []FileEdit) protocol.WorkspaceEdit {
	feats := d.core.Session().Features
	if !feats.DocumentChanges {
		changes := make(map[uri.URI][]protocol.TextEdit, len(files))
		for _, f := range files {
			u := d.URIOf(f.Path)
			changes[u] = append(changes[u], core.ToProtocolEdits(f.Edits)...)
		}
		return protocol.WorkspaceEdit{Changes: changes}
	}
	create := slices.Contains(feats.ResourceOperations, protocol.ResourceOperationKindCreate)
	var out []protocol.DocumentChange
	for _, f := range files {
		u := d.URIOf(f.Path)
		if f.Created && create {
			out = append(out, &protocol.CreateFile{
				Kind:    string(protocol.ResourceOperationKindCreate), // never set for us (docs/pitfalls.md "LSP: types")
				URI:     u,
				Options: &protocol.CreateFileOptions{Overwrite: core.Ptr(false), IgnoreIfExists: core.Ptr(true)},
			})
		}
		edits := core.ToProtocolEdits(f.Edits)
		elems := make([]protocol.TextDocumentEditElement, len(edits))
		for i := range edits {
			elems[i] = &edits[i]
		}
		var version *int32
		if f.Version != nil {
			version = core.Ptr(*f.Version)
		}
		out = append(out, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
				Version:                version, // nil → "version":null
			},
			Edits: elems,
		})
	}
	return protocol.WorkspaceEdit{DocumentChanges: out}
}

// FileEdit is one file's change for a WorkspaceEdit.
type FileEdit struct {
	Path    string      // absolute path
	Version *int32      // open document version the edits were computed against; nil if not open
	Created bool        // new file: CreateFile first (or a fallback when unsupported)
	Edits   []text.Edit // in the session's position encoding
}
