package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/internal/testwait"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// TestCodeActionCacheNeverStale: code action answers are cached
// (lspserver/runs/actioncache.go), a resolving client's (titles only) and
// an eager one's (eglot, Helix: whole actions) alike. Every input of the
// list is changed in turn through the real server: after each change the
// next answer to the very request asked (and cached) just before shows
// the change, and equals a fresh build (the same request with a context
// triggerKind never asked before, which no cached answer matches). The
// inputs: proposals staged, accepted, rejected; language-server problems
// on a proposal; the preview diagnostics setting; a run's session
// (Continue); a plan awaiting approval, and its approval; a landed run
// (Revert) and its revert; a task comment typed; the document closed and
// reopened at the same version with other text; the request's own
// diagnostics and context.only. Where the server changes the list in the
// background (task comments are scanned after a change, the revert index
// is rebuilt), the test waits for the change with the same check.
func TestCodeActionCacheNeverStale(t *testing.T) {
	t.Run("lazy", func(t *testing.T) { t.Parallel(); codeActionCacheNeverStale(t, lsptest.ResolvingCapabilities()) })
	t.Run("eager", func(t *testing.T) { t.Parallel(); codeActionCacheNeverStale(t, lsptest.DefaultCapabilities()) })
}

func codeActionCacheNeverStale(t *testing.T, caps protocol.ClientCapabilities) {
	const plan = "1. Make One return 2."
	script := func(req *llmtest.ChatRequest) llmtest.Reply {
		switch {
		case strings.Contains(req.LastUser(), "The user approved your plan"):
			return llmtest.Text("Nothing left to do.")
		case req.Contains("Just say hi."):
			return llmtest.Text("Hi.")
		case req.Contains("Plan it."):
			return llmtest.Text(plan)
		case !req.HasToolResult("r1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "r1", Name: "read_file", Args: callArgs(map[string]any{"path": "a.go"})})
		case !req.HasToolResult("e1"):
			return llmtest.ToolCalls(llmtest.Call{ID: "e1", Name: "edit_file", Args: callArgs(map[string]any{"path": "a.go", "old_string": "return 1", "new_string": "return 100"})})
		}
		return llmtest.Text("Done.")
	}
	rs := newRunSession(t, script, runOpts{runOpts: lspserver.RunOptions{StateDir: t.TempDir()}, init: lsptest.InitOptions{Capabilities: &caps}})
	e := editorFor(rs.session, text.UTF16)
	const base = "package a\n\n// One is one.\nfunc One() int {\n\treturn 1\n}\n"
	u := e.open(t, "a.go", base)
	compiler := protocol.Diagnostic{Range: rng(4, 1, 4, 7), Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("compiler"), Message: protocol.String("missing return")}
	params := func(trigger protocol.CodeActionTriggerKind) *protocol.CodeActionParams {
		return &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range:        rng(4, 0, 4, 9),
			Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{compiler}, TriggerKind: trigger},
		}
	}
	fresh := protocol.CodeActionTriggerKind(100)
	// ask asks the cached request (trigger Invoked) twice between two
	// fresh builds and checks both answers against them; when the two
	// fresh builds differ, something in the background (a task scan, the
	// revert index) changed the list meanwhile, and it asks again.
	ask := func(what string) []protocol.CodeAction {
		t.Helper()
		for attempt := 0; ; attempt++ {
			fresh++
			before := withoutData(t, codeActionsOf(t, rs.c, params(fresh)))
			got := codeActionsOf(t, rs.c, params(protocol.CodeActionTriggerKindInvoked))
			again := codeActionsOf(t, rs.c, params(protocol.CodeActionTriggerKindInvoked))
			fresh++
			after := withoutData(t, codeActionsOf(t, rs.c, params(fresh)))
			if before != after {
				if attempt < 50 {
					continue
				}
				t.Fatalf("%s: the list never stopped changing: %s, then %s", what, before, after)
			}
			if g, a := withoutData(t, got), withoutData(t, again); g != before || a != before {
				t.Fatalf("%s: the answer %s, asked again %s, differs from a fresh build %s", what, g, a, before)
			}
			return got
		}
	}
	has := func(as []protocol.CodeAction, prefix string) *protocol.CodeAction {
		for i := range as {
			if strings.HasPrefix(as[i].Title, prefix) {
				return &as[i]
			}
		}
		return nil
	}
	// mustHave finds the action; a lazy client's is resolved, since its
	// list leaves review's preview diagnostic to codeAction/resolve.
	lazy := caps.TextDocument != nil && caps.TextDocument.CodeAction != nil && len(caps.TextDocument.CodeAction.ResolveSupport.Properties) > 0
	mustHave := func(what string, as []protocol.CodeAction, prefix string, want bool) *protocol.CodeAction {
		t.Helper()
		a := has(as, prefix)
		if (a != nil) != want {
			t.Fatalf("%s: an action %q offered: %v, want %v (titles %q)", what, prefix, a != nil, want, titles(as))
		}
		if a != nil && lazy {
			var whole protocol.CodeAction
			if err := rs.c.Call(lsptest.Context(t), protocol.MethodCodeActionResolve, a, &whole); err != nil {
				t.Fatalf("%s: resolve %q: %v", what, a.Title, err)
			}
			return &whole
		}
		return a
	}

	// Nothing yet: no review action, no Continue, no plan, no revert.
	as := ask("at first")
	for _, p := range []string{"Agent: Accept", "Agent: Continue", "Agent: Approve plan", "Agent: Revert run"} {
		mustHave("at first", as, p, false)
	}
	mustHave("at first", as, "Agent: Fix: missing return", true)

	// A run that changes nothing: its session is offered to continue.
	hi := rs.start(t, lspserver.RunArgs{Prompt: "Just say hi."})
	rs.event(t, hi, "finished")
	mustHave("a session", ask("a session"), "Agent: Continue “Just say hi.”", true)

	// A proposal is staged: review actions (store), with its preview diagnostic.
	proposed := strings.Replace(base, "return 1", "return 7", 1)
	e.stage("staged1", "a.go", base, proposed, false)
	acc := mustHave("staged", ask("staged"), "Agent: Accept change", true)
	if len(acc.Diagnostics) != 1 || !strings.Contains(diagMessage(acc.Diagnostics[0]), "return 7") {
		t.Fatalf("staged: accept's diagnostics %+v, want the hunk's preview", acc.Diagnostics)
	}

	// A language server finds a problem in it: the preview diagnostic says so.
	lspserver.RecordProblems(rs.srv, "staged1", tools.FileProblems{Path: u.FsPath(), Text: proposed, Introduced: 1,
		Outstanding: []tools.Problem{{Range: text.Range{Start: text.Position{Line: 4, Character: 1}, End: text.Position{Line: 4, Character: 9}}, Severity: "error", Message: "seven is unlucky", Source: "vet"}}})
	acc = mustHave("problems", ask("problems recorded"), "Agent: Accept change", true)
	if msg := diagMessage(acc.Diagnostics[0]); !strings.Contains(msg, "seven is unlucky") {
		t.Fatalf("problems recorded: the preview diagnostic %q does not carry the problem", msg)
	}

	// Preview diagnostics turned off, then on again (settings).
	setPreviewDiagnostics := func(on bool) {
		t.Helper()
		if err := rs.c.Notify(lsptest.Context(t), protocol.MethodWorkspaceDidChangeConfiguration,
			&protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(mustRaw(t, map[string]any{"agentls": map[string]any{"preview": map[string]any{"diagnostics": on}}}))}); err != nil {
			t.Fatal(err)
		}
	}
	setPreviewDiagnostics(false)
	if acc = mustHave("preview off", ask("preview diagnostics off"), "Agent: Accept change", true); len(acc.Diagnostics) != 0 {
		t.Fatalf("preview diagnostics off: accept still carries %+v", acc.Diagnostics)
	}
	setPreviewDiagnostics(true)
	if acc = mustHave("preview on", ask("preview diagnostics on"), "Agent: Accept change", true); len(acc.Diagnostics) != 1 {
		t.Fatalf("preview diagnostics on: accept carries %+v", acc.Diagnostics)
	}

	// Rejected: the review actions go.
	if n := e.reject(t, reviewArgs{RunID: "staged1"}); n != 1 {
		t.Fatalf("rejected %d hunks", n)
	}
	mustHave("rejected", ask("rejected"), "Agent: Reject", false)

	// A run proposes a change: review actions, and Continue (its session).
	id := rs.start(t, lspserver.RunArgs{Prompt: "Make One return 100.", URI: string(u)})
	rs.event(t, id, "finished")
	as = ask("run finished")
	mustHave("run finished", as, "Agent: Accept change", true)
	mustHave("run finished", as, "Agent: Continue “Make One return 100.”", true)

	// Accepted: the review actions go; the run's revert comes once the
	// index (built in the background) has it.
	if res := e.accept(t, reviewArgs{RunID: id}); !res.Applied {
		t.Fatalf("accept = %+v", res)
	}
	mustHave("accepted", ask("accepted"), "Agent: Accept", false)
	testwait.Until(t, "the revert action after the accept", func() bool {
		return has(ask("accepted, waiting for the index"), "Agent: Revert run "+id) != nil
	})
	res := revertRun(t, rs, id)
	if res.Reverted != 1 {
		t.Fatalf("revert = %+v", res)
	}
	testwait.Until(t, "the revert action to go after the revert", func() bool {
		return has(ask("reverted"), "Agent: Revert run "+id) == nil
	})

	// A plan awaits approval: offered; approved: gone.
	var planRun lspserver.RunResult
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandRun, lspserver.RunArgs{Prompt: "Plan it.", Mode: "plan"}), &planRun); err != nil {
		t.Fatal(err)
	}
	rs.event(t, planRun.RunID, "finished")
	mustHave("plan waiting", ask("plan waiting"), "Agent: Approve plan “"+plan+"”", true)
	if err := rs.c.Call(lsptest.Context(t), protocol.MethodWorkspaceExecuteCommand,
		command(lspserver.CommandApprovePlan, lspserver.ApprovePlanArgs{RunID: planRun.RunID}), &lspserver.RunResult{}); err != nil {
		t.Fatal(err)
	}
	mustHave("plan approved", ask("plan approved"), "Agent: Approve plan", false)

	// A task comment typed on the line: its action comes (the comments
	// are scanned after the change, in the background).
	line := strings.Index(e.text(t, u), "\treturn 1")
	end := line + len("\treturn 1")
	e.typeAt(t, u, end, end, " // tidy this up, agent!")
	testwait.Until(t, "the task action", func() bool { return has(ask("task typed"), "Agent: tidy this up") != nil })

	// Closed and reopened at the same version with other text: the task is gone.
	if err := rs.c.DidClose(lsptest.Context(t), u); err != nil {
		t.Fatal(err)
	}
	if err := rs.c.DidOpen(lsptest.Context(t), u, "go", 1, base); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the task action to go after the reopen", func() bool { return has(ask("reopened"), "Agent: tidy this up") == nil })

	// The request's own context: other diagnostics, context.only.
	compiler.Message = protocol.String("return what?")
	as = ask("other diagnostics")
	mustHave("other diagnostics", as, "Agent: Fix: return what?", true)
	mustHave("other diagnostics", as, "Agent: Fix: missing return", false)
	p := params(protocol.CodeActionTriggerKindInvoked)
	p.Context.Only = []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}
	for _, a := range codeActionsOf(t, rs.c, p) {
		if a.Kind == nil || *a.Kind != protocol.CodeActionKindQuickFix {
			t.Fatalf("only quickfix: %q of kind %v offered", a.Title, a.Kind)
		}
	}
}

// withoutData is as encoded without their data (the lists' set ids differ
// from request to request).
func withoutData(t *testing.T, as []protocol.CodeAction) string {
	t.Helper()
	out := make([]protocol.CodeAction, len(as))
	for i, a := range as {
		a.Data = nil
		out[i] = a
	}
	b, err := protocol.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func diagMessage(d protocol.Diagnostic) string {
	if m, ok := d.Message.(protocol.String); ok {
		return string(m)
	}
	return ""
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
