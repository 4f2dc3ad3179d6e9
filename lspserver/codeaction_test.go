package lspserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// codeActionsOf asks for code actions and decodes them.
func codeActionsOf(t testing.TB, c *lsptest.Client, p *protocol.CodeActionParams) []protocol.CodeAction {
	t.Helper()
	var raw []json.RawMessage
	if err := c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, p, &raw); err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	out := make([]protocol.CodeAction, 0, len(raw))
	for _, m := range raw {
		var a protocol.CodeAction
		if err := protocol.Unmarshal(m, &a); err != nil {
			t.Fatalf("decode %s: %v", m, err)
		}
		out = append(out, a)
	}
	return out
}

func titles(as []protocol.CodeAction) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Title)
	}
	return out
}

func runArgsOf(t testing.TB, a protocol.CodeAction) lspserver.RunArgs {
	t.Helper()
	if a.Command.Command != lspserver.CommandRun || len(a.Command.Arguments) != 1 {
		t.Fatalf("%q: command %+v", a.Title, a.Command)
	}
	var args lspserver.RunArgs
	if err := json.Unmarshal(a.Command.Arguments[0], &args); err != nil {
		t.Fatal(err)
	}
	return args
}

func rng(sl, sc, el, ec uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

// TestCodeActions: a fix per diagnostic (quickfix, with the diagnostic),
// explain and document always, refactor only for a selection; every one
// runs agentls.run with its prompt, uri and range; context.only filters.
func TestCodeActions(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("unused")), runOpts{})
	u := rs.fileURI("main.go")
	diag := protocol.Diagnostic{
		Range:    rng(4, 1, 4, 9),
		Severity: protocol.DiagnosticSeverityError,
		Source:   protocol.NewOptional("compiler"),
		Code:     protocol.String("UndeclaredName"),
		Message:  protocol.String("undefined: fmtt\nsecond line"),
	}
	hint := protocol.Diagnostic{Range: rng(7, 0, 7, 3), Severity: protocol.DiagnosticSeverityHint, Message: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: "consider `x`"}}
	p := &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        rng(4, 0, 6, 2),
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{diag, hint}},
	}
	as := codeActionsOf(t, rs.c, p)
	want := []string{"Agent: Fix: undefined: fmtt", "Agent: Fix: consider `x`", "Agent: Explain this code", "Agent: Document this code", "Agent: Refactor selection", "Agent: Plan changes to this code…"}
	if got := titles(as); !slices.Equal(got, want) {
		t.Fatalf("titles %q, want %q", got, want)
	}
	fix := as[0]
	if fix.Kind == nil || *fix.Kind != protocol.CodeActionKindQuickFix || len(fix.Diagnostics) != 1 {
		t.Errorf("fix action %+v", fix)
	}
	fa := runArgsOf(t, fix)
	if fa.URI != string(u) || fa.Range == nil || *fa.Range != diag.Range {
		t.Errorf("fix args %+v", fa)
	}
	for _, frag := range []string{"error", "line 5", "compiler", "UndeclaredName", "undefined: fmtt\nsecond line"} {
		if !strings.Contains(fa.Prompt, frag) {
			t.Errorf("fix prompt %q lacks %q", fa.Prompt, frag)
		}
	}
	for _, a := range as[2:] {
		if a.Kind == nil || *a.Kind != protocol.CodeActionKindRefactorRewrite {
			t.Errorf("%q kind %v", a.Title, a.Kind)
		}
		args := runArgsOf(t, a)
		if args.URI != string(u) || args.Range == nil || *args.Range != p.Range || args.Prompt == "" {
			t.Errorf("%q args %+v", a.Title, args)
		}
		if wantMode := map[bool]string{true: "plan"}[strings.HasPrefix(a.Title, "Agent: Plan")]; args.Mode != wantMode {
			t.Errorf("%q mode %q, want %q", a.Title, args.Mode, wantMode)
		}
	}

	// An empty range: no refactor.
	p.Range = rng(2, 3, 2, 3)
	p.Context.Diagnostics = nil
	if got := titles(codeActionsOf(t, rs.c, p)); !slices.Equal(got, []string{"Agent: Explain this code", "Agent: Document this code"}) {
		t.Errorf("cursor-only titles %q", got)
	}
	// context.only.
	p.Context.Diagnostics = []protocol.Diagnostic{diag}
	p.Range = rng(0, 0, 1, 0)
	p.Context.Only = []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}
	if got := titles(codeActionsOf(t, rs.c, p)); !slices.Equal(got, []string{"Agent: Fix: undefined: fmtt"}) {
		t.Errorf("only quickfix: %q", got)
	}
	p.Context.Only = []protocol.CodeActionKind{protocol.CodeActionKindRefactor}
	if got := titles(codeActionsOf(t, rs.c, p)); len(got) != 4 || slices.Contains(got, "Agent: Fix: undefined: fmtt") {
		t.Errorf("only refactor: %q", got)
	}
	p.Context.Only = []protocol.CodeActionKind{protocol.CodeActionKindSource}
	if got := titles(codeActionsOf(t, rs.c, p)); len(got) != 0 {
		t.Errorf("only source: %q", got)
	}
	// Non-file documents work too.
	p.TextDocument.URI = uri.URI("untitled:Untitled-1")
	p.Context.Only = nil
	if got := codeActionsOf(t, rs.c, p); len(got) != 5 {
		t.Errorf("untitled: %q", titles(got))
	}
}

// TestCodeActionStartsRun: picking a fix runs the agent with the
// diagnostic in its prompt and the diagnostic's text as the selection.
func TestCodeActionStartsRun(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("Fixed it.")), runOpts{})
	path := rs.write(t, "main.go", "package main\n\nfunc main() {\n\tfmtt.Println(1)\n}\n")
	u := uri.File(path)
	if err := rs.c.DidOpen(lsptest.Context(t), u, "go", 1, "package main\n\nfunc main() {\n\tfmtt.Println(1)\n}\n"); err != nil {
		t.Fatal(err)
	}
	diag := protocol.Diagnostic{Range: rng(3, 1, 3, 5), Severity: protocol.DiagnosticSeverityError, Message: protocol.String("undefined: fmtt")}
	as := codeActionsOf(t, rs.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng(3, 1, 3, 1),
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{diag}},
	})
	var res lspserver.RunResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: as[0].Command.Command, Arguments: as[0].Command.Arguments,
	}, &res); err != nil {
		t.Fatal(err)
	}
	rs.event(t, res.RunID, "finished")
	task := rs.model.Requests()[0].LastUser()
	for _, frag := range []string{"undefined: fmtt", "main.go", "fmtt"} {
		if !strings.Contains(task, frag) {
			t.Errorf("task message lacks %q:\n%s", frag, task)
		}
	}
}

// TestCapabilities: executeCommandProvider lists the four commands and
// codeActionProvider the kinds offered.
func TestRunCapabilities(t *testing.T) {
	t.Parallel()
	c := lsptest.NewInProcess(t, lspserver.Options{NoWatcher: true})
	res, err := c.Initialize(lsptest.Context(t), lsptest.InitOptions{Folders: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := res.Capabilities.ExecuteCommandProvider.Commands
	for _, want := range []string{"agentls.run", "agentls.cancel", "agentls.accept", "agentls.reject"} {
		if !slices.Contains(cmds, want) {
			t.Errorf("executeCommandProvider lacks %s: %v", want, cmds)
		}
	}
	opts, ok := res.Capabilities.CodeActionProvider.(*protocol.CodeActionOptions)
	if !ok || !slices.Equal(opts.CodeActionKinds, []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite}) {
		t.Errorf("codeActionProvider %#v", res.Capabilities.CodeActionProvider)
	}
}
