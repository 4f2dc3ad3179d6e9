package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/tools"
	"go.uber.org/goleak"
)

func failing(name string) *testTool {
	return &testTool{name: name, readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Errorf("%s: file not found", name), nil
	}}
}

func TestConsecutiveToolErrorTurnsEndRun(t *testing.T) {
	bad := failing("bad")
	n := 0
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		n++ // two failing calls per turn, different args so no repeat stop
		return reply(d, "", call("a", "bad", fmtArgs("n", n)), call("b", "bad", fmtArgs("m", n))), nil
	}}
	log := &eventLog{}
	out := Run(context.Background(), newOpts(m, log, bad))
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrToolErrors) || out.Turns != 3 {
		t.Fatalf("outcome = %+v", out)
	}
	if !strings.Contains(out.Err.Error(), "bad: file not found") {
		t.Fatalf("error does not quote the last failure: %v", out.Err)
	}
	log.check(t, "run1")
}

func TestOneSuccessInATurnResetsErrorCount(t *testing.T) {
	bad, good := failing("bad"), &testTool{name: "good", readOnly: true}
	n := 0
	m := &fakeModel{step: func(_ context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		n++
		switch n {
		case 1, 2, 4, 5: // failing turns, interrupted by a mixed one
			return reply(d, "", call("a", "bad", fmtArgs("n", n))), nil
		case 3:
			return reply(d, "", call("a", "bad", fmtArgs("n", n)), call("b", "good", `{}`)), nil
		}
		return reply(d, "finished"), nil
	}}
	out := Run(context.Background(), newOpts(m, &eventLog{}, bad, good))
	if out.Status != StatusFinished || out.Turns != 6 {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestRepeatedCallsWarnThenStop(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true}
	m := &fakeModel{step: func(_ context.Context, n int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		// The same call each turn, with keys in a different order.
		args := `{"path":"a.go","limit":10}`
		if n%2 == 0 {
			args = `{ "limit": 10, "path": "a.go" }`
		}
		return reply(d, "", call(fmt.Sprintf("c%d", n), "alpha", args)), nil
	}}
	log := &eventLog{}
	out := Run(context.Background(), newOpts(m, log, a))
	if out.Status != StatusFailed || !errors.Is(out.Err, ErrRepeatedCall) || out.Turns != 5 {
		t.Fatalf("outcome = %+v", out)
	}
	if got := len(a.calls()); got != 4 {
		t.Fatalf("tool ran %d times, want 4 (the 5th identical call must not run)", got)
	}
	reqs := m.reqs()
	results := toolResults(reqs[len(reqs)-1].Messages)
	if len(results) != 4 {
		t.Fatalf("%d results", len(results))
	}
	for i, r := range results {
		warned := strings.Contains(r, "Warning: this is call number")
		if warned != (i >= 2) {
			t.Fatalf("result %d warned=%v: %q", i+1, warned, r)
		}
	}
	if !strings.Contains(results[2], "call number 3 to alpha") || !strings.Contains(results[2], "5th identical call") {
		t.Fatalf("warning text: %q", results[2])
	}
}

func TestSuccessfulEditResetsRepeatCounts(t *testing.T) {
	read := &testTool{name: "read", readOnly: true}
	edit := &testTool{name: "edit"}
	m := &fakeModel{step: func(_ context.Context, n int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if n > 8 {
			return reply(d, "ok"), nil
		}
		// read, edit, read, edit, ...: reading the same file after each edit is progress.
		if n%2 == 1 {
			return reply(d, "", call("r", "read", `{"path":"a"}`)), nil
		}
		return reply(d, "", call("e", "edit", fmtArgs("n", n))), nil
	}}
	out := Run(context.Background(), newOpts(m, &eventLog{}, read, edit))
	if out.Status != StatusFinished || len(read.calls()) != 4 {
		t.Fatalf("outcome = %+v", out)
	}
}

func toolResults(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestReadOnlyParallelMutatingOrdered checks scheduling with a recorded
// log and a barrier, not timings: the read-only calls between two edits
// can only all pass the barrier if they run at the same time.
func TestReadOnlyParallelMutatingOrdered(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	rec := func(s string) {
		mu.Lock()
		trace = append(trace, s)
		mu.Unlock()
	}
	barrier := make(chan struct{})
	var arrived sync.WaitGroup
	arrived.Add(3)
	go func() { arrived.Wait(); close(barrier) }()
	reader := func(name string) *testTool {
		return &testTool{name: name, readOnly: true, fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			rec("start " + name)
			arrived.Done()
			select {
			case <-barrier:
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
			rec("end " + name)
			return tools.Result{Text: name}, nil
		}}
	}
	writer := func(name string) *testTool {
		return &testTool{name: name, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
			rec("start " + name)
			rec("end " + name)
			return tools.Result{Text: name}, nil
		}}
	}
	ts := []tools.Tool{writer("w1"), reader("r1"), reader("r2"), reader("r3"), writer("w2")}
	m := script(calls(call("1", "w1", `{}`), call("2", "r1", `{}`), call("3", "r2", `{}`), call("4", "r3", `{}`), call("5", "w2", `{}`)))
	out := Run(context.Background(), newOpts(m, &eventLog{}, ts...))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	pos := map[string]int{}
	for i, s := range trace {
		pos[s] = i
	}
	for _, r := range []string{"r1", "r2", "r3"} {
		if pos["end w1"] > pos["start "+r] || pos["end "+r] > pos["start w2"] {
			t.Fatalf("order broken: %v", trace)
		}
	}
	// Results are appended in call order whatever the completion order.
	got := toolResults(m.reqs()[1].Messages)
	if strings.Join(got, ",") != "w1,r1,r2,r3,w2" {
		t.Fatalf("results = %v", got)
	}
	checkPairs(t, m.reqs()[1].Messages)
}

func TestMutatingCallsRunInCallOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	edit := &testTool{name: "edit", fn: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		mu.Lock()
		order = append(order, string(args))
		mu.Unlock()
		return tools.Result{Text: "edited"}, nil
	}}
	var cs []llm.ToolCall
	var want []string
	for i := range 12 {
		a := fmtArgs("i", i)
		cs = append(cs, call(fmt.Sprint(i), "edit", a))
		want = append(want, a)
	}
	out := Run(context.Background(), newOpts(script(calls(cs...)), &eventLog{}, edit))
	if out.Status != StatusFinished || strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("outcome %+v order %v", out, order)
	}
}

func TestInvalidJSONArgumentsBecomeToolError(t *testing.T) {
	a := &testTool{name: "alpha", readOnly: true}
	bad := llm.ToolCall{ID: "c1", Name: "alpha", Args: `{"path": "a.go"`, ArgsErr: errors.New("unexpected end of JSON input")}
	m := script(calls(bad))
	log := &eventLog{}
	out := Run(context.Background(), newOpts(m, log, a))
	if out.Status != StatusFinished || len(a.calls()) != 0 {
		t.Fatalf("outcome = %+v, tool calls %v", out, a.calls())
	}
	msgs := m.reqs()[1].Messages
	if args := msgs[2].ToolCalls[0].Function.Arguments; args != "{}" {
		t.Fatalf("invalid args kept in history: %q", args)
	}
	res := msgs[3].Content
	if !strings.Contains(res, "not valid JSON") || !strings.Contains(res, `{\"path\": \"a.go\"`) {
		t.Fatalf("result = %q", res)
	}
	for _, e := range log.all() {
		if e.Kind == EventToolCall && !json.Valid(e.Args) {
			t.Fatalf("toolCall event args are not JSON: %s", e.Args)
		}
	}
}

func TestUnknownToolListsAvailable(t *testing.T) {
	m := script(calls(call("c1", "nope", `{}`)))
	out := Run(context.Background(), newOpts(m, &eventLog{}, &testTool{name: "alpha"}, &testTool{name: "beta"}))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	res := m.reqs()[1].Messages[3].Content
	if !strings.Contains(res, `no tool named "nope"`) || !strings.Contains(res, "alpha, beta") {
		t.Fatalf("result = %q", res)
	}
}

func TestToolPanicAndGoErrorAreResults(t *testing.T) {
	p := &testTool{name: "panicky", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		panic("index out of range in tool")
	}}
	e := &testTool{name: "erring", fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{}, errBoom
	}}
	m := script(calls(call("c1", "panicky", `{}`), call("c2", "erring", `{}`)))
	out := Run(context.Background(), newOpts(m, &eventLog{}, p, e))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	res := toolResults(m.reqs()[1].Messages)
	if !strings.Contains(res[0], "tool panicky crashed") || !strings.Contains(res[0], "index out of range in tool") {
		t.Fatalf("panic result = %q", res[0])
	}
	if res[1] != "Error: tool erring failed: boom" {
		t.Fatalf("error result = %q", res[1])
	}
}

func TestLargeToolOutputIsTruncated(t *testing.T) {
	big := &testTool{name: "big", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		var b strings.Builder
		for i := range 5000 {
			fmt.Fprintf(&b, "line %d\n", i+1)
		}
		return tools.Result{Text: b.String()}, nil
	}}
	m := script(calls(call("c1", "big", `{}`)))
	out := Run(context.Background(), newOpts(m, &eventLog{}, big))
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	res := toolResults(m.reqs()[1].Messages)[0]
	if !strings.Contains(res, "line 2000\n") || strings.Contains(res, "line 2001\n") || !strings.Contains(res, "showing lines 1-2000 of 5000") || !strings.Contains(res, "read_file offset/limit") {
		t.Fatalf("truncated result tail = %q", res[len(res)-300:])
	}
}

func TestCancelMidStreamNoLeaks(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streamClosed := make(chan struct{})
	m := &fakeModel{step: func(ctx context.Context, _ int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		d(llm.Delta{Kind: llm.DeltaText, Text: "thinking"})
		<-ctx.Done() // the stream ends only when the run's context does
		close(streamClosed)
		return llm.Response{}, ctx.Err()
	}}
	log := &eventLog{hook: func(e Event) {
		if e.Kind == EventText {
			cancel()
		}
	}}
	out := Run(ctx, newOpts(m, log))
	if out.Status != StatusCancelled || !errors.Is(out.Err, context.Canceled) {
		t.Fatalf("outcome = %+v", out)
	}
	testwait.Recv(t, streamClosed, "streamClosed")
	log.check(t, "run1")
	if k := log.kinds(); k[len(k)-1] != "cancelled" {
		t.Fatalf("events = %v", k)
	}
}

func TestCancelDuringToolsReachesTools(t *testing.T) {
	defer testwait.NoLeaks(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, 3)
	sawCancel := make(chan string, 3)
	slow := func(name string) *testTool {
		return &testTool{name: name, readOnly: true, fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			sawCancel <- name
			return tools.Result{}, ctx.Err()
		}}
	}
	go func() { <-started; <-started; cancel() }()
	m := script(calls(call("1", "s1", `{}`), call("2", "s2", `{}`)))
	log := &eventLog{}
	out := Run(ctx, newOpts(m, log, slow("s1"), slow("s2")))
	if out.Status != StatusCancelled {
		t.Fatalf("outcome = %+v", out)
	}
	if len(sawCancel) != 2 {
		t.Fatalf("%d tools saw the cancellation", len(sawCancel))
	}
	if len(m.reqs()) != 1 {
		t.Fatalf("model called again after cancel")
	}
	log.check(t, "run1")
}
