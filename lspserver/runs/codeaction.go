package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver/core"
)

// Code actions offer agent tasks. They must answer in microseconds: no
// model call, no disk read, not even the document text. Each action only
// carries a Command (agentls.run with the prompt, uri and range); the run
// starts when the user picks it. Titles start with "Agent: " (docs/protocol.md):
//
//   - "Agent: <words>" (quickfix) for each task comment ("… agent!",
//     tasks.go) on the range's lines, with the lines around it;
//   - "Agent: Fix: <message>" (quickfix) for each diagnostic in the
//     request's context, with the diagnostic's range and its text in the
//     prompt;
//   - "Agent: Explain this code", "Agent: Document this code" and, when
//     the range is not empty, "Agent: Refactor selection" (refactor.rewrite);
//   - first, review's "Agent: Accept change" (preferred) / "Agent: Reject
//     change" for the hunks on the range's lines (review.CodeActions);
//   - "Agent: Plan changes to this code…" (refactor.rewrite), for a
//     selection: a plan-mode run (plan.go); and "Agent: Approve plan “<first line>”" while a
//     finished plan awaits approval;
//   - "Agent: Continue “<title>”" (refactor.rewrite) when a session exists:
//     a follow-up of the latest session that takes the review feedback
//     into account, for clients without a plugin to type a follow-up in.
//
// context.only is honoured: an action is offered when its kind equals a
// requested kind or is a sub-kind of one ("refactor" matches
// "refactor.rewrite").

// CodeActionKinds is codeActionProvider.codeActionKinds.
func CodeActionKinds() []protocol.CodeActionKind {
	return []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite}
}

// Prompts of the agent tasks. The editor context (file, range, selected
// text) goes with them, so they need not repeat it.
const (
	promptExplain  = "Explain what the selected code does. Do not change any file."
	promptDocument = "Add documentation comments to the selected code in the project's style. Change nothing else."
	promptRefactor = "Refactor the selected code for clarity without changing its behaviour."
	promptContinue = "Continue the task of this session: take the review feedback above (accepted and rejected changes, with the reasons given) and the user's own edits into account, and propose what is still missing."
)

// CodeAction answers textDocument/codeAction (see above): the actions
// whole, or, for a client that resolves commands lazily, encoded without
// them (resolve.go); from the cache when nothing changed (actioncache.go).
// The server's route is CodeActionRaw, which skips decoding repeated
// requests.
func (rs *Runs) CodeAction(_ context.Context, p *protocol.CodeActionParams) (any, error) {
	return rs.codeActionAnswer(p, nil), nil
}

// eagerCodeActions are p's whole actions, encoded here as the dispatcher
// would (protocol.Marshal), so that the answer can be cached; ok is false
// when they do not encode (the dispatcher then reports it).
func (rs *Runs) eagerCodeActions(p *protocol.CodeActionParams, key string) (json.RawMessage, []protocol.CommandOrCodeAction, bool) {
	actions := rs.codeActions(p, key, false)
	raw, err := protocol.Marshal(actions)
	if err != nil {
		return nil, actions, false
	}
	return raw, nil, true
}

// codeActions are the actions for p; lazy leaves their commands out
// (resolve.go builds them again, whole). key is core.DocKey of p's
// document, computed once per request.
func (rs *Runs) codeActions(p *protocol.CodeActionParams, key string, lazy bool) []protocol.CommandOrCodeAction {
	only := p.Context.Only
	u := string(p.TextDocument.URI)
	var out []protocol.CommandOrCodeAction
	// A proposed change under the cursor comes first, its Accept marked
	// preferred: the default action (eglot's RET, VS Code's quick fix key)
	// decides the change rather than starting a run.
	for _, a := range rs.review.CodeActions(key, core.ToTextRange(p.Range), lazy) {
		if ca, ok := a.(*protocol.CodeAction); ok && ca.Kind != nil && !kindWanted(only, *ca.Kind) {
			continue
		}
		out = append(out, a)
	}
	if kindWanted(only, protocol.CodeActionKindQuickFix) {
		out = append(out, rs.taskActions(rs.docs.StorePath(key), u, p.Range, lazy)...)
		for _, d := range p.Context.Diagnostics {
			msg := diagnosticText(d)
			if msg == "" || rs.review.IsPreviewDiagnostic(d) { // our own previews are decided, not fixed
				continue
			}
			prompt := ""
			if !lazy {
				prompt = fixPrompt(d, msg)
			}
			out = append(out, agentAction(lazy, "Agent: Fix: "+text.Clip(text.FirstLine(msg), 80), protocol.CodeActionKindQuickFix,
				prompt, u, d.Range, []protocol.Diagnostic{d}))
		}
	}
	if kindWanted(only, protocol.CodeActionKindRefactorRewrite) {
		out = append(out,
			agentAction(lazy, "Agent: Explain this code", protocol.CodeActionKindRefactorRewrite, promptExplain, u, p.Range, nil),
			agentAction(lazy, "Agent: Document this code", protocol.CodeActionKindRefactorRewrite, promptDocument, u, p.Range, nil))
		if p.Range.Start != p.Range.End {
			out = append(out, agentAction(lazy, "Agent: Refactor selection", protocol.CodeActionKindRefactorRewrite, promptRefactor, u, p.Range, nil),
				planAction(lazy, u, p.Range))
		}
		if id, title := rs.latestSession(); id != "" {
			out = append(out, continueAction(lazy, id, title))
		}
		if a := rs.approvePlanAction(lazy); a != nil {
			out = append(out, a)
		}
	}
	return append(out, rs.historyActions(key, p.Range, only)...)
}

// continueAction continues session id with promptContinue. lazy: without
// its command, here and in the other action builders.
func continueAction(lazy bool, id, title string) *protocol.CodeAction {
	t := "Agent: Continue “" + text.Clip(title, 60) + "”"
	if lazy {
		return &protocol.CodeAction{Title: t, Kind: core.Ptr(protocol.CodeActionKindRefactorRewrite)}
	}
	arg, _ := json.Marshal(RunArgs{Prompt: promptContinue, SessionID: id}) // cannot fail: strings only
	return &protocol.CodeAction{
		Title:   t,
		Kind:    core.Ptr(protocol.CodeActionKindRefactorRewrite),
		Command: protocol.Command{Title: t, Command: CommandRun, Arguments: []protocol.LSPAny{arg}},
	}
}

// agentAction is a code action running the agent on prompt.
func agentAction(lazy bool, title string, kind protocol.CodeActionKind, prompt, u string, r protocol.Range, diags []protocol.Diagnostic) *protocol.CodeAction {
	if lazy {
		return &protocol.CodeAction{Title: title, Kind: core.Ptr(kind), Diagnostics: diags}
	}
	return &protocol.CodeAction{
		Title:       title,
		Kind:        core.Ptr(kind),
		Diagnostics: diags,
		Command:     protocol.Command{Title: title, Command: CommandRun, Arguments: []protocol.LSPAny{runArgsJSON(prompt, u, r)}},
	}
}

// runArgsJSON is RunArgs{prompt, u, r} as JSON, written directly: code
// actions are on the typing path, and reflection-based marshalling was a
// third of their cost (BenchmarkCodeAction).
func runArgsJSON(prompt, u string, r protocol.Range) []byte {
	b := make([]byte, 0, 96+len(prompt)+len(u))
	b = append(b, `{"prompt":`...)
	b, _ = jsontext.AppendQuote(b, prompt) // invalid UTF-8 becomes U+FFFD; the output stays valid
	b = append(b, `,"uri":`...)
	b, _ = jsontext.AppendQuote(b, u)
	b = append(b, `,"range":{"start":`...)
	b = appendPosition(b, r.Start)
	b = append(b, `,"end":`...)
	b = appendPosition(b, r.End)
	return append(b, `}}`...)
}

func appendPosition(b []byte, p protocol.Position) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendUint(b, uint64(p.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(p.Character), 10)
	return append(b, '}')
}

// fixPrompt asks the agent to fix one diagnostic.
func fixPrompt(d protocol.Diagnostic, msg string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fix this %s reported at line %d", severityName(d.Severity), d.Range.Start.Line+1)
	if src, ok := d.Source.Get(); ok && src != "" {
		fmt.Fprintf(&b, " by %s", src)
	}
	switch c := d.Code.(type) {
	case protocol.String:
		if c != "" {
			fmt.Fprintf(&b, " (code %s)", string(c))
		}
	case protocol.Integer:
		fmt.Fprintf(&b, " (code %d)", int32(c))
	}
	fmt.Fprintf(&b, ":\n%s\nMake the smallest change that fixes it.", msg)
	return b.String()
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "problem (information)"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "problem"
}

// diagnosticText is a diagnostic's message (plain or markup).
func diagnosticText(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return strings.TrimSpace(string(m))
	case *protocol.MarkupContent:
		if m != nil {
			return strings.TrimSpace(m.Value)
		}
	}
	return ""
}

// kindWanted reports whether an action of kind passes context.only (nil or
// empty: everything).
func kindWanted(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}
