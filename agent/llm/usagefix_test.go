package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
)

// A usage block that does not decode (fractional, huge, NaN, strings,
// wrong shape) is dropped: the call succeeds with its text, and the usage
// is unknown, so the run counts it locally.
func TestStreamUnreadableUsageIsDropped(t *testing.T) {
	for name, raw := range map[string]string{
		"fractional":    `{"prompt_tokens": 12.0, "completion_tokens": 3, "total_tokens": 15}`,
		"huge":          `{"prompt_tokens": 1e30, "completion_tokens": 3, "total_tokens": 15}`,
		"overflow":      `{"prompt_tokens": 123456789012345678901234567890, "completion_tokens": 3}`,
		"NaN":           `{"prompt_tokens": NaN, "completion_tokens": 3, "total_tokens": 15}`,
		"Infinity":      `{"prompt_tokens": 1, "completion_tokens": Infinity}`,
		"string":        `{"prompt_tokens": "12", "completion_tokens": "3", "total_tokens": "15"}`,
		"cached string": `{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15, "prompt_tokens_details": {"cached_tokens": "4"}}`,
		"array":         `[1, 2, 3]`,
		"number":        `42`,
		"nested braces": `{"note": "a } and a \" in a string", "prompt_tokens": 1.5}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("all done here").RawUsage(raw)))
			resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
			if err != nil {
				t.Fatalf("the call failed over its usage: %v", err)
			}
			if resp.Text != "all done here" || resp.FinishReason != "stop" {
				t.Fatalf("resp = %+v", resp)
			}
			if resp.UsageKnown || resp.Usage != (llm.Usage{}) {
				t.Fatalf("unreadable usage was taken: %+v", resp.Usage)
			}
		})
	}
}

// Readable usage in the same raw form still counts: only what cannot be
// read is dropped.
func TestStreamRawReadableUsageKept(t *testing.T) {
	srv := llmtest.New(t, llmtest.Sequence(llmtest.Text("ok").RawUsage(`{"prompt_tokens":  12 , "completion_tokens": 3, "total_tokens": 15}`)))
	resp, err := newClient(t, srv).Stream(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.UsageKnown || resp.Usage != (llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}) {
		t.Fatalf("usage = %+v known=%v", resp.Usage, resp.UsageKnown)
	}
}

// Model ids that would show as something else (bidi overrides, C1 and C0
// controls, invalid UTF-8) are left out of the list every face offers.
func TestListModelsDropsUnsafeIDs(t *testing.T) {
	body := `{"object":"list","data":[{"id":"good-model"},{"id":"evil\u202eledom"},{"id":"c1\u009bx"},` +
		`{"id":"esc\u001b[2J"},{"id":"mark\u200f"},{"id":"iso\u2066x\u2069"},{"id":"al\u061cm"},{"id":"del\u007f"},{"id":"模型-7b"}]}`
	srv := llmtest.New(t, llmtest.Always(llmtest.Text("ok")), llmtest.WithModels(body))
	ids, err := newClient(t, srv).ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, ","); got != "good-model,模型-7b" {
		t.Fatalf("models = %q", ids)
	}
}
