package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/tools"
)

// nopClient is a Client that sends nothing.
type nopClient struct{}

func (nopClient) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	return &protocol.ApplyWorkspaceEditResult{}, nil
}
func (nopClient) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (nopClient) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (nopClient) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (nopClient) Progress(context.Context, *protocol.ProgressParams) error     { return nil }
func (nopClient) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (nopClient) CodeLensRefresh(context.Context) error                                  { return nil }
func (nopClient) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (nopClient) Notify(context.Context, string, any) error                              { return nil }

// BenchmarkCodeActionHandler is the server's own share of a code action
// request, without the transport: decoding the params, building the
// actions (review's included: 1,000 open documents, 50 with a pending
// proposal, the range overlapping a hunk) and encoding the result, as
// the dispatcher does. Compare BenchmarkCodeAction for the round trip.
func BenchmarkCodeActionHandler(b *testing.B) { benchCodeActionHandler(b, false, false) }

// BenchmarkCodeActionHandlerLazy is BenchmarkCodeActionHandler for a
// client that resolves commands lazily (codeAction/resolve). Its 50
// requests are asked again and again, as an editor does on cursor moves:
// after the first round every answer comes from the cache
// (runs/actioncache.go).
func BenchmarkCodeActionHandlerLazy(b *testing.B) { benchCodeActionHandler(b, true, false) }

// BenchmarkCodeActionHandlerLazyMiss is BenchmarkCodeActionHandlerLazy
// with the cache missing every time (something changed before each
// request): the cost of building the list.
func BenchmarkCodeActionHandlerLazyMiss(b *testing.B) { benchCodeActionHandler(b, true, true) }

func benchCodeActionHandler(b *testing.B, lazy, miss bool) {
	const docs, withProposals, lines = 1000, 50, 200
	s := New(Options{NoWatcher: true})
	s.core.Attach(nopClient{}, nil)
	defer s.core.Stop()
	if lazy {
		t := true
		s.core.Negotiate(&protocol.InitializeParams{Capabilities: protocol.ClientCapabilities{
			TextDocument: &protocol.TextDocumentClientCapabilities{CodeAction: &protocol.CodeActionClientCapabilities{
				DataSupport: &t, ResolveSupport: protocol.ClientCodeActionResolveOptions{Properties: []string{"command"}},
			}},
		}})
	}
	root := b.TempDir()
	s.docs.SetFolders([]string{root})
	var uris []uri.URI
	for i := range docs {
		var sb strings.Builder
		for l := range lines {
			fmt.Fprintf(&sb, "\tvalue%d := compute(%d, \"😀 日本\") // line %d\n", l, l*i, l)
		}
		content := sb.String()
		path := filepath.Join(root, fmt.Sprintf("f%04d.go", i))
		s.view.Open(path, 1, content)
		if i < withProposals {
			proposed := strings.NewReplacer("value10 ", "renamed10 ", "value100 ", "renamed100 ", "value190 ", "renamed190 ").Replace(content)
			s.review.Stage(fmt.Sprintf("run%d", i), tools.StagedFile{Path: path, Base: content, Text: proposed})
			uris = append(uris, uri.File(path))
		}
	}
	raw := make([][]byte, len(uris))
	for i, u := range uris {
		p := &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range:        protocol.Range{Start: protocol.Position{Line: 99}, End: protocol.Position{Line: 101, Character: 10}},
			Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{
				{Range: protocol.Range{Start: protocol.Position{Line: 100, Character: 1}, End: protocol.Position{Line: 100, Character: 9}}, Severity: protocol.DiagnosticSeverityError, Message: protocol.String("undefined: compute")},
				{Range: protocol.Range{Start: protocol.Position{Line: 101, Character: 1}, End: protocol.Position{Line: 101, Character: 9}}, Severity: protocol.DiagnosticSeverityWarning, Message: protocol.String("value101 declared and not used")},
			}},
		}
		var err error
		if raw[i], err = protocol.Marshal(p); err != nil {
			b.Fatal(err)
		}
	}
	route := s.core.Routes()[protocol.MethodTextDocumentCodeAction]
	ctx := context.Background()
	res, err := route.Run(ctx, raw[0])
	if err != nil {
		b.Fatal(err)
	}
	var list []json.RawMessage
	if raw, ok := res.(json.RawMessage); ok { // lazy: encoded by the handler
		err = json.Unmarshal(raw, &list)
	} else {
		raw, _ := protocol.Marshal(res)
		err = json.Unmarshal(raw, &list)
	}
	if n := len(list); err != nil || n != 8 {
		b.Fatalf("%d code actions, want 8 (2 fixes; explain, document, refactor, plan; accept, reject)", n)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if miss {
			s.core.ActionsChanged()
		}
		res, err := route.Run(ctx, raw[i%len(raw)])
		if err != nil {
			b.Fatal(err)
		}
		if _, raw := res.(json.RawMessage); raw {
			continue // jsonrpc2's codec sends it verbatim
		}
		if _, err := protocol.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}
