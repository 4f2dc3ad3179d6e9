package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// newClient builds a client for srv with fast backoff.
func newClient(t *testing.T, srv *llmtest.Server, mod ...func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: srv.URL(), Model: "test-model", APIKey: "sk-test-key",
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder collects deltas.
type recorder struct {
	mu     sync.Mutex
	deltas []llm.Delta
}

func (r *recorder) on(d llm.Delta) { r.mu.Lock(); r.deltas = append(r.deltas, d); r.mu.Unlock() }

func (r *recorder) kinds(k llm.DeltaKind) []llm.Delta {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []llm.Delta
	for _, d := range r.deltas {
		if d.Kind == k {
			out = append(out, d)
		}
	}
	return out
}

func userReq(text string, tools ...llm.ToolDef) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "user", Content: text}}, Tools: tools}
}

var readTool = llm.ToolDef{Name: "read_file", Description: "Read a file.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

func TestStreamText(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("Hello there, 世界 🎉 done")))
	c := newClient(t, srv)
	var rec recorder
	resp, err := c.Stream(context.Background(), userReq("hi"), rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello there, 世界 🎉 done" || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Fatalf("resp = %+v", resp)
	}
	texts := rec.kinds(llm.DeltaText)
	if len(texts) < 3 {
		t.Fatalf("want text streamed in several deltas, got %d", len(texts))
	}
	var joined strings.Builder
	for _, d := range texts {
		joined.WriteString(d.Text)
	}
	if joined.String() != resp.Text {
		t.Fatalf("deltas %q != text %q", joined.String(), resp.Text)
	}
	if !resp.UsageKnown || resp.Usage.TotalTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Fatalf("usage = %+v known=%v", resp.Usage, resp.UsageKnown)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || !r.WantsUsage() || r.Model != "test-model" || r.LastUser() != "hi" {
		t.Fatalf("request = %+v", r.ChatRequest)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test-key" {
		t.Fatalf("Authorization = %q", got)
	}
}

func TestStreamUsageMissing(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("ok").NoUsage()))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.UsageKnown || resp.Usage != (llm.Usage{}) {
		t.Fatalf("usage should be unknown: %+v", resp)
	}
}

func TestStreamExplicitUsage(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("ok").Usage(1200, 34)))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 1200, CompletionTokens: 34, TotalTokens: 1234}) {
		t.Fatalf("usage = %+v", resp.Usage)
	}
}

func TestStreamKeepalives(t *testing.T) {
	// 400 comment lines exceed go-openai's default EmptyMessagesLimit (300).
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("after the wait").Keepalives(400)))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "after the wait" {
		t.Fatalf("text = %q", resp.Text)
	}
}

func TestRequestShape(t *testing.T) {
	noParams := llm.ToolDef{Name: "list_todos", Description: "no parameters"}
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")))
	temp := float32(0)
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.MaxOutputTokens = 777; cfg.Temperature = &temp })
	if _, err := c.Stream(context.Background(), userReq("hi", readTool, noParams), nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.ToolNames(); strings.Join(got, ",") != "read_file,list_todos" {
		t.Fatalf("tools = %v", got)
	}
	if p := string(r.Tools[1].Function.Parameters); p != `{"type":"object","properties":{}}` {
		t.Fatalf("empty parameters sent as %s", p)
	}
	if !strings.Contains(string(r.Tools[0].Function.Parameters), `"required":["path"]`) {
		t.Fatalf("schema not sent as given: %s", r.Tools[0].Function.Parameters)
	}
	if r.MaxTokens != 777 || r.MaxCompletionTokens != 0 {
		t.Fatalf("max_tokens=%d max_completion_tokens=%d", r.MaxTokens, r.MaxCompletionTokens)
	}
	if r.Temperature == nil || *r.Temperature <= 0 || *r.Temperature > 1e-30 {
		t.Fatalf("temperature 0 must be sent as a tiny positive number, got %v", r.Temperature)
	}
}

func TestRequestReasoningModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")))
	temp := float32(0.3)
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.Model = "o3-mini"; cfg.MaxOutputTokens = 500; cfg.Temperature = &temp })
	if _, err := c.Stream(context.Background(), userReq("hi"), nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.MaxCompletionTokens != 500 || r.MaxTokens != 0 || r.Temperature != nil {
		t.Fatalf("reasoning model: max_completion_tokens=%d max_tokens=%d temperature=%v", r.MaxCompletionTokens, r.MaxTokens, r.Temperature)
	}
	// Without a temperature setting nothing is sent for ordinary models either.
	c2 := newClient(t, srv)
	if _, err := c2.Stream(context.Background(), userReq("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[1]; r.Temperature != nil || r.MaxTokens != 0 || strings.Contains(string(r.Raw), "temperature") {
		t.Fatalf("defaults should send no temperature/max_tokens: %s", r.Raw)
	}
}

func TestRequestHistoryRoundTrip(t *testing.T) {
	// The assistant message built by Response.Message, followed by tool
	// results, must pass the server's OpenAI-style validation.
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if !req.HasToolResult("call_a") {
			return llmtest.ToolCalls(
				llmtest.Call{ID: "call_a", Name: "read_file", Args: `{"path":"a.go"}`},
				llmtest.Call{ID: "call_b", Name: "read_file", Args: `{"path":`},
			)
		}
		got, _ := req.ToolResult("call_b")
		return llmtest.Text("result b was: " + got)
	})
	c := newClient(t, srv)
	req := userReq("read", readTool)
	resp, err := c.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ToolCalls[1].ArgsErr == nil {
		t.Fatal("call_b has invalid JSON and must carry ArgsErr")
	}
	req.Messages = append(req.Messages, resp.Message(),
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_a", Content: "package a"},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_b", Content: resp.ToolCalls[1].ArgsErr.Error()})
	resp2, err := c.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp2.Text, "not valid JSON") {
		t.Fatalf("text = %q", resp2.Text)
	}
	hist := srv.Requests()[1].Messages
	if len(hist) != 4 || hist[1].ToolCalls[1].Function.Arguments != "{}" || hist[1].ToolCalls[0].Type != "function" {
		t.Fatalf("history sent = %+v", hist)
	}
}
