package lspserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// inlineBenchFile is a 400-line Go file: a realistic buffer to complete in.
func inlineBenchFile() string {
	var b strings.Builder
	b.WriteString("package bench\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "// F%d adds its arguments.\nfunc F%d(a, b int) int {\n\tx := a + b\n\tif x > %d {\n\t\treturn x\n\t}\n\treturn a*b + %d\n}\n\n", i, i, i, i)
	}
	return b.String()
}

// BenchmarkInlineRoundTrip: an invoked inline completion after a
// keystroke, through the LSP pipes, with an instant model on 127.0.0.1;
// p50-ms is the median round trip. BenchmarkInlineModelOnly is the same
// model call without agentls (the client straight to the model); the
// difference is what agentls adds.
func BenchmarkInlineRoundTrip(b *testing.B) {
	s := newRunSession(b, llmtest.Always(llmtest.Text("a + b").NoUsage()), runOpts{init: lsptest.InitOptions{Capabilities: inlineCaps(true)}})
	ctx := context.Background()
	u := uri.File(filepath.Join(s.root, "bench.go"))
	text := inlineBenchFile()
	if err := s.c.DidOpen(ctx, u, "go", 1, text); err != nil {
		b.Fatal(err)
	}
	// Other open files give the prompt its context, as in an editor.
	for i := range 4 {
		if err := s.c.DidOpen(ctx, uri.File(filepath.Join(s.root, fmt.Sprintf("other%d.go", i))), "go", 1, text); err != nil {
			b.Fatal(err)
		}
	}
	line := uint32(strings.Count(text, "\n") / 2)
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		if err := s.c.DidChange(ctx, u, int32(i+2), lsptest.Partial(line, 0, line, 0, "x")); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var res inlineResult
		if err := s.c.Call(ctx, protocol.MethodTextDocumentInlineCompletion, inlineParams(u, line, 1, protocol.InlineCompletionTriggerKindInvoked), &res); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		if len(res.Items) != 1 {
			b.Fatalf("items %+v", res.Items)
		}
	}
	reportP50(b, times)
}

func BenchmarkInlineModelOnly(b *testing.B) {
	srv := llmtest.New(b, llmtest.Always(llmtest.Text("a + b").NoUsage()))
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model", MaxAttempts: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	prompt := inlineBenchFile()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, _, err := c.Complete(context.Background(), llm.CompletionKey{}, llm.CompletionRequest{Prompt: prompt[:len(prompt)/2], Suffix: prompt[len(prompt)/2:], MaxTokens: 128}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	reportP50(b, times)
}

func reportP50(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}
