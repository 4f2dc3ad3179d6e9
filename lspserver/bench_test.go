package lspserver_test

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// BenchmarkDidChange measures incremental sync through the real server over
// in-process pipes: single-character insertions spread over a 10,000-line
// document, each its own didChange notification (framing, validation,
// decoding, position conversion and the view's update included), with one
// agentls/document round trip at the end so every edit is counted as
// applied. Reports edits/s.
func BenchmarkDidChange(b *testing.B) {
	const lines = 10000
	var doc strings.Builder
	for i := range lines {
		fmt.Fprintf(&doc, "line %5d: the quick brown fox jumps over the lazy dog\n", i)
	}
	c := lsptest.NewInProcess(b, lspserver.Options{NoWatcher: true})
	ctx := lsptest.Context(b)
	root := b.TempDir()
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}}); err != nil {
		b.Fatal(err)
	}
	u := "file://" + root + "/bench.txt"
	if err := c.DidOpen(ctx, uriOf(u), "plaintext", 1, doc.String()); err != nil {
		b.Fatal(err)
	}
	var frame []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		line, char := (i*7919)%lines, (i*31)%50
		body := fmt.Appendf(frame[:0], `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"text":"x"}]}}`,
			u, i+2, line, char, line, char)
		if err := c.WriteFrame(body); err != nil {
			b.Fatal(err)
		}
		frame = body
	}
	d, err := c.Document(ctx, uriOf(u))
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if len(d.Text) != doc.Len()+b.N {
		b.Fatalf("document has %d bytes, want %d: edits were lost", len(d.Text), doc.Len()+b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "edits/s")
}

func uriOf(s string) uri.URI { return uri.URI(s) }
