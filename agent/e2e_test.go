package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"go.uber.org/goleak"
)

// These tests run the loop with the real model client against the scripted
// OpenAI-compatible server: go-openai, SSE parsing, tool-call assembly and
// the server's request validation (every call answered right after it) are
// all real.

func newClient(t *testing.T, srv *llmtest.Server) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "test-model", APIKey: "sk-e2e-secret-0123456789", BackoffBase: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestEndToEndWithScriptedServer(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		switch req.Turns() {
		case 0:
			return llmtest.ToolCalls(
				llmtest.Call{ID: "c1", Name: "alpha", Args: `{"path":"a.go"}`},
				llmtest.Call{ID: "c2", Name: "beta", Args: `{"q":"x"}`},
			).WithText("Looking. ").Interleave().SplitArgs(4)
		case 1:
			// Ollama style: no index, arguments whole, and broken JSON.
			return llmtest.ToolCalls(llmtest.Call{ID: "c3", Name: "alpha", Args: `{"path": "b.go"`}).OmitIndex().ArgsWhole()
		}
		return llmtest.Text("All done: alpha and beta agree.").Usage(1000, 20)
	})
	a := &testTool{name: "alpha", readOnly: true}
	b := &testTool{name: "beta", readOnly: true}
	log := &eventLog{}
	opts := newOpts(newClient(t, srv), log, a, b)
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || out.Answer != "All done: alpha and beta agree." || out.Turns != 3 {
		t.Fatalf("outcome = %+v", out)
	}
	if got := a.calls(); len(got) != 1 || got[0] != `{"path":"a.go"}` {
		t.Fatalf("alpha calls = %v (the invalid call must not run)", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r1, _ := reqs[1].ToolResult("c1"); r1 != `alpha ok {"path":"a.go"}` {
		t.Fatalf("c1 result = %q", r1)
	}
	if r3, _ := reqs[2].ToolResult("c3"); !strings.Contains(r3, "not valid JSON") {
		t.Fatalf("c3 result = %q", r3)
	}
	if !reqs[0].HasTool("alpha") || !reqs[0].HasTool("beta") || !strings.Contains(reqs[0].System(), "You are agentls") {
		t.Fatalf("first request: tools %v", reqs[0].ToolNames())
	}
	log.check(t, "run1")
	var text strings.Builder
	for _, e := range log.all() {
		if e.Kind == EventText {
			text.WriteString(e.Text)
		}
	}
	if text.String() != "Looking. All done: alpha and beta agree." {
		t.Fatalf("streamed text = %q", text.String())
	}
	if out.Usage.PromptTokens < 1000 || out.Usage.CompletionTokens < 20 {
		t.Fatalf("usage = %+v", out.Usage)
	}
}

func TestEndToEndCancelClosesStream(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	hang := llmtest.NewHang()
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("partial answer that never ends").HangAfter(2, hang)))
	client := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-hang.Started(); cancel() }()
	log := &eventLog{}
	out := Run(ctx, newOpts(client, log))
	if out.Status != StatusCancelled {
		t.Fatalf("outcome = %+v", out)
	}
	testwait.Recv(t, hang.Disconnected(), "the HTTP stream was closed by the cancellation")
	log.check(t, "run1")
	client.Close()
	srv.Close()
}

func TestEndToEndSummaryThroughClient(t *testing.T) {
	big := &testTool{name: "read", readOnly: true, fn: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: words("z", 400)}, nil
	}}
	summaries, n := 0, 0
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if len(req.Tools) == 0 {
			summaries++
			return llmtest.Text("## Goal and status\nreading files")
		}
		n++ // not req.Turns(): summaries remove assistant messages
		if n > 10 {
			return llmtest.Text("finished")
		}
		return llmtest.ToolCalls(llmtest.Call{ID: "c" + string(rune('a'+n)), Name: "read", Args: fmtArgs("n", n)}).WithText(words("note", 200))
	})
	opts := newOpts(newClient(t, srv), &eventLog{}, big)
	opts.Limits.ContextWindow = 4000
	opts.Limits.KeepRecentRounds = 2
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || summaries == 0 {
		t.Fatalf("outcome = %+v, summaries %d", out, summaries)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if !last.Contains("## Goal and status\nreading files") {
		t.Fatal("summary not in the final request")
	}
}
