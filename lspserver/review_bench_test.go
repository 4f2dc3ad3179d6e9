package lspserver_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// BenchmarkCodeLens measures textDocument/codeLens round trips through the
// real server over in-process pipes with 1,000 open documents (200 lines
// each) of which 50 have a pending proposal (3 hunks each), beside a raw
// echo request (a route that does nothing) in the same run, so the figure
// shows what the lens computation adds to the transport. Each iteration is
// one codeLens on a document with a proposal and one echo; reports the
// p50/p99 latency of both in µs.
func BenchmarkCodeLens(b *testing.B) {
	c, ctx, uris := benchEditorState(b, nil)
	var lenses []protocol.CodeLens
	if err := c.Call(ctx, protocol.MethodTextDocumentCodeLens, lensParams(uris[0]), &lenses); err != nil || len(lenses) != 6 {
		b.Fatalf("codeLens = %d lenses, %v", len(lenses), err)
	}
	timeAgainstEcho(b, c, ctx, protocol.MethodTextDocumentCodeLens, "codeLens", func(i int) any { return lensParams(uris[i%len(uris)]) })
}

func lensParams(u uri.URI) *protocol.CodeLensParams {
	return &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}
}

// BenchmarkDidChangeWithProposal is BenchmarkDidChange on a document that
// has a pending proposal (3 hunks), so every keystroke also rebases it
// through the store (the slow path of the didChange hook).
func BenchmarkDidChangeWithProposal(b *testing.B) {
	const lines = 10000
	var doc strings.Builder
	for i := range lines {
		fmt.Fprintf(&doc, "line %5d: the quick brown fox jumps over the lazy dog\n", i)
	}
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	c := lsptest.NewInProcessServer(b, srv)
	ctx := lsptest.Context(b)
	root := b.TempDir()
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(root, "bench.txt")
	u := string(uri.File(path))
	if err := c.DidOpen(ctx, uri.URI(u), "plaintext", 1, doc.String()); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Document(ctx, uri.URI(u)); err != nil { // didOpen is processed
		b.Fatal(err)
	}
	proposed := strings.NewReplacer("line     3:", "LINE     3:", "line  5000:", "LINE  5000:", "line  9990:", "LINE  9990:").Replace(doc.String())
	lspserver.StagePreview(srv, "run1", tools.StagedFile{Path: path, Base: doc.String(), Text: proposed})
	var frame []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Column 50 of lines 10..4909: never inside a hunk (lines 3, 5000, 9990).
		line := 10 + (i*7919)%4900
		body := fmt.Appendf(frame[:0], `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":50},"end":{"line":%d,"character":50}},"text":"x"}]}}`,
			u, i+2, line, line)
		if err := c.WriteFrame(body); err != nil {
			b.Fatal(err)
		}
		frame = body
	}
	var res lspserver.ProposalsResult
	if err := c.Call(ctx, lspserver.MethodProposals, &lspserver.ProposalsParams{URI: uri.URI(u)}, &res); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if len(res.Proposals) != 1 || len(res.Proposals[0].Hunks) != 3 || res.Proposals[0].Status != "pending" {
		b.Fatalf("proposal after the edits: %+v", res.Proposals)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
}
