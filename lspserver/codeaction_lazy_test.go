package lspserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// lazyFixture starts a server for a client with caps over root, opens
// main.go (version 1) and stages a proposal changing its line 3.
func lazyFixture(t *testing.T, root string, caps protocol.ClientCapabilities) (*lsptest.Client, *protocol.InitializeResult, uri.URI) {
	t.Helper()
	ctx := lsptest.Context(t)
	srv := lspserver.New(lspserver.Options{NoWatcher: true})
	c := lsptest.NewInProcessServer(t, srv)
	res, err := c.Initialize(ctx, lsptest.InitOptions{Folders: []string{root}, Capabilities: &caps})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "main.go")
	content := "package main\n\nfunc main() {\n\tx := 1\n}\n"
	u := uri.File(path)
	if err := c.DidOpen(ctx, u, "go", 1, content); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Document(ctx, u); err != nil { // a round trip: didOpen is processed
		t.Fatal(err)
	}
	lspserver.StagePreview(srv, "run1", tools.StagedFile{Path: path, Base: content, Text: strings.Replace(content, "x := 1", "x := 2", 1)})
	return c, res, u
}

func lazyParams(u uri.URI) *protocol.CodeActionParams {
	return &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        rng(3, 0, 3, 7),
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{{
			Range: rng(3, 1, 3, 2), Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("compiler"),
			Code: protocol.String("UnusedVar"), Message: protocol.String("declared and not used: x"),
		}}},
	}
}

// TestLazyCodeActions: a client whose codeAction capabilities have
// dataSupport and resolveSupport for "command" gets titles, kinds and the
// diagnostics a fix is for, without commands (and without the preview
// diagnostic of a review action), and codeAction/resolve answers each action
// exactly as an eager client gets it in the same editor state; a client
// without resolveSupport (eglot, Helix) gets whole actions and no
// resolveProvider.
func TestLazyCodeActions(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eager, eagerInit, u := lazyFixture(t, root, lsptest.DefaultCapabilities())
	lazy, lazyInit, _ := lazyFixture(t, root, lsptest.ResolvingCapabilities())
	if rp := eagerInit.Capabilities.CodeActionProvider.(*protocol.CodeActionOptions).ResolveProvider; rp == nil || *rp {
		t.Errorf("eager client: resolveProvider %v, want false", rp)
	}
	if rp := lazyInit.Capabilities.CodeActionProvider.(*protocol.CodeActionOptions).ResolveProvider; rp == nil || !*rp {
		t.Errorf("resolving client: resolveProvider %v, want true", rp)
	}

	whole := codeActionsOf(t, eager, lazyParams(u))
	listed := codeActionsOf(t, lazy, lazyParams(u))
	if !slices.Equal(titles(whole), titles(listed)) || !slices.Contains(titles(whole), "Agent: Accept change") {
		t.Fatalf("lazy titles %q, eager %q", titles(listed), titles(whole))
	}
	ctx := lsptest.Context(t)
	for i, a := range listed {
		if a.Command.Command != "" || len(a.Data) == 0 {
			t.Errorf("%q listed with command %q, data %s", a.Title, a.Command.Command, a.Data)
		}
		w := whole[i]
		w.Command = protocol.Command{}
		if src, _ := firstSource(w.Diagnostics); src == "agentls" {
			w.Diagnostics = nil // review's preview diagnostic comes with resolve
		}
		if got, want := mustJSON(t, a, true), mustJSON(t, w, false); got != want {
			t.Errorf("listed %s\nwant (eager without command) %s", got, want)
		}
		var resolved json.RawMessage
		if err := lazy.Call(ctx, protocol.MethodCodeActionResolve, a, &resolved); err != nil {
			t.Fatalf("resolve %q: %v", a.Title, err)
		}
		if got, want := string(resolved), mustJSON(t, whole[i], false); got != want {
			t.Errorf("resolved %s\nwant (eager) %s", got, want)
		}
	}
	if args := runArgsOf(t, whole[slices.Index(titles(whole), "Agent: Fix: declared and not used: x")]); !strings.Contains(args.Prompt, "UnusedVar") {
		t.Errorf("fix prompt %q", args.Prompt)
	}

	// An eager client's action sent to resolve comes back as it is.
	var same protocol.CodeAction
	if err := eager.Call(ctx, protocol.MethodCodeActionResolve, whole[0], &same); err != nil || same.Command.Command == "" {
		t.Errorf("resolving an eager action: %v, %+v", err, same)
	}
}

// TestLazyCodeActionStale: a resolve after the document changed is
// ContentModified (-32801) with a message that says so; after a fresh
// list, resolve works again.
func TestLazyCodeActionStale(t *testing.T) {
	t.Parallel()
	c, _, u := lazyFixture(t, t.TempDir(), lsptest.ResolvingCapabilities())
	ctx := lsptest.Context(t)
	listed := codeActionsOf(t, c, lazyParams(u))
	if err := c.DidChange(ctx, u, 2, &protocol.TextDocumentContentChangePartial{Range: rng(0, 0, 0, 0), Text: "// edited\n"}); err != nil {
		t.Fatal(err)
	}
	m, err := c.CallRaw(ctx, protocol.MethodCodeActionResolve, listed[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != -32801 || !strings.Contains(m.Error.Message, "document changed") {
		t.Fatalf("stale resolve answered %+v, want ContentModified saying the document changed", m)
	}
	fresh := codeActionsOf(t, c, lazyParams(u))
	var resolved protocol.CodeAction
	if err := c.Call(ctx, protocol.MethodCodeActionResolve, fresh[0], &resolved); err != nil || resolved.Command.Command == "" {
		t.Errorf("resolve after a fresh list: %v, %+v", err, resolved)
	}
}

// TestLazyCodeActionBadResolve: resolve params that are not a code action
// agentls listed get InvalidParams (-32602), and the connection goes on.
func TestLazyCodeActionBadResolve(t *testing.T) {
	t.Parallel()
	c, _, u := lazyFixture(t, t.TempDir(), lsptest.ResolvingCapabilities())
	ctx := lsptest.Context(t)
	listed := codeActionsOf(t, c, lazyParams(u))
	for name, params := range map[string]any{
		"not an object":    []int{1},
		"no data":          map[string]any{"title": "Agent: Explain this code"},
		"foreign data":     map[string]any{"title": "x", "data": map[string]any{"uri": "file:///x"}},
		"unknown set":      map[string]any{"title": "x", "data": map[string]any{"set": 99999, "i": 0}},
		"index past end":   map[string]any{"title": "Agent: gone", "data": map[string]any{"set": 1, "i": 50}},
		"title mismatched": map[string]any{"title": "Agent: something else", "data": map[string]any{"set": 1, "i": 0}},
	} {
		m, err := c.CallRaw(ctx, protocol.MethodCodeActionResolve, params)
		if err != nil {
			t.Fatal(err)
		}
		wantCode := int64(-32602)
		if strings.HasPrefix(name, "index") || strings.HasPrefix(name, "title") {
			wantCode = -32801 // a known list that no longer offers it
		}
		if m.Error == nil || int64(m.Error.Code) != wantCode || (name != "not an object" && !strings.Contains(m.Error.Message, "codeAction/resolve")) {
			t.Errorf("%s: answered %+v, want code %d", name, m, wantCode)
		}
	}
	if got := codeActionsOf(t, c, lazyParams(u)); len(got) != len(listed) {
		t.Errorf("after bad resolves: %d actions, want %d", len(got), len(listed))
	}
}

// mustJSON is v as the wire has it; lazy drops data (compared apart).
func mustJSON(t *testing.T, a protocol.CodeAction, dropData bool) string {
	t.Helper()
	if dropData {
		a.Data = nil
	}
	b, err := protocol.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstSource is the source of the first of ds, if any.
func firstSource(ds []protocol.Diagnostic) (string, bool) {
	if len(ds) == 0 {
		return "", false
	}
	return ds[0].Source.Get()
}
