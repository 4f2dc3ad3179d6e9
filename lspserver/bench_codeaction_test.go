package lspserver_test

import (
	"encoding/json"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver/lsptest"
)

// BenchmarkCodeAction measures textDocument/codeAction round trips through
// the real server over in-process pipes with 1,000 open documents (200
// lines each), 50 of them with a pending proposal (3 hunks each), beside a
// raw echo request (a route that does nothing) in the same run. Each
// iteration asks for the code actions of a range that overlaps a pending
// hunk, with two diagnostics (so the fix, task and review actions are all
// built), then one echo. Reports p50/p99 of both in µs and the p99 ratio;
// the goal is codeAction p99 ≤ 1 ms and ≤ 3× echo. The editor state is
// benchEditorState's; the client resolves nothing (eglot, Helix), so every
// action carries its command.
func BenchmarkCodeAction(b *testing.B) { benchCodeAction(b, nil) }

// BenchmarkCodeActionLazy is BenchmarkCodeAction for a client that
// resolves commands lazily (codeAction/resolve): titles and kinds only.
// The goal is p99 ≤ 1.5× echo.
func BenchmarkCodeActionLazy(b *testing.B) {
	caps := lsptest.ResolvingCapabilities()
	benchCodeAction(b, &caps)
}

// BenchmarkCodeActionFloor is BenchmarkCodeActionLazy's request and
// answer without the server's work: the same params sent to a route that
// decodes nothing and answers the lazy list, as encoded, from memory. What
// it measures is the transport and the test client's own encoding and
// parsing of messages of these sizes: the floor of BenchmarkCodeActionLazy,
// however fast the handler.
func BenchmarkCodeActionFloor(b *testing.B) {
	caps := lsptest.ResolvingCapabilities()
	benchCodeActionVia(b, &caps, "test/replay")
}

func benchCodeAction(b *testing.B, caps *protocol.ClientCapabilities) {
	benchCodeActionVia(b, caps, protocol.MethodTextDocumentCodeAction)
}

// benchCodeActionVia times method with benchCodeAction's requests.
func benchCodeActionVia(b *testing.B, caps *protocol.ClientCapabilities, method string) {
	c, ctx, uris := benchEditorState(b, caps)
	params := func(u uri.URI) *protocol.CodeActionParams {
		return &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range:        rng(99, 0, 101, 10), // overlaps the hunk at line 100
			Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{
				{Range: rng(100, 1, 100, 9), Severity: protocol.DiagnosticSeverityError, Message: protocol.String("undefined: compute")},
				{Range: rng(101, 1, 101, 9), Severity: protocol.DiagnosticSeverityWarning, Message: protocol.String("value101 declared and not used")},
			}},
		}
	}
	var body json.RawMessage
	if err := c.Call(ctx, protocol.MethodTextDocumentCodeAction, params(uris[0]), &body); err != nil {
		b.Fatal(err)
	}
	replayBody.Store(&body)
	var actions []json.RawMessage
	if err := json.Unmarshal(body, &actions); err != nil {
		b.Fatal(err)
	}
	var got []string
	for _, raw := range actions {
		var a protocol.CodeAction
		_ = protocol.Unmarshal(raw, &a)
		got = append(got, a.Title)
		if lazy := caps != nil; lazy == (a.Command.Command != "") {
			b.Fatalf("code action %q: command %q for a client that resolves lazily: %v", a.Title, a.Command.Command, lazy)
		}
	}
	if !slices.Contains(got, "Agent: Accept change") || !slices.Contains(got, "Agent: Fix: undefined: compute") {
		b.Fatalf("code actions %q lack the review or fix actions", got)
	}

	timeAgainstEcho(b, c, ctx, method, "codeAction", func(i int) any { return params(uris[i%len(uris)]) })
}
