package core

import (
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
)

// This file is the one conversion layer between LSP types and agentls's own.
// Positions map field for field: the character unit is the negotiated
// encoding on both sides, and all offset arithmetic lives in internal/text.

// negotiateEncoding picks the session's position encoding from the client's
// general.positionEncodings (internal/text decides the preference order).
func negotiateEncoding(c protocol.ClientCapabilities) text.Encoding {
	var offered []string
	if c.General != nil {
		for _, k := range c.General.PositionEncodings {
			offered = append(offered, string(k))
		}
	}
	return text.Negotiate(offered)
}

// ToTextPosition converts an LSP position to internal/text's (same units).
func ToTextPosition(p protocol.Position) text.Position {
	return text.Position{Line: p.Line, Character: p.Character}
}

// ToProtocolPosition converts a internal/text position to LSP's (same units).
func ToProtocolPosition(p text.Position) protocol.Position {
	return protocol.Position{Line: p.Line, Character: p.Character}
}

// ToTextRange converts an LSP range to internal/text's.
func ToTextRange(r protocol.Range) text.Range {
	return text.Range{Start: ToTextPosition(r.Start), End: ToTextPosition(r.End)}
}

// ToProtocolRange converts a internal/text range to LSP's.
func ToProtocolRange(r text.Range) protocol.Range {
	return protocol.Range{Start: ToProtocolPosition(r.Start), End: ToProtocolPosition(r.End)}
}

// toTextChanges converts didChange content changes; a whole-document change
// has a nil Range.
func toTextChanges(events []protocol.TextDocumentContentChangeEvent) ([]text.Change, error) {
	out := make([]text.Change, 0, len(events))
	for i, ev := range events {
		switch c := ev.(type) {
		case *protocol.TextDocumentContentChangePartial:
			r := ToTextRange(c.Range)
			out = append(out, text.Change{Range: &r, Text: c.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			out = append(out, text.Change{Text: c.Text})
		default:
			return nil, fmt.Errorf("content change %d: unsupported type %T", i, ev)
		}
	}
	return out, nil
}

// DocKey is the workspace view's key for a document URI: the absolute
// cleaned path for file: URIs, the (canonical) URI string otherwise
// (internal/workspace/api.go). URIs arrive canonicalised by go.lsp.dev, so two
// spellings of one file meet here as one path.
func DocKey(u uri.URI) string {
	if u.IsFile() {
		return filepath.Clean(u.FsPath())
	}
	return string(u)
}

// FilePath returns the file-system path of a file: URI, or ok=false.
func FilePath(u uri.URI) (string, bool) {
	if !u.IsFile() {
		return "", false
	}
	p := u.FsPath()
	if p == "" {
		return "", false
	}
	return filepath.Clean(p), true
}

// ToProtocolEdits converts internal/text edits (same units) to LSP TextEdits.
func ToProtocolEdits(edits []text.Edit) []protocol.TextEdit {
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{Range: ToProtocolRange(e.Range), NewText: e.NewText}
	}
	return out
}
