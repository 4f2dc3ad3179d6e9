package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/tools"
)

// manyCalls is one model answer of n calls of tool, each with distinct
// arguments (so repeat detection does not end the run first).
func manyCalls(n int, tool string) llmtest.Reply {
	cs := make([]llmtest.Call, n)
	for i := range cs {
		cs[i] = llmtest.Call{ID: fmt.Sprintf("c%d", i+1), Name: tool, Args: fmt.Sprintf(`{"i":%d}`, i+1)}
	}
	return llmtest.ToolCalls(cs...).ArgsWhole()
}

// N11: 20,000 tool calls in one answer: only the first 64 (the default
// maxToolCallsPerTurn) run and are announced; the calls beyond get a tool
// error naming the limit, and the run goes on. The limit is configurable.
func TestToolCallsPerTurnCapped(t *testing.T) {
	for _, tc := range []struct {
		limit, want int
	}{{0, DefaultMaxToolCallsPerTurn}, {10, 10}} {
		t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
			const n = 20000
			srv := llmtest.New(t, llmtest.Sequence(manyCalls(n, "alpha"), llmtest.Text("done")))
			a := &testTool{name: "alpha", readOnly: true}
			log := &eventLog{}
			opts := newOpts(newClient(t, srv), log, a)
			opts.Limits.MaxToolCallsPerTurn = tc.limit
			out := Run(context.Background(), opts)
			if out.Status != StatusFinished {
				t.Fatalf("status %v err %v", out.Status, out.Err)
			}
			if got := len(a.calls()); got != tc.want {
				t.Fatalf("%d calls ran, want %d", got, tc.want)
			}
			counts := map[EventKind]int{}
			for _, ev := range log.all() {
				counts[ev.Kind]++
			}
			if counts[EventToolCall] != tc.want || counts[EventToolResult] != tc.want {
				t.Fatalf("events: %d toolCall, %d toolResult; want %d each", counts[EventToolCall], counts[EventToolResult], tc.want)
			}
			log.check(t, "run1")
			req := srv.Requests()[1]
			// The conversation keeps the calls that ran and one more whose
			// error speaks for the rest, so 20,000 calls do not flood the
			// context window.
			if got := len(req.ToolResults()); got != tc.want+1 {
				t.Fatalf("the model got %d tool results, want %d", got, tc.want+1)
			}
			ran, _ := req.ToolResult(fmt.Sprintf("c%d", tc.want))
			skipped, _ := req.ToolResult(fmt.Sprintf("c%d", tc.want+1))
			if !strings.Contains(ran, "alpha ok") || !strings.Contains(skipped, "not run") ||
				!strings.Contains(skipped, fmt.Sprintf("made %d tool calls and at most %d run per turn (maxToolCallsPerTurn)", n, tc.want)) ||
				!strings.Contains(skipped, fmt.Sprintf("(%d in all)", n-tc.want)) {
				t.Fatalf("last run result %q, first skipped result %q", ran, skipped)
			}
		})
	}
}

// N11: cancelling a run at the cap stops it without starting another
// call: mutating calls (one at a time) and read-only ones (in parallel)
// that are not yet running never run once the run is cancelled.
func TestCancelAtToolCallCapStartsNoMoreCalls(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%v", readOnly), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Always(manyCalls(DefaultMaxToolCallsPerTurn, "slow")))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var started atomic.Int32
			slow := &testTool{name: "slow", readOnly: readOnly, fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
				if started.Add(1) == 1 {
					cancel() // the user cancels while the first call runs
				}
				<-ctx.Done()
				return tools.Result{}, ctx.Err()
			}}
			log := &eventLog{}
			out := Run(ctx, newOpts(newClient(t, srv), log, slow))
			if out.Status != StatusCancelled {
				t.Fatalf("status %v err %v", out.Status, out.Err)
			}
			// Read-only calls start up to MaxParallelTools at once; once
			// cancelled, no further call starts.
			limit := int32(1)
			if readOnly {
				limit = DefaultMaxParallelTools
			}
			if n := started.Load(); n > limit {
				t.Fatalf("%d calls started after the cancel, want at most %d", n, limit)
			}
			log.check(t, "run1")
		})
	}
}
