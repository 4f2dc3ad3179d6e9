package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/tools"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor("my-custom-key-123456", "abc") // "abc" is too short to redact
	cases := map[string]string{
		"key sk-proj-AbCdEfGhIjKlMnOpQrStUv here":       "key [REDACTED] here",
		"sk-abcdefghijklmnopqrstuvwxyz":                 "[REDACTED]",
		"Authorization: Bearer abc.def.ghi":             "Authorization: [REDACTED]",
		`{"authorization":"Basic dXNlcjpwYXNz"}`:        `{"authorization":"[REDACTED]"}`,
		"curl -H 'bearer tok_1234567890'":               "curl -H 'bearer [REDACTED]'",
		"https://x/v1?api_key=secret123&model=m":        "https://x/v1?api_key=[REDACTED]&model=m",
		`"apiKey": "zzzzzzzz"`:                          `"apiKey": "[REDACTED]"`,
		"X-Api-Key: abcdef123":                          "X-Api-Key: [REDACTED]",
		"token ghp_abcdefghijklmnopqrstuvwxyz0123 end":  "token [REDACTED] end",
		"configured my-custom-key-123456 value":         "configured [REDACTED] value",
		"abc is short and kept; task-list is not a key": "abc is short and kept; task-list is not a key",
		"func skip() {} // sk-short":                    "func skip() {} // sk-short",
	}
	for in, want := range cases {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	raw, err := r.JSON(map[string]any{"text": "Bearer sk-abcdefghijklmnopqrstuvwx\"quoted\"", "n": 3, "list": []any{"my-custom-key-123456"}})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("redacted JSON is invalid: %s", raw)
	}
	if strings.Contains(string(raw), "abcdefghij") || strings.Contains(string(raw), "my-custom") || back["n"].(float64) != 3 {
		t.Fatalf("redacted JSON = %s", raw)
	}
}

func TestTranscriptRecordsRunRedacted(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-test-0123456789abcdefghij"
	tr, err := OpenTranscript(dir, "run1", NewRedactor(key))
	if err != nil {
		t.Fatal(err)
	}
	leaky := &testTool{name: "read", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "OPENAI_API_KEY=" + key + "\nAuthorization: Bearer zzzzzzzzzzzz"}, nil
	}}
	m := &fakeModel{step: func(_ context.Context, n int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if n == 1 {
			d(llm.Delta{Kind: llm.DeltaRetry, Text: "429: retrying in 1s"})
			r := reply(d, "let me look", call("c1", "read", `{"path":".env"}`))
			r.Usage, r.UsageKnown = llm.Usage{PromptTokens: 100, CompletionTokens: 7, TotalTokens: 107}, true
			return r, nil
		}
		return reply(d, "The key is "+key), nil
	}}
	opts := newOpts(m, &eventLog{}, leaky)
	opts.Transcript = tr
	out := Run(context.Background(), opts)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusFinished {
		t.Fatalf("outcome = %+v", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-run1.jsonl"))
	if len(files) != 1 || files[0] != tr.Path() {
		t.Fatalf("transcript files %v (path %s)", files, tr.Path())
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "0123456789abcdef") || strings.Contains(string(data), "zzzzzzzzzzzz") {
		t.Fatalf("secret leaked into transcript:\n%s", data)
	}
	var kinds []string
	byKind := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		k := rec["kind"].(string)
		kinds = append(kinds, k)
		byKind[k] = append(byKind[k], rec)
		if rec["time"] == nil {
			t.Fatalf("record without time: %v", rec)
		}
	}
	want := "start,request,retry,response,tool_call,tool_result,request,response,finish"
	if got := strings.Join(kinds, ","); got != want {
		t.Fatalf("kinds = %s\nwant    %s", got, want)
	}
	resp := byKind["response"][0]
	if resp["usage"].(map[string]any)["totalTokens"].(float64) != 107 || resp["text"] != "let me look" {
		t.Fatalf("response record = %v", resp)
	}
	tc, trr := byKind["tool_call"][0], byKind["tool_result"][0]
	if tc["id"] != "c1" || trr["id"] != "c1" || tc["name"] != "read" || !strings.Contains(trr["text"].(string), "OPENAI_API_KEY=[REDACTED]") {
		t.Fatalf("tool records = %v / %v", tc, trr)
	}
	fin := byKind["finish"][0]
	if fin["status"] != "finished" || fin["answer"] != "The key is [REDACTED]" {
		t.Fatalf("finish = %v", fin)
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Fatalf("transcript mode %v", st.Mode())
	}
}

func TestDefaultTranscriptDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/tmp/state")
	if d, _ := DefaultTranscriptDir(); d != "/tmp/state/agentls/runs" {
		t.Fatalf("dir = %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := DefaultTranscriptDir(); d != "/home/u/.local/state/agentls/runs" {
		t.Fatalf("dir = %s", d)
	}
}

func TestNilTranscriptIsSafe(t *testing.T) {
	var tr *Transcript
	tr.record("x", nil)
	if tr.Close() != nil || tr.Path() != "" {
		t.Fatal("nil transcript misbehaves")
	}
}

// A run's transcript stops at its bound with one marker line (a 100 MB
// answer wrote a 210 MB transcript before).
func TestTranscriptBounded(t *testing.T) {
	dir := t.TempDir()
	tr, err := OpenTranscript(dir, "run1", nil)
	if err != nil {
		t.Fatal(err)
	}
	const bound = 64 << 10
	tr.SetMaxBytes(bound)
	big := &testTool{name: "read", readOnly: true, fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: strings.Repeat("line of output\n", 2000)}, nil
	}}
	m := &fakeModel{step: func(_ context.Context, n int, _ llm.Request, d func(llm.Delta)) (llm.Response, error) {
		if n <= 10 {
			return reply(d, strings.Repeat("z", 20<<10), call(fmt.Sprint("c", n), "read", fmt.Sprintf(`{"n":%d}`, n))), nil
		}
		return reply(d, "done"), nil
	}}
	opts := newOpts(m, &eventLog{}, big)
	opts.Transcript = tr
	opts.Limits.RepeatWarnAt, opts.Limits.RepeatStopAt = -1, -1
	out := Run(context.Background(), opts)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusFinished {
		t.Fatalf("outcome %+v", out)
	}
	data, err := os.ReadFile(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := lines[len(lines)-1]
	if len(data) > bound+1024 || !strings.Contains(last, `"kind":"truncated"`) || !strings.Contains(last, "65536 bytes") {
		t.Fatalf("transcript is %d bytes, last line %.200s", len(data), last)
	}
}
