package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/testwait"
)

// post sends a chat request body to srv and returns the response.
func post(t *testing.T, srv *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const streamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},` +
	`"messages":[{"role":"user","content":"hi"}]}`

// events reads an SSE body into its data payloads and comment lines.
func events(t *testing.T, r io.Reader) (data []string, comments int) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, ":"):
			comments++
		case line == "":
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return data, comments
}

func TestSSEWireFormat(t *testing.T) {
	srv := New(t, Sequence(Text("Hello big world").Keepalives(2)))
	resp := post(t, srv, streamBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	data, comments := events(t, resp.Body)
	if comments != 2 {
		t.Fatalf("keepalive comments = %d", comments)
	}
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last event = %q", data[len(data)-1])
	}
	var text strings.Builder
	var finish []string
	var sawUsage bool
	for i, d := range data[:len(data)-1] {
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Model   string `json:"model"`
			Choices []struct {
				Delta struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("event %d %q: %v", i, d, err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "m" || c.ID == "" {
			t.Fatalf("event %d header fields: %s", i, d)
		}
		if i == 0 && c.Choices[0].Delta.Role != "assistant" {
			t.Fatalf("first chunk should carry the role: %s", d)
		}
		if c.Usage != nil {
			sawUsage = true
			if len(c.Choices) != 0 || !strings.Contains(d, `"choices":[]`) || i != len(data)-2 {
				t.Fatalf("usage chunk must be last with choices: []: %s", d)
			}
			continue
		}
		text.WriteString(c.Choices[0].Delta.Content)
		if f := c.Choices[0].FinishReason; f != nil {
			finish = append(finish, *f)
		}
	}
	if text.String() != "Hello big world" || len(data) < 6 {
		t.Fatalf("text %q over %d events", text.String(), len(data))
	}
	if len(finish) != 1 || finish[0] != "stop" || !sawUsage {
		t.Fatalf("finish=%v usage=%v", finish, sawUsage)
	}
}

func TestToolCallWireFormat(t *testing.T) {
	srv := New(t, Sequence(ToolCalls(Call{ID: "call_1", Name: "f", Args: `{"a":"bcdefghij"}`}).SplitArgs(3)))
	data, _ := events(t, post(t, srv, streamBody).Body)
	// role, first delta, 3 fragments, finish, usage, [DONE]
	if len(data) != 8 {
		t.Fatalf("events = %d: %q", len(data), data)
	}
	want := `{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}`
	if !strings.Contains(data[1], want) {
		t.Fatalf("first call delta %s, want it to contain %s", data[1], want)
	}
	var args strings.Builder
	for _, d := range data[2:5] {
		if !strings.Contains(d, `"tool_calls":[{"index":0,"function":{"arguments":`) {
			t.Fatalf("fragment should carry only index and arguments: %s", d)
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(d), &c)
		args.WriteString(c.Choices[0].Delta.ToolCalls[0].Function.Arguments)
	}
	if args.String() != `{"a":"bcdefghij"}` {
		t.Fatalf("args = %q", args.String())
	}
	if !strings.Contains(data[5], `"finish_reason":"tool_calls"`) {
		t.Fatalf("finish chunk %s", data[5])
	}
}

func TestQuirkOptionsOnWire(t *testing.T) {
	call := Call{ID: "c9", Name: "f", Args: `{"x":1}`}
	cases := []struct {
		reply        Reply
		want, absent string
	}{
		{ToolCalls(call).OmitIndex().ArgsWhole(), `"tool_calls":[{"id":"c9","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]`, `"tool_calls":[{"index"`},
		{ToolCalls(call).RepeatID().SplitArgs(2), `{"index":0,"id":"c9","type":"function","function":{"arguments":":1}"}`, ""},
		{ToolCalls(call).EmptyID().SplitArgs(2), `{"index":0,"id":"","function":{"arguments":":1}"}`, ""},
		{ToolCalls(call).ArgsAsObject(), `"arguments":{"x":1}`, ""},
		{ToolCalls(call).FinishReason("stop"), `"finish_reason":"stop"`, `"finish_reason":"tool_calls"`},
		{Text("abc").NoUsage(), `[DONE]`, `"usage"`},
		{Text("añb").ChunkSize(1), `"content":"ñ"`, ""},
	}
	for i, tc := range cases {
		srv := New(t, Sequence(tc.reply))
		body, _ := io.ReadAll(post(t, srv, streamBody).Body)
		if !strings.Contains(string(body), tc.want) {
			t.Errorf("case %d: body lacks %s:\n%s", i, tc.want, body)
		}
		if tc.absent != "" && strings.Contains(string(body), tc.absent) {
			t.Errorf("case %d: body has %s:\n%s", i, tc.absent, body)
		}
	}
}

func TestCutAndError(t *testing.T) {
	srv := New(t, Sequence(Text("a b c").Cut(), Text("a b").ErrorAfter(1, "overloaded"), Text("a").CutAfter(0)))
	body, _ := io.ReadAll(post(t, srv, streamBody).Body)
	if strings.Contains(string(body), "finish_reason\":\"") || strings.Contains(string(body), "[DONE]") ||
		!strings.Contains(string(body), `"content":"c"`) {
		t.Fatalf("Cut body:\n%s", body)
	}
	body, _ = io.ReadAll(post(t, srv, streamBody).Body)
	if !strings.Contains(string(body), `data: {"error":{"code":null,"message":"overloaded","type":"server_error"}}`) ||
		strings.Contains(string(body), `"content":"a `) {
		t.Fatalf("ErrorAfter body:\n%s", body)
	}
	body, _ = io.ReadAll(post(t, srv, streamBody).Body)
	if len(body) != 0 {
		t.Fatalf("CutAfter(0) body: %q", body)
	}
}

func TestAbortAndDisconnect(t *testing.T) {
	srv := New(t, Sequence(Text("a b c").AbortAfter(2), Disconnect()))
	resp := post(t, srv, streamBody)
	body, err := io.ReadAll(resp.Body)
	if err == nil || !strings.Contains(string(body), `"content":"a "`) {
		t.Fatalf("AbortAfter: err=%v body=%q", err, body)
	}
	if _, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamBody)); err == nil {
		t.Fatal("Disconnect should fail the request")
	}
}

func TestErrorReplies(t *testing.T) {
	srv := New(t, Sequence(Error(429, "Rate limit reached").RetryAfter("7"), RawError(502, "<html>Bad Gateway</html>")))
	resp := post(t, srv, streamBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" ||
		string(body) != `{"error":{"code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"type":"requests"}}` {
		t.Fatalf("429: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp = post(t, srv, streamBody)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 502 || string(body) != "<html>Bad Gateway</html>" {
		t.Fatalf("502: %d %s", resp.StatusCode, body)
	}
}

func TestHangObservesDisconnect(t *testing.T) {
	h := NewHang()
	srv := New(t, Sequence(Text("a b").HangAfter(1, h)))
	req, _ := http.NewRequest("POST", srv.URL()+"/chat/completions", strings.NewReader(streamBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	testwait.Recv(t, h.Started(), "the model request to start")
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.Contains(line, `"role":"assistant"`) {
		t.Fatalf("first chunk before hang: %q", line)
	}
	resp.Body.Close() // the client goes away
	testwait.Recv(t, h.Disconnected(), "the model server to see the connection close")
}

func TestHangReleasedByClose(t *testing.T) {
	h := NewHang()
	srv := New(t, Sequence(Text("a").HangAfter(0, h)))
	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(streamBody))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	testwait.Recv(t, h.Started(), "the model request to start")
	srv.Close() // must not wait forever on the hanging handler
	testwait.Recv(t, done, "done")
}

func TestNonStreaming(t *testing.T) {
	srv := New(t, Sequence(ToolCalls(Call{ID: "c1", Name: "f", Args: `{}`}).WithText("hm").Usage(5, 6)))
	resp := post(t, srv, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var out struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Object != "chat.completion" || out.Choices[0].Message.Content != "hm" || out.Choices[0].Message.ToolCalls[0].ID != "c1" ||
		out.Choices[0].FinishReason != "tool_calls" || out.Usage.TotalTokens != 11 {
		t.Fatalf("completion = %+v", out)
	}
}

// failTB records Errorf calls instead of failing the real test.
type failTB struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

func (f *failTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *failTB) errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

func TestSequenceExhaustedFailsTest(t *testing.T) {
	ftb := &failTB{T: t}
	srv := New(ftb, Sequence(Text("one")))
	post(t, srv, streamBody)
	resp := post(t, srv, streamBody)
	if resp.StatusCode != 500 {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	if errs := ftb.errors(); len(errs) != 1 || !strings.Contains(errs[0], "Sequence has 1 replies but request #2 arrived") {
		t.Fatalf("errors = %q", errs)
	}
}

func TestValidation(t *testing.T) {
	bad := []struct{ body, want string }{
		{`{"model":"m","messages":[]}`, "at least one message"},
		{`{"messages":[{"role":"user","content":"x"}]}`, "model parameter"},
		{`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "must be a response to a preceding message"},
		{`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"y"}]}`, "did not have response messages: c1"},
		{`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"r"}]}`, `which does not answer a pending tool call`},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":null}}]}`, "must be a JSON schema object"},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"bad name"}}]}`, "does not match pattern"},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"f"}}]}`, "duplicate"},
		{`{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "role"},
		{`{not json`, "could not parse"},
	}
	for _, b := range bad {
		ftb := &failTB{T: t}
		srv := New(ftb, Always(Text("ok")))
		resp := post(t, srv, b.body)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(body), b.want) {
			t.Errorf("%s: %d %s", b.body, resp.StatusCode, body)
		}
	}
	good := `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"x"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c2","content":"r2"},{"role":"tool","tool_call_id":"c1","content":"r1"},{"role":"assistant","content":"done"},{"role":"user","content":"more"}]}`
	srv := New(t, Always(Text("ok")))
	if resp := post(t, srv, good); resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("valid conversation rejected: %s", body)
	}
	lenient := New(t, Always(Text("ok")), Lenient())
	if resp := post(t, lenient, `{"model":"m","messages":[]}`); resp.StatusCode != 200 {
		t.Fatalf("Lenient server rejected a request: %d", resp.StatusCode)
	}
}

func TestUnknownPathAndAPIKey(t *testing.T) {
	srv := New(t, Always(Text("ok")), WithAPIKey("sk-1"))
	resp, err := http.Post(srv.URL()+"/embeddings", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
	if resp := post(t, srv, streamBody); resp.StatusCode != 401 {
		t.Fatalf("missing key: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", srv.URL()+"/chat/completions", strings.NewReader(streamBody))
	req.Header.Set("Authorization", "Bearer sk-1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("right key: %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Path != "/v1/embeddings" || reqs[2].Header.Get("Authorization") != "Bearer sk-1" || reqs[2].Seq != 2 {
		t.Fatalf("recorded = %+v", reqs)
	}
}

func TestPredicates(t *testing.T) {
	body := `{"model":"m","messages":[
		{"role":"system","content":"be brief"},
		{"role":"user","content":[{"type":"text","text":"fix "},{"type":"text","text":"a.go"}]},
		{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"package a"},
		{"role":"user","content":"now b"}],
		"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}},{"type":"function","function":{"name":"grep","parameters":{}}}]}`
	var seen *ChatRequest
	srv := New(t, func(req *ChatRequest) Reply { seen = req; return Text("ok") })
	post(t, srv, body)
	r := seen
	if r.System() != "be brief" || r.LastUser() != "now b" || r.Last().Content != "now b" || r.Messages[1].Content != "fix a.go" {
		t.Fatalf("content helpers: %+v", r.Messages)
	}
	if got, ok := r.ToolResult("c1"); !ok || got != "package a" || !r.HasToolResult("c1") || r.HasToolResult("c2") {
		t.Fatalf("tool results: %q %v", got, ok)
	}
	if r.Turns() != 1 || r.Count("user") != 2 || len(r.ToolResults()) != 1 {
		t.Fatalf("counts: turns=%d users=%d", r.Turns(), r.Count("user"))
	}
	if !r.HasTool("grep") || r.HasTool("edit_file") || strings.Join(r.ToolNames(), ",") != "read_file,grep" {
		t.Fatalf("tools: %v", r.ToolNames())
	}
	if !r.Contains(`"path":"a.go"`) || !r.Contains("package a") || r.Contains("nowhere") || r.WantsUsage() || r.Stream {
		t.Fatal("Contains/WantsUsage")
	}
	if !bytes.Contains(r.Raw, []byte(`"grep"`)) {
		t.Fatal("Raw body missing")
	}
}

func TestSplitHelpers(t *testing.T) {
	s := "añ世🎉b"
	for n := 1; n <= len(s)+1; n++ {
		parts := splitBytes(s, n)
		if strings.Join(parts, "") != s {
			t.Fatalf("n=%d: %q", n, parts)
		}
		for _, p := range parts {
			if !utf8Valid(p) {
				t.Fatalf("n=%d: split inside a rune: %q", n, parts)
			}
		}
	}
	if got := splitN("abcdefghij", 3); len(got) != 3 || strings.Join(got, "") != "abcdefghij" {
		t.Fatalf("splitN = %q", got)
	}
	if got := splitN("ab", 5); strings.Join(got, "") != "ab" {
		t.Fatalf("splitN short = %q", got)
	}
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

func TestPauseThenRelease(t *testing.T) {
	p := NewPause()
	srv := New(t, Sequence(Text("one two three").PauseAfter(2, p)))
	resp := post(t, srv, streamBody)
	br := bufio.NewReader(resp.Body)
	testwait.Recv(t, p.Reached(), "the model to reach its pause")
	var before []string
	for range 2 { // role chunk, "one "
		line, _ := br.ReadString('\n')
		br.ReadString('\n')
		before = append(before, line)
	}
	if !strings.Contains(before[1], `"content":"one "`) {
		t.Fatalf("before pause: %q", before)
	}
	p.Release()
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), `"content":"three"`) || !strings.Contains(string(rest), "[DONE]") {
		t.Fatalf("after release: %s", rest)
	}
}

func TestCompletionsEndpoint(t *testing.T) {
	srv := New(t, Always(Text("return x + y")))
	body := `{"model":"m","prompt":"def add(x, y):\n    ","suffix":"\n","stream":true,"stream_options":{"include_usage":true}}`
	resp, err := http.Post(srv.URL()+"/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := events(t, resp.Body)
	var text strings.Builder
	for _, d := range data {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Text string `json:"text"`
			} `json:"choices"`
		}
		if d == "[DONE]" {
			continue
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatal(err)
		}
		if c.Object != "text_completion" {
			t.Fatalf("object %q", c.Object)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Text)
		}
	}
	if text.String() != "return x + y" {
		t.Fatalf("streamed %q", text.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].IsCompletion() || reqs[0].Suffix == nil || *reqs[0].Suffix != "\n" || reqs[0].Prompt != "def add(x, y):\n    " {
		t.Fatalf("recorded %+v", reqs)
	}
}
