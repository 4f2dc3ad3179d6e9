package lspserver_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/llm/llmtest"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// Tasks from a comment: a plain LSP client (no agentls/* methods) sees a
// "… agent!" comment as an Information diagnostic at the comment, is
// offered "Agent: <words>" on its line, and that action starts a run
// whose prompt carries the words and whose editor context is the code
// around the comment.

// taskDiag is a published diagnostic with its code.
type taskDiag struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Source   string         `json:"source"`
	Code     string         `json:"code"`
	Message  string         `json:"message"`
}

type taskPublish struct {
	URI         uri.URI    `json:"uri"`
	Diagnostics []taskDiag `json:"diagnostics"`
}

func awaitTasks(t *testing.T, c *lsptest.Client, u uri.URI, what string, pred func([]taskDiag) bool) []taskDiag {
	t.Helper()
	var got []taskDiag
	_, err := c.Await(lsptest.Context(t), protocol.MethodTextDocumentPublishDiagnostics, func(m lsptest.Message) bool {
		var p taskPublish
		if m.DecodeParams(&p) != nil || p.URI != u || !pred(p.Diagnostics) {
			return false
		}
		got = p.Diagnostics
		return true
	})
	if err != nil {
		t.Fatalf("no publishDiagnostics for %s with %s: %v", u, what, err)
	}
	return got
}

// utf16Col is the UTF-16 length of s.
func utf16Col(s string) uint32 { return uint32(len(utf16.Encode([]rune(s)))) }

func TestTaskComment(t *testing.T) {
	t.Parallel()
	rs := newRunSession(t, llmtest.Always(llmtest.Text("Added the error handling.")), runOpts{
		init: lsptest.InitOptions{ClientName: "plain", PositionEncodings: []string{"utf-16"}},
	})
	ctx := lsptest.Context(t)
	// A string with an accent and an emoji before the comment: the range
	// is in UTF-16 units, not bytes or code points.
	before := "\tdata, _ := os.ReadFile(\"é😀\") "
	comment := "// add error handling agent!"
	src := "package main\n\nimport \"os\"\n\nfunc load() []byte {\n" + before + comment + "\n\treturn data\n}\n"
	path := rs.write(t, "main.go", src)
	u := uri.File(path)
	if err := rs.c.DidOpen(ctx, u, "go", 1, src); err != nil {
		t.Fatal(err)
	}

	diags := awaitTasks(t, rs.c, u, "the task's diagnostic", func(d []taskDiag) bool { return len(d) == 1 })
	d := diags[0]
	want := rng(5, utf16Col(before), 5, utf16Col(before+comment))
	if d.Range != want || d.Severity != int(protocol.DiagnosticSeverityInformation) || d.Source != "agentls" || d.Code != "agent-task" {
		t.Fatalf("diagnostic %+v, want Information agentls/agent-task at %v", d, want)
	}
	if !strings.Contains(d.Message, "add error handling") || !strings.Contains(d.Message, "Agent: add error handling") {
		t.Errorf("message %q does not say the task and its action", d.Message)
	}

	// The cursor anywhere on the line; the client sends no diagnostics
	// (a plain client need not): the action is offered first.
	as := codeActionsOf(t, rs.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng(5, 2, 5, 2),
	})
	if got := titles(as); len(got) == 0 || got[0] != "Agent: add error handling" || slices.Contains(got[1:], got[0]) {
		t.Fatalf("titles %q, want one \"Agent: add error handling\" first", got)
	}
	task := as[0]
	if task.Kind == nil || *task.Kind != protocol.CodeActionKindQuickFix || len(task.Diagnostics) != 1 || task.Diagnostics[0].Range != want {
		t.Errorf("task action %+v: want a quickfix listing the task's diagnostic", task)
	}
	args := runArgsOf(t, task)
	if args.URI != string(u) || args.Range == nil || args.Range.Start.Line != 0 || args.Range.End.Line < 6 {
		t.Errorf("task args %+v: want the uri and the lines around the comment", args)
	}
	// Other lines do not offer it; context.only refactor does not either.
	for _, p := range []*protocol.CodeActionParams{
		{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng(6, 0, 6, 0)},
		{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng(5, 0, 5, 0), Context: protocol.CodeActionContext{Only: []protocol.CodeActionKind{protocol.CodeActionKindRefactor}}},
	} {
		if got := titles(codeActionsOf(t, rs.c, p)); slices.Contains(got, "Agent: add error handling") {
			t.Errorf("offered at %v only %v: %q", p.Range, p.Context.Only, got)
		}
	}

	// Picking it starts a run with the words, the instruction to remove
	// the comment, and the file and code around it as editor context.
	var res lspserver.RunResult
	if err := rs.c.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: task.Command.Command, Arguments: task.Command.Arguments,
	}, &res); err != nil {
		t.Fatal(err)
	}
	rs.event(t, res.RunID, "finished")
	msg := rs.model.Requests()[0].LastUser()
	for _, frag := range []string{"add error handling", "remove that comment", "main.go", "func load() []byte", "return data"} {
		if !strings.Contains(msg, frag) {
			t.Errorf("task message lacks %q:\n%s", frag, msg)
		}
	}

	// Typing follows: the comment edited away clears the diagnostic (one
	// publication for the document, with nothing in it).
	if err := rs.c.DidChange(ctx, u, 2, lsptest.Partial(5, utf16Col(before), 5, utf16Col(before+comment), "")); err != nil {
		t.Fatal(err)
	}
	awaitTasks(t, rs.c, u, "no diagnostics", func(d []taskDiag) bool { return len(d) == 0 })
	if got := titles(codeActionsOf(t, rs.c, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng(5, 0, 5, 0),
	})); slices.Contains(got, "Agent: add error handling") {
		t.Errorf("the action outlived its comment: %q", got)
	}
}

// TestTaskCommentMergesWithPreview: a document with a proposal under
// review and a task comment gets both in each publication, so neither
// erases the other in the client; didClose forgets the task.
func TestTaskCommentMergesWithPreview(t *testing.T) {
	t.Parallel()
	s := newSession(t, lsptest.InitOptions{ClientName: "plain"}, lspserver.Options{})
	e := editorFor(s, 0)
	withTask := strings.Replace(previewBase, "func main() {\n", "func main() { // greet twice agent!\n", 1)
	proposed := strings.Replace(withTask, "\treturn \"hi\"\n", "\treturn \"bye\"\n", 1)
	u := e.open(t, "main.go", withTask)
	awaitTasks(t, e.c, u, "the task", func(d []taskDiag) bool { return len(d) == 1 && d[0].Code == "agent-task" })
	e.stage("r1", "main.go", withTask, proposed, false)
	got := awaitTasks(t, e.c, u, "the task and the hunk", func(d []taskDiag) bool { return len(d) == 2 })
	codes := []string{got[0].Code, got[1].Code}
	slices.Sort(codes)
	if !slices.Equal(codes, []string{"agent-task", "proposal"}) {
		t.Fatalf("codes %q, want the proposal's and the task's", codes)
	}
	if err := e.c.DidClose(lsptest.Context(t), u); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Document(lsptest.Context(t), u); err != nil { // didClose processed
		t.Fatal(err)
	}
	if n := lspserver.DocumentMapSizes(s.srv)["runs.tasks"]; n != 0 {
		t.Errorf("the task book holds %d documents after didClose", n)
	}
}
