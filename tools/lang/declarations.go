package lang

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
)

// ErrTextChanged: the document changed between the caller's read and the
// server's; offsets into the caller's text would point elsewhere.
var ErrTextChanged = errors.New("the document changed before the language server was asked")

// maxDeclLines bounds one declaration: a struct's hover lists all its
// fields, and a completion prompt needs its head, not the whole type.
const maxDeclLines = 8

// Declarations returns, for each byte offset into content (the text of
// path the caller read from the view), the declaration the server's
// hover shows for the symbol there ("" when none): the signature of a
// function, the head of a type. Completions put them in the prompt so
// that a model calls a function of another file with the right
// arguments. ctx bounds the whole call (a cold server's start included);
// when it ends, the declarations found so far are returned with no
// error, so a caller's deadline drops only what did not arrive. When the
// view holds another text than content by the time the server is
// synced, it returns ErrTextChanged.
func (r *Run) Declarations(ctx context.Context, path, content string, offsets []int) ([]string, error) {
	out := make([]string, len(offsets))
	err := r.use(ctx, path, nil, func(c *client) error {
		held, _, ok := c.docText(path)
		if !ok || held != content {
			return ErrTextChanged
		}
		ix := text.NewIndex(held)
		for i, off := range offsets {
			if off < 0 || off > len(held) {
				continue
			}
			p := ix.Position(off, c.enc)
			h, err := c.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: textPos(path, protocol.Position{Line: p.Line, Character: p.Character})})
			if ctx.Err() != nil {
				return nil // the caller's deadline: what arrived is kept
			}
			if err != nil || h == nil {
				continue
			}
			out[i] = hoverDeclaration(h.Contents)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return out, err
	}
	return out, nil
}

// hoverDeclaration is the code of a hover: its first fenced block in
// markdown (gopls, pyright and tsserver put the declaration there, the
// documentation after it), or a plain text hover's first lines.
func hoverDeclaration(c protocol.HoverContents) string {
	var s string
	switch v := c.(type) {
	case *protocol.MarkupContent:
		if v == nil {
			return ""
		}
		s = v.Value
		if v.Kind == protocol.MarkupKindMarkdown {
			s = firstFence(s)
		}
	case protocol.String:
		s = firstFence(string(v))
	//lint:ignore SA1019 older servers still send marked strings
	case *protocol.MarkedStringWithLanguage:
		if v != nil {
			s = v.Value
		}
	case protocol.MarkedStringSlice:
		for _, m := range v {
			switch m := m.(type) {
			//lint:ignore SA1019 older servers still send marked strings
			case *protocol.MarkedStringWithLanguage:
				s = m.Value
			case protocol.String:
				s = firstFence(string(m))
			}
			if strings.TrimSpace(s) != "" {
				break
			}
		}
	}
	s = strings.TrimSpace(s)
	if lines := strings.Split(s, "\n"); len(lines) > maxDeclLines {
		s = strings.Join(lines[:maxDeclLines], "\n") + "\n…"
	}
	return s
}

// firstFence is the content of the first ``` block of md, or md when it
// has none.
func firstFence(md string) string {
	i := strings.Index(md, "```")
	if i < 0 {
		return md
	}
	rest := md[i+3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return ""
	}
	rest = rest[nl+1:]
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
