package review

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/proposal"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// textDocument/hover over a pending hunk shows the change as a Markdown
// diff, for clients that show neither our plugins' previews nor code
// lenses. Like code actions it only reads the store.

// Hover answers textDocument/hover: the hunks whose lines hold the
// position, each as a diff, or null when there is none.
func (v *Review) Hover(_ context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	r := v.state()
	pos := text.Position{Line: p.Position.Line, Character: p.Position.Character}
	hunks := r.store.HunksAtLSP(v.docs.PathOf(p.TextDocument.URI), text.Range{Start: pos, End: pos}, v.core.Session().Encoding)
	if len(hunks) == 0 {
		return nil, nil
	}
	rng := core.ToProtocolRange(hunks[0].Range)
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: proposal.HunkMarkdown(hunks)},
		Range:    &rng,
	}, nil
}
