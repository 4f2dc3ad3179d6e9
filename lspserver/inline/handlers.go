package inline

import (
	"context"

	"go.lsp.dev/protocol"
)

// InlineCompletion is textDocument/inlineCompletion: one item at the
// cursor, or none.
func (in *Inline) InlineCompletion(ctx context.Context, p *protocol.InlineCompletionParams) (*protocol.InlineCompletionList, error) {
	automatic := p.Context.TriggerKind != protocol.InlineCompletionTriggerKindInvoked
	t, r, ok, err := in.complete(ctx, p.TextDocument.URI, p.Position, automatic)
	if err != nil {
		return nil, err
	}
	list := &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{}}
	if ok {
		list.Items = append(list.Items, protocol.InlineCompletionItem{InsertText: protocol.String(t), Range: &r})
	}
	return list, nil
}

// Completion is textDocument/completion for clients without inline
// completions (Helix, eglot): the completion as one item whose textEdit
// inserts it whole at the cursor. Invoked and automatic requests alike
// are debounced only when the client says they were typed (triggerKind
// 2, a trigger character).
func (in *Inline) Completion(ctx context.Context, p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	automatic := p.Context.TriggerKind == protocol.CompletionTriggerKindTriggerCharacter
	t, r, ok, err := in.complete(ctx, p.TextDocument.URI, p.Position, automatic)
	if err != nil {
		return nil, err
	}
	list := &protocol.CompletionList{IsIncomplete: true, Items: []protocol.CompletionItem{}}
	if ok {
		list.Items = append(list.Items, protocol.CompletionItem{
			Label:      label(t),
			Kind:       protocol.CompletionItemKindText,
			Detail:     protocol.NewOptional("agentls completion"),
			FilterText: protocol.NewOptional(t),
			SortText:   protocol.NewOptional("0"),
			TextEdit:   &protocol.TextEdit{Range: r, NewText: t},
		})
	}
	return list, nil
}

// label is the item's first line, shortened for the menu.
func label(t string) string {
	for i, c := range t {
		if c == '\n' {
			return t[:i] + " …"
		}
	}
	const maxLabel = 80
	if r := []rune(t); len(r) > maxLabel {
		return string(r[:maxLabel]) + "…"
	}
	return t
}
