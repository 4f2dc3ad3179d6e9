package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools"
)

// BenchmarkLoopTurn measures the loop's own cost per turn, the model being
// an in-process fake that reports usage like real providers: building the
// request, the compaction check, repeat tracking, planning and running
// three trivial tools (two parallel reads, one edit) with their events, and
// appending the results. Goal: ≤ 1 ms per turn.
//
//	go test -run '^$' -bench LoopTurn -benchmem ./agent/
func BenchmarkLoopTurn(b *testing.B) { benchLoop(b, true) }

// BenchmarkLoopTurnCountingTokens is the same with a server that reports
// no usage, so the loop tokenises every new message (o200k_base) for the
// token budget.
func BenchmarkLoopTurnCountingTokens(b *testing.B) { benchLoop(b, false) }

func benchLoop(b *testing.B, usageKnown bool) {
	const turns = 20
	result := strings.Repeat("func example() { return 42 } // some code\n", 25) // ~1 KB a result
	rd := &testTool{name: "read_file", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: result}, nil
	}}
	ed := &testTool{name: "edit_file", fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "edited"}, nil
	}}
	reg := tools.NewRegistry(rd, ed)
	counter := NewCounter()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n := 0
		m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
			n++
			if n > turns {
				r := reply(d, "done")
				r.Usage, r.UsageKnown = llm.Usage{PromptTokens: 1000 * n, CompletionTokens: 5}, usageKnown
				return r, nil
			}
			r := reply(d, "next",
				call("a", "read_file", fmtArgs("path", n)),
				call("b", "read_file", fmtArgs("offset", n)),
				call("c", "edit_file", fmtArgs("new", n)))
			r.Usage, r.UsageKnown = llm.Usage{PromptTokens: 1000 * n, CompletionTokens: 50}, usageKnown
			return r, nil
		}}
		out := Run(context.Background(), Options{Model: m, Registry: reg, Env: &tools.Env{RunID: "bench"}, Prompt: "task", Tokens: counter, OnEvent: func(Event) {}})
		if out.Status != StatusFinished {
			b.Fatalf("outcome %+v", out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(turns+1)), "ns/turn")
}

// BenchmarkSystemPromptTokens reports the size of the fixed system prompt
// (no project rules) in o200k_base tokens.
//
//	go test -run '^$' -bench SystemPromptTokens ./agent/
func BenchmarkSystemPromptTokens(b *testing.B) {
	c := NewCounter()
	v := mapView{folders: []string{"/home/user/src/project"}}
	n := 0
	for range b.N {
		n = c.Count(buildSystemPrompt(v, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	}
	b.ReportMetric(float64(n), "tokens")
}

// BenchmarkCancelManyToolCalls measures cancel latency (reported as
// cancel-ms) during a turn in which the scripted model (llmtest, real SSE
// through go-openai) made 20,000 read-only calls of a tool that takes
// 1 ms and honours cancellation; the user cancels once the 10th call has
// started. Goal: under 1 s (issue 18 N11: 2–2.5 s before the per-turn cap).
//
//	go test -run '^$' -bench CancelManyToolCalls -benchtime 5x ./agent/
func BenchmarkCancelManyToolCalls(b *testing.B) {
	srv := llmtest.New(b, llmtest.Always(manyCalls(20000, "work")))
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", APIKey: "sk-bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var total time.Duration
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		var started atomic.Int32
		var cancelledAt time.Time
		var once sync.Once
		work := &testTool{name: "work", readOnly: true, fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			if started.Add(1) == 10 {
				once.Do(func() { cancelledAt = time.Now(); cancel() })
			}
			select {
			case <-time.After(time.Millisecond):
			case <-ctx.Done():
			}
			return tools.Result{Text: "ok"}, nil
		}}
		out := Run(ctx, Options{Model: c, Registry: tools.NewRegistry(work), Env: &tools.Env{RunID: "bench"},
			Prompt: "go", Tokens: NewCounter(), NoAgentTools: true, OnEvent: func(Event) {}})
		total += time.Since(cancelledAt)
		cancel()
		if out.Status != StatusCancelled {
			b.Fatalf("status %v err %v", out.Status, out.Err)
		}
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "cancel-ms")
}
