package lspserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	const docs, withProposals, lines = 1000, 50, 200
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	lspserver.AddTestRoute(srv, "test/echo", false, func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	c := lsptest.NewInProcessServer(b, srv)
	ctx := lsptest.Context(b)
	root := b.TempDir()
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}}); err != nil {
		b.Fatal(err)
	}
	var uris []uri.URI
	for i := range docs {
		var sb strings.Builder
		for l := range lines {
			fmt.Fprintf(&sb, "\tvalue%d := compute(%d, \"😀 日本\") // line %d\n", l, l*i, l)
		}
		content := sb.String()
		path := filepath.Join(root, fmt.Sprintf("f%04d.go", i))
		u := uri.File(path)
		if err := c.DidOpen(ctx, u, "go", 1, content); err != nil {
			b.Fatal(err)
		}
		if i < withProposals {
			if _, err := c.Document(ctx, u); err != nil { // didOpen is processed
				b.Fatal(err)
			}
			proposed := strings.NewReplacer("value10 ", "renamed10 ", "value100 ", "renamed100 ", "value190 ", "renamed190 ").Replace(content)
			lspserver.StagePreview(srv, fmt.Sprintf("run%d", i), tools.StagedFile{Path: path, Base: content, Text: proposed})
			uris = append(uris, u)
		}
	}
	var lenses []protocol.CodeLens
	if err := c.Call(ctx, protocol.MethodTextDocumentCodeLens, lensParams(uris[0]), &lenses); err != nil || len(lenses) != 6 {
		b.Fatalf("codeLens = %d lenses, %v", len(lenses), err)
	}
	lensTimes := make([]time.Duration, 0, b.N)
	echoTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if err := c.Call(ctx, protocol.MethodTextDocumentCodeLens, lensParams(uris[i%len(uris)]), &lenses); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := c.Call(ctx, "test/echo", map[string]int{"i": i}, nil); err != nil {
			b.Fatal(err)
		}
		lensTimes = append(lensTimes, t1.Sub(t0))
		echoTimes = append(echoTimes, time.Since(t1))
	}
	b.StopTimer()
	b.ReportMetric(percentile(lensTimes, 50), "codeLens-p50-µs")
	b.ReportMetric(percentile(lensTimes, 99), "codeLens-p99-µs")
	b.ReportMetric(percentile(echoTimes, 50), "echo-p50-µs")
	b.ReportMetric(percentile(echoTimes, 99), "echo-p99-µs")
}

func lensParams(u uri.URI) *protocol.CodeLensParams {
	return &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}
}

// percentile returns the p-th percentile of ds in microseconds.
func percentile(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return float64(s[i].Nanoseconds()) / 1e3
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
