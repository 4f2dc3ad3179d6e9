package complete

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/config"
	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/workspace"
)

func TestSymbolsNear(t *testing.T) {
	text := "func f() {\n\tx := strings.TrimSpace(s)\n\ty := helper(x)\n\tre\n\tvar b Buffer\n}\n"
	off := strings.Index(text, "re\n") + 2
	var keys []string
	for _, s := range symbolsNear(text, off) {
		keys = append(keys, s.key)
		if !strings.HasPrefix(text[s.off:], s.key[strings.LastIndexByte(s.key, '.')+1:]) {
			t.Errorf("%s: offset %d points at %q", s.key, s.off, text[s.off:s.off+5])
		}
	}
	// Nearest first; the word being typed, keywords and plain locals are out.
	want := []string{"helper", "Buffer", "strings.TrimSpace", "f"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("symbols = %v, want %v", keys, want)
	}
}

// fakeDeclarer answers from a table, or blocks until released.
type fakeDeclarer struct {
	decls map[string]string // word at the offset → declaration
	block chan struct{}     // non-nil: wait for it (a cold server)

	mu    sync.Mutex
	calls int
}

func (f *fakeDeclarer) Declarations(ctx context.Context, path, text string, offs []int) ([]string, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([]string, len(offs))
	for i, o := range offs {
		j := o
		for j < len(text) && identPart(text[j]) {
			j++
		}
		out[i] = f.decls[text[o:j]]
	}
	return out, nil
}

// declEngine is an engine over a Go file calling helper, with a qwen
// model at m.
func declEngine(t *testing.T, m *llmtest.Server, dl Declarer) (*Engine, string, string) {
	t.Helper()
	dir := t.TempDir()
	view := workspace.New(workspace.Options{})
	view.SetFolders([]string{dir})
	e := New(view, nil)
	cfg := config.Defaults()
	cfg.Model.BaseURL, cfg.Model.Name = m.URL(), "qwen2.5-coder:7b"
	if err := e.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	e.SetDeclarer(t.Context(), dl)
	path := filepath.Join(dir, "main.go")
	text := "package main\n\nfunc main() {\n\tn := helper(2)\n\t\n}\n"
	view.Open(path, 1, text)
	return e, path, text
}

func (e *Engine) filling(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.docs[path]
	return d != nil && d.decls != nil && d.decls.filling != nil
}

// TestDeclarationsInPrompt: once the cache has filled, the declaration
// of a function the code near the cursor calls is in the FIM prompt,
// before the file's text.
func TestDeclarationsInPrompt(t *testing.T) {
	m := llmtest.New(t, llmtest.Always(llmtest.Text("fmt.Println(n)")))
	dl := &fakeDeclarer{decls: map[string]string{"helper": "func helper(n int) int"}}
	e, path, text := declEngine(t, m, dl)
	off := strings.Index(text, "\t\n}") + 1
	req := Request{Path: path, Text: text, Offset: off, Gen: e.Gen(path)}
	if _, err := e.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testwait.Limit); e.filling(path); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the declarations cache never filled")
		}
	}
	e.Changed(path) // a new request, not one typed through
	req.Gen = e.Gen(path)
	res, err := e.Complete(t.Context(), req)
	if err != nil || res.Text != "fmt.Println(n)" {
		t.Fatalf("completion %q, %v", res.Text, err)
	}
	reqs := m.Requests()
	p := reqs[len(reqs)-1].Prompt
	if i, j := strings.Index(p, "// func helper(n int) int\n"), strings.Index(p, "package main"); i < 0 || j < i {
		t.Fatalf("prompt has no declaration before the file:\n%s", p)
	}
}

// TestDeclarationsSlowServer: a server that does not answer costs the
// completion nothing but its declarations.
func TestDeclarationsSlowServer(t *testing.T) {
	m := llmtest.New(t, llmtest.Always(llmtest.Text("fmt.Println(n)")))
	dl := &fakeDeclarer{decls: map[string]string{"helper": "func helper(n int) int"}, block: make(chan struct{})}
	defer close(dl.block)
	e, path, text := declEngine(t, m, dl)
	off := strings.Index(text, "\t\n}") + 1
	res, err := e.Complete(t.Context(), Request{Path: path, Text: text, Offset: off, Gen: e.Gen(path)})
	if err != nil || res.Text != "fmt.Println(n)" {
		t.Fatalf("completion %q, %v", res.Text, err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 || strings.Contains(reqs[0].Prompt, "helper(n int)") || !strings.HasSuffix(strings.TrimSuffix(reqs[0].Prompt, "<|fim_suffix|>\n}\n<|fim_middle|>"), "n := helper(2)\n\t") {
		t.Fatalf("prompt:\n%s", reqs[0].Prompt)
	}
}
