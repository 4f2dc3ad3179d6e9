package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

var (
	callA = llmtest.Call{ID: "call_a", Name: "read_file", Args: `{"path":"src/main.go","note":"héllo 世界 🎉"}`}
	callB = llmtest.Call{ID: "call_b", Name: "grep", Args: `{"pattern":"func \\w+\\(","path":"."}`}
	callC = llmtest.Call{ID: "call_c", Name: "list_dir", Args: `{}`}
)

// wantCalls checks the assembled calls against the scripted ones.
func wantCalls(t *testing.T, resp llm.Response, want ...llmtest.Call) {
	t.Helper()
	if len(resp.ToolCalls) != len(want) {
		t.Fatalf("got %d calls %+v, want %d", len(resp.ToolCalls), resp.ToolCalls, len(want))
	}
	for i, w := range want {
		g := resp.ToolCalls[i]
		if g.ID != w.ID || g.Name != w.Name || g.Args != w.Args || g.ArgsErr != nil {
			t.Errorf("call %d = %+v, want %+v", i, g, w)
		}
	}
	if resp.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", resp.FinishReason)
	}
}

func TestToolCallQuirks(t *testing.T) {
	cases := []struct {
		name  string
		reply llmtest.Reply
		want  []llmtest.Call
	}{
		{"openai split args", llmtest.ToolCalls(callA), []llmtest.Call{callA}},
		{"many fragments", llmtest.ToolCalls(callA).SplitArgs(40), []llmtest.Call{callA}},
		{"args whole", llmtest.ToolCalls(callA).ArgsWhole(), []llmtest.Call{callA}},
		{"parallel", llmtest.ToolCalls(callA, callB, callC), []llmtest.Call{callA, callB, callC}},
		{"parallel interleaved", llmtest.ToolCalls(callA, callB, callC).SplitArgs(5).Interleave(), []llmtest.Call{callA, callB, callC}},
		{"ollama: no index, whole", llmtest.ToolCalls(callA, callB).OmitIndex().ArgsWhole(), []llmtest.Call{callA, callB}},
		{"no index, split", llmtest.ToolCalls(callA, callB).OmitIndex(), []llmtest.Call{callA, callB}},
		{"no index, id repeated", llmtest.ToolCalls(callA, callB).OmitIndex().RepeatID(), []llmtest.Call{callA, callB}},
		{"id repeated", llmtest.ToolCalls(callA, callB).RepeatID(), []llmtest.Call{callA, callB}},
		{"empty id later", llmtest.ToolCalls(callA, callB).EmptyID(), []llmtest.Call{callA, callB}},
		{"finish stop", llmtest.ToolCalls(callA).FinishReason("stop"), []llmtest.Call{callA}},
		{"keepalives", llmtest.ToolCalls(callA).Keepalives(5), []llmtest.Call{callA}},
		{"no role chunk", llmtest.ToolCalls(callA).NoRole(), []llmtest.Call{callA}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Sequence(tc.reply))
			var rec recorder
			resp, err := newClient(t, srv).Stream(context.Background(), userReq("go", readTool), rec.on)
			if err != nil {
				t.Fatal(err)
			}
			wantCalls(t, resp, tc.want...)
			starts := rec.kinds(llm.DeltaToolCall)
			if len(starts) != len(tc.want) {
				t.Fatalf("DeltaToolCall count = %d, want %d", len(starts), len(tc.want))
			}
			for i, d := range starts {
				if d.ToolName != tc.want[i].Name {
					t.Errorf("DeltaToolCall %d name = %q", i, d.ToolName)
				}
			}
		})
	}
}

func TestToolCallsWithText(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(callA).WithText("Let me look. ")))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Let me look. " {
		t.Fatalf("text = %q", resp.Text)
	}
	wantCalls(t, resp, callA)
}

func TestToolCallInvalidArgs(t *testing.T) {
	bad := []struct{ args, wantErr string }{
		{`{"path": "a.go"`, "not valid JSON"},
		{`{"path": 'a.go'}`, "not valid JSON"},
		{`["a.go"]`, "must be a JSON object"},
		{`{"a":1}{"b":2}`, "more than one JSON value"},
	}
	for _, b := range bad {
		t.Run(b.args, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "read_file", Args: b.args})))
			resp, err := newClient(t, srv).Stream(context.Background(), userReq("go"), nil)
			if err != nil {
				t.Fatalf("invalid arguments must not fail Stream: %v", err)
			}
			tc := resp.ToolCalls[0]
			if tc.ArgsErr == nil || !strings.Contains(tc.ArgsErr.Error(), b.wantErr) || !strings.Contains(tc.ArgsErr.Error(), "read_file") {
				t.Fatalf("ArgsErr = %v, want it to mention %q", tc.ArgsErr, b.wantErr)
			}
			if tc.Args != b.args {
				t.Fatalf("raw args must be kept: %q", tc.Args)
			}
		})
	}
}

func TestToolCallArgsNormalised(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(
		llmtest.Call{ID: "c1", Name: "list_dir", Args: ""},
		llmtest.Call{ID: "c2", Name: "read_file", Args: `"{\"path\":\"x.go\"}"`}, // double-encoded
	).ArgsWhole()))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc := resp.ToolCalls[0]; tc.Args != "{}" || tc.ArgsErr != nil {
		t.Fatalf("empty args: %+v", tc)
	}
	if tc := resp.ToolCalls[1]; tc.Args != `{"path":"x.go"}` || tc.ArgsErr != nil {
		t.Fatalf("double-encoded args: %+v", tc)
	}
}

func TestToolCallMissingID(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(
		llmtest.Call{Name: "read_file", Args: `{"path":"a"}`}, llmtest.Call{Name: "read_file", Args: `{"path":"b"}`},
	).OmitIndex().ArgsWhole()), llmtest.Lenient())
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 {
		t.Fatalf("calls = %+v", resp.ToolCalls)
	}
	a, b := resp.ToolCalls[0], resp.ToolCalls[1]
	if !strings.HasPrefix(a.ID, "call_") || a.ID == b.ID || a.Args != `{"path":"a"}` || b.Args != `{"path":"b"}` {
		t.Fatalf("generated ids/args wrong: %+v", resp.ToolCalls)
	}
}

func TestToolCallArgsAsObject(t *testing.T) {
	// A server sending arguments as an object breaks go-openai's decoding;
	// the failure must be a clear server error, not a panic or silent loss.
	srv := llmtest.New(t, llmtest.Always(llmtest.ToolCalls(callA).ArgsAsObject()))
	_, err := newClient(t, srv, func(c *llm.Config) { c.MaxAttempts = 2 }).Stream(context.Background(), userReq("go"), nil)
	if !llm.IsKind(err, llm.Server) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "not OpenAI's format") || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Fatalf("message = %q", err.Error())
	}
}

func TestToolCallCutByLength(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.ToolCalls(llmtest.Call{ID: "c1", Name: "write_file", Args: `{"path":"a.go","content":"pack`}).FinishReason("length")))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "length" || resp.ToolCalls[0].ArgsErr == nil || !strings.Contains(resp.ToolCalls[0].ArgsErr.Error(), "output token limit") {
		t.Fatalf("resp = %+v", resp)
	}
}
