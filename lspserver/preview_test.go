package lspserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Preview without a plugin: a client that knows nothing of agentls (no
// agentls/* methods, no code lenses) sees each pending hunk as a
// diagnostic showing the change, and as a Markdown diff in hover.

const previewBase = "package main\n\nfunc greet() string {\n\treturn \"hi\"\n}\n\nfunc main() {\n\tprintln(greet())\n}\n"

// previewProposed changes one line and replaces one line with two.
var previewProposed = strings.NewReplacer(
	"\treturn \"hi\"\n", "\treturn \"bye\"\n",
	"\tprintln(greet())\n", "\t// say goodbye politely\n\tprintln(greet(), \"!\")\n",
).Replace(previewBase)

// previewDiag is a published diagnostic as the wire carried it.
type previewDiag struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Source   string         `json:"source"`
	Message  string         `json:"message"`
	Data     struct {
		HunkID string `json:"hunkId"`
		RunID  string `json:"runId"`
	} `json:"data"`
}

type publishParams struct {
	URI         uri.URI       `json:"uri"`
	Version     *int32        `json:"version"`
	Diagnostics []previewDiag `json:"diagnostics"`
}

// awaitDiagnostics waits for a publishDiagnostics for u that pred accepts
// and returns it.
func awaitDiagnostics(t *testing.T, c *lsptest.Client, u uri.URI, what string, pred func(publishParams) bool) publishParams {
	t.Helper()
	var got publishParams
	_, err := c.Await(lsptest.Context(t), protocol.MethodTextDocumentPublishDiagnostics, func(m lsptest.Message) bool {
		var p publishParams
		if m.DecodeParams(&p) != nil || p.URI != u || !pred(p) {
			return false
		}
		got = p
		return true
	})
	if err != nil {
		t.Fatalf("no publishDiagnostics for %s with %s: %v", u, what, err)
	}
	return got
}

func withCount(n int) func(publishParams) bool {
	return func(p publishParams) bool { return len(p.Diagnostics) == n }
}

func (e *fakeEditor) hover(t *testing.T, u uri.URI, line, char uint32) string {
	t.Helper()
	var res *struct {
		Contents struct {
			Kind  string `json:"kind"`
			Value string `json:"value"`
		} `json:"contents"`
		Range protocol.Range `json:"range"`
	}
	err := e.c.Call(lsptest.Context(t), protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position:     protocol.Position{Line: line, Character: char},
		},
	}, &res)
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if res == nil {
		return ""
	}
	if res.Contents.Kind != "markdown" {
		t.Fatalf("hover kind %q, want markdown", res.Contents.Kind)
	}
	return res.Contents.Value
}

func TestPreviewWithoutPlugin(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{ClientName: "plain"}, lspserver.Options{})
	e := editorFor(s, text.UTF16)
	var init struct {
		Capabilities struct {
			HoverProvider bool `json:"hoverProvider"`
		} `json:"capabilities"`
	}
	// newSession consumed the initialize result; it is in the wire record.
	for _, m := range e.c.Received() {
		if m.IsResponse() && json.Unmarshal(m.Result, &init) == nil && init.Capabilities.HoverProvider {
			break
		}
	}
	if !init.Capabilities.HoverProvider {
		t.Fatal("hoverProvider is not advertised")
	}

	u := e.open(t, "main.go", previewBase)
	e.stage("r1", "main.go", previewBase, previewProposed, false)

	// Both hunks arrive as diagnostics, exact and compact.
	pub := awaitDiagnostics(t, e.c, u, "2 diagnostics", withCount(2))
	hunks := e.hunks(t, u)
	if len(hunks) != 2 {
		t.Fatalf("%d hunks, want 2", len(hunks))
	}
	one, two := pub.Diagnostics[0], pub.Diagnostics[1]
	for i, d := range pub.Diagnostics {
		if d.Source != "agentls" || d.Severity != int(protocol.DiagnosticSeverityInformation) {
			t.Errorf("diagnostic %d: source %q severity %d, want agentls / Information", i, d.Source, d.Severity)
		}
		if d.Data.HunkID != hunks[i].ID || d.Data.RunID != "r1" || d.Range != hunks[i].Range {
			t.Errorf("diagnostic %d is %+v, want hunk %s at %+v", i, d, hunks[i].ID, hunks[i].Range)
		}
	}
	if want := `Agent proposes: return "bye"   (replacing: return "hi")`; one.Message != want {
		t.Errorf("one-line hunk message %q, want %q", one.Message, want)
	}
	if want := "Agent proposes replacing 1 line with 2:\n- \tprintln(greet())\n+ \t// say goodbye politely\n+ \tprintln(greet(), \"!\")"; two.Message != want {
		t.Errorf("multi-line hunk message %q, want %q", two.Message, want)
	}
	if pub.Version == nil || *pub.Version != 1 {
		t.Errorf("published for version %v, want 1", pub.Version)
	}

	// Hover over the second hunk shows the whole change as a diff;
	// elsewhere there is nothing.
	h := e.hover(t, u, two.Range.Start.Line, 3)
	for _, want := range []string{"```diff\n", "-\tprintln(greet())\n+\t// say goodbye politely\n+\tprintln(greet(), \"!\")\n```", "Agent: Accept change"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
	if h := e.hover(t, u, 0, 0); h != "" {
		t.Errorf("hover outside any hunk: %q", h)
	}

	// The accept/reject actions are linked to the diagnostic, and the
	// diagnostic itself is not offered as a problem for the agent to fix.
	var raw []json.RawMessage
	wireDiag := protocol.Diagnostic{Range: one.Range, Severity: protocol.DiagnosticSeverityInformation,
		Source: protocol.NewOptional("agentls"), Message: protocol.String(one.Message)}
	if err := e.c.Call(lsptest.Context(t), protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: one.Range,
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{wireDiag}},
	}, &raw); err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, m := range raw {
		var a struct {
			Title       string        `json:"title"`
			Diagnostics []previewDiag `json:"diagnostics"`
		}
		if err := json.Unmarshal(m, &a); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(a.Title, "Agent: Fix") {
			t.Errorf("the preview diagnostic is offered for fixing: %q", a.Title)
		}
		if strings.HasPrefix(a.Title, "Agent: Accept change") || strings.HasPrefix(a.Title, "Agent: Reject change") {
			if len(a.Diagnostics) != 1 || a.Diagnostics[0].Data.HunkID != hunks[0].ID || a.Diagnostics[0].Message != one.Message {
				t.Errorf("%q lists diagnostics %+v, want the hunk's", a.Title, a.Diagnostics)
			}
			linked++
		}
	}
	if linked != 2 {
		t.Errorf("%d accept/reject actions, want 2", linked)
	}

	// Typing two lines above moves both diagnostics down two lines.
	e.typeAt(t, u, 0, 0, "// top\n// notes\n")
	moved := awaitDiagnostics(t, e.c, u, "moved diagnostics", func(p publishParams) bool {
		return len(p.Diagnostics) == 2 && p.Diagnostics[0].Range.Start.Line == one.Range.Start.Line+2
	})
	if moved.Diagnostics[1].Range.Start.Line != two.Range.Start.Line+2 {
		t.Errorf("second diagnostic at line %d after typing, want %d", moved.Diagnostics[1].Range.Start.Line, two.Range.Start.Line+2)
	}
	if moved.Version == nil || *moved.Version != 2 {
		t.Errorf("moved diagnostics published for version %v, want 2", moved.Version)
	}

	// Accepting the first hunk removes its diagnostic; rejecting the other
	// clears the document.
	if res := e.accept(t, reviewArgs{HunkID: hunks[0].ID}); !res.Applied {
		t.Fatalf("accept: %+v", res)
	}
	left := awaitDiagnostics(t, e.c, u, "1 diagnostic", withCount(1))
	if left.Diagnostics[0].Data.HunkID != hunks[1].ID {
		t.Errorf("after accept the diagnostic left is %+v, want hunk %s", left.Diagnostics[0], hunks[1].ID)
	}
	if n := e.reject(t, reviewArgs{HunkID: hunks[1].ID}); n != 1 {
		t.Fatalf("rejected %d, want 1", n)
	}
	awaitDiagnostics(t, e.c, u, "no diagnostics", withCount(0))
	if h := e.hover(t, u, left.Diagnostics[0].Range.Start.Line, 0); h != "" {
		t.Errorf("hover after the reject: %q", h)
	}
}

func TestPreviewConflictedIsWarning(t *testing.T) {
	e := newReviewSession(t, reviewOpts{})
	u := e.open(t, "main.go", previewBase)
	e.stage("r1", "main.go", previewBase, previewProposed, false)
	pub := awaitDiagnostics(t, e.c, u, "2 diagnostics", withCount(2))

	// The user edits the first hunk's line: it conflicts and says so.
	start := strings.Index(previewBase, `"hi"`)
	e.typeAt(t, u, start+1, start+3, "hello")
	got := awaitDiagnostics(t, e.c, u, "a warning", func(p publishParams) bool {
		return len(p.Diagnostics) == 2 && p.Diagnostics[0].Severity == int(protocol.DiagnosticSeverityWarning)
	})
	d := got.Diagnostics[0]
	if !strings.HasPrefix(d.Message, "Conflicted agent proposal (") || !strings.Contains(d.Message, `Agent proposes: return "bye"`) {
		t.Errorf("conflicted message %q", d.Message)
	}
	if got.Diagnostics[1].Severity != int(protocol.DiagnosticSeverityInformation) || got.Diagnostics[1].Message != pub.Diagnostics[1].Message {
		t.Errorf("the other hunk changed: %+v", got.Diagnostics[1])
	}
	if h := e.hover(t, u, d.Range.Start.Line, 1); !strings.Contains(h, "conflicted proposal") {
		t.Errorf("hover over a conflicted hunk: %q", h)
	}
}

func TestPreviewDiagnosticsOff(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{
		InitializationOptions: map[string]any{"preview": map[string]any{"diagnostics": false}},
	}, lspserver.Options{})
	e := editorFor(s, text.UTF16)
	u := e.open(t, "main.go", previewBase)
	e.stage("r1", "main.go", previewBase, previewProposed, false)
	awaitProposalsChanged(t, e, u)
	e.typeAt(t, u, 0, 0, "// top\n")
	// Turning them on publishes the hunks; that publication must be the
	// first one the client ever saw.
	if err := e.c.Notify(lsptest.Context(t), protocol.MethodWorkspaceDidChangeConfiguration,
		map[string]any{"settings": map[string]any{"agentls": map[string]any{"preview": map[string]any{"diagnostics": true}}}}); err != nil {
		t.Fatal(err)
	}
	awaitDiagnostics(t, e.c, u, "2 diagnostics", withCount(2))
	n := 0
	for _, m := range e.c.Received() {
		if m.Method == protocol.MethodTextDocumentPublishDiagnostics {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d publishDiagnostics, want only the one after the settings turned them on", n)
	}
	// Code actions carry no diagnostics while off; switch off again:
	// the diagnostics are cleared.
	if err := e.c.Notify(lsptest.Context(t), protocol.MethodWorkspaceDidChangeConfiguration,
		map[string]any{"settings": map[string]any{"agentls": map[string]any{"preview": map[string]any{"diagnostics": false}}}}); err != nil {
		t.Fatal(err)
	}
	awaitDiagnostics(t, e.c, u, "cleared diagnostics", withCount(0))
}

// N9: a 10 MB one-line proposal is a few kilobytes in the diagnostic and
// the hover (ending in "… N more characters"), not 10 MB each; the
// proposal in agentls/proposals stays whole, since plugins render it
// exactly (docs/protocol.md).
func TestPreviewBoundsHugeLines(t *testing.T) {
	s := newSession(t, lsptest.InitOptions{ClientName: "plain"}, lspserver.Options{})
	e := editorFor(s, text.UTF16)
	base := "package main\n\nvar x = 1\n"
	huge := "var x = \"" + strings.Repeat("é", 5<<20) + "\"\n" // 10 MB, one line
	proposed := strings.Replace(base, "var x = 1\n", huge, 1)
	u := e.open(t, "main.go", base)
	e.stage("r1", "main.go", base, proposed, false)
	pub := awaitDiagnostics(t, e.c, u, "1 diagnostic", withCount(1))
	msg := pub.Diagnostics[0].Message
	if len(msg) > 5<<10 || !strings.Contains(msg, "more characters") || !strings.HasPrefix(msg, "Agent proposes: var x = \"éé") {
		t.Errorf("diagnostic message is %d bytes: %.200q…", len(msg), msg)
	}
	hover := e.hover(t, u, 2, 0)
	if len(hover) > 20<<10 || !strings.Contains(hover, "more characters") || !strings.Contains(hover, "+var x = \"éé") {
		t.Errorf("hover is %d bytes: %.300q…", len(hover), hover)
	}
	ps := e.proposals(t, u)
	if len(ps) != 1 || ps[0].ProposedText != proposed || ps[0].Hunks[0].NewText != huge {
		t.Errorf("agentls/proposals did not carry the proposal whole")
	}

	// Many long lines: the hover stops after a bounded diff and counts the rest.
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("// " + strings.Repeat("x", 100) + strings.Repeat("y", i%7) + "\n")
	}
	u2 := e.open(t, "long.go", "")
	e.stage("r2", "long.go", "", b.String(), false)
	awaitDiagnostics(t, e.c, u2, "1 diagnostic", withCount(1))
	if h := e.hover(t, u2, 0, 0); len(h) > 20<<10 || !strings.Contains(h, "more lines (the hover shows at most 16 KB") {
		t.Errorf("hover of 2000 lines is %d bytes, tail %q", len(h), h[max(0, len(h)-200):])
	}
}
