package lspserver_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools/lang/langtest"
)

// Declarations from the language servers in completion prompts: a Go
// file calls a function another file of its package defines; gopls's
// hover of the call gives its signature, and once the completion cache
// has it, the FIM prompt carries it.

const (
	scaleGo   = "package main\n\n// Scale multiplies v by a whole factor.\nfunc Scale(v float64, by int) float64 {\n\treturn v * float64(by)\n}\n"
	mainCalls = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := Scale(1.5, 2)\n\t\n}\n"
	scaleSig  = "// func Scale(v float64, by int) float64\n"
)

func declSession(t *testing.T, command []any) (*runSession, uri.URI) {
	t.Helper()
	s := newRunSession(t, llmtest.Always(llmtest.Text("fmt.Println(x)")), runOpts{
		settings: map[string]any{"languageServers": map[string]any{"gopls": map[string]any{"command": command}}},
		init:     lsptest.InitOptions{Capabilities: inlineCaps(true)},
	})
	s.write(t, "go.mod", "module example.com/m\n\ngo 1.22\n")
	s.write(t, "scale.go", scaleGo)
	s.write(t, "main.go", mainCalls)
	u := uri.File(filepath.Join(s.root, "main.go"))
	if err := s.c.DidOpen(lsptest.Context(t), u, "go", 1, mainCalls); err != nil {
		t.Fatal(err)
	}
	return s, u
}

// TestInlineCompletionDeclarations: with real gopls, a completion
// request after the declarations cache has filled sends a prompt with
// Scale's signature before the file's text; every request on the way is
// answered, the first ones (gopls still starting) without it.
func TestInlineCompletionDeclarations(t *testing.T) {
	gopls := langtest.Path(t, "gopls")
	s, u := declSession(t, []any{gopls})
	ctx := lsptest.Context(t)
	version := int32(1)
	deadline := time.Now().Add(testwait.Limit)
	for typed := false; ; typed = !typed {
		char, want := uint32(1), "x := Scale(1.5, 2)\n\t"
		if typed {
			char, want = 2, want+"_"
		}
		res := s.inline(t, u, 6, char, protocol.InlineCompletionTriggerKindInvoked)
		if len(res.Items) != 1 || res.Items[0].InsertText != "fmt.Println(x)" {
			t.Fatalf("items = %+v", res.Items)
		}
		reqs := completionRequests(s.model)
		p := reqs[len(reqs)-1].Prompt
		if !strings.HasSuffix(p, want) {
			t.Fatalf("prompt does not end at the cursor:\n%s", p)
		}
		if i := strings.Index(p, scaleSig); i >= 0 {
			if i > strings.Index(p, "package main") {
				t.Fatalf("the signature is not before the file:\n%s", p)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no prompt had Scale's signature; the last:\n%s", p)
		}
		time.Sleep(50 * time.Millisecond)
		// The next request is at another text, so the model is asked
		// again (typing "_" does not type through "fmt.Println(x)").
		version++
		edit := lsptest.Partial(6, 1, 6, 1, "_")
		if typed {
			edit = lsptest.Partial(6, 1, 6, 2, "")
		}
		if err := s.c.DidChange(ctx, u, version, edit); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInlineCompletionDeclarationsSilentServer: a language server that
// never answers costs the completion nothing but the declarations.
func TestInlineCompletionDeclarationsSilentServer(t *testing.T) {
	s, u := declSession(t, []any{"sleep", "600"})
	res := s.inline(t, u, 6, 1, protocol.InlineCompletionTriggerKindInvoked)
	if len(res.Items) != 1 || res.Items[0].InsertText != "fmt.Println(x)" {
		t.Fatalf("items = %+v", res.Items)
	}
	reqs := completionRequests(s.model)
	if len(reqs) != 1 || strings.Contains(reqs[0].Prompt, "func Scale") || !strings.HasSuffix(reqs[0].Prompt, "x := Scale(1.5, 2)\n\t") {
		t.Fatalf("prompt:\n%s", reqs[0].Prompt)
	}
}
