package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
	openai "github.com/sashabaranov/go-openai"
)

// fakeModel is an in-process Model: step decides each reply from the
// request, like the scripted HTTP server does, and every request is kept.
type fakeModel struct {
	mu       sync.Mutex
	step     func(ctx context.Context, n int, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
	requests []llm.Request
}

func (f *fakeModel) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	return f.step(ctx, n, req, onDelta)
}

func (f *fakeModel) reqs() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.requests...)
}

// reply streams text as deltas and returns it with the calls.
func reply(onDelta func(llm.Delta), text string, calls ...llm.ToolCall) llm.Response {
	if text != "" {
		onDelta(llm.Delta{Kind: llm.DeltaText, Text: text})
	}
	for _, c := range calls {
		onDelta(llm.Delta{Kind: llm.DeltaToolCall, ToolName: c.Name})
	}
	fr := "stop"
	if len(calls) > 0 {
		fr = "tool_calls"
	}
	return llm.Response{Text: text, ToolCalls: calls, FinishReason: fr}
}

func call(id, name, args string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Args: args} }

// script answers request n with replies[n-1]; past the end it answers "done".
func script(replies ...func(onDelta func(llm.Delta)) llm.Response) *fakeModel {
	return &fakeModel{step: func(_ context.Context, n int, _ llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
		if n > len(replies) {
			return reply(onDelta, "done"), nil
		}
		return replies[n-1](onDelta), nil
	}}
}

func calls(cs ...llm.ToolCall) func(func(llm.Delta)) llm.Response {
	return func(d func(llm.Delta)) llm.Response { return reply(d, "", cs...) }
}

// testTool is a tools.Tool whose behaviour each test supplies.
type testTool struct {
	name     string
	readOnly bool
	fn       func(ctx context.Context, args json.RawMessage) (tools.Result, error)
	mu       sync.Mutex
	got      []string
}

func (t *testTool) Name() string        { return t.name }
func (t *testTool) Description() string { return "test tool " + t.name }
func (t *testTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (t *testTool) ReadOnly() bool { return t.readOnly }
func (t *testTool) Call(ctx context.Context, _ *tools.Env, args json.RawMessage) (tools.Result, error) {
	t.mu.Lock()
	t.got = append(t.got, string(args))
	t.mu.Unlock()
	if t.fn == nil {
		return tools.Result{Text: t.name + " ok " + string(args)}, nil
	}
	return t.fn(ctx, args)
}

func (t *testTool) calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.got...)
}

// eventLog collects events and checks the Seq invariant.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	hook   func(Event)
}

func (l *eventLog) on(ev Event) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
	if l.hook != nil {
		l.hook(ev)
	}
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

func (l *eventLog) kinds() []string {
	var out []string
	for _, e := range l.all() {
		out = append(out, e.Kind.String())
	}
	return out
}

func (l *eventLog) check(t *testing.T, runID string) {
	t.Helper()
	evs := l.all()
	for i, e := range evs {
		if e.Seq != i+1 {
			t.Errorf("event %d (%s) has seq %d, want %d", i, e.Kind, e.Seq, i+1)
		}
		if e.RunID != runID {
			t.Errorf("event %d has run id %q, want %q", i, e.RunID, runID)
		}
	}
	if len(evs) == 0 || evs[0].Kind != EventStarted {
		t.Errorf("first event is not started: %v", l.kinds())
	}
	last := evs[len(evs)-1].Kind
	if last != EventFinished && last != EventFailed && last != EventCancelled {
		t.Errorf("last event is %s, not a terminal event", last)
	}
	for _, e := range evs[:len(evs)-1] {
		if e.Kind == EventFinished || e.Kind == EventFailed || e.Kind == EventCancelled {
			t.Errorf("terminal event %s before the end: %v", e.Kind, l.kinds())
		}
	}
}

// newOpts builds Options with an Env without a view (tests of the loop),
// offering exactly ts (the loop's own tools are tested in agenttools_test.go).
func newOpts(m Model, log *eventLog, ts ...tools.Tool) Options {
	return Options{
		Model:        m,
		Registry:     tools.NewRegistry(ts...),
		Env:          &tools.Env{RunID: "run1"},
		Prompt:       "do the task",
		OnEvent:      log.on,
		Tokens:       NewCounter(),
		NoAgentTools: true,
	}
}

// checkPairs asserts the request invariant providers enforce: every tool
// message answers a call of the nearest preceding assistant message, and
// every call of an assistant message is answered right after it.
func checkPairs(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == openai.ChatMessageRoleTool {
			t.Fatalf("message %d: tool result %q without a preceding assistant call", i, m.ToolCallID)
		}
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		for k, tc := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != openai.ChatMessageRoleTool || msgs[j].ToolCallID != tc.ID {
				t.Fatalf("message %d: call %s (%s) not answered at %d", i, tc.ID, tc.Function.Name, j)
			}
		}
		i += len(m.ToolCalls)
	}
}

var errBoom = errors.New("boom")

func fmtArgs(k string, v any) string {
	b, _ := json.Marshal(map[string]any{k: v})
	return string(b)
}

type (
	llmDelta           = llm.Delta
	llmResponse        = llm.Response
	openaiToolCall     = openai.ToolCall
	openaiFunctionCall = openai.FunctionCall
)
