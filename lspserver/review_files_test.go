package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// capsWith returns the default capabilities with the workspace edit
// capabilities replaced.
func capsWith(documentChanges bool, ops ...protocol.ResourceOperationKind) *protocol.ClientCapabilities {
	c := lsptest.DefaultCapabilities()
	c.Workspace.WorkspaceEdit = &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &documentChanges, ResourceOperations: ops}
	return &c
}

// neovim072Caps are the workspace edit capabilities Neovim 0.7.2 sends:
// resource operations, but no documentChanges.
func neovim072Caps() *protocol.ClientCapabilities {
	return capsWith(false, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindDelete)
}

// lastApplyEditRaw returns the raw params of the last workspace/applyEdit.
func lastApplyEditRaw(t *testing.T, e *fakeEditor) string {
	t.Helper()
	var last string
	for _, m := range e.c.Received() {
		if m.Method == protocol.MethodWorkspaceApplyEdit {
			last = string(m.Params)
		}
	}
	if last == "" {
		t.Fatal("no workspace/applyEdit on the wire")
	}
	return last
}

func TestReviewFileNotOpen(t *testing.T) {
	t.Run("documentChanges", func(t *testing.T) {
		e := newReviewSession(t, reviewOpts{})
		e.write(t, "closed.go", demoBase)
		u := e.uri("closed.go")
		e.stage("run1", "closed.go", demoBase, demoProposed, false)
		checkHunkLines(t, e, u, 3, 7, 11)
		if res := e.accept(t, reviewArgs{}); !res.Applied {
			t.Fatalf("accept = %+v", res)
		}
		tde := e.lastEdit(t).DocumentChanges[0].(*protocol.TextDocumentEdit)
		if tde.TextDocument.URI != u || tde.TextDocument.Version != nil || len(tde.Edits) != 3 {
			t.Fatalf("edit = %+v", tde)
		}
		if raw := lastApplyEditRaw(t, e); !strings.Contains(raw, `"version":null`) {
			t.Fatalf("the version of a closed document must be null on the wire: %s", raw)
		}
		if got := e.text(t, u); got != demoProposed {
			t.Fatalf("the editor's buffer = %q", got)
		}
		if ps := e.proposals(t, ""); len(ps) != 0 {
			t.Fatalf("proposals left: %+v", ps)
		}
	})
	t.Run("changes", func(t *testing.T) {
		e := newReviewSession(t, reviewOpts{caps: neovim072Caps()})
		e.write(t, "closed.go", demoBase)
		u := e.uri("closed.go")
		e.stage("run1", "closed.go", demoBase, demoProposed, false)
		if res := e.accept(t, reviewArgs{}); !res.Applied {
			t.Fatalf("accept = %+v", res)
		}
		we := e.lastEdit(t)
		if we.DocumentChanges != nil || len(we.Changes) != 1 || len(we.Changes[u]) != 3 {
			t.Fatalf("edit without documentChanges support = %+v", we)
		}
		if raw := lastApplyEditRaw(t, e); strings.Contains(raw, "documentChanges") {
			t.Fatalf("documentChanges sent to a client without support: %s", raw)
		}
		if got := e.text(t, u); got != demoProposed {
			t.Fatalf("the editor's buffer = %q", got)
		}
	})
}

func checkHunkLines(t *testing.T, e *fakeEditor, u uri.URI, lines ...uint32) {
	t.Helper()
	hunks := e.hunks(t, u)
	if len(hunks) != len(lines) {
		t.Fatalf("hunks = %+v, want starts %v", hunks, lines)
	}
	for i, h := range hunks {
		if h.Range.Start.Line != lines[i] {
			t.Fatalf("hunk %d starts at line %d, want %d: %+v", i, h.Range.Start.Line, lines[i], hunks)
		}
	}
}

func TestReviewNewFile(t *testing.T) {
	const content = "package demo\n\n// New says hello.\nfunc New() string { return \"héllo 😀\" }\n"
	cases := []struct {
		name       string
		caps       *protocol.ClientCapabilities
		openOnEdit bool
		check      func(t *testing.T, we protocol.WorkspaceEdit, raw string, u uri.URI)
	}{
		{"create", nil, true, func(t *testing.T, we protocol.WorkspaceEdit, raw string, u uri.URI) {
			if len(we.DocumentChanges) != 2 {
				t.Fatalf("documentChanges = %+v", we.DocumentChanges)
			}
			cf, ok := we.DocumentChanges[0].(*protocol.CreateFile)
			if !ok || cf.URI != u || cf.Options == nil || cf.Options.IgnoreIfExists == nil || !*cf.Options.IgnoreIfExists ||
				cf.Options.Overwrite == nil || *cf.Options.Overwrite {
				t.Fatalf("first change = %#v, want CreateFile ignoreIfExists without overwrite", we.DocumentChanges[0])
			}
			if !strings.Contains(raw, `"kind":"create"`) {
				t.Fatalf("CreateFile without kind on the wire: %s", raw)
			}
			if tde, ok := we.DocumentChanges[1].(*protocol.TextDocumentEdit); !ok || tde.TextDocument.Version != nil {
				t.Fatalf("second change = %#v", we.DocumentChanges[1])
			}
		}},
		{"no create support", capsWith(true), false, func(t *testing.T, we protocol.WorkspaceEdit, raw string, u uri.URI) {
			if len(we.DocumentChanges) != 1 || strings.Contains(raw, `"kind"`) {
				t.Fatalf("documentChanges = %s", raw)
			}
			if tde := we.DocumentChanges[0].(*protocol.TextDocumentEdit); tde.TextDocument.URI != u {
				t.Fatalf("edit = %+v", tde)
			}
		}},
		{"no documentChanges (Neovim 0.7.2)", neovim072Caps(), false, func(t *testing.T, we protocol.WorkspaceEdit, raw string, u uri.URI) {
			if we.DocumentChanges != nil || len(we.Changes[u]) != 1 || we.Changes[u][0].NewText != content {
				t.Fatalf("edit = %s", raw)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReviewSession(t, reviewOpts{caps: tc.caps})
			e.openOnEdit = tc.openOnEdit
			u := e.uri("pkg/new.go")
			if err := os.MkdirAll(filepath.Join(e.root, "pkg"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.stage("run1", "pkg/new.go", "", content, true)
			hunks := e.hunks(t, u)
			if len(hunks) != 1 || hunks[0].OldText != "" || hunks[0].NewText != content {
				t.Fatalf("hunks of a new file = %+v", hunks)
			}
			if res := e.accept(t, reviewArgs{}); !res.Applied {
				t.Fatalf("accept = %+v", res)
			}
			tc.check(t, e.lastEdit(t), lastApplyEditRaw(t, e), u)
			if got := e.text(t, u); got != content {
				t.Fatalf("new document = %q", got)
			}
			if ps := e.proposals(t, ""); len(ps) != 0 {
				t.Fatalf("proposals left: %+v", ps)
			}
		})
	}
}

// A file that is not open changes on disk: its proposal follows (rebase),
// and conflicts when the change overlaps a hunk.
func TestReviewDiskChangeRebase(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	path := e.write(t, "disk.go", demoBase)
	u := e.uri("disk.go")
	e.stage("run1", "disk.go", demoBase, demoProposed, false)
	checkHunkLines(t, e, u, 3, 7, 11)
	watched := func() {
		t.Helper()
		err := e.c.Notify(lsptest.Context(t), protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
			Changes: []protocol.FileEvent{{URI: u, Type: protocol.FileChangeTypeChanged}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	onDisk := "// Code generated for the test.\n// Another line.\n" + demoBase
	e.write(t, "disk.go", onDisk)
	watched()
	checkHunkLines(t, e, u, 5, 9, 13)

	overlapping := strings.Replace(onDisk, "return 3", "return 33", 1)
	e.write(t, "disk.go", overlapping)
	watched()
	awaitProposalsChanged(t, e, u)
	hunks := e.hunks(t, u)
	if hunks[2].Status != "conflicted" || hunks[0].Status != "pending" || hunks[1].Status != "pending" {
		t.Fatalf("hunks after an overlapping disk change = %+v", hunks)
	}
	res := e.accept(t, reviewArgs{})
	if !res.Applied || len(res.Conflicts) != 1 || res.Conflicts[0].HunkID != hunks[2].ID {
		t.Fatalf("accept = %+v", res)
	}
	want := strings.NewReplacer("return 1", "return 10", "return 2", "return 20").Replace(overlapping)
	if got := e.text(t, u); got != want {
		t.Fatalf("buffer after accept:\n%q\nwant\n%q", got, want)
	}
	if data, _ := os.ReadFile(path); string(data) != overlapping {
		t.Fatal("the server wrote the file itself")
	}
}

func TestReviewCodeActions(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "demo.go", demoBase)
	e.stage("run1", "demo.go", demoBase, demoProposed, false)
	hunks := e.hunks(t, u)
	review := func(actions []protocol.CodeAction) []protocol.CodeAction {
		var out []protocol.CodeAction
		for _, a := range actions {
			if strings.HasPrefix(a.Title, "Agent: Accept change") || strings.HasPrefix(a.Title, "Agent: Reject change") {
				out = append(out, a)
			}
		}
		return out
	}
	cursor := func(line, char uint32) protocol.Range {
		p := protocol.Position{Line: line, Character: char}
		return protocol.Range{Start: p, End: p}
	}
	// A cursor inside the second hunk.
	got := review(e.codeActions(t, u, cursor(7, 4)))
	if len(got) != 2 || got[0].Title != "Agent: Accept change" || got[1].Title != "Agent: Reject change" ||
		got[0].Command.Command != "agentls.accept" || got[1].Command.Command != "agentls.reject" ||
		commandArgs(t, got[0].Command).HunkID != hunks[1].ID || commandArgs(t, got[1].Command).HunkID != hunks[1].ID {
		t.Fatalf("review actions at the second hunk = %+v", got)
	}
	// Outside every hunk: none.
	if got := review(e.codeActions(t, u, cursor(5, 0))); len(got) != 0 {
		t.Fatalf("review actions outside hunks = %+v", got)
	}
	// A selection over two hunks: both, told apart by line.
	two := review(e.codeActions(t, u, protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 7, Character: 3}}))
	if len(two) != 4 || two[0].Title != "Agent: Accept change at line 4" || two[2].Title != "Agent: Accept change at line 8" {
		t.Fatalf("review actions over two hunks = %+v", two)
	}
	// Running the accept action's command applies that hunk.
	var res acceptResult
	if err := e.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: got[0].Command.Command, Arguments: got[0].Command.Arguments,
	}, &res); err != nil || !res.Applied {
		t.Fatalf("executing the action's command: %+v %v", res, err)
	}
	if text := e.text(t, u); text != strings.Replace(demoBase, "return 2", "return 20", 1) {
		t.Fatalf("after the action: %q", text)
	}
	// A conflicted hunk offers only reject.
	doc := e.text(t, u)
	at := strings.Index(doc, "return 3")
	e.typeAt(t, u, at, at, "x")
	if got := review(e.codeActions(t, u, cursor(11, 2))); len(got) != 1 || got[0].Title != "Agent: Reject change" {
		t.Fatalf("review actions at a conflicted hunk = %+v", got)
	}
}

// A document opened through a symlink: the run stages the resolved path,
// and the editor still gets lenses, rebases and edits under the URI it
// opened.
func TestReviewSymlinkedDocument(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	e.write(t, "real/demo.go", demoBase)
	if err := os.Symlink(filepath.Join(e.root, "real"), filepath.Join(e.root, "link")); err != nil {
		testpeers.Missing(t, "symlinks unavailable: %v", err)
	}
	u := e.open(t, "link/demo.go", demoBase)
	e.stage("run1", "real/demo.go", demoBase, demoProposed, false)
	if l := e.codeLens(t, u); len(l) != 6 {
		t.Fatalf("lenses through the symlink = %+v", l)
	}
	e.typeAt(t, u, 0, 0, "// top\n")
	checkHunkLines(t, e, u, 4, 8, 12)
	if ps := e.proposals(t, ""); len(ps) != 1 || ps[0].URI != u {
		t.Fatalf("proposals name %+v, want the URI the editor opened", ps)
	}
	if res := e.accept(t, reviewArgs{URI: string(u)}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	if got := e.text(t, u); got != "// top\n"+demoProposed {
		t.Fatalf("document = %q", got)
	}
}
