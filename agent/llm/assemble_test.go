package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func ip(i int) *int { return &i }

func tcChunk(calls ...openai.ToolCall) *openai.ChatCompletionStreamResponse {
	return &openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{
		Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: calls}}}}
}

func fn(name, args string) openai.FunctionCall {
	return openai.FunctionCall{Name: name, Arguments: args}
}

func TestAssemblerIndexReusedWithNewID(t *testing.T) {
	// Some servers number every call 0; a new id means a new call.
	var a assembler
	a.add(tcChunk(openai.ToolCall{Index: ip(0), ID: "a", Function: fn("f", `{"x":`)}), func(Delta) {})
	a.add(tcChunk(openai.ToolCall{Index: ip(0), Function: fn("", `1}`)}), func(Delta) {})
	a.add(tcChunk(openai.ToolCall{Index: ip(0), ID: "b", Function: fn("g", `{}`)}), func(Delta) {})
	r := a.response()
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].Args != `{"x":1}` || r.ToolCalls[1].ID != "b" || r.ToolCalls[1].Name != "g" {
		t.Fatalf("calls = %+v", r.ToolCalls)
	}
}

func TestAssemblerSeveralCallsInOneChunk(t *testing.T) {
	var a assembler
	var names []string
	a.add(tcChunk(
		openai.ToolCall{Index: ip(0), ID: "a", Function: fn("f", `{}`)},
		openai.ToolCall{Index: ip(1), ID: "b", Function: fn("g", `{"y":2}`)},
	), func(d Delta) { names = append(names, d.ToolName) })
	r := a.response()
	if len(r.ToolCalls) != 2 || strings.Join(names, ",") != "f,g" {
		t.Fatalf("calls = %+v names=%v", r.ToolCalls, names)
	}
}

func TestAssemblerNameRepeatedNotConcatenated(t *testing.T) {
	var a assembler
	a.add(tcChunk(openai.ToolCall{Index: ip(0), ID: "a", Function: fn("read_file", `{"p":`)}), func(Delta) {})
	a.add(tcChunk(openai.ToolCall{Index: ip(0), ID: "a", Function: fn("read_file", `"x"}`)}), func(Delta) {})
	r := a.response()
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read_file" || r.ToolCalls[0].Args != `{"p":"x"}` {
		t.Fatalf("calls = %+v", r.ToolCalls)
	}
}

func TestAssemblerNamelessCall(t *testing.T) {
	var a assembler
	a.add(tcChunk(openai.ToolCall{Index: ip(0), ID: "a", Function: fn("", `{}`)}), func(Delta) {})
	r := a.response()
	if r.ToolCalls[0].ArgsErr == nil || !strings.Contains(r.ToolCalls[0].ArgsErr.Error(), "no function name") {
		t.Fatalf("call = %+v", r.ToolCalls[0])
	}
}

func TestAssemblerIgnoresOtherChoices(t *testing.T) {
	var a assembler
	a.add(&openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{
		{Index: 1, Delta: openai.ChatCompletionStreamChoiceDelta{Content: "other"}},
		{Index: 0, Delta: openai.ChatCompletionStreamChoiceDelta{Content: "mine"}, FinishReason: "stop"},
	}}, func(Delta) {})
	if r := a.response(); r.Text != "mine" || r.FinishReason != "stop" {
		t.Fatalf("resp = %+v", r)
	}
}

func TestAssemblerUsageWithoutTotal(t *testing.T) {
	var a assembler
	a.add(&openai.ChatCompletionStreamResponse{Usage: &openai.Usage{PromptTokens: 3, CompletionTokens: 4}}, func(Delta) {})
	if r := a.response(); !r.UsageKnown || r.Usage.TotalTokens != 7 {
		t.Fatalf("usage = %+v", r.Usage)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"5"}}, 5 * time.Second, true},
		{http.Header{"Retry-After": {" 0 "}}, 0, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-3"}}, 0, false},
		{http.Header{}, 0, false},
		{nil, 0, false},
	}
	for _, c := range cases {
		got, ok := retryAfter(c.h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("%v: got %v %v, want %v %v", c.h, got, ok, c.want, c.ok)
		}
	}
}

func TestBackoffFullJitter(t *testing.T) {
	base, maxWait := 100*time.Millisecond, time.Second
	for n := 1; n <= 8; n++ {
		ceil := min(base<<(n-1), maxWait)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(n, base, maxWait)
			if d < 0 || d > ceil {
				t.Fatalf("attempt %d: %v outside [0, %v]", n, d, ceil)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Fatalf("attempt %d: only %d distinct waits; jitter missing", n, len(seen))
		}
	}
}

func TestNewValidates(t *testing.T) {
	bad := []struct {
		cfg  Config
		want string
	}{
		{Config{Model: "m"}, "base URL is empty"},
		{Config{BaseURL: "localhost:11434/v1", Model: "m"}, "not an http(s) URL"},
		{Config{BaseURL: "ftp://x/v1", Model: "m"}, "not an http(s) URL"},
		{Config{BaseURL: "http://localhost:11434/v1"}, "model name is empty"},
	}
	for _, b := range bad {
		if _, err := New(b.cfg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: err = %v, want %q", b.cfg, err, b.want)
		}
	}
	c, err := New(Config{BaseURL: "http://localhost:11434/v1/", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Config()
	if got.BaseURL != "http://localhost:11434/v1" || got.MaxAttempts != DefaultMaxAttempts || got.RequestTimeout != DefaultRequestTimeout {
		t.Fatalf("defaults = %+v", got)
	}
}

func TestRedactKey(t *testing.T) {
	got := redactText("bad key sk-secret-123 \n\n given", "sk-secret-123")
	if got != "bad key [REDACTED] given" {
		t.Fatalf("redact = %q", got)
	}
}
