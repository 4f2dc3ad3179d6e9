package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

// words returns about n tokens of distinct text.
func words(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d ", tag, i%10)
	}
	return b.String()
}

func bigReader(tokens int) *testTool {
	return &testTool{name: "read", readOnly: true, fn: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "content of " + string(args) + "\n" + words("x", tokens)}, nil
	}}
}

func TestPlaceholdersReplaceOldToolResults(t *testing.T) {
	m := &fakeModel{step: func(_ context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if req.Tools == nil {
			t.Errorf("summary requested although placeholders were enough")
		}
		if n > 8 {
			return reply(d, "done"), nil
		}
		return reply(d, "", call(fmt.Sprint("c", n), "read", fmtArgs("n", n))), nil
	}}
	opts := newOpts(m, &eventLog{}, bigReader(300))
	opts.Limits.ContextWindow = 3000
	opts.Limits.KeepToolResults = 2
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := m.reqs()
	last := reqs[len(reqs)-1]
	checkPairs(t, last.Messages)
	res := toolResults(last.Messages)
	if len(res) != 8 {
		t.Fatalf("%d results", len(res))
	}
	placeholders := 0
	for i, r := range res {
		isPH := strings.HasPrefix(r, "[agentls: this earlier read result was removed")
		if isPH {
			placeholders++
		}
		if i >= len(res)-2 && isPH {
			t.Fatalf("one of the latest results was replaced: %d", i)
		}
	}
	if placeholders == 0 {
		t.Fatalf("no placeholders")
	}
	for i, rq := range reqs {
		if tok := countReq(opts.Tokens, rq); tok > 3000 {
			t.Fatalf("request %d is %d tokens, over the window", i, tok)
		}
	}
}

func countReq(c *Counter, req llm.Request) int {
	n := c.Tools(req.Tools)
	for _, m := range req.Messages {
		n += c.Message(m)
	}
	return n
}

// summaryModel chats in long assistant texts (which placeholders cannot
// shrink) and answers summary requests with numbered summaries.
type summaryModel struct {
	summaries   int
	inputs      []string // what each summary request was given
	turns       int
	finishAt    int
	failSummary bool
}

func (s *summaryModel) step(_ context.Context, _ int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
	if req.Tools == nil {
		s.inputs = append(s.inputs, req.Messages[len(req.Messages)-1].Content)
		if s.failSummary {
			return llm.Response{}, errors.New("summariser down")
		}
		s.summaries++
		return llm.Response{Text: fmt.Sprintf("## Goal and status\nSUMMARY-%d", s.summaries)}, nil
	}
	s.turns++
	if s.turns >= s.finishAt {
		return reply(d, "all done"), nil
	}
	return reply(d, fmt.Sprintf("NOTE-%d ", s.turns)+words("y", 250), call(fmt.Sprint("c", s.turns), "read", fmtArgs("n", s.turns))), nil
}

func TestSummaryKeepsPairsAndNeverResummarises(t *testing.T) {
	sm := &summaryModel{finishAt: 30}
	m := &fakeModel{step: sm.step}
	opts := newOpts(m, &eventLog{}, bigReader(50))
	opts.Limits.ContextWindow = 4000
	opts.Limits.KeepToolResults = 2
	opts.Limits.KeepRecentRounds = 3
	opts.Limits.MaxTurns = 40
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	if sm.summaries < 2 {
		t.Fatalf("only %d summaries; the test needs at least two", sm.summaries)
	}
	for i, in := range sm.inputs {
		if strings.Contains(in, "SUMMARY-") || strings.Contains(in, summaryHeader) {
			t.Fatalf("summary request %d re-summarises a summary:\n%s", i, in)
		}
		if !strings.Contains(in, "The task:\ndo the task") {
			t.Fatalf("summary request %d lacks the task", i)
		}
	}
	var withTools []llm.Request
	for _, rq := range m.reqs() {
		if rq.Tools != nil {
			withTools = append(withTools, rq)
		}
	}
	for i, rq := range withTools {
		checkPairs(t, rq.Messages)
		if rq.Messages[0].Role != "system" || rq.Messages[1].Content != "do the task" {
			t.Fatalf("request %d lost the system prompt or task", i)
		}
		if tok := countReq(opts.Tokens, rq); tok > 4000 {
			t.Fatalf("request %d is %d tokens", i, tok)
		}
	}
	last := withTools[len(withTools)-1].Messages
	// Older summaries are kept verbatim, in order, right after the task.
	for k := 1; k <= sm.summaries; k++ {
		m := last[1+k]
		if !strings.HasPrefix(m.Content, summaryHeader) || !strings.Contains(m.Content, fmt.Sprintf("SUMMARY-%d", k)) {
			t.Fatalf("message %d is not summary %d: %.80q", 1+k, k, m.Content)
		}
	}
	// The latest round is whole.
	if !strings.Contains(last[len(last)-2].Content, fmt.Sprintf("NOTE-%d", sm.turns-1)) {
		t.Fatalf("latest round missing")
	}
}

func TestSummaryFailureFallsBackToMechanicalSummary(t *testing.T) {
	sm := &summaryModel{finishAt: 12, failSummary: true}
	m := &fakeModel{step: sm.step}
	opts := newOpts(m, &eventLog{}, bigReader(50))
	opts.Limits.ContextWindow = 4000
	opts.Limits.KeepRecentRounds = 3
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || len(sm.inputs) == 0 {
		t.Fatalf("outcome = %+v, summary requests %d", out, len(sm.inputs))
	}
	reqs := m.reqs()
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(last[2].Content, "automatic summary") || !strings.Contains(last[2].Content, `called read {"n":1}`) {
		t.Fatalf("fallback summary = %q", last[2].Content)
	}
	checkPairs(t, last)
}

func TestRecentSplitNeverSeparatesCallsFromResults(t *testing.T) {
	r, _ := newRunner(newOpts(script(), &eventLog{}))
	r.limits = r.limits.withDefaults()
	r.limits.KeepRecentRounds = 100
	c := r.conv
	c.add(llm.Message{Role: "system", Content: "s"}, kindSystem, "")
	c.add(llm.Message{Role: "user", Content: "task"}, kindTask, "")
	for i := range 5 {
		c.add(llm.Message{Role: "assistant", Content: words("a", 10), ToolCalls: callsN(i, 3)}, kindNormal, "")
		for k := range 3 {
			c.add(llm.Message{Role: "tool", ToolCallID: fmt.Sprintf("%d-%d", i, k), Content: words("t", 40)}, kindNormal, "read")
		}
	}
	for budget := 0; budget < 1000; budget += 7 {
		split := r.recentSplit(2, budget)
		if split >= len(c.msgs) || c.msgs[split].Role != "assistant" {
			t.Fatalf("budget %d: split %d at a %s message", budget, split, c.msgs[split].Role)
		}
	}
	if split := r.recentSplit(2, 0); split != len(c.msgs)-4 {
		t.Fatalf("the latest round must always be kept: split %d", split)
	}
}

func callsN(i, n int) []openaiToolCall {
	var out []openaiToolCall
	for k := range n {
		out = append(out, openaiToolCall{ID: fmt.Sprintf("%d-%d", i, k), Type: "function", Function: openaiFunctionCall{Name: "read", Arguments: "{}"}})
	}
	return out
}

func TestTruncateOutput(t *testing.T) {
	if got := truncateOutput("short\n", 10, 100); got != "short\n" {
		t.Fatalf("short text changed: %q", got)
	}
	// Byte cap on a line boundary, multi-byte safe.
	s := strings.Repeat("héllo wörld 😀\n", 100)
	got := truncateOutput(s, 2000, 200)
	head := got[:strings.Index(got, "[output truncated")]
	if len(head) > 200 || !strings.HasSuffix(head, "\n") || !strings.HasPrefix(s, head) {
		t.Fatalf("bad head %q", head)
	}
	if !strings.Contains(got, "of 100 (") {
		t.Fatalf("notice = %q", got[len(head):])
	}
	// One enormous line: cut by bytes, still valid UTF-8.
	got = truncateOutput(strings.Repeat("😀", 1000), 10, 101)
	if !strings.HasPrefix(got, strings.Repeat("😀", 25)+"\n[output truncated: showing lines 1-1 of 1 (100 of 4000 bytes)") {
		t.Fatalf("got %q", got)
	}
}

func TestSmallWindowCapsToolOutput(t *testing.T) {
	m := script(calls(call("c1", "read", `{}`)))
	opts := newOpts(m, &eventLog{}, bigReader(10000)) // ~20 KB
	opts.Limits.ContextWindow = 8000
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	res := toolResults(m.reqs()[1].Messages)[0]
	if len(res) > 6000+300 || !strings.Contains(res, "[output truncated") {
		t.Fatalf("result is %d bytes", len(res))
	}
}

func TestLatestRoundShrunkWhenItAloneOverflows(t *testing.T) {
	// Four parallel results of ~1,000 tokens each in a 4,000-token window.
	var cs []llm.ToolCall
	for i := range 4 {
		cs = append(cs, call(fmt.Sprint("c", i), "read", fmtArgs("n", i)))
	}
	m := &fakeModel{step: func(_ context.Context, n int, req llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if req.Tools == nil {
			return llm.Response{Text: "summary"}, nil
		}
		if n == 1 {
			return reply(d, "", cs...), nil
		}
		return reply(d, "done"), nil
	}}
	opts := newOpts(m, &eventLog{}, bigReader(1000))
	opts.Limits.ContextWindow = 4000
	if out := Run(context.Background(), opts); out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	reqs := m.reqs()
	last := reqs[len(reqs)-1]
	checkPairs(t, last.Messages)
	if tok := countReq(opts.Tokens, last); tok > 3200 {
		t.Fatalf("last request is %d tokens, over 80%% of the window", tok)
	}
	unshrunk := 4 * opts.Tokens.Count(truncateOutput("content of {\"n\":0}\n"+words("x", 1000), 2000, 3000))
	if unshrunk <= 3200 {
		t.Fatalf("the unshrunk results (%d tokens) would have fit: the test proves nothing", unshrunk)
	}
	for _, r := range toolResults(last.Messages) {
		if !strings.Contains(r, "[output truncated") || !strings.HasPrefix(r, "content of {\"n\":") {
			t.Fatalf("result not shrunk from its head: %.100q", r)
		}
	}
}
