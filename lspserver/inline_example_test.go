package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// The no-model demo's ghost text: examples/hello's cassette holds one
// recorded completion, for a user who starts a new function at the end of
// greet.py. The plugins' end-to-end tests type the same keys.
const (
	exampleCassette   = "../examples/hello/fix-greet.cassette.json"
	exampleTyped      = "\n\ndef farewell(name):\n    "
	exampleCompletion = `return "Goodbye, " + name + "!"`
)

// TestExampleHelloGhostText replays the demo's completion with no model
// configured. With -update it first records it into the cassette (the
// run's turns are kept) against the scripted model.
func TestExampleHelloGhostText(t *testing.T) {
	greet, err := os.ReadFile("../examples/hello/greet.py")
	if err != nil {
		t.Fatal(err)
	}
	cas, err := filepath.Abs(exampleCassette)
	if err != nil {
		t.Fatal(err)
	}
	text := string(greet) + exampleTyped
	lines := strings.Count(text, "\n")
	ask := func(s *runSession) inlineResult {
		ctx := lsptest.Context(t)
		u := uri.File(filepath.Join(s.root, "greet.py"))
		if err := s.c.DidOpen(ctx, u, "python", 1, text); err != nil {
			t.Fatal(err)
		}
		return s.inline(t, u, uint32(lines), 4, protocol.InlineCompletionTriggerKindAutomatic)
	}
	if *update {
		model := llmtest.New(t, llmtest.Always(llmtest.Text(exampleCompletion+"\n")))
		s := newRunSession(t, nil, runOpts{noModel: true, init: lsptest.InitOptions{Capabilities: inlineCaps(true),
			InitializationOptions: map[string]any{"model": map[string]any{"baseURL": model.URL(), "name": "test-model", "record": cas}}}})
		if r := ask(s); len(r.Items) != 1 {
			t.Fatalf("recording: %+v", r.Items)
		}
	}
	before, err := llm.LoadCassette(cas)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Turns) == 0 || len(before.Completions) == 0 {
		t.Fatalf("the cassette holds %d turns and %d completions; the demo needs both", len(before.Turns), len(before.Completions))
	}
	s := newRunSession(t, nil, runOpts{noModel: true, init: lsptest.InitOptions{Capabilities: inlineCaps(true),
		InitializationOptions: map[string]any{"model": map[string]any{"replay": cas}}}})
	r := ask(s)
	if len(r.Items) != 1 || r.Items[0].InsertText != exampleCompletion {
		t.Fatalf("replayed ghost text %+v, want %q", r.Items, exampleCompletion)
	}
}
