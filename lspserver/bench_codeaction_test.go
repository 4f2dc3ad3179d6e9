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

// BenchmarkCodeAction measures textDocument/codeAction round trips through
// the real server over in-process pipes with 1,000 open documents (200
// lines each), 50 of them with a pending proposal (3 hunks each), beside a
// raw echo request (a route that does nothing) in the same run. Each
// iteration asks for the code actions of a range that overlaps a pending
// hunk, with two diagnostics (so the fix, task and review actions are all
// built), then one echo. Reports p50/p99 of both in µs and the p99 ratio;
// the goal is codeAction p99 ≤ 1 ms and ≤ 3× echo.
func BenchmarkCodeAction(b *testing.B) {
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
	type staged struct {
		path, base, proposed string
	}
	var stage []staged
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
			proposed := strings.NewReplacer("value10 ", "renamed10 ", "value100 ", "renamed100 ", "value190 ", "renamed190 ").Replace(content)
			stage = append(stage, staged{path, content, proposed})
			uris = append(uris, u)
		}
	}
	// A round trip: every didOpen has been processed before staging.
	if _, err := c.Document(ctx, uris[0]); err != nil {
		b.Fatal(err)
	}
	for i, st := range stage {
		lspserver.StagePreview(srv, fmt.Sprintf("run%d", i), tools.StagedFile{Path: st.path, Base: st.base, Text: st.proposed})
	}
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
	var actions []json.RawMessage
	if err := c.Call(ctx, protocol.MethodTextDocumentCodeAction, params(uris[0]), &actions); err != nil {
		b.Fatal(err)
	}
	var got []string
	for _, raw := range actions {
		var a protocol.CodeAction
		_ = protocol.Unmarshal(raw, &a)
		got = append(got, a.Title)
	}
	if !slices.Contains(got, "Agent: Accept change") || !slices.Contains(got, "Agent: Fix: undefined: compute") {
		b.Fatalf("code actions %q lack the review or fix actions", got)
	}

	actionTimes := make([]time.Duration, 0, b.N)
	echoTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	// Both requests are timed the same way: sent, and the response read
	// and parsed as JSON-RPC, but results are not decoded further (the
	// code actions' size would otherwise add client-side decoding that an
	// editor pays anyway and that says nothing about the server).
	for i := range b.N {
		t0 := time.Now()
		m, err := c.CallRaw(ctx, protocol.MethodTextDocumentCodeAction, params(uris[i%len(uris)]))
		if err != nil || m.Error != nil {
			b.Fatal(err, m.Error)
		}
		t1 := time.Now()
		if m, err := c.CallRaw(ctx, "test/echo", map[string]int{"i": i}); err != nil || m.Error != nil {
			b.Fatal(err, m.Error)
		}
		actionTimes = append(actionTimes, t1.Sub(t0))
		echoTimes = append(echoTimes, time.Since(t1))
	}
	b.StopTimer()
	p99, e99 := latencyPercentile(actionTimes, 99), latencyPercentile(echoTimes, 99)
	b.ReportMetric(latencyPercentile(actionTimes, 50), "codeAction-p50-µs")
	b.ReportMetric(p99, "codeAction-p99-µs")
	b.ReportMetric(latencyPercentile(echoTimes, 50), "echo-p50-µs")
	b.ReportMetric(e99, "echo-p99-µs")
	if e99 > 0 {
		b.ReportMetric(p99/e99, "p99-ratio")
	}
}

// latencyPercentile returns the p-th percentile of ds in microseconds.
func latencyPercentile(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return float64(s[i].Nanoseconds()) / 1e3
}
