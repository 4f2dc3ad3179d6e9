package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	openai "github.com/sashabaranov/go-openai"
)

func TestRunAnswersWithoutTools(t *testing.T) {
	log := &eventLog{}
	m := script(func(d func(llm.Delta)) llm.Response {
		d(llm.Delta{Kind: llm.DeltaText, Text: "Hello "})
		return reply(d, "world")
	})
	out := Run(context.Background(), newOpts(m, log))
	if out.Status != StatusFinished || out.Answer != "world" || out.Turns != 1 || out.Err != nil {
		t.Fatalf("outcome = %+v", out)
	}
	log.check(t, "run1")
	if got := strings.Join(log.kinds(), ","); got != "started,text,text,usage,finished" {
		t.Fatalf("events = %s", got)
	}
	evs := log.all()
	if evs[0].Text != "do the task" || evs[1].Text != "Hello " || evs[4].Text != "world" {
		t.Fatalf("event texts wrong: %+v", evs)
	}
	req := m.reqs()[0]
	if req.Messages[0].Role != openai.ChatMessageRoleSystem || req.Messages[1].Content != "do the task" {
		t.Fatalf("first request messages wrong: %+v", req.Messages[:2])
	}
}

func TestToolResultsFollowTheirCalls(t *testing.T) {
	log := &eventLog{}
	a := &testTool{name: "alpha", readOnly: true}
	b := &testTool{name: "beta", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "beta failed: no such file", IsError: true, Summary: "no such file"}, nil
	}}
	m := script(calls(call("c1", "alpha", `{"x":1}`), call("c2", "beta", `{}`)))
	out := Run(context.Background(), newOpts(m, log, a, b))
	if out.Status != StatusFinished || out.Turns != 2 || out.ToolCalls != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := m.reqs()
	msgs := reqs[1].Messages
	checkPairs(t, msgs)
	if n := len(msgs); n != 5 {
		t.Fatalf("second request has %d messages", n)
	}
	if msgs[3].Content != `alpha ok {"x":1}` || msgs[4].Content != "beta failed: no such file" {
		t.Fatalf("tool results: %q / %q", msgs[3].Content, msgs[4].Content)
	}
	// Tool definitions go with every request, sorted by name.
	if len(reqs[0].Tools) != 2 || reqs[0].Tools[0].Name != "alpha" || reqs[0].Tools[1].Name != "beta" {
		t.Fatalf("tool defs: %+v", reqs[0].Tools)
	}
	log.check(t, "run1")
	var results []Event
	for _, e := range log.all() {
		if e.Kind == EventToolResult {
			results = append(results, e)
		}
		if e.Kind == EventToolCall && e.Tool == "alpha" && string(e.Args) != `{"x":1}` {
			t.Errorf("toolCall args = %s", e.Args)
		}
	}
	// Parallel read-only calls report as they complete: order by call id.
	slices.SortFunc(results, func(x, y Event) int { return strings.Compare(x.CallID, y.CallID) })
	if len(results) != 2 || results[1].CallID != "c2" || !results[1].IsError || results[1].Summary != "no such file" || results[0].IsError {
		t.Fatalf("toolResult events: %+v", results)
	}
}

func TestMissingCallIDsAreFilledAndUnique(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true}
	m := script(calls(call("", "alpha", `{"n":1}`), call("", "alpha", `{"n":2}`), call("dup", "alpha", `{"n":3}`), call("dup", "alpha", `{"n":4}`)))
	out := Run(context.Background(), newOpts(m, &eventLog{}, a))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	msgs := m.reqs()[1].Messages
	checkPairs(t, msgs)
	ids := map[string]bool{}
	for _, tc := range msgs[2].ToolCalls {
		if tc.ID == "" || ids[tc.ID] {
			t.Fatalf("ids not unique: %+v", msgs[2].ToolCalls)
		}
		ids[tc.ID] = true
	}
}

func TestMaxTurns(t *testing.T) {
	log := &eventLog{}
	a := &testTool{name: "alpha", readOnly: true}
	n := 0
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		n++
		return reply(d, "", call("c", "alpha", fmtArgs("n", n))), nil
	}}
	opts := newOpts(m, log, a)
	opts.Limits.MaxTurns = 4
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrMaxTurns) || out.Turns != 4 || len(a.calls()) != 4 {
		t.Fatalf("outcome = %+v, tool calls %d", out, len(a.calls()))
	}
	log.check(t, "run1")
	last := log.all()[len(log.all())-1]
	if last.Kind != EventFailed || !strings.Contains(last.Summary, "4 turns") {
		t.Fatalf("last event = %+v", last)
	}
}

func TestWallClockLimit(t *testing.T) {
	log := &eventLog{}
	m := &fakeModel{step: func(ctx context.Context, _ int, _ llm.Request, _ func(llm.Delta)) (llm.Response, error) {
		<-ctx.Done() // a model that never answers
		return llm.Response{}, ctx.Err()
	}}
	opts := newOpts(m, log)
	opts.Limits.WallClock = 20e6 // 20ms: the deadline itself is what is tested
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrWallClock) {
		t.Fatalf("outcome = %+v", out)
	}
	log.check(t, "run1")
}

func TestTokenBudgetFromReportedUsage(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true}
	n := 0
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		n++
		r := reply(d, "", call("c", "alpha", fmtArgs("n", n)))
		r.Usage, r.UsageKnown = llm.Usage{PromptTokens: 500, CompletionTokens: 100, TotalTokens: 600}, true
		return r, nil
	}}
	log := &eventLog{}
	opts := newOpts(m, log, a)
	opts.Limits.TokenBudget = 1000
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrTokenBudget) || out.Turns != 2 || out.Usage.TotalTokens != 1200 {
		t.Fatalf("outcome = %+v", out)
	}
	if got := len(a.calls()); got != 1 {
		t.Fatalf("tool ran %d times; the over-budget turn's calls must not run", got)
	}
	last := log.all()[len(log.all())-1]
	if last.Usage.TotalTokens != 1200 || last.Usage.PromptTokens != 1000 {
		t.Fatalf("failed event usage = %+v", last.Usage)
	}
}

func TestTokenBudgetCountsWhenUsageUnknown(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: strings.Repeat("lorem ipsum dolor sit amet ", 200)}, nil
	}}
	n := 0
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		n++
		return reply(d, "", call("c", "alpha", fmtArgs("n", n))), nil
	}}
	opts := newOpts(m, &eventLog{}, a)
	opts.Limits.TokenBudget = 3000
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrTokenBudget) {
		t.Fatalf("outcome = %+v", out)
	}
	// Each tool result is ~1,000 tokens; the prompts grow by that much per
	// turn, so the counted budget runs out within a few turns.
	if out.Turns < 2 || out.Turns > 4 || out.Usage.PromptTokens < 3000-200 {
		t.Fatalf("turns %d usage %+v", out.Turns, out.Usage)
	}
}

func TestFinalAnswerOverBudgetStillFinishes(t *testing.T) {
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		r := reply(d, "answer")
		r.Usage, r.UsageKnown = llm.Usage{PromptTokens: 5000, CompletionTokens: 10}, true
		return r, nil
	}}
	opts := newOpts(m, &eventLog{})
	opts.Limits.TokenBudget = 100
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || out.Answer != "answer" || out.Usage.TotalTokens != 5010 {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestModelErrorFailsRun(t *testing.T) {
	apiErr := &openai.APIError{HTTPStatusCode: 401, Message: "bad key"}
	m := &fakeModel{step: func(context.Context, int, llm.Request, func(llm.Delta)) (llm.Response, error) {
		return llm.Response{}, apiErr
	}}
	log := &eventLog{}
	out := Run(context.Background(), newOpts(m, log))
	var got *openai.APIError
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrModel) || !errors.As(out.Err, &got) || got != apiErr {
		t.Fatalf("outcome = %+v", out)
	}
	last := log.all()[len(log.all())-1]
	if last.Kind != EventFailed || !errors.Is(last.Err, ErrModel) || !strings.Contains(last.Summary, "bad key") {
		t.Fatalf("last event = %+v", last)
	}
}

func TestInvalidOptions(t *testing.T) {
	out := Run(context.Background(), Options{Env: &tools.Env{}})
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrOptions) {
		t.Fatalf("outcome = %+v", out)
	}
	out = Run(context.Background(), Options{Model: script()})
	if !errors.Is(out.Err, ErrOptions) {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestToolsForTurnIsAskedEveryTurn(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true}
	b := &testTool{name: "beta", readOnly: true}
	turn := 0
	opts := newOpts(script(calls(call("c1", "alpha", `{}`)), calls(call("c2", "beta", `{}`))), &eventLog{})
	opts.Registry = nil
	opts.ToolsForTurn = func() []tools.Tool {
		turn++
		if turn == 1 {
			return []tools.Tool{a}
		}
		return []tools.Tool{a, b}
	}
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || len(b.calls()) != 1 || turn != 3 {
		t.Fatalf("outcome = %+v, turn %d, beta calls %d", out, turn, len(b.calls()))
	}
	m := opts.Model.(*fakeModel)
	if names := toolNamesOf(m.reqs()[1].Tools); !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Fatalf("second request tools = %v", names)
	}
}

func toolNamesOf(defs []llm.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestLimitsFromConfig(t *testing.T) {
	c := config.Defaults()
	l := LimitsFromConfig(c).withDefaults()
	if l.MaxTurns != 25 || l.WallClock != 10*time.Minute || l.TokenBudget != 2_000_000 || l.RepeatWarnAt != 3 || l.RepeatStopAt != 5 || l.MaxConsecutiveToolErrors != 3 || l.ContextWindow != 128000 {
		t.Fatalf("limits = %+v", l)
	}
	c.TokenBudget, c.MaxRepeatedCalls, c.Model.ContextWindow = 0, 2, 32000
	l = LimitsFromConfig(c).withDefaults()
	if l.TokenBudget != -1 || l.RepeatWarnAt != 1 || l.RepeatStopAt != 2 || l.ContextWindow != 32000 {
		t.Fatalf("limits = %+v", l)
	}
}

func TestUnlimitedTokenBudget(t *testing.T) {
	m := &fakeModel{step: func(_ context.Context, n int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		r := reply(d, "")
		if n < 3 {
			r = reply(d, "", call("c", "alpha", fmtArgs("n", n)))
		}
		r.Usage, r.UsageKnown = llm.Usage{TotalTokens: 10_000_000}, true
		return r, nil
	}}
	opts := newOpts(m, &eventLog{}, &testTool{name: "alpha", readOnly: true})
	opts.Limits.TokenBudget = -1
	if out := Run(context.Background(), opts); out.Status != StatusFinished || out.Turns != 3 {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestWallClockStopsRunningTool(t *testing.T) {
	sawDeadline := make(chan error, 1)
	slow := &testTool{name: "slow", fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		<-ctx.Done()
		sawDeadline <- context.Cause(ctx)
		return tools.Result{}, ctx.Err()
	}}
	opts := newOpts(script(calls(call("c1", "slow", `{}`))), &eventLog{}, slow)
	// The limit must run out while the tool runs: 20 ms could pass before
	// the tool started on a loaded machine, and then the run ended without
	// calling it and the receive below waited for ever (the agent package
	// hung until go test's timeout). Two seconds is far more than starting
	// the tool takes, and the receive is bounded.
	opts.Limits.WallClock = 2 * time.Second
	out := Run(context.Background(), opts)
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrWallClock) {
		t.Fatalf("outcome = %+v", out)
	}
	if cause := testwait.Recv(t, sawDeadline, "the tool to see its context end (the wall clock ran out before the tool started?)"); !errors.Is(cause, ErrWallClock) {
		t.Fatalf("tool saw %v", cause)
	}
}
