package lspserver_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Inline completions through the real protocol: a real server over
// lsptest pipes, the real completion client against llmtest's
// /v1/completions.

// inlineCaps is a client that speaks textDocument/inlineCompletion.
func inlineCaps(inline bool) *protocol.ClientCapabilities {
	c := lsptest.DefaultCapabilities()
	if c.TextDocument == nil {
		c.TextDocument = &protocol.TextDocumentClientCapabilities{}
	}
	if inline {
		c.TextDocument.InlineCompletion = &protocol.InlineCompletionClientCapabilities{}
	} else {
		c.TextDocument.InlineCompletion = nil
	}
	return &c
}

// newInlineSession starts a server whose model (and completion model) is
// script; completion holds completion settings.
func newInlineSession(t *testing.T, script llmtest.Script, completion map[string]any, inline bool) *runSession {
	t.Helper()
	settings := map[string]any{}
	if completion != nil {
		settings["completion"] = completion
	}
	return newRunSession(t, script, runOpts{settings: settings, init: lsptest.InitOptions{Capabilities: inlineCaps(inline)}})
}

func inlineParams(u uri.URI, line, char uint32, kind protocol.InlineCompletionTriggerKind) *protocol.InlineCompletionParams {
	p := &protocol.InlineCompletionParams{Context: protocol.InlineCompletionContext{TriggerKind: kind}}
	p.TextDocument.URI = u
	p.Position = protocol.Position{Line: line, Character: char}
	return p
}

// inlineResult is the wire shape plugins read.
type inlineResult struct {
	Items []struct {
		InsertText string          `json:"insertText"`
		Range      *protocol.Range `json:"range"`
	} `json:"items"`
}

func (s *runSession) inline(t *testing.T, u uri.URI, line, char uint32, kind protocol.InlineCompletionTriggerKind) inlineResult {
	t.Helper()
	var res inlineResult
	if err := s.c.Call(lsptest.Context(t), protocol.MethodTextDocumentInlineCompletion, inlineParams(u, line, char, kind), &res); err != nil {
		t.Fatalf("inlineCompletion: %v", err)
	}
	return res
}

func completionRequests(m *llmtest.Server) []llmtest.RecordedRequest {
	var out []llmtest.RecordedRequest
	for _, r := range m.Requests() {
		if r.IsCompletion() {
			out = append(out, r)
		}
	}
	return out
}

// TestInlineCompletionFIM: a request at a cursor in an open buffer with
// unsaved text sends one FIM request whose prompt ends with the buffer's
// text before the cursor and whose suffix starts with the text after it,
// and the completion comes back as an item at the cursor.
func TestInlineCompletionFIM(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("a + b")), nil, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "add.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package add\n\nfunc Add(a, b int) int {\n\treturn \n}\n"); err != nil {
		t.Fatal(err)
	}
	// Unsaved: the user renamed the function in the buffer only.
	if err := s.c.DidChange(ctx, u, 2, lsptest.Partial(2, 5, 2, 8, "Sum")); err != nil {
		t.Fatal(err)
	}
	res := s.inline(t, u, 3, 8, protocol.InlineCompletionTriggerKindInvoked)
	if len(res.Items) != 1 || res.Items[0].InsertText != "a + b" {
		t.Fatalf("items = %+v", res.Items)
	}
	if r := res.Items[0].Range; r == nil || r.Start != (protocol.Position{Line: 3, Character: 8}) || r.End != r.Start {
		t.Fatalf("range = %+v, want empty at 3:8", r)
	}
	reqs := completionRequests(s.model)
	if len(reqs) != 1 {
		t.Fatalf("%d completion requests, want 1", len(reqs))
	}
	before, after := "package add\n\nfunc Sum(a, b int) int {\n\treturn ", "\n}\n"
	if !strings.HasSuffix(reqs[0].Prompt, before) {
		t.Errorf("prompt does not end with the buffer's text before the cursor:\n%q", reqs[0].Prompt)
	}
	if reqs[0].Suffix == nil || !strings.HasPrefix(*reqs[0].Suffix, after) {
		t.Errorf("suffix = %v, want it to start with %q", reqs[0].Suffix, after)
	}
	if reqs[0].Model != "test-model" || !reqs[0].Stream || reqs[0].MaxTokens != 128 {
		t.Errorf("request model %q stream %v max_tokens %d", reqs[0].Model, reqs[0].Stream, reqs[0].MaxTokens)
	}
}

// TestInlineCompletionQwenTemplate: a qwen2.5-coder model with default
// settings gets its own FIM template and no suffix field.
func TestInlineCompletionQwenTemplate(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("x * 2")), map[string]any{"name": "qwen2.5-coder:7b"}, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "double.py"))
	if err := s.c.DidOpen(ctx, u, "python", 1, "def double(x):\n    return \n"); err != nil {
		t.Fatal(err)
	}
	res := s.inline(t, u, 1, 11, protocol.InlineCompletionTriggerKindInvoked)
	if len(res.Items) != 1 || res.Items[0].InsertText != "x * 2" {
		t.Fatalf("items = %+v", res.Items)
	}
	reqs := completionRequests(s.model)
	if len(reqs) != 1 {
		t.Fatalf("%d completion requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Suffix != nil || strings.Contains(string(r.Raw), `"suffix"`) {
		t.Errorf("a template request sent a suffix field: %s", r.Raw)
	}
	want := "<|fim_prefix|>def double(x):\n    return <|fim_suffix|>\n<|fim_middle|>"
	if r.Prompt != want || r.Model != "qwen2.5-coder:7b" {
		t.Errorf("prompt %q model %q, want %q", r.Prompt, r.Model, want)
	}
	if !strings.Contains(strings.Join(r.Stop, " "), "<|endoftext|>") {
		t.Errorf("stop = %q", r.Stop)
	}
}

// TestInlineCompletionWhileTyping: five automatic requests 60 ms apart,
// each after a keystroke, with a model that takes 0.8 s: at most 3 model
// requests, never 2 at once for the document, every answer for an
// outdated version empty, the current one answered.
func TestInlineCompletionWhileTyping(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("Println(msg)").Delay(800*time.Millisecond)), nil, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "main.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package main\n\nfunc main() {\n\t\n}\n"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]inlineResult, 5)
	for i, ch := range "fmt.P" {
		if i > 0 {
			time.Sleep(60 * time.Millisecond) // typing speed
		}
		if err := s.c.DidChange(ctx, u, int32(i+2), lsptest.Partial(3, uint32(1+i), 3, uint32(1+i), string(ch))); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.inline(t, u, 3, uint32(2+i), protocol.InlineCompletionTriggerKindAutomatic)
		}()
	}
	wg.Wait()
	for i, r := range results[:4] {
		if len(r.Items) != 0 {
			t.Errorf("request %d (outdated) answered %+v", i+1, r.Items)
		}
	}
	if len(results[4].Items) != 1 || results[4].Items[0].InsertText != "Println(msg)" {
		t.Errorf("current request answered %+v", results[4].Items)
	}
	if n := len(completionRequests(s.model)); n > 3 || n < 1 {
		t.Errorf("%d model requests, want 1 to 3", n)
	}
	if m := s.model.MaxInFlight(); m > 1 {
		t.Errorf("%d model requests in flight at once", m)
	}
}

// TestInlineCompletionNewerAborts: an invoked request whose document
// changes before its answer gets nothing, and its model request is closed.
func TestInlineCompletionNewerAborts(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("later").Delay(time.Minute)), nil, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "a.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package a\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan inlineResult, 1)
	go func() { done <- s.inline(t, u, 1, 0, protocol.InlineCompletionTriggerKindInvoked) }()
	testwait.Until(t, "the model request", func() bool { return len(completionRequests(s.model)) == 1 })
	if err := s.c.DidChange(ctx, u, 2, lsptest.Partial(1, 0, 1, 0, "v")); err != nil {
		t.Fatal(err)
	}
	if r := testwait.Recv(t, done, "the outdated answer"); len(r.Items) != 0 {
		t.Fatalf("outdated request answered %+v", r.Items)
	}
	testwait.Until(t, "the model request closed", func() bool {
		r := completionRequests(s.model)[0]
		return !r.Ended.IsZero() && r.Disconnected
	})
}

// TestInlineCompletionCancel: $/cancelRequest answers -32800 at once and
// closes the model request.
func TestInlineCompletionCancel(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("never").Delay(time.Minute)), nil, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "a.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package a\n"); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(inlineParams(u, 1, 0, protocol.InlineCompletionTriggerKindInvoked))
	if err := s.c.WriteFrame([]byte(`{"jsonrpc":"2.0","id":"ghost","method":"textDocument/inlineCompletion","params":` + string(params) + `}`)); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the model request", func() bool { return len(completionRequests(s.model)) == 1 })
	if err := s.c.Notify(ctx, "$/cancelRequest", map[string]any{"id": "ghost"}); err != nil {
		t.Fatal(err)
	}
	m, err := s.c.Await(ctx, "", func(m lsptest.Message) bool { return string(m.ID) == `"ghost"` })
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != lsptest.CodeRequestCancelled {
		t.Fatalf("got %s, want -32800", m)
	}
	testwait.Until(t, "the model request closed", func() bool {
		r := completionRequests(s.model)[0]
		return !r.Ended.IsZero() && r.Disconnected
	})
}

// TestInlineCompletionTypingThrough: typing two characters of the shown
// completion gets the rest with no model request.
func TestInlineCompletionTypingThrough(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("return a * b")), nil, true)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "mul.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package mul\n\nfunc Mul(a, b int) int {\n\t\n}\n"); err != nil {
		t.Fatal(err)
	}
	if r := s.inline(t, u, 3, 1, protocol.InlineCompletionTriggerKindInvoked); len(r.Items) != 1 || r.Items[0].InsertText != "return a * b" {
		t.Fatalf("first answer %+v", r.Items)
	}
	if err := s.c.DidChange(ctx, u, 2, lsptest.Partial(3, 1, 3, 1, "r")); err != nil {
		t.Fatal(err)
	}
	if err := s.c.DidChange(ctx, u, 3, lsptest.Partial(3, 2, 3, 2, "e")); err != nil {
		t.Fatal(err)
	}
	r := s.inline(t, u, 3, 3, protocol.InlineCompletionTriggerKindAutomatic)
	if len(r.Items) != 1 || r.Items[0].InsertText != "turn a * b" || r.Items[0].Range.Start != (protocol.Position{Line: 3, Character: 3}) {
		t.Fatalf("typed through: %+v", r.Items)
	}
	if n := len(completionRequests(s.model)); n != 1 {
		t.Fatalf("%d model requests, want 1 (the rest from memory)", n)
	}
}

// TestCompletionItemWithoutInline: a client without inline completions
// is offered completionProvider and gets the completion as one item.
func TestCompletionItemWithoutInline(t *testing.T) {
	s := newInlineSession(t, llmtest.Always(llmtest.Text("strings.ToUpper(s)")), nil, false)
	ctx := lsptest.Context(t)
	u := uri.File(filepath.Join(s.root, "up.go"))
	if err := s.c.DidOpen(ctx, u, "go", 1, "package up\n\nfunc Up(s string) string {\n\treturn \n}\n"); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Label    string `json:"label"`
			TextEdit struct {
				Range   protocol.Range `json:"range"`
				NewText string         `json:"newText"`
			} `json:"textEdit"`
		} `json:"items"`
	}
	p := &protocol.CompletionParams{}
	p.TextDocument.URI = u
	p.Position = protocol.Position{Line: 3, Character: 8}
	if err := s.c.Call(ctx, protocol.MethodTextDocumentCompletion, p, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].TextEdit.NewText != "strings.ToUpper(s)" || list.Items[0].TextEdit.Range.Start != p.Position {
		t.Fatalf("items = %+v", list.Items)
	}
}

// TestInlineCapabilities: inlineCompletionProvider only with a model;
// completionProvider only for clients without inline completions.
func TestInlineCapabilities(t *testing.T) {
	model := llmtest.New(t, llmtest.Always(llmtest.Text("x")))
	for _, c := range []struct {
		name              string
		settings          map[string]any
		inline            bool
		wantInline, wantC bool
	}{
		{"inline client", map[string]any{"model": map[string]any{"baseURL": model.URL(), "name": "m"}}, true, true, false},
		{"plain client", map[string]any{"model": map[string]any{"baseURL": model.URL(), "name": "m"}}, false, true, true},
		{"no model", map[string]any{}, true, false, false},
		{"turned off", map[string]any{"model": map[string]any{"baseURL": model.URL(), "name": "m"}, "completion": map[string]any{"enabled": false}}, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := lspserver.New(lspserver.Options{NoWatcher: true})
			srv.SetRunOptions(lspserver.RunOptions{Env: func(string) string { return "" }, TranscriptDir: lspserver.NoTranscripts})
			cl := lsptest.NewInProcessServer(t, srv)
			res, err := cl.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{t.TempDir()},
				Capabilities: inlineCaps(c.inline), InitializationOptions: c.settings})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Capabilities.InlineCompletionProvider != nil; got != c.wantInline {
				t.Errorf("inlineCompletionProvider offered: %v, want %v", got, c.wantInline)
			}
			if got := res.Capabilities.CompletionProvider != nil; got != c.wantC {
				t.Errorf("completionProvider offered: %v, want %v", got, c.wantC)
			}
		})
	}
}

// TestInlinePositions: CRLF, emoji and CJK in UTF-16 and UTF-8.
func TestInlinePositions(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			s := newRunSession(t, llmtest.Always(llmtest.Text("!")), runOpts{init: lsptest.InitOptions{
				Capabilities: inlineCaps(true), PositionEncodings: []string{enc}}})
			ctx := lsptest.Context(t)
			u := uri.File(filepath.Join(s.root, "s.go"))
			text := "package s\r\n\r\nvar s = \"😀漢字\" // end\r\n"
			if err := s.c.DidOpen(ctx, u, "go", 1, text); err != nil {
				t.Fatal(err)
			}
			// After "😀漢" on line 2: UTF-16 9 + 2 + 1, UTF-8 9 + 4 + 3.
			char := uint32(12)
			if enc == "utf-8" {
				char = 16
			}
			r := s.inline(t, u, 2, char, protocol.InlineCompletionTriggerKindInvoked)
			if len(r.Items) != 1 || r.Items[0].Range.Start != (protocol.Position{Line: 2, Character: char}) {
				t.Fatalf("items = %+v", r.Items)
			}
			req := completionRequests(s.model)[0]
			if !strings.HasSuffix(req.Prompt, "var s = \"😀漢") || !strings.HasPrefix(*req.Suffix, "字\" // end\r\n") {
				t.Fatalf("prompt %q suffix %q", req.Prompt, *req.Suffix)
			}
		})
	}
}
