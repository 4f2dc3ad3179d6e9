package llm_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// replayTransport answers every request with the same recorded SSE body,
// so a benchmark measures go-openai decoding plus our assembly without
// sockets.
type replayTransport struct{ body []byte }

func (rt replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(rt.body)), Request: req}, nil
}

// recordSSE fetches the raw stream a reply produces.
func recordSSE(b *testing.B, reply llmtest.Reply) []byte {
	srv := llmtest.New(b, llmtest.Always(reply))
	body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func benchReplies() map[string]llmtest.Reply {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; 世界 🎉. ", 4096) // ~225 KB
	var calls []llmtest.Call
	for i := range 8 {
		args := fmt.Sprintf(`{"path":"file%d.go","content":%q}`, i, strings.Repeat("x := 1 // 世界\n", 2048))
		calls = append(calls, llmtest.Call{ID: fmt.Sprintf("call_%d", i), Name: "write_file", Args: args})
	}
	return map[string]llmtest.Reply{
		"text":      llmtest.Text(text).ChunkSize(16),
		"toolcalls": llmtest.ToolCalls(calls...).SplitArgs(512).Interleave(),
	}
}

// BenchmarkStream measures Client.Stream end to end: in memory (replayed
// SSE bytes) and over loopback HTTP to an llmtest server. MB/s counts the
// SSE bytes on the wire; chunks/s the data events.
func BenchmarkStream(b *testing.B) {
	for name, reply := range benchReplies() {
		raw := recordSSE(b, reply)
		chunks := bytes.Count(raw, []byte("\ndata: ")) + 1
		b.Run(name+"/inmemory", func(b *testing.B) {
			c, err := llm.New(llm.Config{BaseURL: "http://replay.invalid/v1", Model: "m",
				HTTPClient: &http.Client{Transport: replayTransport{body: raw}}})
			if err != nil {
				b.Fatal(err)
			}
			runStreamBench(b, c, len(raw), chunks)
		})
		b.Run(name+"/loopback", func(b *testing.B) {
			srv := llmtest.New(b, llmtest.Always(reply))
			c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m"})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			runStreamBench(b, c, len(raw), chunks)
		})
	}
}

func runStreamBench(b *testing.B, c *llm.Client, wireBytes, chunks int) {
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}}
	b.SetBytes(int64(wireBytes))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Stream(context.Background(), req, nil)
		if err != nil {
			b.Fatal(err)
		}
		if resp.Text == "" && len(resp.ToolCalls) == 0 {
			b.Fatal("empty response")
		}
	}
	b.ReportMetric(float64(chunks)*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}
