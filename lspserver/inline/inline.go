// Package inline is the inline-completion part of the LSP face:
// textDocument/inlineCompletion (ghost text) and, for clients without
// it, the same completion as a textDocument/completion item. It only
// translates: positions and the open buffer's text in, one item out; the
// rules (debounce, one model request per document, aborts, typing
// through, clean-up) are agent/complete's.
package inline

import (
	"context"
	"log/slog"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/complete"
	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/internal/workspace"
	"github.com/agentls/agentls/lspserver/core"
	"github.com/agentls/agentls/lspserver/docs"
	"github.com/agentls/agentls/tools/lang"
)

// Inline is the completion part of one LSP session.
type Inline struct {
	core *core.Server
	docs *docs.Docs
	log  *slog.Logger
	eng  *complete.Engine

	suggest func(complete.Suggestion) // where next-edit suggestions go (OnNextEdit)
	neOnce  sync.Once                 // starts the next-edit loop

	langFor func(config.Config) *lang.Manager // LanguageServers
	decl    *complete.Languages               // declarations for completions (decls.go)
}

// New returns the part over d's documents; completions stay off until
// Configure. Every buffer edit reaches the engine (it aborts the model
// request of an outdated text).
func New(c *core.Server, d *docs.Docs) *Inline {
	in := &Inline{core: c, docs: d, log: c.Log().With("component", "inline"), eng: complete.New(d.View(), c.Log().With("component", "complete"))}
	d.View().Subscribe(func(ev workspace.Event) {
		if ev.Buffer {
			in.eng.Changed(ev.Path)
		}
	})
	return in
}

// OnNextEdit sets where next-edit suggestions go (the review part's
// proposals); call it before Serve.
func (in *Inline) OnNextEdit(fn func(complete.Suggestion)) { in.suggest = fn }

// Configure applies a configuration (at initialize and after every load).
// The first one with completion.nextEdit starts the next-edit loop, which
// lives as long as the server.
func (in *Inline) Configure(cfg config.Config) {
	if in.langFor != nil && cfg.CompletionOn() {
		in.decl.Use(in.langFor(cfg))
	}
	if err := in.eng.Configure(cfg); err != nil {
		in.log.Warn("inline completions are off: the completion model cannot be used", "err", err)
		return
	}
	if cfg.Completion.NextEdit && in.suggest != nil {
		in.neOnce.Do(func() {
			wait := in.eng.StartNextEdits(in.core.Context(), in.suggest)
			in.core.Go("next edits", func(context.Context) { wait() })
		})
	}
	if in.eng.Enabled() {
		model, mode, family := in.eng.Describe()
		in.log.Info("inline completions", "model", model, "fim", mode, "family", family)
	}
}

// Engine is the completion engine (usage, benchmarks).
func (in *Inline) Engine() *complete.Engine { return in.eng }

// Capabilities sets the providers for a client: inlineCompletionProvider
// when a completion model is configured, and completionProvider for
// clients without inline completions (completion.inCompletionList).
func (in *Inline) Capabilities(caps *protocol.ServerCapabilities, f core.ClientFeatures) {
	if !in.eng.Enabled() {
		return
	}
	caps.InlineCompletionProvider = &protocol.InlineCompletionOptions{}
	if !f.InlineCompletion && in.eng.InCompletionList() {
		caps.CompletionProvider = &protocol.CompletionOptions{}
	}
}

// Closed forgets a closed document's completion state.
func (in *Inline) Closed(u uri.URI) {
	if snapPath := in.docs.PathOf(u); snapPath != "" {
		in.eng.Closed(snapPath)
	}
}

// errCancelled is the LSP answer to a request the client cancelled.
var errCancelled = jsonrpc2.NewError(jsonrpc2.Code(protocol.LSPErrorCodesRequestCancelled), "request cancelled")

// complete runs one request at pos of the open document u.
func (in *Inline) complete(ctx context.Context, u uri.URI, pos protocol.Position, automatic bool) (string, protocol.Range, bool, error) {
	key := core.DocKey(u)
	path := in.docs.PathOf(u)
	gen := in.eng.Gen(path) // before the text: an edit after it makes the answer stale
	snap, ok := in.docs.View().Overlay(key)
	if !ok {
		return "", protocol.Range{}, false, nil // only open buffers are completed
	}
	if snap.Path != path {
		path = snap.Path
		gen = in.eng.Gen(path)
		if snap, ok = in.docs.View().Overlay(key); !ok {
			return "", protocol.Range{}, false, nil
		}
	}
	enc := in.core.Session().Encoding
	ix := text.NewIndex(snap.Text)
	tp := text.Position{Line: pos.Line, Character: pos.Character}
	off := ix.Offset(tp, enc)
	res, err := in.eng.Complete(ctx, complete.Request{Path: path, Text: snap.Text, Offset: off, Gen: gen, Automatic: automatic})
	if err != nil {
		return "", protocol.Range{}, false, errCancelled
	}
	if res.Text == "" {
		return "", protocol.Range{}, false, nil
	}
	at := ix.Position(off, enc) // the cursor as the text has it (a position past the line end is clamped)
	p := protocol.Position{Line: at.Line, Character: at.Character}
	return res.Text, protocol.Range{Start: p, End: p}, true, nil
}
