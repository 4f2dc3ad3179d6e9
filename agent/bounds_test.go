package agent

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// Segmenting keeps counts exact on ordinary text (prose and code with
// whitespace): the cuts fall where the tokenizer splits anyway.
func TestCountSegmentedMatchesTokenizer(t *testing.T) {
	c := NewCounter()
	enc := c.encoding()
	if enc == nil {
		t.Fatal("tokenizer did not load")
	}
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		b.WriteString("func handle(ctx context.Context, req *Request) (Response, error) {\n\treturn nil, fmt.Errorf(\"step %d: %w\", i, err)\n}\n")
		b.WriteString("The quick brown fox jumps over the lazy dog; naïve café déjà vu. ")
	}
	s := b.String()
	if got, want := c.Count(s), len(enc.EncodeOrdinary(s)); got != want {
		t.Fatalf("Count = %d, tokenizer = %d", got, want)
	}
}

// Failure 4: a megabyte without whitespace was superlinear (256 KB took
// 33 s, 1 MB never ended). Now it is counted in linear time, estimated past
// exactCountBytes, and counting stops when the context is cancelled.
func TestCountNoWhitespaceMegabyte(t *testing.T) {
	c := NewCounter()
	s := strings.Repeat("a", 1<<20)
	n := c.Count(s)
	if n < (1<<20)/128 || n > 1<<20 {
		t.Fatalf("Count(1 MB of a) = %d", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.CountContext(ctx, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled count returned %v", err)
	}
	// Cancel while counting: it returns.
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		for ctx.Err() == nil {
			if _, err := c.CountContext(ctx, strings.Repeat("b", exactCountBytes)); err != nil {
				done <- err
				return
			}
		}
		done <- ctx.Err()
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("count after cancel returned %v", err)
	}
}

// The counter does not load the token tables until it counts.
func TestCounterLoadsLazily(t *testing.T) {
	c := NewCounter()
	if c.enc != nil {
		t.Fatal("NewCounter loaded the tables")
	}
	if c.Count("hello") == 0 || c.enc == nil {
		t.Fatal("first count did not load the tables")
	}
}

// A megabyte answer with no whitespace, with and without reported usage,
// through the real client: the run finishes (it hung at 100% CPU before).
func TestMegabyteNoWhitespaceAnswer(t *testing.T) {
	answer := strings.Repeat("x", 1<<20)
	for _, noUsage := range []bool{true, false} {
		reply := llmtest.Text(answer).ChunkSize(64 << 10)
		if noUsage {
			reply = reply.NoUsage()
		} else {
			reply = reply.Usage(100, 250000)
		}
		srv := llmtest.New(t, llmtest.Always(reply))
		log := &eventLog{}
		out := Run(context.Background(), newOpts(newClient(t, srv), log))
		if out.Status != StatusFinished || len(out.Answer) != len(answer) {
			t.Fatalf("noUsage=%v: status %v err %v, answer %d bytes", noUsage, out.Status, out.Err, len(out.Answer))
		}
		if out.Usage.CompletionTokens == 0 {
			t.Fatalf("noUsage=%v: no completion tokens", noUsage)
		}
		log.check(t, "run1")
	}
}

// 50 MB of tool-call arguments end the run with a clear error once the
// answer passes model.maxAnswerBytes (it ran for 300 s and more before);
// arguments over model.maxToolArgsBytes but within the answer bound go
// back to the model as a tool error and the run goes on.
func TestHugeToolArguments(t *testing.T) {
	huge := `{"path":"` + strings.Repeat("a", 50<<20) + `"}`
	srv := llmtest.New(t, llmtest.Always(llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "alpha", Args: huge}).SplitArgs(500)))
	a := &testTool{name: "alpha", readOnly: true}
	log := &eventLog{}
	out := Run(context.Background(), newOpts(newClient(t, srv), log, a))
	var le *llm.Error
	if out.Status != StatusFailed || !errors.As(out.Err, &le) || le.Kind != llm.TooLarge || !strings.Contains(out.Err.Error(), "model.maxAnswerBytes") {
		t.Fatalf("status %v err %v, want a TooLarge failure naming model.maxAnswerBytes", out.Status, out.Err)
	}
	if len(a.calls()) != 0 {
		t.Fatal("the tool ran")
	}
	log.check(t, "run1")

	big := `{"path":"` + strings.Repeat("b", 3<<20) + `"}`
	srv = llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "alpha", Args: big}).SplitArgs(30)
		}
		return llmtest.Text("done")
	})
	log = &eventLog{}
	out = Run(context.Background(), newOpts(newClient(t, srv), log, a))
	if out.Status != StatusFinished {
		t.Fatalf("status %v err %v", out.Status, out.Err)
	}
	reqs := srv.Requests()
	if r, _ := reqs[1].ToolResult("c1"); !strings.Contains(r, "model.maxToolArgsBytes") || len(r) > 2000 {
		t.Fatalf("tool result = %.300q", r)
	}
	if len(a.calls()) != 0 {
		t.Fatal("the tool ran with oversized arguments")
	}
}

// A run whose server reports usage, with a conversation far below the
// context window, never needs the token tables: they are not loaded.
func TestUsageReportedRunDoesNotLoadTables(t *testing.T) {
	srv := llmtest.New(t, func(req *llmtest.ChatRequest) llmtest.Reply {
		if req.Turns() == 0 {
			return llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "alpha", Args: `{}`}).Usage(500, 10)
		}
		return llmtest.Text("done").Usage(600, 5)
	})
	c := NewCounter()
	opts := newOpts(newClient(t, srv), &eventLog{}, &testTool{name: "alpha", readOnly: true})
	opts.Tokens = c
	out := Run(context.Background(), opts)
	if out.Status != StatusFinished || out.Usage.PromptTokens != 1100 {
		t.Fatalf("outcome %+v", out)
	}
	if c.enc != nil {
		t.Fatal("the run loaded the token tables although the server reported usage")
	}
}

// The token tables do not stay for the process's life: once no run holds
// them and the idle release has run, they are collectable (the first run
// used to add ~37 MB for good).
func TestTokenTablesReleased(t *testing.T) {
	func() {
		c := NewCounter()
		holdTables()
		if c.Count("hello world") == 0 || c.enc == nil {
			t.Fatal("tables did not load")
		}
		releaseTables()
	}()
	dropTables() // what the idle timer does
	runtime.GC()
	runtime.GC()
	tables.mu.Lock()
	alive := tables.weak.Value() != nil
	tables.mu.Unlock()
	if alive {
		t.Fatal("the token tables are still reachable after the last run released them")
	}
	if NewCounter().Count("hello world") != 2 {
		t.Fatal("the tables did not load again")
	}
}
