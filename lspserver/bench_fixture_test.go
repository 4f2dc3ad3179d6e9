package lspserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// replayBody is what the route "test/replay" of benchEditorState's server
// answers (nil: null): an answer of a real method's size, built by no
// handler.
var replayBody atomic.Pointer[json.RawMessage]

// benchEditorState starts a server with a "test/echo" route that does
// nothing, opens 1,000 documents (200 lines with emoji and CJK each) and
// stages a pending proposal of 3 hunks (lines 10, 100 and 190) in the first
// 50: the editor state the codeAction and codeLens latency goals are set
// for. It returns the client and the 50 documents with proposals. caps
// (nil: lsptest's defaults) are the client's capabilities.
func benchEditorState(b *testing.B, caps *protocol.ClientCapabilities) (*lsptest.Client, context.Context, []uri.URI) {
	const docs, withProposals, lines = 1000, 50, 200
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	lspserver.AddTestRoute(srv, "test/echo", false, func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	lspserver.AddTestRoute(srv, "test/replay", false, func(context.Context, json.RawMessage) (any, error) {
		if body := replayBody.Load(); body != nil {
			return *body, nil
		}
		return nil, nil
	})
	c := lsptest.NewInProcessServer(b, srv)
	ctx := lsptest.Context(b)
	root := b.TempDir()
	if _, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}, Capabilities: caps}); err != nil {
		b.Fatal(err)
	}
	var uris []uri.URI
	var stage []tools.StagedFile
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
			stage = append(stage, tools.StagedFile{Path: path, Base: content, Text: proposed})
			uris = append(uris, u)
		}
	}
	// A round trip: every didOpen has been processed before staging.
	if _, err := c.Document(ctx, uris[0]); err != nil {
		b.Fatal(err)
	}
	for i, f := range stage {
		lspserver.StagePreview(srv, fmt.Sprintf("run%d", i), f)
	}
	return c, ctx, uris
}

// timeAgainstEcho runs b.N iterations of one method request (params(i))
// and one echo request, timing both the same way: sent, and the response
// read and parsed as JSON-RPC, results not decoded further (decoding a
// large result says nothing about the server). It reports p50/p99 of both
// in µs, named after name, and the p99 ratio.
//
// The client is lean (lsptest.Client.Lean) and both requests' params are
// encoded before the clock starts, as an editor's own JSON would be: what
// is timed is the server and the wire, not the Go test client's
// reflection and bookkeeping, which grow with the messages' size and
// used to be most of the difference (docs/performance.md). params must
// repeat with a period of at most periodMax.
func timeAgainstEcho(b *testing.B, c *lsptest.Client, ctx context.Context, method, name string, params func(i int) any) {
	const periodMax = 1000
	encoded := make([]json.RawMessage, min(b.N, periodMax))
	for i := range encoded {
		raw, err := protocol.Marshal(params(i))
		if err != nil {
			b.Fatal(err)
		}
		encoded[i] = raw
	}
	echoes := make([]json.RawMessage, min(b.N, periodMax))
	for i := range echoes {
		echoes[i] = json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`)
	}
	c.Lean()
	reqTimes := make([]time.Duration, 0, b.N)
	echoTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		m, err := c.CallRaw(ctx, method, encoded[i%len(encoded)])
		if err != nil || m.Error != nil {
			b.Fatal(err, m.Error)
		}
		t1 := time.Now()
		if m, err := c.CallRaw(ctx, "test/echo", echoes[i%len(echoes)]); err != nil || m.Error != nil {
			b.Fatal(err, m.Error)
		}
		reqTimes = append(reqTimes, t1.Sub(t0))
		echoTimes = append(echoTimes, time.Since(t1))
	}
	b.StopTimer()
	p99, e99 := latencyPercentile(reqTimes, 99), latencyPercentile(echoTimes, 99)
	b.ReportMetric(latencyPercentile(reqTimes, 50), name+"-p50-µs")
	b.ReportMetric(p99, name+"-p99-µs")
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
